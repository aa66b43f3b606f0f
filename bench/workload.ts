// The decision workload every engine answers: each catalog operation with representative arguments
// (none, each value the operation map knows for an argument, one value it does not know, sudo),
// against each reference profile; plus the self-merge context check, a merge judged with the
// pull request author equal to, or other than, the session login.
import { loadCatalog } from '../src/catalog/load.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { loadReferenceProfiles } from '../src/policy-files/profile-files.js';
import { valueAt, type ArgumentCondition, type Scalar } from '../src/policy/argument-match.js';
import { callGuardsFor, type CallGuardTable } from '../src/policy/guards/call-guards.js';
import { mapCall, type OperationMap, type OperationMapping } from '../src/policy/operation-map.js';
import type { CompiledProfile } from '../src/policy/profile.js';
import type { Vocabulary } from '../src/policy/vocabulary.js';

export interface BenchCall {
  operationId: string;
  arguments: Record<string, unknown>;
  /** How the arguments were chosen, for reports: none, body.force_merge=true, sudo, ... */
  variant: string;
}

/** The live facts of the self-merge check; logins are lower-case (Gitea compares them case-insensitively). */
export interface MergeFactsInput {
  login: string;
  author: string;
}

export interface BenchRequest {
  profile: CompiledProfile;
  call: BenchCall;
  facts?: MergeFactsInput;
}

export interface Workload {
  vocabulary: Vocabulary;
  operationMap: OperationMap;
  /** policies/guards.yaml call_guards: which operations the self-review and merge guards judge. */
  callGuards: CallGuardTable;
  profiles: CompiledProfile[];
  requests: BenchRequest[];
  /** Argument paths any rule reads: they travel to Cedar and casbin as flat context keys. */
  argumentPaths: string[];
}

export const UNKNOWN_VALUE = 'bench-unknown-value';
export const SUDO_USER = 'bench-sudo-user';
/** Global rules (sudo) apply to every operation alike; trying them on every 10th keeps them from swamping the workload. */
const GLOBAL_RULE_EVERY = 10;
const OTHER_AUTHOR = 'someone-else';

export interface WorkloadOptions {
  /** Keep every n-th catalog operation (plus every one with argument rules); 1 keeps all. */
  every?: number;
  profiles?: CompiledProfile[];
  operationMap?: OperationMap;
  vocabulary?: Vocabulary;
  operationIds?: string[];
}

export function buildWorkload(options: WorkloadOptions = {}): Workload {
  const policy = loadPolicySet();
  const vocabulary = options.vocabulary ?? policy.vocabulary;
  const operationMap = options.operationMap ?? policy.operationMap;
  const profiles = options.profiles ?? loadReferenceProfiles(policy);
  const every = options.every ?? 1;
  const ids = (options.operationIds ?? loadCatalog().entries.map((entry) => entry.operationId)).filter((id, index) => {
    const mapping = operationMap.byOperationId.get(id);
    return index % every === 0 || (mapping !== undefined && (mapping.rules.length > 0 || mapping.known.length > 0));
  });
  const calls = ids.flatMap((id, index) => callsFor(id, operationMap, index % GLOBAL_RULE_EVERY === 0));
  const requests = profiles.flatMap((profile) => calls.map((call) => ({ profile, call })));
  const { callGuards } = policy;
  return {
    vocabulary,
    operationMap,
    callGuards,
    profiles,
    requests: [...requests, ...mergeFactRequests(requests, operationMap, callGuards)],
    argumentPaths: argumentPaths(operationMap),
  };
}

/** The calls of one operation: no arguments, then one call per argument value a rule or known list names, one unknown value, sudo. */
export function callsFor(operationId: string, map: OperationMap, withGlobalRules: boolean): BenchCall[] {
  const mapping = map.byOperationId.get(operationId);
  const conditions = [...(mapping?.rules ?? []), ...(withGlobalRules ? map.globalRules : [])].map((rule) => rule.when);
  const variants = new Map<string, BenchCall>([['none', { operationId, arguments: {}, variant: 'none' }]]);
  const add = (path: string, value: unknown, label: string): void => {
    variants.set(label, { operationId, arguments: withValue(path, value), variant: label });
  };
  for (const known of mapping?.known ?? []) {
    for (const value of known.values) add(known.path, value, `${known.path}=${String(value)}`);
    add(known.path, UNKNOWN_VALUE, `${known.path}=<unknown>`);
  }
  for (const condition of conditions) {
    if (condition.equals !== undefined)
      add(condition.path, condition.equals, `${condition.path}=${String(condition.equals)}`);
    else if (condition.present) add(condition.path, SUDO_USER, condition.path);
  }
  return [...variants.values()];
}

/** Every allowed-looking merge call again, once with the session login as the author and once with someone else. */
function mergeFactRequests(requests: BenchRequest[], map: OperationMap, callGuards: CallGuardTable): BenchRequest[] {
  const merges = requests.filter(({ call }) => {
    const mapped = mapCall(map, call.operationId, call.arguments);
    return mapped.ok && callGuardsFor(mapped.operations, callGuards).join() === 'merge';
  });
  return merges.flatMap((request) => {
    const login = (request.profile.data.authenticated_username ?? request.profile.name ?? 'bench').toLowerCase();
    return [login, OTHER_AUTHOR].map((author) => ({ ...request, facts: { login, author } }));
  });
}

export function argumentPaths(map: OperationMap): string[] {
  const mappings: OperationMapping[] = [...map.byOperationId.values()];
  const conditions: ArgumentCondition[] = [...mappings.flatMap((m) => m.rules), ...map.globalRules].map(
    (rule) => rule.when,
  );
  return [
    ...new Set([...mappings.flatMap((m) => m.known.map((k) => k.path)), ...conditions.map((c) => c.path)]),
  ].sort();
}

/** The flat context key of an argument path: body.force_merge -> body_force_merge. */
export function contextKey(path: string): string {
  return path.replaceAll('.', '_');
}

/** The scalar arguments a rule may read, flattened for engines without nested lookups. */
export function flatContext(args: Record<string, unknown>, paths: readonly string[]): Record<string, Scalar> {
  const context: Record<string, Scalar> = {};
  for (const path of paths) {
    const value = valueAt(args, path);
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      context[contextKey(path)] = value;
  }
  return context;
}

function withValue(path: string, value: unknown): Record<string, unknown> {
  const keys = path.split('.');
  return keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

export function profileKey(profile: CompiledProfile): string {
  return profile.name ?? profile.file;
}

/** The operations the merge guard judges (the other engines are given the self-merge rule over them). */
export function mergeOperations(workload: Pick<Workload, 'callGuards'>): string[] {
  return workload.callGuards.entries.filter((entry) => entry.guard === 'merge').map((entry) => entry.operation);
}
