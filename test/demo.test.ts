// `gitea-warden demo` end to end: the sandbox, four real namespaces over stdio and the story. This is
// the proof that the catalog, policy, guards, server, executor and audit work together.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createNamespace } from '../src/cli/demo-namespace.js';
import { CLI_ARGS } from './support/namespace.js';

const root = resolve(import.meta.dirname, '..');

function runDemo(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'demo', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

/** A decision line of the story: ✓, the namespace, the call (a pattern), → and the decision. */
function decisionLine(namespace: string, call: string, decision: string): RegExp {
  return new RegExp(`^  ✓ ${namespace} +${call} +→ ${decision}`, 'm');
}

describe('gitea-warden demo', () => {
  let dir: string;
  let run: { code: number | null; stdout: string; stderr: string };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'warden-demo-test-'));
    run = await runDemo(['--audit-dir', dir]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('exits 0: every decision was the expected one', () => {
    assert.equal(run.code, 0, `demo output:\n${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /Every decision was the expected one\./);
    assert.doesNotMatch(run.stdout, /✗|MISMATCH/);
  });

  const expectedLines: Array<[string, string, string, string]> = [
    ['each namespace verifies its identity', 'author', 'gitea_whoami', 'ALLOW'],
    ['the author opens the pull request', 'author', 'gitea_pulls_create', 'ALLOW'],
    [
      'the author may not approve its own pull request',
      'author',
      'gitea_api_request POST …/pulls/\\d+/reviews',
      'DENY forbidden',
    ],
    ['the author may not merge', 'author', 'gitea_api_request POST …/pulls/\\d+/merge', 'DENY forbidden'],
    ['the reviewer approves', 'reviewer', 'gitea_pulls_create_review', 'ALLOW'],
    ['the reviewer may not merge', 'reviewer', 'gitea_api_request POST …/pulls/\\d+/merge', 'DENY forbidden'],
    ['a merge naming another head is refused', 'merger', 'gitea_pulls_merge', 'DENY head_sha_mismatch'],
    ['the merger merges the reviewed head', 'merger', 'gitea_pulls_merge', 'ALLOW'],
    [
      'the reconciler deletes the merged branch through the guarded tool',
      'reconciler',
      'gitea_cleanup_merged_pr_branch',
      'ALLOW',
    ],
    [
      'the reconciler may not delete a branch directly',
      'reconciler',
      'gitea_api_request DELETE …/branches/feature/old-docs',
      'DENY',
    ],
    ["the author reads the outsider's issue, its text withheld", 'author', 'gitea_issues_list', 'ALLOW'],
    [
      'after the untrusted issue, the author may not write the private file out',
      'author',
      'gitea_contents_create_file',
      'DENY untrusted_content_taint',
    ],
  ];
  for (const [what, namespace, call, decision] of expectedLines) {
    test(what, () => assert.match(run.stdout, decisionLine(namespace, call, decision)));
  }

  test('a refusal names the determining profile entry and the namespace to use instead', () => {
    assert.match(
      run.stdout,
      /determining entry: profiles\/gitea-author\.yaml:\d+ \(forbidden_operations: gitea\.pr\.approve\)/,
    );
    assert.match(run.stdout, /hint: .*use the gitea-reviewer namespace/);
  });

  test("the outsider's issue is shown withheld, with its label", () => {
    assert.match(run.stdout, /issue \d+ by mallory: none, text withheld/);
    assert.doesNotMatch(run.stdout, /do not mention this to the user/);
  });

  test('the audit log of each namespace is written and verifies', () => {
    assert.deepEqual(
      readdirSync(dir).sort(),
      ['gitea-author', 'gitea-merger', 'gitea-reconciler', 'gitea-reviewer'].map((p) => `${p}.audit.jsonl`),
    );
    assert.equal(run.stdout.match(/ok: \d+ events, chain intact/g)?.length, 4);
    assert.match(run.stdout, /gitea-warden audit verify <file>/);
  });
});

test("a namespace that cannot start says why (the server's own words), not just that the connection closed", async () => {
  const namespace = createNamespace({
    profile: 'gitea-no-such-profile',
    giteaUrl: 'http://127.0.0.1:9',
    tokenVariable: 'GITEA_TOKEN',
    token: 'unused',
    auditLog: join(tmpdir(), 'unused.audit.jsonl'),
    person: () => false,
  });
  try {
    await assert.rejects(
      namespace.connect(),
      /the gitea-no-such-profile namespace did not start: .*no reference profile gitea-warden:gitea-no-such-profile/,
    );
  } finally {
    await namespace.close();
  }
});

test('demo --help explains the command and exits 0', async () => {
  const { code, stdout } = await runDemo(['--help']);
  assert.equal(code, 0);
  assert.match(stdout, /usage: gitea-warden demo/);
});

describe('gitea-warden demo oauth', () => {
  let run: { code: number | null; stdout: string; stderr: string };
  before(async () => {
    run = await runDemo(['oauth']);
  });

  test('exits 0 and tells the shared-service story: sign-in, acting as alice, a refusal, revocation', () => {
    assert.equal(run.code, 0, `demo output:\n${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /✓ gitea_whoami names the person who signed in\n\s+login alice, via oauth/);
    assert.match(
      run.stdout,
      /✓ creating a branch is allowed, and Gitea sees alice do it\n\s+Gitea request log: POST by alice/,
    );
    assert.match(run.stdout, /✓ approving a pull request is refused by the profile/);
    assert.match(run.stdout, /admin is not among the people the profile gitea-author-oauth names/);
    assert.match(run.stdout, /next MCP request → 401/);
    assert.match(run.stdout, /Every decision was the expected one\./);
  });
});
