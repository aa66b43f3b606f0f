// The built package validates policy and profile files with validators compiled at build time
// (dist/shared/precompiled-schemas.cjs). They must exist for every policy schema but config's, match
// the schemas as they are now, and judge documents exactly as validators compiled at run time do.
// Reads dist/, which `npm test` builds first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { policiesDir, packageRoot } from '../src/shared/paths.js';
import { schemaSha256, type PrecompiledSchemas } from '../src/shared/precompiled-schemas.js';
import { parseDocumentText } from '../src/shared/document.js';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;
const precompiled = createRequire(import.meta.url)(
  join(packageRoot, 'dist', 'shared', 'precompiled-schemas.cjs'),
) as PrecompiledSchemas;
const schemaFiles = readdirSync(policiesDir).filter(
  (name) => name.endsWith('.schema.json') && name !== 'config.schema.json',
);

test('every policy schema but config has a precompiled validator of its current text', () => {
  for (const name of schemaFiles) {
    const schema = JSON.parse(readFileSync(join(policiesDir, name), 'utf8')) as { $id: string };
    assert.equal(precompiled[schema.$id]?.sha256, schemaSha256(schema), `${name}: rebuild (npm run build)`);
  }
});

test('a precompiled validator reports what a run-time compiled one reports', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const schemas = schemaFiles.map(
    (name) => JSON.parse(readFileSync(join(policiesDir, name), 'utf8')) as { $id: string },
  );
  for (const schema of schemas) ajv.addSchema(schema);
  // Each policy file as it is, an empty document, one with an unknown field and one with wrong types.
  const policyFiles = readdirSync(policiesDir).filter((name) => name.endsWith('.yaml'));
  const samples: unknown[] = [
    {},
    { unknown_field: 1 },
    { service: 42, aliases: 'x', tasks: [1], rules: { a: 1 } },
    [],
    'text',
  ];
  for (const file of policyFiles)
    samples.push(parseDocumentText(readFileSync(join(policiesDir, file), 'utf8'), file).data);
  for (const schema of schemas) {
    const atRunTime = ajv.getSchema(schema.$id);
    const built = precompiled[schema.$id]?.validate;
    assert.ok(atRunTime && built, schema.$id);
    for (const sample of samples) {
      assert.equal(built(sample), atRunTime(sample), schema.$id);
      assert.deepEqual(
        built.errors ?? null,
        atRunTime.errors ?? null,
        `${schema.$id}: ${JSON.stringify(sample).slice(0, 60)}`,
      );
    }
  }
});
