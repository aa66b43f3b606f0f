// The built package serves its own policy and profile files from dist/shared/precompiled-documents.json
// instead of parsing YAML at every start. What it serves must be what parsing gives: the same data and
// the same line for every node (and for paths that do not exist, the nearest parent's), for exactly the
// committed texts; any other text is parsed. It skips validation only against the schemas the very text
// satisfies. Reads dist/, which `npm test` builds first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import {
  documentSnapshot,
  parseDocumentText,
  validateDocument,
  validationErrors,
  type PathSegment,
} from '../src/shared/document.js';
import { loadSchema } from '../src/policy-files/policy-set.js';
import { schemaSha256 } from '../src/shared/precompiled-schemas.js';
import { packageRoot } from '../src/shared/paths.js';
import { PRECOMPILED_DOCUMENTS, textSha256, type DocumentSnapshot } from '../src/shared/precompiled-documents.js';

const built = JSON.parse(readFileSync(join(packageRoot, 'dist', 'shared', PRECOMPILED_DOCUMENTS), 'utf8')) as Record<
  string,
  DocumentSnapshot
>;
const packageFiles = ['policies', 'profiles'].flatMap((dir) =>
  readdirSync(join(packageRoot, dir))
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => join(dir, name)),
);

/** Every path to a value of the data, plus one missing key and one missing index under each. */
function pathsOf(value: unknown, path: PathSegment[] = []): PathSegment[][] {
  const here: PathSegment[][] = [path, [...path, 'no_such_key'], [...path, 9999]];
  if (Array.isArray(value)) return [...here, ...value.flatMap((item, i) => pathsOf(item, [...path, i]))];
  if (value !== null && typeof value === 'object')
    return [...here, ...Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...path, key]))];
  return here;
}

test('every policy and reference profile file of the package is precompiled from its current text', () => {
  assert.ok(packageFiles.length >= 15, `${packageFiles.length} files`);
  for (const file of packageFiles) {
    const { sha256 } = documentSnapshot(readFileSync(join(packageRoot, file), 'utf8'), file);
    assert.ok(built[sha256], `${file}: not precompiled from its current text; rebuild (npm run build)`);
  }
});

/** The line YAML itself gives for a path: its node's, else the nearest parent's (yaml's own getIn). */
function yamlLine(doc: Document, lineCounter: LineCounter, path: PathSegment[]): number | null {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return null;
}

test('parsed or served from the build, a document has the data and lines YAML gives', async () => {
  // dist's parser serves the package's texts from the snapshot; src's (under tsx) parses them.
  const dist = (await import(join(packageRoot, 'dist', 'shared', 'document.js'))) as {
    parseDocumentText: typeof parseDocumentText;
  };
  for (const file of packageFiles) {
    const text = readFileSync(join(packageRoot, file), 'utf8');
    const parsed = parseDocumentText(text, file);
    const served = dist.parseDocumentText(text, file);
    assert.deepEqual(served.data, parsed.data, file);
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter });
    assert.deepEqual(parsed.data, doc.toJS(), file);
    for (const path of pathsOf(parsed.data)) {
      const expected = yamlLine(doc, lineCounter, path);
      assert.equal(parsed.lineOf(path), expected, `${file} ${JSON.stringify(path)} parsed`);
      assert.equal(served.lineOf(path), expected, `${file} ${JSON.stringify(path)} served`);
    }
  }
});

test('the served lines are the parsed lines, for served and for edited texts alike', () => {
  const file = 'policies/guards.yaml';
  const text = readFileSync(join(packageRoot, file), 'utf8');
  // A blank line at the top shifts every node by one: an edited text is parsed, never served stale.
  const edited = `\n${text}`;
  const served = parseDocumentText(text, file);
  const reparsed = parseDocumentText(edited, file);
  for (const path of pathsOf(served.data)) {
    assert.equal(reparsed.lineOf(path), (served.lineOf(path) as number) + 1, JSON.stringify(path));
  }
});

test('a served text skips validation only against the schemas it satisfies, as run-time validation finds', () => {
  const schemas = readdirSync(join(packageRoot, 'policies'))
    .filter((name) => name.endsWith('.schema.json'))
    .map((name) => ({ name, schema: loadSchema(name.replace(/\.schema\.json$/, '')) }))
    // Only self-contained schemas are vouched for: one naming another file (config's) is always validated.
    .filter(({ schema }) => !/"\$ref":"[^"#]+/.test(JSON.stringify(schema)));
  assert.ok(schemas.length >= 10, `${schemas.length} self-contained schemas`);
  for (const file of packageFiles) {
    const text = readFileSync(join(packageRoot, file), 'utf8');
    const snapshot = built[textSha256(text)] as DocumentSnapshot;
    // Under tsx no precompiled validator is found: ajv compiles each schema here, independently of the build.
    const valid = schemas.filter(
      ({ schema }) => validationErrors(schema, parseDocumentText(text, file).data).length === 0,
    );
    assert.ok(valid.length >= 1, `${file} satisfies no schema`);
    assert.deepEqual(
      [...snapshot.validAgainst].sort(),
      valid.map(({ schema }) => schemaSha256(schema)).sort(),
      `${file}: ${valid.map(({ name }) => name).join(', ')}`,
    );
  }
});

test('an edited text is validated again: a snapshot never vouches for a text it was not built from', async () => {
  // dist's own modules: the ones that serve snapshots.
  const dist = (await import(join(packageRoot, 'dist', 'shared', 'document.js'))) as {
    parseDocumentText: typeof parseDocumentText;
    validateDocument: typeof validateDocument;
  };
  const file = 'profiles/gitea-author.yaml';
  const text = readFileSync(join(packageRoot, file), 'utf8');
  const served = dist.parseDocumentText(text, file);
  assert.equal(served.validAgainst?.length, 1, 'the committed text is served with its validation');
  assert.deepEqual(dist.validateDocument(served, loadSchema('profile')), []);
  const broken = text.replace(/^role: .*$/m, 'role: 42');
  assert.notEqual(broken, text);
  const findings = dist.validateDocument(dist.parseDocumentText(broken, file), loadSchema('profile'));
  assert.ok(
    findings.some((finding) => finding.path === '/role'),
    JSON.stringify(findings),
  );
});
