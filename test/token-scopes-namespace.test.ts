// Tools follow the token: a namespace whose Gitea token lacks write:issue lists no issue write and
// refuses one before Gitea, naming the missing scope. The token's scopes are known from the profile's
// token_scopes, or learnt from Gitea's own refusal (which names them): then the operation is no
// longer offered, and the next call is refused without reaching Gitea.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import type { Session } from '../src/server/session.js';
import { noteScopeRefusal, TokenScopeState } from '../src/server/token-scope-filter.js';
import {
  connectStdio,
  namespaceEnv,
  payloadOf,
  repoRoot,
  tempDir,
  toolNames,
  type Connected,
} from './support/namespace.js';

/** Everything the author profile needs (gitea-warden explain gitea-author) but write:issue. */
const WITHOUT_ISSUE_WRITES = [
  'read:user',
  'write:repository',
  'read:issue',
  'read:notification',
  'read:organization',
  'read:package',
];

describe('a namespace whose token lacks write:issue', () => {
  let sandbox: Sandbox;
  let dir: ReturnType<typeof tempDir>;
  let token: string;
  let issue: number;

  before(async () => {
    sandbox = await startSandbox();
    dir = tempDir('warden-token-scopes-');
    const alice = sandbox.users.alice;
    const basic = Buffer.from(`alice:${alice?.password ?? ''}`).toString('base64');
    const created = await fetch(`${sandbox.url}/api/v1/users/alice/tokens`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'no-issue-writes', scopes: WITHOUT_ISSUE_WRITES }),
    });
    token = ((await created.json()) as { sha1: string }).sha1;
    const issues = await fetch(`${sandbox.url}/api/v1/repos/acme/widgets/issues?type=issues&state=all`, {
      headers: { authorization: `token ${sandbox.users.admin?.token}` },
    });
    issue = ((await issues.json()) as Array<{ number: number }>)[0]?.number ?? 0;
    assert.ok(issue > 0);
  });

  after(async () => {
    await sandbox?.close();
    dir?.dispose();
  });

  const author = (profile: string, log: string): Promise<Connected> =>
    connectStdio(
      namespaceEnv(sandbox, 'gitea-author', {
        auditLog: join(dir.path, log),
        extra: { GITEA_MCP_PROFILE: profile, GITEA_AUTHOR_TOKEN: token },
      }),
    );
  const comment = (ns: Connected) =>
    ns.client.callTool({
      name: 'gitea_comments_create',
      arguments: { owner: 'acme', repo: 'widgets', index: issue, body: { body: 'from the agent' } },
    });
  const commentPosts = () =>
    sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/issues/${issue}/comments`)).length;

  test('declared in token_scopes: issue writes are not listed, and a call is refused before Gitea naming the scope', async () => {
    const profile = join(dir.path, 'author-declared.yaml');
    const reference = readFileSync(join(repoRoot, 'profiles', 'gitea-author.yaml'), 'utf8');
    writeFileSync(
      profile,
      reference
        .replace(/\$schema=\.\.\/policies/, `$schema=${join(repoRoot, 'policies')}`)
        .replace(/^token_source_name: .*$/m, (line) => `${line}\ntoken_scopes: [${WITHOUT_ISSUE_WRITES.join(', ')}]`),
    );
    const ns = await author(profile, 'declared.jsonl');
    try {
      const names = await toolNames(ns.client);
      assert.ok(!names.includes('gitea_comments_create'), 'an issue write is not listed');
      assert.ok(names.includes('gitea_comments_list'), 'an issue read is');
      assert.ok(names.includes('gitea_branches_create'), 'a repository write is');
      const before = commentPosts();
      const refused = await comment(ns);
      assert.equal(refused.isError, true);
      const error = payloadOf(refused).error;
      assert.equal(error.kind, 'token_scope_missing');
      assert.deepEqual(error.missing_scopes, ['write:issue']);
      assert.match(
        error.message,
        /gitea_comments_create needs the Gitea token scope write:issue: the token of GITEA_AUTHOR_TOKEN carries only/,
      );
      assert.doesNotMatch(error.hint, /profile|yaml|edit/i, 'the hint names no edit of the profile');
      assert.equal(commentPosts(), before, 'nothing reached Gitea');
    } finally {
      await ns.close();
    }
  });

  test("not declared: Gitea's refusal names the token's scopes; from then on the operation is not offered", async () => {
    const ns = await author(join(repoRoot, 'profiles', 'gitea-author.yaml'), 'learnt.jsonl');
    try {
      assert.ok((await toolNames(ns.client)).includes('gitea_comments_create'), 'unknown scopes: offered');
      const first = await comment(ns);
      assert.equal(first.isError, true);
      const gitea = payloadOf(first).error;
      assert.equal(gitea.status, 403);
      assert.match(gitea.message, /token does not have at least one of required scope\(s\), required=\[write:issue\]/);
      assert.match(gitea.hint, /write:issue/);
      assert.ok(!(await toolNames(ns.client)).includes('gitea_comments_create'), 'no longer listed');
      const before = commentPosts();
      const second = await comment(ns);
      const error = payloadOf(second).error;
      assert.equal(error.kind, 'token_scope_missing');
      assert.match(error.message, /Gitea refused an earlier call because the token carries only read:user,/);
      assert.equal(commentPosts(), before, 'the second call did not reach Gitea');
    } finally {
      await ns.close();
    }
  });
});

test("Gitea's refusal is read in either wording: the token's scopes when named, else the one scope required", () => {
  const state = new TokenScopeState(null, null);
  const session = { registry: { tokenScopes: state } } as unknown as Session;
  // Older releases: "...scope(s): [write:issue]", nothing about the token.
  noteScopeRefusal(session, {
    status: 403,
    message: 'token does not have at least one of required scope(s): [write:issue]',
  });
  assert.deepEqual(state.missing(['write:issue']), ['write:issue']);
  assert.deepEqual(state.missing(['read:issue']), [], 'lacking write says nothing of read');
  assert.equal(state.known, null);
  // Several required and no token scopes named: which one lacks is unknown, so nothing is assumed.
  const unsure = new TokenScopeState(null, null);
  noteScopeRefusal({ registry: { tokenScopes: unsure } } as unknown as Session, {
    status: 403,
    message: 'token does not have at least one of required scope(s): [read:user read:repository]',
  });
  assert.deepEqual(unsure.missing(['read:repository']), []);
  // Newer releases name the token's scopes: that is what it carries from then on.
  noteScopeRefusal(session, {
    status: 403,
    message:
      'token does not have at least one of required scope(s), required=[write:issue], token scope=read:user,read:issue',
  });
  assert.deepEqual(state.known, ['read:user', 'read:issue']);
  assert.deepEqual(state.missing(['write:repository']), ['write:repository']);
  // Other refusals teach nothing.
  noteScopeRefusal(session, { status: 403, message: 'user should have a permission to write to a repo' });
  noteScopeRefusal(session, { status: 404, message: 'token does not have at least one of required scope(s): [x]' });
  assert.deepEqual(state.known, ['read:user', 'read:issue']);
});
