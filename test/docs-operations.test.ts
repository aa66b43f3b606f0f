// docs/operations.md is generated from the vocabulary, aliases, operation map, guards, reference
// profiles and catalog; the committed file must match a fresh rendering, and `catalog docs --check`
// must catch a hand edit.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as catalog } from '../src/cli/catalog.js';
import { operationsDocFile, operationsDocInput } from '../src/cli/catalog-docs.js';
import { renderOperationsDoc } from '../src/policy/operations-doc.js';
import { capture, policy } from './policy-helpers.js';

const temp = mkdtempSync(join(tmpdir(), 'warden-operations-doc-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const fresh = renderOperationsDoc(operationsDocInput());
/** The per-area tables, before the argument-rule and guarded-only sections. */
const tables = fresh.slice(0, fresh.indexOf('## Argument rules'));

/** The table row of one operation. */
function rowOf(doc: string, operation: string): string {
  const row = doc.split('\n').find((line) => line.startsWith(`| \`${operation}\` |`));
  assert.ok(row, `no row for ${operation}`);
  return row;
}

test('docs/operations.md is current (regenerate: gitea-warden catalog docs)', async () => {
  assert.equal(readFileSync(operationsDocFile, 'utf8'), fresh);
  const result = await capture(catalog, ['docs', '--check']);
  assert.equal(result.code, 0, result.stdout);
});

test('a hand edit is reported by catalog docs --check with its line', async () => {
  const edited = join(temp, 'operations.md');
  const lines = fresh.split('\n');
  const index = lines.findIndex((line) => line.startsWith('| `gitea.pr.merge` |'));
  lines[index] = lines[index]?.replace('gitea-merger, ', '') ?? '';
  writeFileSync(edited, lines.join('\n'));
  const result = await capture(catalog, ['docs', '--check', '--out', edited]);
  assert.equal(result.code, 1);
  assert.match(result.stdout, new RegExp(`operations\\.md:${index + 1}: differs`));
  assert.match(result.stdout, /run gitea-warden catalog docs/);
  assert.equal(readFileSync(edited, 'utf8'), lines.join('\n'), '--check writes nothing');
});

test('a missing file is stale, and writing it makes it current', async () => {
  const target = join(temp, 'new.md');
  assert.equal((await capture(catalog, ['docs', '--check', '--out', target])).code, 1);
  assert.equal((await capture(catalog, ['docs', '--out', target])).code, 0);
  assert.equal(readFileSync(target, 'utf8'), fresh);
});

test('every vocabulary operation has exactly one row, under its area', () => {
  for (const name of policy.vocabulary.operations.keys()) {
    assert.equal(tables.split('\n').filter((line) => line.startsWith(`| \`${name}\` |`)).length, 1, name);
    const area = name.split('.')[1] ?? name;
    const section = tables.slice(tables.indexOf(`\n## ${area}\n`), tables.indexOf(`| \`${name}\` |`));
    assert.doesNotMatch(section.slice(1), /\n## /, `${name} is not under ## ${area}`);
  }
});

test('the header says the file is generated and how to regenerate it', () => {
  assert.match(fresh, /Generated file: do not edit\. Regenerate with `gitea-warden catalog docs`/);
});

// [operation, text its row must hold]
const rows: [string, string][] = [
  ['gitea.pr.merge', '| write | Merge a pull request'],
  ['gitea.pr.merge', '`merge`, `pr.merge` (migrate only)'],
  ['gitea.pr.create', '`pr.create`, `open_pr`'],
  ['gitea.pr.close', '`gitea_pulls_edit` (`body.state = closed`)'],
  ['gitea.pr.force_merge', '`gitea_pulls_merge` (`body.force_merge = true`)'],
  ['gitea.pr.approve', '`gitea_pulls_create_review` (`body.event = APPROVED`)'],
  ['gitea.admin.sudo', 'any tool (`sudo present`)'],
  ['gitea.pr.merge', '`gitea_pulls_merge`'],
];

test('rows name risk, meaning, aliases and the tools routed by argument rules', () => {
  for (const [operation, text] of rows) assert.ok(rowOf(tables, operation).includes(text), `${operation}: ${text}`);
});

test('allowed-by and forbidden-by follow the reference profiles after pattern expansion', () => {
  const cells = (operation: string): string[] => rowOf(tables, operation).split(' | ');
  // The owner allows gitea.* but forbids gitea.pr.force_merge: forbidden wins, and nobody allows it.
  assert.equal(cells('gitea.pr.force_merge')[4], '-');
  assert.match(cells('gitea.pr.force_merge')[5] ?? '', /gitea-owner/);
  assert.match(cells('gitea.pr.merge')[4] ?? '', /gitea-merger, gitea-owner/);
  assert.match(cells('gitea.pr.merge')[5] ?? '', /gitea-author/);
});

test('argument rules are listed in words, and guarded-only operations get their own section', () => {
  const rules = fresh.slice(fresh.indexOf('## Argument rules'), fresh.indexOf('## Guarded-only operations'));
  assert.match(
    rules,
    /`gitea_pulls_edit` \(repoEditPullRequest, primary `gitea\.pr\.edit`\): `body\.state = closed` → `gitea\.pr\.close` instead of `gitea\.pr\.edit`/,
  );
  assert.match(rules, /`gitea_pulls_merge` .*`body\.force_merge = true` → also needs `gitea\.pr\.force_merge`/);
  const guarded = fresh.slice(fresh.indexOf('## Guarded-only operations'));
  const input = operationsDocInput();
  for (const [operation, { tool }] of Object.entries(input.guardedOnly))
    assert.ok(guarded.includes(`| \`${operation}\` | \`${tool}\` |`), operation);
  const none = renderOperationsDoc({ ...input, guardedOnly: {} });
  assert.match(none, /## Guarded-only operations\n\nNone: policies\/guards\.yaml lists no guarded_only operations\./);
});

test('the repository reach section shows how a scope holds every filtered, opaque or argument-named operation', () => {
  const reach = fresh.slice(fresh.indexOf('## Repository reach'));
  const input = operationsDocInput();
  const row = (operationId: string) => reach.split('\n').find((line) => line.includes(` | ${operationId} | `)) ?? '';
  for (const id of input.scopeFiltered) assert.match(row(id), / \| filtered \| /, id);
  for (const [id, spec] of input.targets.byOperationId)
    if (spec.repositories === 'opaque') assert.match(row(id), / \| opaque \| /, id);
  assert.match(row('renderMarkdown'), /names it in arguments: URL path `\$\.body\.Context`/);
  assert.match(row('userGetStopWatches'), /filtered \| its result embeds StopWatch/);
});
