#!/usr/bin/env node
// Part of `npm run build`: parses the package's own policies/*.yaml and profiles/*.yaml once, into
// dist/shared/precompiled-documents.json (data, node lines and the schemas each satisfies, keyed by the
// sha256 of each text), which
// src/shared/precompiled-documents.ts serves at start for exactly those texts.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { documentSnapshot } = await import(join(root, 'dist', 'shared', 'document.js'));
const { PRECOMPILED_DOCUMENTS } = await import(join(root, 'dist', 'shared', 'precompiled-documents.js'));

const files = ['policies', 'profiles'].flatMap((dir) =>
  readdirSync(join(root, dir))
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join(dir, name)),
);
// The package's self-contained schemas: each snapshot lists those its text satisfies (validateDocument
// skips them). One that refers to another file (config's names profile's) is left out: its own sha256
// would not change when the file it names does, so a start always validates against it.
const schemas = readdirSync(join(root, 'policies'))
  .filter((name) => name.endsWith('.schema.json'))
  .map((name) => readFileSync(join(root, 'policies', name), 'utf8'))
  .filter((text) => !/"\$ref":\s*"[^"#]+/.test(text))
  .map((text) => JSON.parse(text));
const table = {};
for (const file of files) {
  const { sha256, snapshot } = documentSnapshot(readFileSync(join(root, file), 'utf8'), file, schemas);
  table[sha256] = snapshot;
}
writeFileSync(join(root, 'dist', 'shared', PRECOMPILED_DOCUMENTS), `${JSON.stringify(table)}\n`);
process.stderr.write(
  `precompiled ${files.length} policy and profile files into dist/shared/${PRECOMPILED_DOCUMENTS}\n`,
);
