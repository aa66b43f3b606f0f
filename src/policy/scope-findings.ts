// Lint findings about a profile's resource scopes, for `gitea-warden check`: malformed patterns and
// keys (errors), empty lists, patterns that match everything, and patterns shadowed by another
// pattern of the same list (warnings).
import type { Finding } from './findings.js';
import { matchesEverything, shadowedBy, type PatternList, type ScopeKind } from './scope-patterns.js';
import type { CompiledScopes } from './scopes.js';

export function scopeFindings(profile: { file: string; scopes: CompiledScopes }): Finding[] {
  const { scopes, file } = profile;
  const lists: [PatternList | null, ScopeKind][] = [
    [scopes.repositories.read, 'repository'],
    [scopes.repositories.write === scopes.repositories.read ? null : scopes.repositories.write, 'repository'],
    ...[...new Set(scopes.branches.values())].map((list): [PatternList, ScopeKind] => [list, 'branch']),
    ...(['read', 'write'] as const).flatMap(
      (side) =>
        [
          [scopes.paths[side].allow, 'path'],
          [scopes.paths[side].deny, 'path'],
        ] as [PatternList | null, ScopeKind][],
    ),
  ];
  const keys = scopes.brokenBranchKeys.map((key): Finding => ({
    file,
    line: key.line,
    severity: 'error',
    code: 'malformed_pattern',
    message: `branches key '${key.written}': ${key.problem}; every call that targets a branch is denied`,
    fix: 'use a canonical operation name (or gitea.<area>.*) as the key',
  }));
  return [...keys, ...lists.flatMap(([list, kind]) => (list ? listFindings(file, list, kind) : []))];
}

function listFindings(file: string, list: PatternList, kind: ScopeKind): Finding[] {
  const findings: Finding[] = list.broken.map((broken) => ({
    file,
    line: broken.line,
    severity: 'error',
    code: 'malformed_pattern',
    message: `${list.field} pattern '${broken.written}' ${broken.problem}; the scope denies until it is fixed`,
    fix: 'write a glob without .. segments, a leading /, backslashes or unbalanced brackets',
  }));
  if (list.patterns.length + list.broken.length === 0) {
    findings.push({
      file,
      line: list.line,
      severity: 'warning',
      code: 'empty_scope',
      message: `${list.field} is empty: it matches nothing`,
      fix: 'list patterns, or remove the field to lift the restriction',
    });
  }
  for (const pattern of list.patterns) {
    if (matchesEverything(pattern.written, kind)) {
      findings.push({
        file,
        line: pattern.line,
        severity: 'warning',
        code: 'always_true_pattern',
        message: `${list.field} pattern '${pattern.written}' matches everything`,
        fix: 'narrow the pattern, or remove the field to state that there is no restriction',
      });
      continue;
    }
    const cover = list.patterns.find((other) => shadowedBy(pattern.written, other.written, kind));
    if (cover)
      findings.push({
        file,
        line: pattern.line,
        severity: 'warning',
        code: 'shadowed_pattern',
        message: `${list.field} pattern '${pattern.written}' is already covered by '${cover.written}'`,
        fix: 'remove the narrower pattern',
      });
  }
  return findings;
}
