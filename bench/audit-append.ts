// How many audit events per second the log makes durable, with its group-commit fsync policy.
// Not a test: speed depends on the disk. Run: node --import tsx bench/audit-append.ts [events]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AuditLog } from '../src/audit/log.js';
import type { AuditEvent } from '../src/audit/event.js';

export interface AuditAppendFigures {
  events: number;
  seconds: number;
  appendsPerSecond: number;
  /** Appends issued one after another (each awaits its fsync) vs all at once (sharing fsyncs). */
  mode: 'sequential' | 'concurrent';
  fsync: 'group commit: one fsync per batch';
}

const event: AuditEvent = {
  phase: 'result',
  call_id: 'bench',
  profile: 'bench',
  audit_label: null,
  login: 'bench',
  tool: 'gitea_repos_get',
  operation: 'gitea.repo.read',
  decision: 'allow',
  reason: 'allowed',
  target: { owner: 'acme', repo: 'widgets', index: null },
  status: 'ok',
  http_status: 200,
  argument_names: ['owner', 'repo'],
};

async function measure(path: string, events: number, mode: AuditAppendFigures['mode']): Promise<AuditAppendFigures> {
  const log = await AuditLog.open(path);
  const start = process.hrtime.bigint();
  if (mode === 'sequential') {
    for (let i = 0; i < events; i += 1) await log.append(event);
  } else {
    await Promise.all(Array.from({ length: events }, () => log.append(event)));
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await log.close();
  return {
    events,
    seconds,
    appendsPerSecond: Math.round(events / seconds),
    mode,
    fsync: 'group commit: one fsync per batch',
  };
}

/** Appends `events` events to a fresh log in the temp directory, both ways, and removes it. */
export async function benchAuditAppend(events = 500): Promise<AuditAppendFigures[]> {
  const dir = await mkdtemp(join(tmpdir(), 'warden-bench-audit-'));
  try {
    return [
      await measure(join(dir, 'sequential.jsonl'), events, 'sequential'),
      await measure(join(dir, 'concurrent.jsonl'), events, 'concurrent'),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const events = Number(process.argv[2] ?? 500);
  for (const f of await benchAuditAppend(events)) {
    process.stdout.write(
      `audit append (${f.mode}, ${f.fsync}): ${f.events} events in ${f.seconds.toFixed(3)} s = ${f.appendsPerSecond}/s\n`,
    );
  }
}
