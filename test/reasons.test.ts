// The listed vocabulary of outcome codes (src/policy/reasons.ts): every code the source or the policy
// data carries is listed, every listed code is used, docs/reasons.md is generated from the list, and
// a condition whose code is not listed fails the policy load.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { run as reasons, reasonsDocFile } from '../src/cli/reasons.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { REASONS } from '../src/policy/reasons.js';
import { renderReasonsDoc } from '../src/policy/reasons-doc.js';
import { DocumentError } from '../src/shared/document.js';
import { packageRoot, policiesDir } from '../src/shared/paths.js';
import { capture } from './policy-helpers.js';

const temp = mkdtempSync(join(tmpdir(), 'warden-reasons-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const listed = new Set(Object.keys(REASONS));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

// The stand-in Gitea speaks Gitea's own words; everything else of ours carries listed codes.
const sources = sourceFiles(join(packageRoot, 'src')).filter(
  (file) => !file.includes(`${join('src', 'sandbox')}`) && !file.endsWith('reasons.ts'),
);

/** The places a code is written: a code/reason field, an error kind, the code argument of the helpers that build outcomes. */
const CODE_SITES = [
  /\b(?:code|reason):\s*'([a-z][a-z0-9_]*)'/g,
  /\berror:\s*\{\s*kind:\s*'([a-z][a-z0-9_]*)'/g,
  /\b(?:check|failure|refusal|errorRecord|patternCheck|notAuthor|refused)\(\s*'([a-z][a-z0-9_]*)'/g,
  /\bdeny\([^,()]*(?:\([^()]*\))?[^,()]*,[^,]*,\s*'([a-z][a-z0-9_]*)'/g,
];

function codesIn(text: string): string[] {
  return CODE_SITES.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1] as string));
}

test('every code the source carries is listed in src/policy/reasons.ts', () => {
  const unlisted = sources.flatMap((file) =>
    codesIn(readFileSync(file, 'utf8'))
      .filter((code) => !listed.has(code))
      .map((code) => `${relative(packageRoot, file)}: ${code}`),
  );
  assert.deepEqual(unlisted, []);
});

test('the scan finds codes where they are written (it would catch an unlisted one)', () => {
  assert.deepEqual(
    codesIn(
      "return refusal('made_up', 'x'); failed.push({ code: 'also_made_up', message }); deny(op, ops, 'third_one', entry, hint)",
    ),
    ['also_made_up', 'made_up', 'third_one'],
  );
});

test('every code policies/conditions.yaml denies with is listed', () => {
  const codes = [
    ...readFileSync(join(policiesDir, 'conditions.yaml'), 'utf8').matchAll(/^\s+code:\s*([a-z_]+)\s*$/gm),
  ].map((m) => m[1] as string);
  assert.ok(codes.length > 0);
  assert.deepEqual(
    codes.filter((code) => !listed.has(code)),
    [],
  );
});

test('a condition with a code reasons.ts does not list fails the policy load at its line', () => {
  const dir = join(temp, 'policies');
  cpSync(policiesDir, dir, { recursive: true });
  const file = join(dir, 'conditions.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('code: force_push_refused', 'code: force_push_nope'));
  assert.throws(
    () => loadPolicySet(dir),
    (error: unknown) =>
      error instanceof DocumentError &&
      /conditions\.yaml:\d+: unlisted_reason_code: .*force_push_nope/.test(error.message),
  );
});

test('every listed code is used by the source or the policy data (no dead entries)', () => {
  const text = [...sources, ...sourceFiles(join(packageRoot, 'src', 'sandbox'))]
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const data = readdirSync(policiesDir)
    .map((name) => readFileSync(join(policiesDir, name), 'utf8'))
    .join('\n');
  const unused = [...listed].filter(
    (code) => !text.includes(`'${code}'`) && !new RegExp(`code: ${code}\\b`).test(data),
  );
  assert.deepEqual(unused, []);
});

test('docs/reasons.md is current (regenerate: gitea-warden reasons), and --check catches a hand edit', async () => {
  assert.equal(readFileSync(reasonsDocFile, 'utf8'), renderReasonsDoc());
  assert.equal((await capture(reasons, ['--check'])).code, 0);
  const edited = join(temp, 'reasons.md');
  writeFileSync(edited, renderReasonsDoc().replace('| `self_merge` |', '| `self_merge_renamed` |'));
  const result = await capture(reasons, ['--check', '--out', edited]);
  assert.equal(result.code, 1);
  const line =
    renderReasonsDoc()
      .split('\n')
      .findIndex((l) => l.startsWith('| `self_merge` |')) + 1;
  assert.match(result.stdout, new RegExp(`reasons\\.md:${line}: differs`));
});
