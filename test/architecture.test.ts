// The arrows the blueprint forbids, checked on the source itself: a pure policy layer, the MCP SDK
// behind the server and transports, Gitea HTTP behind src/gitea, runtime imports only of declared
// runtime dependencies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { packageRoot } from '../src/shared/paths.js';

interface ImportEdge {
  from: string;
  specifier: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

const importPattern = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(file, 'utf8');
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(importPattern)) {
    const specifier = match[3] ?? match[4];
    if (specifier) edges.push({ from: relative(packageRoot, file), specifier, typeOnly: Boolean(match[2]) });
  }
  return edges;
}

const srcDir = join(packageRoot, 'src');
const edges = sourceFiles(srcDir).flatMap(importsOf);

/** The src room (catalog, policy, gitea, ...) an import lands in, or null for packages and node builtins. */
function targetRoom(edge: ImportEdge): string | null {
  if (!edge.specifier.startsWith('.')) return null;
  const target = relative(srcDir, resolve(dirname(join(packageRoot, edge.from)), edge.specifier));
  return target.split('/')[0] ?? null;
}

function roomOf(edge: ImportEdge): string {
  return edge.from.split('/')[1] ?? '';
}

/** Node's I/O, process and timing modules, with or without the node: prefix, and their subpaths (fs/promises). */
const ioModule = /^(node:)?(fs|net|http|https|http2|child_process|process|os|dgram|tls|dns|worker_threads|perf_hooks|cluster)(\/|$)/;

test('src/policy is pure: no I/O modules, no shell rooms, no clock or environment', () => {
  const forbiddenRooms = new Set(['gitea', 'server', 'transports', 'audit', 'sandbox', 'policy-files', 'shared', 'cli']);
  const offending = edges.filter(
    (e) =>
      roomOf(e) === 'policy' &&
      (forbiddenRooms.has(targetRoom(e) ?? '') || ioModule.test(e.specifier)),
  );
  assert.deepEqual(offending, []);
  for (const file of sourceFiles(join(srcDir, 'policy'))) {
    const text = readFileSync(file, 'utf8');
    for (const banned of [/\bprocess\b/, /\bDate\.now\(/, /\bDate\(/, /\bperformance\./, /\bMath\.random\(/, /\bfetch\(/]) {
      assert.doesNotMatch(text, banned, `${relative(packageRoot, file)} uses ${banned.source}`);
    }
  }
});

test('only src/server and src/transports import the MCP SDK', () => {
  const offending = edges.filter((e) => e.specifier.startsWith('@modelcontextprotocol/sdk') && !['server', 'transports'].includes(roomOf(e)));
  assert.deepEqual(offending, []);
});

test('the executor side never decides policy: src/gitea imports policy types only', () => {
  const offending = edges.filter((e) => roomOf(e) === 'gitea' && targetRoom(e) === 'policy' && !e.typeOnly);
  assert.deepEqual(offending, []);
});

test('Gitea HTTP stays behind src/gitea (and the sandbox, which is the other side of it)', () => {
  const offending = sourceFiles(srcDir)
    .filter((f) => !/\/src\/(gitea|sandbox)\//.test(f))
    .filter((f) => /\bfetch\(/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(packageRoot, f));
  assert.deepEqual(offending, []);
});

test('src imports only declared runtime dependencies and node builtins', () => {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const runtime = new Set(Object.keys(pkg.dependencies));
  const offending = edges.filter((e) => {
    if (e.specifier.startsWith('.') || e.specifier.startsWith('node:') || e.typeOnly) return false;
    const name = e.specifier.startsWith('@') ? e.specifier.split('/').slice(0, 2).join('/') : (e.specifier.split('/')[0] ?? '');
    return !runtime.has(name);
  });
  assert.deepEqual(offending, []);
});
