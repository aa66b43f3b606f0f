import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as check } from '../src/cli/check.js';
import { run as explain } from '../src/cli/explain.js';
import { run as diff } from '../src/cli/diff.js';
import { run as decide } from '../src/cli/decide.js';
import { capture } from './policy-helpers.js';

const temp = mkdtempSync(join(tmpdir(), 'warden-scopes-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const widgets = 'profiles/examples/gitea-author-widgets.yaml';

describe('scopes in the CLI', () => {
  test('check: a malformed scope pattern is an error with file:line', async () => {
    const file = join(temp, 'bad-scope.yaml');
    writeFileSync(
      file,
      readFileSync(widgets, 'utf8').replace('repositories: [acme/widgets]', "repositories: ['acme/[widgets']"),
    );
    const result = await capture(check, [file]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /bad-scope\.yaml:\d+: error malformed_pattern: repositories pattern 'acme\/\[widgets'/);
  });

  test('check: a condition JSONPath the input schema cannot hold is an error', async () => {
    const dir = join(temp, 'policies');
    cpSync('policies', dir, { recursive: true });
    const conditions = join(dir, 'conditions.yaml');
    writeFileSync(
      conditions,
      readFileSync(conditions, 'utf8').replace(
        '{ path: $.body.base, in: [main, master] }',
        '{ path: $.body.bsae, in: [main, master] }',
      ),
    );
    const result = await capture(check, [dir]);
    assert.equal(result.code, 1);
    assert.match(
      result.stdout,
      /conditions\.yaml:\d+: error jsonpath_not_in_schema: repoCreatePullRequest: JSONPath \$\.body\.bsae cannot exist/,
    );
  });

  test('explain names the scope that decided, with file:line', async () => {
    const args = JSON.stringify({ owner: 'acme', repo: 'gadgets', filepath: 'README.md' });
    const result = await capture(explain, ['--profile', widgets, '--tool', 'gitea_contents_get', '--args', args]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /decided by:\s+profiles\/examples\/gitea-author-widgets\.yaml:\d+\s+repositories/);
    assert.match(result.stdout, /failed:\s+repository_out_of_scope: repository acme\/gadgets is outside repositories/);
  });

  test('decide: the author cannot write a workflow file', async () => {
    const args = JSON.stringify({
      owner: 'acme',
      repo: 'widgets',
      filepath: '.gitea/workflows/ci.yml',
      body: { content: 'eA==', branch: 'feature/x' },
    });
    const result = await capture(decide, [
      '--profile',
      'profiles/gitea-author.yaml',
      '--operation-id',
      'repoCreateFile',
      '--args',
      args,
    ]);
    assert.equal(result.code, 1);
    const decision = JSON.parse(result.stdout);
    assert.equal(decision.reason, 'path_not_allowed');
    assert.deepEqual(
      decision.failed.map((f: { code: string }) => f.code),
      ['path_not_allowed'],
    );
  });

  test('diff: a new repository pattern is a gain (exit 1 unless --allow-gain)', async () => {
    const wider = join(temp, 'wider.yaml');
    writeFileSync(
      wider,
      readFileSync(widgets, 'utf8').replace(
        'repositories: [acme/widgets]',
        'repositories: [acme/widgets, acme/gadgets]',
      ),
    );
    const result = await capture(diff, [widgets, wider]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /wider\.yaml:\d+: gain repositories\.write: \+ acme\/gadgets/);
    assert.equal((await capture(diff, [widgets, wider, '--allow-gain'])).code, 0);
    assert.equal((await capture(diff, [wider, widgets])).code, 0);
  });
});
