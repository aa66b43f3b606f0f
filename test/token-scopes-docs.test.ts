// What people are told about token scopes: `explain P` prints the least a profile's token needs (from
// the derivation of Gitea's route groups), `init` prints it for each profile it writes, `check` warns
// when a profile's token_scopes are broader than that (and never takes them for a pasted credential),
// and README's table of the reference profiles is generated from the same derivation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run as check } from '../src/cli/check.js';
import { run as explain } from '../src/cli/explain.js';
import { run as init } from '../src/cli/init.js';
import { readmeWithTokenScopeTable } from '../src/cli/token-scope-lines.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { readmeFile } from '../src/server/namespace-report.js';
import { repoRoot, tempDir } from './support/namespace.js';
import { capture } from './policy-helpers.js';

test("README's token-scope table is current (regenerate: gitea-warden explain --report-readme)", () => {
  const readme = readFileSync(readmeFile, 'utf8');
  assert.equal(readme, readmeWithTokenScopeTable(readme, loadPolicySet()));
});

test('explain PROFILE prints the minimal token scopes, read:user for the identity, one operation for each', async () => {
  const { code, stdout } = await capture(explain, ['gitea-issue-manager']);
  assert.equal(code, 0);
  assert.match(stdout, /token scopes it needs .*give GITEA_ISSUE_MANAGER_TOKEN exactly these/);
  const line = stdout.split('\n')[2] ?? '';
  assert.ok(line.includes('write:issue') && line.includes('read:user'), line);
  assert.ok(!line.includes('read:issue'), 'write:issue covers read:issue');
  assert.ok(!/admin|all/.test(line), line);
  assert.match(stdout, /read:user\s+\d+ operation\(s\), e\.g\. the identity check \(GET \/user\)/);
  assert.match(stdout, /write:issue\s+\d+ operation\(s\), e\.g\. gitea_/);
  assert.equal((await capture(explain, ['--profile', 'gitea-author'])).code, 0, '--profile alone says the same');
});

test('check warns when token_scopes grant more than the profile needs, and not that they are a credential', async () => {
  const dir = tempDir('warden-scope-check-');
  try {
    const reference = readFileSync(join(repoRoot, 'profiles', 'gitea-author.yaml'), 'utf8').replace(
      /\$schema=\.\.\/policies/,
      `$schema=${join(repoRoot, 'policies')}`,
    );
    const withScopes = (scopes: string) =>
      reference.replace(/^token_source_name: .*$/m, (line) => `${line}\ntoken_scopes: [${scopes}]`);
    const broad = join(dir.path, 'broad.yaml');
    writeFileSync(broad, withScopes('all'));
    const broadResult = await capture(check, [broad]);
    assert.match(
      broadResult.stdout,
      /broad\.yaml:\d+: warning token_scopes_broader: .*carries all, more than its operations need/,
    );
    assert.doesNotMatch(broadResult.stdout, /inline_credential/);
    const short = join(dir.path, 'short.yaml');
    writeFileSync(short, withScopes('read:user, write:repository'));
    const shortResult = await capture(check, [short]);
    assert.match(shortResult.stdout, /warning token_scopes_short: .*lacks .*write:issue/);
    assert.doesNotMatch(shortResult.stdout, /token_scopes_broader|inline_credential/);
    const exact = join(dir.path, 'exact.yaml');
    const needed = /\n {4}(.*)\n/.exec((await capture(explain, ['gitea-author'])).stdout)?.[1] ?? '';
    writeFileSync(exact, withScopes(needed));
    const exactResult = await capture(check, [exact]);
    assert.equal(exactResult.code, 0, exactResult.stdout);
    // A token value pasted under a secret-looking key is still found.
    writeFileSync(
      join(dir.path, 'pasted.yaml'),
      withScopes(needed).replace(/^audit_label: .*$/m, 'api_token: 0123456789abcdef0123456789abcdef01234567'),
    );
    assert.match((await capture(check, [join(dir.path, 'pasted.yaml')])).stdout, /inline_credential/);
  } finally {
    dir.dispose();
  }
});

test('init prints the token scopes of each profile it writes', async () => {
  const dir = tempDir('warden-scope-init-');
  try {
    const { code, stdout } = await capture(init, ['--author', 'ana', '--reviewer', 'ben', '--dir', dir.path]);
    assert.equal(code, 0);
    assert.match(stdout, /token scopes to give each token/);
    assert.match(stdout, /GITEA_AUTHOR_TOKEN \(gitea-author\): .*write:repository.*read:user/);
    assert.match(stdout, /GITEA_REVIEWER_TOKEN \(gitea-reviewer\): .*write:issue/);
  } finally {
    dir.dispose();
  }
});
