import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import {
  appendFile,
  chmod,
  mkdir,
  mkdtemp,
  open,
  readFile,
  rename,
  rm,
  truncate,
  unlink,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { GENESIS_PREV } from '../src/audit/chain.js';
import { argumentNames, type AuditEvent } from '../src/audit/event.js';
import { AuditChainError, AuditLog, AuditWriteError } from '../src/audit/log.js';
import { defaultAuditPath } from '../src/audit/path.js';
import { verifyAuditLog } from '../src/audit/verify.js';
import { sampleEvent } from './fixtures/audit-sample.js';

let dir: string;
let counter = 0;
const freshPath = (): string => join(dir, `log-${(counter += 1)}`, 'audit.jsonl');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-audit-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * src/audit/*.ts transpiled into `into`/audit-js/, plus a script that opens the log given as its
 * argument and appends one event, printing the outcome as JSON. World-readable, so another user runs it.
 */
async function unprivilegedAuditRunner(into: string): Promise<string> {
  const out = join(into, 'audit-js');
  await mkdir(out, { recursive: true, mode: 0o755 });
  const sourceDir = join(import.meta.dirname, '..', 'src', 'audit');
  for (const file of readdirSync(sourceDir).filter((f) => f.endsWith('.ts'))) {
    const source = await readFile(join(sourceDir, file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(join(out, file.replace(/\.ts$/, '.js')), outputText, { mode: 0o644 });
  }
  const runner = join(out, 'open-and-append.mjs');
  const event = JSON.stringify(sampleEvent(1));
  await writeFile(
    runner,
    [
      `import { AuditLog } from './log.js';`,
      `try {`,
      `  const log = await AuditLog.open(process.argv[2]);`,
      `  await log.append(${event});`,
      `  await log.close();`,
      `  process.stdout.write(JSON.stringify({ ok: true }));`,
      `} catch (error) {`,
      `  process.stdout.write(JSON.stringify({ ok: false, name: error.name, message: error.message, code: error.code }));`,
      `}`,
    ].join('\n'),
    { mode: 0o644 },
  );
  return runner;
}

function canWrite(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

async function writeEvents(path: string, count: number): Promise<void> {
  const log = await AuditLog.open(path);
  for (let n = 1; n <= count; n += 1) await log.append(sampleEvent(n));
  await log.close();
}

describe('AuditLog', () => {
  test('starts a chain at the genesis value and writes a log that verifies', async () => {
    const path = freshPath();
    const log = await AuditLog.open(path);
    const first = await log.append(sampleEvent(1));
    const second = await log.append(sampleEvent(2));
    await log.close();
    assert.equal(first.seq, 1);
    assert.equal(first.prev, GENESIS_PREV);
    assert.equal(second.seq, 2);
    assert.notEqual(second.prev, GENESIS_PREV);
    assert.deepEqual(verifyAuditLog(await readFile(path, 'utf8')), { ok: true, events: 2 });
  });

  test('concurrent appends keep the chain ordered, in call order', async () => {
    const path = freshPath();
    const log = await AuditLog.open(path);
    const events = await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(sampleEvent(i + 1))));
    await log.close();
    assert.deepEqual(
      events.map((e) => e.seq),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.deepEqual(verifyAuditLog(await readFile(path, 'utf8')), { ok: true, events: 20 });
  });

  test('continues the chain across a reopen', async () => {
    const path = freshPath();
    await writeEvents(path, 3);
    const log = await AuditLog.open(path);
    const next = await log.append(sampleEvent(4));
    await log.close();
    assert.equal(next.seq, 4);
    assert.deepEqual(verifyAuditLog(await readFile(path, 'utf8')), { ok: true, events: 4 });
  });

  test('continues a long chain whose tail spans more than one read chunk', async () => {
    const path = freshPath();
    const wide = sampleEvent(1, { argument_names: Array.from({ length: 4000 }, (_, i) => `body.field_${i}`) });
    const log = await AuditLog.open(path);
    for (let n = 0; n < 4; n += 1) await log.append(wide);
    await log.close();
    const reopened = await AuditLog.open(path);
    assert.equal((await reopened.append(sampleEvent(5))).seq, 5);
    await reopened.close();
    assert.deepEqual(verifyAuditLog(await readFile(path, 'utf8')), { ok: true, events: 5 });
  });

  test('fills the time from the injected clock when the caller leaves it out', async () => {
    const path = freshPath();
    const log = await AuditLog.open(path, { clock: () => new Date('2030-05-06T07:08:09.000Z') });
    const { time: _time, ...untimed } = sampleEvent(1);
    const event = await log.append(untimed);
    await log.close();
    assert.equal(event.time, '2030-05-06T07:08:09.000Z');
  });

  test('writes only the known fields, so a stray value never reaches the file', async () => {
    const path = freshPath();
    const log = await AuditLog.open(path);
    await log.append({ ...sampleEvent(1), token: 'hunter2-secret-value' } as AuditEvent);
    await log.close();
    assert.doesNotMatch(await readFile(path, 'utf8'), /hunter2/);
  });

  const brokenTails: { name: string; damage: (text: string) => string; line: RegExp }[] = [
    {
      name: 'an edited last line',
      damage: (t) => t.replace(/"profile":"reviewer"(?=[^\n]*\n$)/, '"profile":"admin"'),
      line: /line 3 .*hash does not match/,
    },
    { name: 'a torn last line', damage: (t) => t.slice(0, -30), line: /line 3 .*truncated final line/ },
    {
      name: 'a dropped line before the last',
      damage: (t) =>
        t
          .split('\n')
          .filter((_, i) => i !== 1)
          .join('\n'),
      line: /line 2 .*prev does not match/,
    },
  ];
  for (const { name, damage, line } of brokenTails) {
    test(`refuses to open a log with ${name}, naming the line`, async () => {
      const path = freshPath();
      await writeEvents(path, 3);
      await writeFile(path, damage(await readFile(path, 'utf8')));
      await assert.rejects(AuditLog.open(path), (error: unknown) => {
        assert.ok(error instanceof AuditChainError);
        assert.match(error.message, line);
        assert.match(error.message, /audit verify/);
        return true;
      });
    });
  }

  test('refuses to open a log that does not start at the genesis value', async () => {
    const path = freshPath();
    await writeEvents(path, 2);
    const [, second] = (await readFile(path, 'utf8')).split('\n');
    await writeFile(path, `${second}\n`);
    await assert.rejects(AuditLog.open(path), /line 1 .*genesis/);
  });

  // /dev/full accepts the open and fails every write (ENOSPC); its lock file goes beside it in /dev.
  const devFullUsable = existsSync('/dev/full') && canWrite('/dev');
  test(
    'a failed write rejects with the path and errno code, and every later append rejects too',
    { skip: !devFullUsable && 'needs /dev/full and a writable /dev' },
    async () => {
      const log = await AuditLog.open('/dev/full');
      for (const n of [1, 2]) {
        await assert.rejects(log.append(sampleEvent(n)), (error: unknown) => {
          assert.ok(error instanceof AuditWriteError);
          assert.equal(error.code, 'ENOSPC');
          assert.match(error.message, /\/dev\/full.*ENOSPC/);
          return true;
        });
      }
      await log.close();
    },
  );

  test('one writer per log: a second open is refused while the first holds it, and allowed after close', async () => {
    const path = freshPath();
    const first = await AuditLog.open(path);
    await assert.rejects(AuditLog.open(path), (error: unknown) => {
      assert.ok(error instanceof AuditWriteError);
      assert.equal(error.code, 'ELOCKED');
      assert.match(error.message, new RegExp(`process ${process.pid}.*its own AUDIT_LOG`));
      return true;
    });
    await first.append(sampleEvent(1));
    await first.close();
    await writeEvents(path, 1);
    assert.deepEqual(verifyAuditLog(await readFile(path, 'utf8')), { ok: true, events: 2 });
  });

  test('a lock left by a process that is gone (a crash) is taken over', async () => {
    const path = freshPath();
    await writeEvents(path, 1);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    await writeFile(`${path}.lock`, gone.stdout);
    await writeEvents(path, 1);
    assert.deepEqual(verifyAuditLog(await readFile(path, 'utf8')), { ok: true, events: 2 });
    assert.equal(existsSync(`${path}.lock`), false);
  });

  test('a read-only log file cannot be opened for appending (fails closed)', async () => {
    const path = freshPath();
    await writeEvents(path, 1);
    await chmod(path, 0o444);
    await chmod(join(path, '..'), 0o755);
    await chmod(dir, 0o755);
    // root ignores file modes, so the attempt runs as an unprivileged user when the tests run as root.
    // That user may not be able to read this checkout (or tsx's cache), wherever it lives: the child runs
    // the audit modules compiled into the temp dir, with plain node, in a directory it can read.
    const runner = await unprivilegedAuditRunner(dir);
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const child = spawnSync(process.execPath, [runner, path], {
      encoding: 'utf8',
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      ...asUser,
    });
    assert.equal(
      child.status,
      0,
      `the child failed: ${child.error?.message ?? child.stderr} (node at ${process.execPath} must be executable by uid 65534)`,
    );
    const outcome = JSON.parse(child.stdout) as { ok: boolean; name?: string; code?: string; message?: string };
    assert.deepEqual(
      { ok: outcome.ok, name: outcome.name, code: outcome.code },
      { ok: false, name: 'AuditWriteError', code: 'EACCES' },
    );
    assert.ok(outcome.message?.includes(path));
  });

  test('append after close rejects', async () => {
    const log = await AuditLog.open(freshPath());
    await log.close();
    await assert.rejects(log.append(sampleEvent(1)), AuditWriteError);
  });

  test('a log appended to by hand with a valid-looking line still refuses when the link is wrong', async () => {
    const path = freshPath();
    await writeEvents(path, 2);
    const [first] = (await readFile(path, 'utf8')).split('\n');
    await appendFile(path, `${first}\n`);
    await assert.rejects(AuditLog.open(path), AuditChainError);
  });
});

describe('AuditLog: group commit', () => {
  test('concurrent appends share fsyncs, and each resolves only once an fsync covered its line', async () => {
    const path = freshPath();
    const log = await AuditLog.open(path);
    // Every fsync of a handle records how many bytes of the log it made durable.
    const handleProto = Object.getPrototypeOf(await open(path, 'r').then(async (h) => (await h.close(), h)));
    const realSync = handleProto.sync;
    let syncs = 0;
    let durableBytes = 0;
    handleProto.sync = async function (this: FileHandle) {
      const { size } = await this.stat();
      await realSync.call(this);
      syncs += 1;
      durableBytes = Math.max(durableBytes, size);
    };
    try {
      const sizes = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          log.append(sampleEvent(i + 1)).then(async (event) => {
            const text = await readFile(path, 'utf8');
            const end = text.split('\n').slice(0, event.seq).join('\n').length + 1;
            return { end: Buffer.byteLength(text.slice(0, end)), durable: durableBytes };
          }),
        ),
      );
      for (const { end, durable } of sizes)
        assert.ok(durable >= end, `resolved at ${durable} durable bytes, its line ends at ${end}`);
      assert.ok(syncs < 16, `16 concurrent appends took ${syncs} fsyncs`);
      assert.ok(syncs >= 1);
    } finally {
      handleProto.sync = realSync;
      await log.close();
    }
    assert.deepEqual(verifyAuditLog(await readFile(path, 'utf8')), { ok: true, events: 16 });
  });
});

describe('AuditLog: the path must still name the log it holds', () => {
  const changes: { name: string; change: (path: string) => Promise<void>; code: string }[] = [
    { name: 'deleted', change: (path) => unlink(path), code: 'ENOENT' },
    { name: 'renamed', change: (path) => rename(path, `${path}.moved`), code: 'ENOENT' },
    {
      name: 'replaced by another file',
      change: async (path) => {
        await rename(path, `${path}.old`);
        await writeFile(path, '');
      },
      code: 'EREPLACED',
    },
    { name: 'written to by someone else', change: (path) => appendFile(path, '{"forged":true}\n'), code: 'EMODIFIED' },
    { name: 'truncated by someone else', change: (path) => truncate(path, 10), code: 'EMODIFIED' },
  ];
  for (const { name, change, code } of changes) {
    test(`a log ${name} under the writer refuses the next append and every later one (${code})`, async () => {
      const path = freshPath();
      const log = await AuditLog.open(path);
      await log.append(sampleEvent(1));
      await change(path);
      await assert.rejects(
        log.append(sampleEvent(2)),
        (error: unknown) => error instanceof AuditWriteError && error.code === code,
      );
      await assert.rejects(log.append(sampleEvent(3)), AuditWriteError);
      await log.close();
    });
  }
});

describe('argumentNames', () => {
  test('lists sorted top-level names and body keys, never values', () => {
    const names = argumentNames({
      repo: 'widgets',
      owner: 'acme',
      body: { title: 'secret title', base: 'main' },
      index: 7,
    });
    assert.deepEqual(names, ['body', 'body.base', 'body.title', 'index', 'owner', 'repo']);
  });

  test('a body that is not an object adds no body keys', () => {
    assert.deepEqual(argumentNames({ body: 'text', a: 1 }), ['a', 'body']);
    assert.deepEqual(argumentNames({ body: ['x'] }), ['body']);
  });
});

describe('defaultAuditPath: one file per profile, in the state directory', () => {
  const cases: { profile: string; env: NodeJS.ProcessEnv; expected: string }[] = [
    {
      profile: 'gitea-author',
      env: { XDG_STATE_HOME: '/state', HOME: '/home/u' },
      expected: '/state/gitea-warden/audit-gitea-author.jsonl',
    },
    {
      profile: 'gitea-reviewer',
      env: { HOME: '/home/u' },
      expected: '/home/u/.local/state/gitea-warden/audit-gitea-reviewer.jsonl',
    },
    { profile: 'gitea-merger', env: {}, expected: join(process.cwd(), '.data', 'audit-gitea-merger.jsonl') },
    {
      profile: '../../etc/x y',
      env: { HOME: '/home/u' },
      expected: '/home/u/.local/state/gitea-warden/audit-.._.._etc_x_y.jsonl',
    },
  ];
  for (const { profile, env, expected } of cases) {
    test(`${profile} ${JSON.stringify(env)} -> ${expected}`, () => {
      assert.equal(defaultAuditPath(profile, env), expected);
    });
  }
});
