// Resource scopes of a profile: which repositories (read / write), which branches per operation and
// which file paths it may act on. Compiled once with the profile; checked against the targets of a
// call after the operation lists allowed it. A missing field means no restriction of that kind; a
// broken pattern or an unreadable target denies.
import type { FailedCondition } from './decision.js';
import { normalizeName } from './normalize.js';
import {
  compilePatternList,
  firstMatch,
  valueProblem,
  type BrokenPattern,
  type PatternList,
  type ScopeKind,
} from './scope-patterns.js';
import type { Targets } from './targets.js';
import type { Vocabulary } from './vocabulary.js';
import type { ReasonCode } from './reasons.js';

export type Access = 'read' | 'write';

export interface PathRules {
  allow?: string[];
  deny?: string[];
}

/** The scope fields of a profile as written. */
export interface ScopeData {
  /** `owner/repo` patterns: one list for reads and writes, or separate lists. */
  repositories?: string[] | { read?: string[]; write?: string[] };
  /** Canonical operation (or gitea.<area>.*) -> the branch patterns it may target. */
  branches?: Record<string, string[]>;
  paths?: { read?: PathRules; write?: PathRules };
}

export interface SidePaths {
  allow: PatternList | null;
  deny: PatternList | null;
}

export interface CompiledScopes {
  repositories: Record<Access, PatternList | null>;
  /** Canonical operation -> its branch patterns. */
  branches: ReadonlyMap<string, PatternList>;
  /** branches keys that name no known operation: every branch-targeting call is denied. */
  brokenBranchKeys: BrokenPattern[];
  paths: Record<Access, SidePaths>;
}

/** Scope settings that hold for every profile, from policies/targets.yaml. */
export interface ScopePolicy {
  /** Branches never pushed to, renamed or deleted through the raw or generated tools. */
  protectedBranches: PatternList;
  /** The canonical operations the protected branches refuse. */
  protectedBranchOperations: ReadonlySet<string>;
  /** Paths no profile writes unless its paths.write.allow names them. */
  protectedPaths: PatternList;
  /** Where the protected branches and paths are written, for the determining entry. */
  targetsFile: string;
}

type LineOf = (path: readonly (string | number)[]) => number | null;

export function compileScopes(
  data: ScopeData,
  vocabulary: Vocabulary,
  service: string,
  lineOf: LineOf,
): CompiledScopes {
  const list = (path: string[], kind: ScopeKind, written: string[] | undefined, deny = false): PatternList | null =>
    written === undefined
      ? null
      : compilePatternList(path.join('.'), kind, written, (i) => lineOf(i === null ? path : [...path, i]), { deny });
  const repos = data.repositories;
  const repositories = Array.isArray(repos)
    ? { read: list(['repositories'], 'repository', repos), write: list(['repositories'], 'repository', repos) }
    : {
        read: list(['repositories', 'read'], 'repository', repos?.read),
        write: list(['repositories', 'write'], 'repository', repos?.write),
      };
  const branches = new Map<string, PatternList>();
  const brokenBranchKeys: BrokenPattern[] = [];
  for (const [key, patterns] of Object.entries(data.branches ?? {})) {
    const result = normalizeName(key, vocabulary, { service, allowPatterns: true });
    const compiled = list(['branches', key], 'branch', patterns) as PatternList;
    if (!result.ok) brokenBranchKeys.push({ written: key, line: lineOf(['branches', key]), problem: result.message });
    else for (const operation of result.canonical) if (!branches.has(operation)) branches.set(operation, compiled);
  }
  const side = (access: Access): SidePaths => ({
    allow: list(['paths', access, 'allow'], 'path', data.paths?.[access]?.allow),
    deny: list(['paths', access, 'deny'], 'path', data.paths?.[access]?.deny, true),
  });
  return { repositories, branches, brokenBranchKeys, paths: { read: side('read'), write: side('write') } };
}

/** Whether a call is a read (every operation of read risk) or a write. */
export function accessOf(operations: readonly string[], vocabulary: Vocabulary): Access {
  return operations.every((name) => vocabulary.operations.get(name)?.risk === 'read') ? 'read' : 'write';
}

export interface ScopeSubject {
  file: string;
  scopes: CompiledScopes;
}

/**
 * What Gitea says about the branches a protected-branch operation targets, read live by the server:
 * the repository's default_branch and each branch's `protected` flag (a value, or why it could not be
 * read). Without it (explain, decide offline) only protected_branches applies.
 */
export interface LiveBranchFacts {
  repository: string;
  defaultBranch: { ok: true; value: string } | { ok: false; detail: string };
  protectedFlags: Readonly<Record<string, { ok: true; value: boolean } | { ok: false; detail: string }>>;
  /**
   * Branch names the call creates without a Gitea hook (a rename's new name), judged by Gitea's rule
   * names instead of a flag (a name that does not exist yet has none); null rules: Gitea shows them to
   * repository admins only.
   */
  newNames?: readonly string[];
  rules?: { ok: true; value: readonly string[] | null } | { ok: false; detail: string };
}

/**
 * ProtectedBranch.Match (models/git/protected_branch.go): a rule matches its own name case-insensitively,
 * and as a glob (gobwas/glob, '/' separator) over the lower-cased names.
 */
export function giteaRuleMatches(rule: string, branch: string): boolean {
  if (rule.toLowerCase() === branch.toLowerCase()) return true;
  return (
    /[*?[\]{}\\!]/.test(rule) &&
    firstMatch(
      compilePatternList('', 'branch', [rule.toLowerCase()], () => null),
      branch.toLowerCase(),
    ) !== undefined
  );
}

/** Every scope the call's targets fail; empty when all hold. */
export function checkScopes(
  profile: ScopeSubject,
  targets: Targets,
  operations: readonly string[],
  access: Access,
  policy: ScopePolicy,
  live?: LiveBranchFacts,
): FailedCondition[] {
  return [
    ...repositoryFailures(profile, targets, access),
    ...branchFailures(profile, targets, operations, policy, live),
    ...pathFailures(profile, targets, access, policy),
  ];
}

function repositoryFailures(profile: ScopeSubject, targets: Targets, access: Access): FailedCondition[] {
  const scope = profile.scopes.repositories[access];
  if (!scope) return [];
  const broken = brokenFailures(profile, scope);
  if (broken.length > 0) return broken;
  if (targets.unreadable?.includes('repository')) {
    return [
      failure(
        'target_unreadable',
        `the repository this call ${access === 'read' ? 'reads' : 'writes'} cannot be read from its arguments, and ${scope.field} restricts repositories`,
        profile,
        scope.line,
        scope.field,
      ),
    ];
  }
  return (targets.repositories ?? []).flatMap((repository) => {
    const problem = valueProblem(repository, 'repository');
    if (problem) return [failure('bad_target', `the repository name ${problem}`, profile, scope.line, scope.field)];
    if (firstMatch(scope, repository)) return [];
    return [
      failure(
        'repository_out_of_scope',
        `repository ${repository} is outside ${scope.field} (${patternsText(scope)})`,
        profile,
        scope.line,
        scope.field,
      ),
    ];
  });
}

function branchFailures(
  profile: ScopeSubject,
  targets: Targets,
  operations: readonly string[],
  policy: ScopePolicy,
  live: LiveBranchFacts | undefined,
): FailedCondition[] {
  const scoped = operations.filter((name) => profile.scopes.branches.has(name));
  const guarded = operations.filter((name) => policy.protectedBranchOperations.has(name));
  const brokenKey = profile.scopes.brokenBranchKeys[0];
  // A call that touches a branch it does not name is denied too: the broken key may have been meant for it.
  if (brokenKey && (targets.branches !== undefined || targets.unreadable?.includes('branch'))) {
    return [
      failure(
        'malformed_pattern',
        `branches key '${brokenKey.written}' ${brokenKey.problem}; fix it before any branch is targeted`,
        profile,
        brokenKey.line,
      ),
    ];
  }
  if (scoped.length === 0 && guarded.length === 0) return [];
  if (targets.branches === undefined || targets.branches.length === 0) {
    return [
      failure(
        'target_unreadable',
        `the branch ${[...scoped, ...guarded][0]} targets cannot be read from the call's arguments; name it explicitly`,
        profile,
        null,
      ),
    ];
  }
  const failures: FailedCondition[] = [];
  for (const branch of targets.branches) {
    const problem = valueProblem(branch, 'branch');
    if (problem) {
      failures.push(failure('bad_target', `the branch name ${problem}`, profile, null));
      continue;
    }
    const protectedBy = guarded.length > 0 ? firstMatch(policy.protectedBranches, branch) : undefined;
    if (protectedBy)
      failures.push({
        code: 'protected_branch',
        message:
          `branch ${branch} is protected (${policy.protectedBranches.field}: ` +
          `${protectedBy.written}); ${guarded.join(', ')} never targets it through these tools`,
        entry: {
          file: policy.targetsFile,
          line: protectedBy.line,
          rule: `${policy.protectedBranches.field}: ${protectedBy.written}`,
        },
      });
    else if (guarded.length > 0 && live) failures.push(...liveProtection(live, branch, guarded, policy));
    for (const operation of scoped) {
      const scope = profile.scopes.branches.get(operation) as PatternList;
      const broken = brokenFailures(profile, scope);
      if (broken.length > 0) failures.push(...broken);
      else if (!firstMatch(scope, branch))
        failures.push(
          failure(
            'branch_out_of_scope',
            `branch ${branch} is outside ${scope.field} (${patternsText(scope)})`,
            profile,
            scope.line,
            scope.field,
          ),
        );
    }
  }
  return failures;
}

/** The repository's default branch and Gitea's own protection, read live, protect a branch like the list does. */
function liveProtection(
  live: LiveBranchFacts,
  branch: string,
  guarded: readonly string[],
  policy: ScopePolicy,
): FailedCondition[] {
  const entry = { file: policy.targetsFile, line: null, rule: 'protected_branch_operations' };
  const never = `${guarded.join(', ')} never targets it through these tools`;
  const { defaultBranch } = live;
  if (!defaultBranch.ok)
    return [
      {
        code: 'protected_branch_unknown',
        message: `${defaultBranch.detail} (live: default_branch); ${never} unread`,
        entry,
      },
    ];
  // Plain Gitea rule names match case-insensitively (ProtectedBranch.Match): so does the default branch here.
  if (defaultBranch.value.toLowerCase() === branch.toLowerCase()) {
    return [
      {
        code: 'protected_branch',
        message: `branch ${branch} is the default branch of ${live.repository} (live: default_branch); ${never}`,
        entry,
      },
    ];
  }
  if (live.newNames?.includes(branch)) return ruleProtection(live, branch, never, entry);
  const flag = live.protectedFlags[branch];
  if (!flag || !flag.ok)
    return [
      {
        code: 'protected_branch_unknown',
        message: `${flag?.detail ?? `branch ${branch} was not read`} (live: protected); ${never} unread`,
        entry,
      },
    ];
  return flag.value
    ? [
        {
          code: 'protected_branch',
          message: `Gitea protects branch ${branch} of ${live.repository} (live: protected); ${never}`,
          entry,
        },
      ]
    : [];
}

/** A name Gitea will not protect itself (no hook runs), judged by Gitea's own rules, read live. */
function ruleProtection(
  live: LiveBranchFacts,
  branch: string,
  never: string,
  entry: FailedCondition['entry'],
): FailedCondition[] {
  const { rules } = live;
  if (!rules || !rules.ok || rules.value === null) {
    const why = !rules
      ? 'the protection rules were not read'
      : !rules.ok
        ? rules.detail
        : 'Gitea shows its protection rules to repository admins only';
    return [
      {
        code: 'protected_branch_unknown',
        message: `whether a Gitea protection rule covers the new name ${branch} cannot be told (${why}; live: branch_protections); ${never} unread`,
        entry,
      },
    ];
  }
  const rule = rules.value.find((name) => giteaRuleMatches(name, branch));
  return rule === undefined
    ? []
    : [
        {
          code: 'protected_branch',
          message:
            `Gitea's protection rule ${rule} of ${live.repository} covers the new name ${branch} (live: branch_protections rule_name); ` +
            `Gitea checks only the old name of a rename, ${never}`,
          entry,
        },
      ];
}

function pathFailures(profile: ScopeSubject, targets: Targets, access: Access, policy: ScopePolicy): FailedCondition[] {
  if (targets.paths === undefined && !targets.unreadable?.includes('paths')) return [];
  const { allow, deny } = profile.scopes.paths[access];
  const guardedPaths = access === 'write' ? policy.protectedPaths : null;
  const lists = [allow, deny].filter((list): list is PatternList => list !== null);
  if (lists.length === 0 && !guardedPaths) return [];
  const broken = lists.flatMap((list) => brokenFailures(profile, list));
  if (broken.length > 0) return broken;
  if (targets.paths === undefined)
    return [
      failure(
        'target_unreadable',
        `the files this call ${access === 'read' ? 'reads' : 'writes'} cannot be read from its arguments, and file paths are restricted`,
        profile,
        null,
      ),
    ];
  return targets.paths.flatMap((path): FailedCondition[] => {
    const problem = valueProblem(path, 'path');
    if (problem) return [failure('bad_target', `file path ${problem}`, profile, null)];
    const denied = deny ? firstMatch(deny, path) : undefined;
    if (denied && deny)
      return [
        failure(
          'path_not_allowed',
          `file ${path} matches ${deny.field}: ${denied.written}`,
          profile,
          denied.line,
          `${deny.field}: ${denied.written}`,
        ),
      ];
    if (allow && !firstMatch(allow, path))
      return [
        failure(
          'path_not_allowed',
          `file ${path} is outside ${allow.field} (${patternsText(allow)})`,
          profile,
          allow.line,
          allow.field,
        ),
      ];
    const guard = guardedPaths ? firstMatch(guardedPaths, path) : undefined;
    if (guard && !namedBy(allow, guard.written, path)) {
      return [
        {
          code: 'path_not_allowed',
          message: `file ${path} is protected (${guard.written}) and this profile's paths.write.allow does not name it`,
          entry: {
            file: policy.targetsFile,
            line: guard.line,
            rule: `${policy.protectedPaths.field}: ${guard.written}`,
          },
        },
      ];
    }
    return [];
  });
}

/** An allow pattern names a protected path when it lies inside the protected area itself, not through a broader glob like `**`. */
function namedBy(allow: PatternList | null, protectedPattern: string, path: string): boolean {
  if (!allow) return false;
  const inside = compilePatternList('', 'path', [protectedPattern], () => null).patterns[0];
  return allow.patterns.some((pattern) => pattern.test(path) && inside !== undefined && inside.test(pattern.written));
}

function brokenFailures(profile: ScopeSubject, list: PatternList): FailedCondition[] {
  return list.broken.map((broken) =>
    failure(
      'malformed_pattern',
      `${list.field} pattern '${broken.written}' ${broken.problem}; the scope denies until it is fixed`,
      profile,
      broken.line,
      `${list.field}: ${broken.written}`,
    ),
  );
}

function patternsText(list: PatternList): string {
  return list.patterns.length === 0 ? 'empty list' : list.patterns.map((pattern) => pattern.written).join(', ');
}

function failure(
  code: ReasonCode,
  message: string,
  profile: ScopeSubject,
  line: number | null,
  rule = 'resource scopes',
): FailedCondition {
  return { code, message, entry: { file: profile.file, line, rule } };
}
