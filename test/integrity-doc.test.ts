// docs/integrity.md shows the table of every answer type that carries text, rendered from the integrity
// catalog: a definition, origin, text field or embed added to policies/integrity.yaml changes the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { INTEGRITY_TABLE_BEGIN, INTEGRITY_TABLE_END, renderIntegrityTable } from '../src/policy/integrity-doc.js';
import { packageRoot } from '../src/shared/paths.js';

test('docs/integrity.md shows the table of answer types with text that the catalog derives', () => {
  const doc = readFileSync(join(packageRoot, 'docs', 'integrity.md'), 'utf8');
  const begin = doc.indexOf(INTEGRITY_TABLE_BEGIN);
  const end = doc.indexOf(INTEGRITY_TABLE_END);
  assert.ok(begin >= 0 && end > begin, 'docs/integrity.md lacks the integrity-table markers');
  const expected = renderIntegrityTable(loadPolicySet().integrity);
  assert.equal(
    doc.slice(begin + INTEGRITY_TABLE_BEGIN.length, end).trim(),
    expected,
    `paste between the markers of docs/integrity.md:\n${expected}`,
  );
});

test('every definition with text of the catalog is a row, raw answers last', () => {
  const catalog = loadPolicySet().integrity;
  const rows = renderIntegrityTable(catalog).split('\n').slice(2);
  for (const rule of catalog.rules.values())
    if (rule.text.length > 0)
      assert.ok(
        rows.some((row) => row.startsWith(`| ${rule.raw ? `raw: ${rule.name}` : rule.name} |`)),
        rule.name,
      );
  assert.match(rows.at(-1) ?? '', /^\| raw: /);
});
