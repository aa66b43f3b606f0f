// Items 4 and 5 of the benchmark. Start-up: from spawning one stdio namespace process to its first
// answered tools/list, and that process's resident memory (VmRSS) right after. Listing size: what
// each reference namespace sends on tools/list (tools, bytes, bytes/4 as a token estimate), as the
// server computes it (namespaceListing), cross-checked against one live tools/list.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { profilesDir } from '../src/shared/paths.js';
import { profileFilesIn } from '../src/policy-files/profile-files.js';
import { startSandbox } from '../src/sandbox/index.js';
import { namespaceListing } from '../src/server/namespace-report.js';
import { namespaceEnv, repoRoot, SERVE_ARGS, tempDir } from '../test/support/namespace.js';
import { nowMicroseconds, overRounds, progress, type Spread } from './stats.js';

const PROFILE = 'gitea-author';

export interface StartupFigures {
  profile: string;
  command: string;
  startupMilliseconds: Spread;
  rssMegabytes: Spread;
  /** Bytes of the live tools/list result ({"tools": [...]}), to compare with the listing table. */
  liveListBytes: number;
}

export interface ListingFigures {
  profile: string;
  tools: number;
  bytes: number;
  estimatedTokens: number;
}

export async function benchStartup(rounds: number): Promise<StartupFigures> {
  const sandbox = await startSandbox();
  const audit = tempDir('warden-bench-startup-');
  let liveListBytes = 0;
  try {
    const figures = await overRounds(rounds, async (round) => {
      progress(`start-up: round ${round + 1} of ${rounds}`);
      const env = namespaceEnv(sandbox, PROFILE, { auditLog: `${audit.path}/audit-${round}.jsonl` });
      const transport = new StdioClientTransport({ command: process.execPath, args: SERVE_ARGS, env, cwd: repoRoot, stderr: 'ignore' });
      const client = new Client({ name: 'warden-bench', version: '0.0.0' });
      const start = nowMicroseconds();
      try {
        await client.connect(transport);
        const listed = await client.listTools();
        const milliseconds = (nowMicroseconds() - start) / 1000;
        liveListBytes = Buffer.byteLength(JSON.stringify({ tools: listed.tools }), 'utf8');
        return { startupMilliseconds: milliseconds, rssMegabytes: residentMegabytes(transport.pid) };
      } finally {
        await client.close();
      }
    });
    return { profile: PROFILE, command: `node ${SERVE_ARGS.join(' ')}`, ...figures, liveListBytes };
  } finally {
    await sandbox.close();
    audit.dispose();
  }
}

/** VmRSS of a live process from /proc (Linux); NaN where /proc is not available. */
function residentMegabytes(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    const kilobytes = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kilobytes === undefined ? Number.NaN : Number(kilobytes) / 1024;
  } catch {
    return Number.NaN;
  }
}

export function benchListings(): ListingFigures[] {
  return profileFilesIn(profilesDir).map((file) => {
    const listing = namespaceListing(file);
    return { profile: listing.profile, tools: listing.tools.length, bytes: listing.bytes, estimatedTokens: listing.estimatedTokens };
  });
}
