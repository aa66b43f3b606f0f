// `gitea-warden demo`: starts the sandbox Gitea in-process and one `gitea-warden serve` namespace
// per role (author, reviewer, merger, reconciler) over stdio, tells the story of one change through
// real MCP calls (src/cli/demo-story.ts), then verifies each namespace's audit log. Exit 0 only when
// every decision was the expected one; 1 names the mismatches; 2 for a wrong command line.
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { verifyAuditLog } from '../audit/verify.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { createNamespace, profileIdentity, type Namespace } from './demo-namespace.js';
import { describeExpected, describeObserved, mismatch, observe, type Observed } from './demo-outcome.js';
import { Printer, type AuditCheck, type Row } from './demo-report.js';
import {
  demoSeed,
  profileOf,
  ROLES,
  StoryStopped,
  tellStory,
  type Attempt,
  type Role,
  type Stage,
} from './demo-story.js';

const usage = `usage: gitea-warden demo [--json] [--audit-dir DIR]
       gitea-warden demo oauth

Starts the sandbox Gitea and four namespaces (author, reviewer, merger, reconciler), walks one
change from commit to merged-branch cleanup through real MCP calls, and shows each decision.
Exit 0 when every decision was the expected one, 1 when one was not (the mismatches are named).

  --json            print only the summary, as JSON (for scripts)
  --audit-dir DIR   where the audit logs go (default: a new directory under the system temp dir)

demo oauth: the shared service. One namespace in AUTH_MODE=oauth; alice's agent signs her in through
the consent page and the sandbox Gitea's sign-in, acts as alice within the profile; admin, whom the
profile does not name, is refused; a revoked sign-in stops working.
`;

interface Options {
  json: boolean;
  auditDir: string | null;
}

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'oauth' && argv.length === 1) {
    const { runOAuthDemo } = await import('./demo-oauth.js');
    return runOAuthDemo(process.stdout, process.stdout.isTTY === true && !process.env.NO_COLOR);
  }
  let options: Options;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, 'audit-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      process.stdout.write(usage);
      return 0;
    }
    options = { json: values.json === true, auditDir: values['audit-dir'] ?? null };
  } catch (error) {
    process.stderr.write(`gitea-warden demo: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  return demo(options);
}

async function demo(options: Options): Promise<number> {
  const printer = new Printer(
    options.json ? null : process.stdout,
    process.stdout.isTTY === true && !process.env.NO_COLOR,
  );
  const auditDir = prepareAuditDir(options.auditDir);
  const cleanup = new Cleanup();
  const stopOnSignal = () => void cleanup.run().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const rows: Row[] = [];
  let stopped: string | null = null;
  try {
    const sandbox = await startSandbox({ seed: demoSeed() });
    cleanup.add(() => sandbox.close());
    printer.chapter('0. Setting the stage');
    printer.say(
      `Sandbox Gitea at ${sandbox.url}: repository acme/widgets (main and dev protected), users alice, bob, carol, dave; ` +
        'the outsider mallory; the private acme/vault.',
    );
    printer.say(
      `Starting four namespaces (${ROLES.map(profileOf).join(', ')}), one process each, over stdio, speaking MCP 2026-07-28…`,
    );
    const namespaces = await startNamespaces(sandbox, auditDir, cleanup, printer);
    await tellStory(new LiveStage(namespaces.byRole, printer, rows), namespaces.logins);
  } catch (error) {
    stopped = error instanceof Error ? error.message : 'unexpected failure';
    if (!(error instanceof StoryStopped)) stopped = `${stopped} (${error instanceof Error ? error.name : 'error'})`;
  } finally {
    await cleanup.run();
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
  }
  const audits = verifyAuditLogs(auditDir);
  const mismatches = [
    ...rows.flatMap((row) => (row.problem === null ? [] : [`${row.namespace} ${row.call}: ${row.problem}`])),
    ...audits.flatMap((audit) => (audit.ok ? [] : [`audit log ${audit.file}: ${audit.verdict}`])),
    ...(stopped === null ? [] : [`story stopped early: ${stopped}`]),
  ];
  printer.summary(rows, audits, stopped);
  printer.conclusion(mismatches);
  if (options.json)
    process.stdout.write(
      `${JSON.stringify({ ok: mismatches.length === 0, calls: rows, audit_logs: audits, mismatches }, null, 2)}\n`,
    );
  return mismatches.length === 0 ? 0 : 1;
}

/** Runs each call in its role's namespace, prints it and keeps the row for the summary. */
class LiveStage implements Stage {
  constructor(
    private readonly namespaces: ReadonlyMap<Role, Namespace>,
    private readonly printer: Printer,
    private readonly rows: Row[],
  ) {}

  chapter(title: string): void {
    this.printer.chapter(title);
  }

  say(text: string): void {
    this.printer.say(text);
  }

  note(text: string): void {
    this.printer.detail(text);
  }

  async attempt(attempt: Attempt): Promise<Observed> {
    const namespace = this.namespaces.get(attempt.role);
    if (!namespace) throw new StoryStopped(`no ${attempt.role} namespace`);
    const observed = observe(await namespace.call(attempt.tool, attempt.args));
    const problem =
      mismatch(attempt.expect, observed) ??
      (observed.verdict === 'allow' ? (attempt.confirm?.(observed) ?? null) : null);
    const row: Row = {
      namespace: attempt.role,
      call: attempt.label ?? attempt.tool,
      expected: describeExpected(attempt.expect),
      actual: describeObserved(observed),
      problem,
    };
    this.rows.push(row);
    this.printer.call(row, observed);
    return observed;
  }
}

interface Namespaces {
  byRole: Map<Role, Namespace>;
  logins: Record<Role, string>;
}

/** One namespace per role, started side by side; each is closed by `cleanup`, also when another fails to start. */
async function startNamespaces(
  sandbox: Sandbox,
  auditDir: string,
  cleanup: Cleanup,
  printer: Printer,
): Promise<Namespaces> {
  const settled = await Promise.allSettled(
    ROLES.map(async (role) => {
      const profile = profileOf(role);
      const { login, tokenVariable } = profileIdentity(profile);
      const token = login === null ? undefined : sandbox.users[login]?.token;
      if (login === null || token === undefined)
        throw new StoryStopped(`profile ${profile} names no sandbox user (authenticated_username)`);
      const namespace = createNamespace({
        profile,
        giteaUrl: sandbox.url,
        tokenVariable,
        token,
        auditLog: auditFile(auditDir, role),
        person: (question) => {
          // The question as the client shows it to its person, who answers yes in this story.
          const [title = '', ...rest] = question.split('\n').filter((line) => line.trim() !== '');
          printer.detail(`the ${role}'s client asks its person: ${title}`);
          for (const line of rest) printer.detail(`    ${line}`);
          printer.detail('the person answers yes');
          return true;
        },
      });
      cleanup.add(() => namespace.close());
      await namespace.connect();
      return { role, login, namespace };
    }),
  );
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  return {
    byRole: new Map(started.map((s) => [s.role, s.namespace])),
    logins: Object.fromEntries(started.map((s) => [s.role, s.login])) as Record<Role, string>,
  };
}

function prepareAuditDir(requested: string | null): string {
  if (requested === null) return mkdtempSync(join(tmpdir(), 'gitea-warden-demo-'));
  const dir = resolve(requested);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function auditFile(dir: string, role: Role): string {
  return join(dir, `${profileOf(role)}.audit.jsonl`);
}

/** The same check as `gitea-warden audit verify <file>`, for each namespace's log. */
function verifyAuditLogs(dir: string): AuditCheck[] {
  return ROLES.map((role) => {
    const file = auditFile(dir, role);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      return {
        namespace: role,
        file,
        ok: false,
        verdict: `cannot read (${(error as NodeJS.ErrnoException).code ?? 'EIO'})`,
      };
    }
    const result = verifyAuditLog(text);
    if (!result.ok)
      return {
        namespace: role,
        file,
        ok: false,
        verdict: `broken: line ${result.firstBroken?.line}: ${result.firstBroken?.reason}`,
      };
    if (result.events === 0) return { namespace: role, file, ok: false, verdict: 'empty: no call was audited' };
    return { namespace: role, file, ok: true, verdict: `ok: ${result.events} events, chain intact` };
  });
}

/** Closes what the demo started (namespaces and the sandbox), once, all at the same time. */
class Cleanup {
  private readonly steps: Array<() => Promise<void>> = [];
  private running: Promise<void> | null = null;

  add(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  run(): Promise<void> {
    this.running ??= Promise.allSettled(this.steps.map((step) => step())).then(() => undefined);
    return this.running;
  }
}
