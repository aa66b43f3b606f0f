// Builds the target map, scope settings and conditions from policies/targets.yaml,
// policies/conditions.yaml and policies/guards.yaml, checked against the catalog: every operationId
// must exist and every JSONPath must be able to find something in that operation's input schema.
import { catalogByOperationId } from '../catalog/load.js';
import type { CatalogEntry } from '../catalog/types.js';
import type { LoadedDocument } from './document.js';
import { buildConditionSet, type ArgumentTest, type ConditionSet, type PolicyCondition } from '../policy/conditions.js';
import type { Finding } from '../policy/findings.js';
import type { GuardsConfig } from '../policy/guards/settings.js';
import { jsonPathProblem } from '../policy/schema-paths.js';
import { compilePatternList, type PatternList } from '../policy/scope-patterns.js';
import type { ScopePolicy } from '../policy/scopes.js';
import type { RepositorySource, TargetMap, TargetSpec } from '../policy/targets.js';

interface RawSpec { repository?: RepositorySource[] | 'opaque'; branch?: string[] | 'opaque'; paths?: string[] | 'opaque' }
interface RawTargets {
  default_repository: RepositorySource;
  protected_branch_operations: string[];
  protected_paths: string[];
  operations: Record<string, RawSpec>;
  result_filters: { repository_listings: string[] };
}
type RawCondition = Omit<PolicyCondition, 'line'>;

export interface TargetPolicies {
  targets: TargetMap;
  scopePolicy: ScopePolicy;
  conditions: ConditionSet;
  /** operationIds whose results are filtered to the profile's repositories.read scope. */
  repositoryListings: ReadonlySet<string>;
}

export function buildTargetPolicies(targetsDoc: LoadedDocument, conditionsDoc: LoadedDocument, guardsDoc: LoadedDocument): TargetPolicies {
  const raw = targetsDoc.data as RawTargets;
  const byOperationId = new Map<string, TargetSpec>();
  for (const entry of catalogByOperationId().values()) {
    const spec = raw.operations[entry.operationId];
    const repositories = spec?.repository ?? (namesRepository(entry) ? [raw.default_repository] : []);
    if (!spec && repositories.length === 0) continue;
    byOperationId.set(entry.operationId, {
      repositories,
      ...(spec?.branch !== undefined ? { branch: spec.branch } : {}),
      ...(spec?.paths !== undefined ? { paths: spec.paths } : {}),
      line: spec ? targetsDoc.lineOf(['operations', entry.operationId]) : null,
    });
  }
  const guards = guardsDoc.data as GuardsConfig;
  const conditions = ((conditionsDoc.data as { conditions: RawCondition[] }).conditions).map((condition, i) => ({ ...condition, line: conditionsDoc.lineOf(['conditions', i]) }));
  return {
    targets: { file: targetsDoc.file, byOperationId },
    scopePolicy: {
      protectedBranches: compilePatternList('cleanup.protected_branches', 'branch', guards.cleanup.protected_branches, (i) => guardsDoc.lineOf(i === null ? ['cleanup', 'protected_branches'] : ['cleanup', 'protected_branches', i]), { deny: true }),
      protectedBranchOperations: new Set(raw.protected_branch_operations),
      protectedPaths: compilePatternList('protected_paths', 'path', raw.protected_paths, (i) => targetsDoc.lineOf(i === null ? ['protected_paths'] : ['protected_paths', i]), { deny: true }),
      guardsFile: guardsDoc.file,
      targetsFile: targetsDoc.file,
    },
    conditions: buildConditionSet(conditionsDoc.file, conditions),
    repositoryListings: new Set(raw.result_filters.repository_listings),
  };
}

function namesRepository(entry: CatalogEntry): boolean {
  return entry.path.includes('/{owner}/{repo}');
}

/** Unknown operationIds and operations, JSONPaths the input schema cannot hold, malformed patterns. */
export function targetFindings(policies: TargetPolicies, targetsDoc: LoadedDocument, conditionsDoc: LoadedDocument, known: ReadonlySet<string>): Finding[] {
  const catalog = catalogByOperationId();
  const findings: Finding[] = [];
  const at = (doc: LoadedDocument, path: (string | number)[], code: string, message: string, fix: string): void => {
    findings.push({ file: doc.file, line: doc.lineOf(path), severity: 'error', code, message, fix });
  };
  const checkPath = (doc: LoadedDocument, where: (string | number)[], operationId: string, path: string): void => {
    const entry = catalog.get(operationId);
    const problem = entry ? jsonPathProblem(path, entry.inputSchema) : null;
    if (problem) at(doc, where, 'jsonpath_not_in_schema', `${operationId}: JSONPath ${path} ${problem}`, `use a path of the ${entry?.name ?? operationId} tool input (gitea-warden tools shows it)`);
  };
  const unknownId = (doc: LoadedDocument, where: (string | number)[], id: string): boolean => {
    if (catalog.has(id)) return false;
    at(doc, where, 'unknown_operation_id', `operationId ${id} is not in the catalog`, 'use an operationId of the pinned Gitea spec');
    return true;
  };
  const raw = targetsDoc.data as RawTargets;
  for (const [id, spec] of Object.entries(raw.operations)) {
    if (unknownId(targetsDoc, ['operations', id], id)) continue;
    const paths = [
      ...(Array.isArray(spec.repository) ? spec.repository.flatMap((source) => [source.owner, source.name]) : []),
      ...(Array.isArray(spec.branch) ? spec.branch : []),
      ...(Array.isArray(spec.paths) ? spec.paths : []),
    ];
    for (const path of paths) checkPath(targetsDoc, ['operations', id], id, path);
  }
  raw.result_filters.repository_listings.forEach((id, i) => unknownId(targetsDoc, ['result_filters', 'repository_listings', i], id));
  raw.protected_branch_operations.forEach((name, i) => {
    if (!known.has(name)) at(targetsDoc, ['protected_branch_operations', i], 'unknown_operation', `'${name}' is not in the vocabulary`, 'use a canonical name from policies/vocabulary.yaml');
  });
  for (const list of [policies.scopePolicy.protectedPaths, policies.scopePolicy.protectedBranches]) findings.push(...brokenFindings(list, list === policies.scopePolicy.protectedPaths ? targetsDoc.file : policies.scopePolicy.guardsFile));
  (conditionsDoc.data as { conditions: RawCondition[] }).conditions.forEach((condition, i) => {
    const tests: ArgumentTest[] = [...(condition.when ?? []), ...condition.require];
    condition.operation_ids.forEach((id, j) => {
      if (unknownId(conditionsDoc, ['conditions', i, 'operation_ids', j], id)) return;
      for (const test of tests) checkPath(conditionsDoc, ['conditions', i], id, test.path);
    });
    for (const test of tests) {
      if (test.in_branch_scope !== undefined && !known.has(test.in_branch_scope)) at(conditionsDoc, ['conditions', i], 'unknown_operation', `'${test.in_branch_scope}' is not in the vocabulary`, 'use a canonical name from policies/vocabulary.yaml');
    }
  });
  return findings;
}

function brokenFindings(list: PatternList, file: string): Finding[] {
  return list.broken.map((broken) => ({ file, line: broken.line, severity: 'error' as const, code: 'malformed_pattern', message: `${list.field} pattern '${broken.written}' ${broken.problem}`, fix: 'write a well-formed glob' }));
}
