#!/usr/bin/env node
// Part of `npm run build`: parses the package's own policies/*.yaml and profiles/*.yaml once, into
// dist/shared/precompiled-documents.json (data, node lines and the schemas each satisfies, keyed by the
// sha256 of each text), which
// src/shared/precompiled-documents.ts serves at start for exactly those texts.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const { documentSnapshot } = await import(join(root, 'dist', 'shared', 'document.js'));
const { PRECOMPILED_DOCUMENTS } = await import(join(root, 'dist', 'shared', 'precompiled-documents.js'));

const files = ['policies', 'profiles'].flatMap((dir) =>
  readdirSync(join(root, dir))
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join(dir, name)),
);
// Every schema of the package: each snapshot lists those its text satisfies (validateDocument skips them).
// A schema that refers to another file comes after the schemas it names, so ajv knows them when compiling.
const schemas = readdirSync(join(root, 'policies'))
  .filter((name) => name.endsWith('.schema.json'))
  .map((name) => readFileSync(join(root, 'policies', name), 'utf8'))
  .sort((a, b) => references(a) - references(b))
  .map((text) => JSON.parse(text));

function references(schemaText) {
  return (schemaText.match(/"\$ref":\s*"[^"#]+\.schema\.json/g) ?? []).length;
}
const table = {};
for (const file of files) {
  const { sha256, snapshot } = documentSnapshot(readFileSync(join(root, file), 'utf8'), file, schemas);
  table[sha256] = snapshot;
}
writeFileSync(join(root, 'dist', 'shared', PRECOMPILED_DOCUMENTS), `${JSON.stringify(table)}\n`);
process.stderr.write(
  `precompiled ${files.length} policy and profile files into dist/shared/${PRECOMPILED_DOCUMENTS}\n`,
);
