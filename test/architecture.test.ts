// The arrows the blueprint forbids, checked on the source itself: every import between rooms against
// the table of test/support/rooms.ts (which docs/architecture.md shows), no cycle between rooms, a pure
// policy layer, the MCP SDK behind the server and transports, Gitea HTTP behind src/gitea, runtime
// imports only of declared runtime dependencies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { packageRoot } from '../src/shared/paths.js';
import { ROOMS, ROOMS_BEGIN, ROOMS_END, renderRoomsTable } from './support/rooms.js';

interface ImportEdge {
  from: string;
  specifier: string;
  typeOnly: boolean;
  /** An import('...') expression, loaded when it runs rather than with the module. */
  dynamic?: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

// `import|export ... from '...'`, a dynamic `import('...')`, and a bare `import '...'`.
const importPattern =
  /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(file, 'utf8');
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(importPattern)) {
    const specifier = match[3] ?? match[4] ?? match[5];
    if (specifier)
      edges.push({
        from: relative(packageRoot, file),
        specifier,
        typeOnly: Boolean(match[2]),
        dynamic: match[4] !== undefined,
      });
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

test('docs/architecture.md shows the room table of test/support/rooms.ts', () => {
  const doc = readFileSync(join(packageRoot, 'docs/architecture.md'), 'utf8');
  const begin = doc.indexOf(ROOMS_BEGIN);
  const end = doc.indexOf(ROOMS_END);
  assert.ok(begin >= 0 && end > begin, 'docs/architecture.md lacks the rooms markers');
  assert.equal(doc.slice(begin + ROOMS_BEGIN.length, end).trim(), renderRoomsTable(), 'paste renderRoomsTable()');
});

test('the room table names every room of src/, and only those', () => {
  const folders = readdirSync(srcDir).filter((name) => statSync(join(srcDir, name)).isDirectory());
  assert.deepEqual(ROOMS.map((r) => r.name).sort(), folders.sort());
  const names = new Set(ROOMS.map((r) => r.name));
  for (const room of ROOMS)
    for (const target of room.mayImport) assert.ok(names.has(target), `${room.name}: ${target}`);
});

/** The imports between rooms the table does not allow, as "file -> specifier". */
function forbiddenImports(all: readonly ImportEdge[]): string[] {
  const allowed = new Map(ROOMS.map((r) => [r.name, new Set(r.mayImport)]));
  return all
    .filter((e) => {
      const to = targetRoom(e);
      return to !== null && to !== roomOf(e) && !allowed.get(roomOf(e))?.has(to);
    })
    .map((e) => `${e.from} -> ${e.specifier}`);
}

/** One cycle of the room graph (as rooms, the first repeated last), or null when there is none. */
function roomCycle(all: readonly ImportEdge[]): string[] | null {
  const graph = new Map<string, Set<string>>();
  for (const e of all) {
    const to = targetRoom(e);
    if (to === null || to === roomOf(e)) continue;
    graph.set(roomOf(e), (graph.get(roomOf(e)) ?? new Set()).add(to));
  }
  const done = new Set<string>();
  const visit = (room: string, path: string[]): string[] | null => {
    if (path.includes(room)) return [...path.slice(path.indexOf(room)), room];
    if (done.has(room)) return null;
    for (const next of graph.get(room) ?? []) {
      const cycle = visit(next, [...path, room]);
      if (cycle) return cycle;
    }
    done.add(room);
    return null;
  };
  for (const room of graph.keys()) {
    const cycle = visit(room, []);
    if (cycle) return cycle;
  }
  return null;
}

test('every import between rooms is one the room table allows', () => {
  assert.ok(
    edges.some((e) => targetRoom(e) !== null && targetRoom(e) !== roomOf(e)),
    'no imports between rooms seen',
  );
  assert.deepEqual(forbiddenImports(edges), []);
});

test('no cycle between rooms', () => {
  assert.equal(roomCycle(edges)?.join(' -> ') ?? null, null);
});

test('the checks catch a forbidden import and a cycle', () => {
  const edge = (from: string, specifier: string): ImportEdge => ({ from, specifier, typeOnly: false });
  assert.deepEqual(forbiddenImports([edge('src/policy/decide.ts', '../gitea/http.js')]), [
    'src/policy/decide.ts -> ../gitea/http.js',
  ]);
  assert.deepEqual(forbiddenImports([edge('src/server/a.ts', '../policy/decide.js')]), []);
  const cycle = [edge('src/server/a.ts', '../transports/b.js'), edge('src/transports/b.ts', '../server/sdk.js')];
  assert.deepEqual(roomCycle(cycle), ['server', 'transports', 'server']);
  assert.equal(roomCycle([cycle[1]!]), null);
});

/** Node's I/O, process and timing modules, with or without the node: prefix, and their subpaths (fs/promises). */
const ioModule =
  /^(node:)?(fs|net|http|https|http2|child_process|process|os|dgram|tls|dns|worker_threads|perf_hooks|cluster)(\/|$)/;

test('src/policy is pure: no I/O modules, no shell rooms, no clock or environment', () => {
  const forbiddenRooms = new Set([
    'gitea',
    'server',
    'transports',
    'audit',
    'sandbox',
    'policy-files',
    'shared',
    'cli',
  ]);
  const offending = edges.filter(
    (e) => roomOf(e) === 'policy' && (forbiddenRooms.has(targetRoom(e) ?? '') || ioModule.test(e.specifier)),
  );
  assert.deepEqual(offending, []);
  for (const file of sourceFiles(join(srcDir, 'policy'))) {
    const text = readFileSync(file, 'utf8');
    for (const banned of [
      /\bprocess\b/,
      /\bDate\.now\(/,
      /\bDate\(/,
      /\bperformance\./,
      /\bMath\.random\(/,
      /\bfetch\(/,
    ]) {
      assert.doesNotMatch(text, banned, `${relative(packageRoot, file)} uses ${banned.source}`);
    }
  }
});

test('only src/server and src/transports import the MCP SDK, and only its v2 line', () => {
  const sdk = edges.filter((e) => e.specifier.startsWith('@modelcontextprotocol/'));
  assert.ok(sdk.length > 0, 'no MCP SDK import seen');
  assert.deepEqual(
    sdk.filter((e) => !['server', 'transports'].includes(roomOf(e))),
    [],
  );
  // The v1 package (@modelcontextprotocol/sdk) is a dev dependency, for the test that drives a v1 client.
  assert.deepEqual(
    sdk.filter((e) => e.specifier.startsWith('@modelcontextprotocol/sdk')),
    [],
  );
  // ...and only that test imports it: every other test and the bench drive the v2 client.
  const v1 = [join(packageRoot, 'test'), join(packageRoot, 'bench')]
    .flatMap((dir) => sourceFiles(dir))
    .filter((file) => /@modelcontextprotocol\/sdk\b/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(packageRoot, file));
  assert.deepEqual(v1, ['test/architecture.test.ts', 'test/e2e-eras.test.ts']);
});

test('only src/telemetry imports OpenTelemetry, and only otel.ts (loaded when configured) its SDK', () => {
  const otel = edges.filter((e) => e.specifier.startsWith('@opentelemetry/'));
  assert.ok(otel.length > 0, 'no OpenTelemetry import seen');
  assert.deepEqual(
    otel.filter((e) => roomOf(e) !== 'telemetry'),
    [],
  );
  // The rest of the room reaches otel.ts only through import() or for types, so start-up never loads the SDK.
  assert.deepEqual(
    otel.filter((e) => e.from !== 'src/telemetry/otel.ts').map((e) => e.from),
    [],
  );
  const staticOtel = edges.filter((e) => /\/otel\.js$/.test(e.specifier) && !e.typeOnly && !e.dynamic);
  assert.deepEqual(
    staticOtel.map((e) => e.from),
    [],
  );
});

test('the executor side never decides policy: src/gitea imports policy types only', () => {
  const offending = edges.filter((e) => roomOf(e) === 'gitea' && targetRoom(e) === 'policy' && !e.typeOnly);
  assert.deepEqual(offending, []);
});

/**
 * The one HTTP client elsewhere: src/auth/document-fetch.ts fetches client metadata documents, URLs an
 * attacker chooses, with its own checks (address after DNS, pinned connection, origin, size, time) that
 * the Gitea client must not have; kept to that one file so the rule still finds any other client.
 */
const DOCUMENT_FETCHER = 'src/auth/document-fetch.ts';

test('Gitea HTTP stays behind src/gitea (and the sandbox, which is the other side of it)', () => {
  const offending = sourceFiles(srcDir)
    .filter((f) => !/\/src\/(gitea|sandbox)\//.test(f) && relative(packageRoot, f) !== DOCUMENT_FETCHER)
    .filter((f) => HTTP_CLIENT.some((pattern) => pattern.test(readFileSync(f, 'utf8'))))
    .map((f) => relative(packageRoot, f));
  assert.deepEqual(offending, []);
});

/** What sends an HTTP request: fetch, or node's client (src/gitea/http.ts uses node:http's request). */
const HTTP_CLIENT = [/\bfetch\(/, /\bimport\s*\{[^}]*\brequest\b[^}]*\}\s*from\s*'node:https?'/, /\bhttps?\.request\(/];

test('src imports only declared runtime dependencies and node builtins', () => {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const runtime = new Set(Object.keys(pkg.dependencies));
  const offending = edges.filter((e) => {
    if (e.specifier.startsWith('.') || e.specifier.startsWith('node:') || e.typeOnly) return false;
    const name = e.specifier.startsWith('@')
      ? e.specifier.split('/').slice(0, 2).join('/')
      : (e.specifier.split('/')[0] ?? '');
    return !runtime.has(name);
  });
  assert.deepEqual(offending, []);
});

test('no file name in two rooms: a name says which job, wherever it is found', () => {
  const rooms = new Map<string, Set<string>>();
  for (const file of sourceFiles(join(packageRoot, 'src'))) {
    const path = relative(join(packageRoot, 'src'), file);
    const name = path.split('/').at(-1) as string;
    const room = path.split('/')[0] as string;
    // A command is named for the command (src/cli/decide.ts runs `gitea-warden decide` over src/policy/decide.ts).
    if (room === 'cli') continue;
    rooms.set(name, new Set([...(rooms.get(name) ?? []), path]));
  }
  const twice = [...rooms]
    .filter(([, paths]) => paths.size > 1)
    .map(([name, paths]) => `${name}: ${[...paths].join(', ')}`);
  assert.deepEqual(twice, []);
});
