// Builds the target map, scope settings and conditions from policies/targets.yaml and
// policies/conditions.yaml, checked against the catalog: every operationId
// must exist and every JSONPath must be able to find something in that operation's input schema.
import { catalogByOperationId } from '../catalog/load.js';
import type { RepositoryReach } from '../catalog/reach.js';
import type { CatalogEntry } from '../catalog/types.js';
import type { LoadedDocument } from '../shared/document.js';
import { buildConditionSet, type ArgumentTest, type ConditionSet, type PolicyCondition } from '../policy/conditions.js';
import type { Finding } from '../policy/findings.js';
import { isReasonCode, type ReasonCode } from '../policy/reasons.js';
import { jsonPathProblem } from '../policy/schema-paths.js';
import { compilePatternList, type PatternList } from '../policy/scope-patterns.js';
import type { ScopePolicy } from '../policy/scopes.js';
import type { NestedRule } from '../policy/scope-views.js';
import type { RepositorySource, TargetMap, TargetSpec } from '../policy/targets.js';

interface RawSpec {
  repository?: RepositorySource[];
  branch?: string[] | 'opaque';
  branches?: string[];
  new_branches?: string[];
  paths?: string[] | 'opaque';
}
interface RawRefMove {
  source: string[] | 'upstream';
  onto: string[] | 'default_branch';
}
interface RawTargets {
  default_repository: { owner: string; name: string };
  protected_branches: string[];
  protected_branch_operations: string[];
  protected_paths: string[];
  operations: Record<string, RawSpec>;
  ref_moves: Record<string, RawRefMove>;
  nested_repositories: Record<string, NestedRule[]>;
  unrelated_fields: Record<string, string[]>;
  unnamed_repositories: { filtered: string[]; opaque: string[] };
}
/** As written: its code is checked against reasons.ts by targetFindings (an unlisted one fails the load). */
type RawCondition = Omit<PolicyCondition, 'line' | 'code'> & { code: string };

export interface TargetPolicies {
  targets: TargetMap;
  scopePolicy: ScopePolicy;
  conditions: ConditionSet;
  /** operationIds whose results are filtered to the profile's repositories.read scope. */
  scopeFiltered: ReadonlySet<string>;
  /** operationId -> the objects its answer embeds that may belong to other repositories. */
  nestedRepositories: ReadonlyMap<string, readonly NestedRule[]>;
}

export function buildTargetPolicies(targetsDoc: LoadedDocument, conditionsDoc: LoadedDocument): TargetPolicies {
  const raw = targetsDoc.data as RawTargets;
  const byOperationId = new Map<string, TargetSpec>();
  const opaque = new Map(raw.unnamed_repositories.opaque.map((id, i) => [id, i]));
  for (const entry of catalogByOperationId().values()) {
    const spec = raw.operations[entry.operationId];
    const opaqueAt = opaque.get(entry.operationId);
    const named = spec?.repository ?? (namesRepository(entry) ? [raw.default_repository] : []);
    const repositories = opaqueAt !== undefined ? 'opaque' : named;
    if (!spec && repositories.length === 0) continue;
    byOperationId.set(entry.operationId, {
      repositories,
      ...(spec?.branch !== undefined ? { branch: spec.branch } : {}),
      ...(spec?.branches !== undefined ? { branches: spec.branches } : {}),
      ...(spec?.new_branches !== undefined ? { newBranches: spec.new_branches } : {}),
      ...(spec?.paths !== undefined ? { paths: spec.paths } : {}),
      line:
        opaqueAt !== undefined
          ? targetsDoc.lineOf(['unnamed_repositories', 'opaque', opaqueAt])
          : spec
            ? targetsDoc.lineOf(['operations', entry.operationId])
            : null,
    });
  }
  const conditions = (conditionsDoc.data as { conditions: RawCondition[] }).conditions.map((condition, i) => ({
    ...condition,
    code: condition.code as ReasonCode,
    line: conditionsDoc.lineOf(['conditions', i]),
  }));
  return {
    targets: {
      file: targetsDoc.file,
      byOperationId,
      refMoves: new Map(
        Object.entries(raw.ref_moves).map(([id, move]) => [
          id,
          { source: move.source, onto: move.onto, line: targetsDoc.lineOf(['ref_moves', id]) },
        ]),
      ),
    },
    scopePolicy: {
      protectedBranches: compilePatternList(
        'protected_branches',
        'branch',
        raw.protected_branches,
        (i) => targetsDoc.lineOf(i === null ? ['protected_branches'] : ['protected_branches', i]),
        { deny: true },
      ),
      protectedBranchOperations: new Set(raw.protected_branch_operations),
      protectedPaths: compilePatternList(
        'protected_paths',
        'path',
        raw.protected_paths,
        (i) => targetsDoc.lineOf(i === null ? ['protected_paths'] : ['protected_paths', i]),
        { deny: true },
      ),
      targetsFile: targetsDoc.file,
    },
    conditions: buildConditionSet(conditionsDoc.file, conditions),
    scopeFiltered: new Set(raw.unnamed_repositories.filtered),
    nestedRepositories: new Map(Object.entries(raw.nested_repositories)),
  };
}

function sourcePaths(source: RepositorySource): string[] {
  if ('id' in source) return [source.id];
  if ('url_path' in source) return [source.url_path];
  if ('compare_head' in source) return [source.compare_head, source.owner];
  return [source.owner, source.name];
}

export interface ReachGap {
  operationId: string;
  /** The input field that can name a repository, when that is the gap. */
  field?: string;
  problem: string;
  fix: string;
}

/**
 * Operations whose reach policies/targets.yaml leaves open: one that can reach repositories it does not
 * name and is neither filtered, opaque nor named through argument targets; a field that can name a
 * repository and is neither a target, of an operation filtered or opaque, nor declared unrelated.
 */
export function reachGaps(reach: ReadonlyMap<string, RepositoryReach>, targets: unknown): ReachGap[] {
  const raw = targets as RawTargets;
  const closed = new Set([...raw.unnamed_repositories.filtered, ...raw.unnamed_repositories.opaque]);
  const gaps: ReachGap[] = [];
  for (const [operationId, { fields, unnamed }] of reach) {
    if (closed.has(operationId)) continue;
    const sources = raw.operations[operationId]?.repository;
    if (unnamed !== null && sources === undefined) {
      gaps.push({
        operationId,
        problem: `can reach repositories it does not name (${unnamed}) and is neither filtered nor opaque`,
        fix: 'list it under unnamed_repositories.filtered or .opaque in policies/targets.yaml',
      });
    }
    const read = new Set([...(sources ?? []).flatMap(sourcePaths), ...(raw.unrelated_fields[operationId] ?? [])]);
    for (const field of fields.filter((f) => !read.has(f))) {
      gaps.push({
        operationId,
        field,
        problem: `field ${field} can name a repository and is not one of its repository targets`,
        fix: `add it to operations.${operationId}.repository (or to unrelated_fields) in policies/targets.yaml`,
      });
    }
  }
  return gaps;
}

function namesRepository(entry: CatalogEntry): boolean {
  return entry.path.includes('/{owner}/{repo}');
}

/** Unknown operationIds and operations, JSONPaths the input schema cannot hold, malformed patterns. */
export function targetFindings(
  policies: TargetPolicies,
  targetsDoc: LoadedDocument,
  conditionsDoc: LoadedDocument,
  known: ReadonlySet<string>,
): Finding[] {
  const catalog = catalogByOperationId();
  const findings: Finding[] = [];
  const at = (doc: LoadedDocument, path: (string | number)[], code: ReasonCode, message: string, fix: string): void => {
    findings.push({ file: doc.file, line: doc.lineOf(path), severity: 'error', code, message, fix });
  };
  const checkPath = (doc: LoadedDocument, where: (string | number)[], operationId: string, path: string): void => {
    const entry = catalog.get(operationId);
    const problem = entry ? jsonPathProblem(path, entry.inputSchema) : null;
    if (problem)
      at(
        doc,
        where,
        'jsonpath_not_in_schema',
        `${operationId}: JSONPath ${path} ${problem}`,
        `use a path of the ${entry?.name ?? operationId} tool input (gitea-warden tools shows it)`,
      );
  };
  const unknownId = (doc: LoadedDocument, where: (string | number)[], id: string): boolean => {
    if (catalog.has(id)) return false;
    at(
      doc,
      where,
      'unknown_operation_id',
      `operationId ${id} is not in the catalog`,
      'use an operationId of the pinned Gitea spec',
    );
    return true;
  };
  const raw = targetsDoc.data as RawTargets;
  for (const [id, spec] of Object.entries(raw.operations)) {
    if (unknownId(targetsDoc, ['operations', id], id)) continue;
    const paths = [
      ...(spec.repository ?? []).flatMap(sourcePaths),
      ...(Array.isArray(spec.branch) ? spec.branch : []),
      ...(spec.branches ?? []),
      ...(spec.new_branches ?? []),
      ...(Array.isArray(spec.paths) ? spec.paths : []),
    ];
    for (const path of paths) checkPath(targetsDoc, ['operations', id], id, path);
  }
  for (const id of Object.keys(raw.nested_repositories)) unknownId(targetsDoc, ['nested_repositories', id], id);
  for (const [id, move] of Object.entries(raw.ref_moves)) {
    if (unknownId(targetsDoc, ['ref_moves', id], id)) continue;
    const paths = [...(Array.isArray(move.source) ? move.source : []), ...(Array.isArray(move.onto) ? move.onto : [])];
    for (const path of paths) checkPath(targetsDoc, ['ref_moves', id], id, path);
  }
  for (const list of ['filtered', 'opaque'] as const) {
    raw.unnamed_repositories[list].forEach((id, i) => {
      const where = ['unnamed_repositories', list, i];
      if (unknownId(targetsDoc, where, id)) return;
      if (list === 'filtered' && raw.unnamed_repositories.opaque.includes(id))
        at(
          targetsDoc,
          where,
          'filtered_and_opaque',
          `${id} is both filtered and opaque`,
          'keep it in one of the two lists',
        );
    });
  }
  for (const [id, fields] of Object.entries(raw.unrelated_fields)) {
    if (unknownId(targetsDoc, ['unrelated_fields', id], id)) continue;
    for (const field of fields) checkPath(targetsDoc, ['unrelated_fields', id], id, field);
  }
  for (const gap of reachGaps(new Map([...catalog].map(([id, entry]) => [id, entry.reach])), raw)) {
    at(
      targetsDoc,
      gap.field ? ['operations'] : ['unnamed_repositories'],
      'unscoped_reach',
      `${gap.operationId} ${gap.problem}`,
      gap.fix,
    );
  }
  raw.protected_branch_operations.forEach((name, i) => {
    if (!known.has(name))
      at(
        targetsDoc,
        ['protected_branch_operations', i],
        'unknown_operation',
        `'${name}' is not in the vocabulary`,
        'use a canonical name from policies/vocabulary.yaml',
      );
  });
  for (const list of [policies.scopePolicy.protectedPaths, policies.scopePolicy.protectedBranches])
    findings.push(...brokenFindings(list, targetsDoc.file));
  (conditionsDoc.data as { conditions: RawCondition[] }).conditions.forEach((condition, i) => {
    const tests: ArgumentTest[] = [...(condition.when ?? []), ...condition.require];
    condition.operation_ids.forEach((id, j) => {
      if (unknownId(conditionsDoc, ['conditions', i, 'operation_ids', j], id)) return;
      for (const test of tests) checkPath(conditionsDoc, ['conditions', i], id, test.path);
    });
    if (!isReasonCode(condition.code)) {
      at(
        conditionsDoc,
        ['conditions', i, 'code'],
        'unlisted_reason_code',
        `condition ${condition.id} denies with code ${condition.code}, which src/policy/reasons.ts does not list`,
        'use a code docs/reasons.md lists (or list the new one in src/policy/reasons.ts)',
      );
    }
    for (const test of tests) {
      if (test.in_branch_scope !== undefined && !known.has(test.in_branch_scope))
        at(
          conditionsDoc,
          ['conditions', i],
          'unknown_operation',
          `'${test.in_branch_scope}' is not in the vocabulary`,
          'use a canonical name from policies/vocabulary.yaml',
        );
    }
  });
  return findings;
}

function brokenFindings(list: PatternList, file: string): Finding[] {
  return list.broken.map((broken) => ({
    file,
    line: broken.line,
    severity: 'error' as const,
    code: 'malformed_pattern',
    message: `${list.field} pattern '${broken.written}' ${broken.problem}`,
    fix: 'write a well-formed glob',
  }));
}
