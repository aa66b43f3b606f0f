// The full-text index gitea_find_operations ranks with (minisearch, docs/adr/0008-operation-search.md):
// one document per catalog operation over its tool name, canonical operation, summary, description,
// path and parameter names, built once per process. A search returns catalog tool names; which of
// them a namespace may show is the registry's decision, applied as a filter before ranking is cut.
import MiniSearch from 'minisearch';
import type { CatalogEntry } from '../catalog/types.js';
import type { OperationMap } from '../policy/operation-map.js';

interface OperationDocument {
  id: string;
  name: string;
  operation: string;
  summary: string;
  description: string;
  path: string;
  parameters: string;
}

/**
 * Words a user says for what Gitea's API calls otherwise, and a term's other spellings: both sides are
 * indexed and searched as the same term(s). General vocabulary, not phrases of any test.
 */
const SYNONYMS: Readonly<Record<string, string | readonly string[]>> = {
  pr: 'pull',
  prs: 'pull',
  mr: 'pull',
  repo: 'repository',
  repos: 'repository',
  project: 'repository',
  remove: 'delete',
  erase: 'delete',
  drop: 'delete',
  destroy: 'delete',
  modify: 'edit',
  change: 'edit',
  update: 'edit',
  patch: 'edit',
  set: 'edit',
  close: 'edit',
  reopen: 'edit',
  add: 'create',
  new: 'create',
  give: 'create',
  grant: 'create',
  setup: 'create',
  register: 'create',
  show: ['get', 'list'],
  view: ['get', 'list'],
  see: ['get', 'list'],
  display: ['get', 'list'],
  read: 'get',
  fetch: 'get',
  retrieve: 'get',
  find: 'search',
  lookup: 'search',
  query: 'search',
  all: 'list',
  every: 'list',
  enumerate: 'list',
  org: 'organization',
  orgs: 'organization',
  organisation: 'organization',
  file: 'content',
  contents: 'content',
  hook: 'webhook',
  chat: 'webhook',
  slack: 'webhook',
  notify: 'webhook',
  approve: 'review',
  approval: 'review',
  reviewer: 'review',
  sha: 'commit',
  history: 'commit',
  ticket: 'issue',
  bug: 'issue',
  note: 'comment',
  reply: 'comment',
  account: 'user',
  me: 'user',
  myself: 'user',
  logged: 'authenticated',
  signed: 'authenticated',
  whoami: 'authenticated',
  access: ['collaborator', 'permission'],
  protect: 'protection',
  protected: 'protection',
  var: 'variable',
  ci: ['action', 'status'],
  pipeline: 'action',
  pass: 'status',
  passed: 'status',
  fail: 'status',
  failed: 'status',
  green: 'status',
  check: 'status',
  checks: 'status',
  build: 'status',
  trigger: 'dispatch',
  manually: 'dispatch',
  kick: 'dispatch',
  launch: 'dispatch',
  upload: 'attachment',
  binary: 'attachment',
  asset: 'attachment',
  artifact: 'attachment',
  hours: 'time',
  hour: 'time',
  minutes: 'time',
  spent: 'time',
  worked: 'time',
  timesheet: 'time',
  watch: 'subscription',
  watching: 'subscription',
  subscribe: 'subscription',
  starred: 'star',
  unread: 'notification',
  ssh: 'key',
  gpg: ['gpg', 'key'],
  comparison: 'compare',
  diff: ['diff', 'compare'],
};

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'for',
  'in',
  'on',
  'at',
  'by',
  'with',
  'and',
  'or',
  'is',
  'it',
  'its',
  'my',
  'our',
  'this',
  'that',
  'from',
  'into',
  'be',
  'i',
  'we',
  'you',
  'please',
  'can',
  'how',
  'do',
  'does',
  'which',
  'what',
  'some',
  'given',
  'specific',
  'one',
  'api',
  'gitea',
  'via',
  'using',
  'so',
  'as',
  'are',
  'there',
  'any',
  'who',
  'has',
  'have',
  'yet',
  'make',
  'up',
  'off',
  'about',
  'called',
  'them',
  'their',
  'these',
  'those',
  'out',
  'let',
  'get',
]);

/** Lower case, camelCase and snake_case split, stop words out, a light stemmer and the synonym table: the same for documents and queries. */
function processTerm(term: string): string[] | null {
  const words = term
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const out = words
    .filter((word) => !STOP_WORDS.has(word))
    .flatMap((word) => {
      const synonym = SYNONYMS[word] ?? SYNONYMS[stem(word)];
      return (synonym === undefined ? [word] : typeof synonym === 'string' ? [synonym] : synonym).map(stem);
    });
  return out.length > 0 ? out : null;
}

/** Plural and verb endings off, so "branches", "merged" and "merging" meet "branch" and "merge". */
function stem(word: string): string {
  if (word.length <= 3) return word;
  let base = word;
  if (base.endsWith('ies') && base.length > 4) base = `${base.slice(0, -3)}y`;
  else if (/(ches|shes|sses|xes)$/.test(base)) base = base.slice(0, -2);
  else if (base.endsWith('s') && !base.endsWith('ss')) base = base.slice(0, -1);
  if (base.length > 5 && base.endsWith('ing')) base = base.slice(0, -3);
  else if (base.length > 4 && base.endsWith('ed')) base = base.slice(0, -2);
  return base.length > 4 && base.endsWith('e') ? base.slice(0, -1) : base;
}

export class OperationIndex {
  private readonly search: MiniSearch<OperationDocument>;

  constructor(entries: readonly CatalogEntry[], operationMap: OperationMap) {
    this.search = new MiniSearch<OperationDocument>({
      fields: ['name', 'operation', 'summary', 'description', 'path', 'parameters'],
      tokenize: (text) => text.split(/[\s/{}.,;:()"'`?!<>=|[\]*]+/),
      processTerm,
      searchOptions: {
        boost: { summary: 3, name: 2, operation: 2, path: 1, parameters: 0.5, description: 0.5 },
        prefix: (term) => term.length >= 4,
        fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
        combineWith: 'OR',
        // Site administration needs an admin token: among equals, the everyday operation ranks first.
        boostDocument: (id) => (String(id).startsWith('gitea_admin_') ? 0.8 : 1),
      },
    });
    this.search.addAll(entries.map((entry) => documentOf(entry, operationMap)));
  }

  /** Catalog tool names best first, only those `admit` lets through, at most `limit`. */
  find(query: string, limit: number, admit: (name: string) => boolean): string[] {
    return this.search
      .search(query, { filter: (result) => admit(String(result.id)) })
      .slice(0, limit)
      .map((result) => String(result.id));
  }
}

const built = new WeakMap<readonly CatalogEntry[], OperationIndex>();

/** The process's index over these entries, built on first use (serve builds it right after the first tools/list). */
export function operationIndexFor(entries: readonly CatalogEntry[], operationMap: OperationMap): OperationIndex {
  let index = built.get(entries);
  if (!index) {
    index = new OperationIndex(entries, operationMap);
    built.set(entries, index);
  }
  return index;
}

function documentOf(entry: CatalogEntry, operationMap: OperationMap): OperationDocument {
  const { path, query, header, form, file, body } = entry.parameters;
  const bodyFields = Object.keys((body?.schema.properties ?? {}) as Record<string, unknown>);
  const parameters = [...path, ...query, ...header, ...form, ...file].map((param) => param.name).concat(bodyFields);
  return {
    id: entry.name,
    name: `${entry.name} ${entry.operationId}`,
    operation: operationMap.byOperationId.get(entry.operationId)?.operation ?? '',
    summary: entry.summary,
    description: entry.description ?? '',
    path: entry.path,
    parameters: parameters.join(' '),
  };
}
