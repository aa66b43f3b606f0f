// Glob patterns of resource scopes (repositories, branches, file paths), compiled once with micromatch,
// and the shape checks of the values they are matched against. A pattern that is not well formed never
// matches anything silently: it is reported as broken, and the scope that holds it denies.
import micromatch from 'micromatch';

export type ScopeKind = 'repository' | 'branch' | 'path';

export interface CompiledPattern {
  written: string;
  line: number | null;
  test: (value: string) => boolean;
}

export interface BrokenPattern {
  written: string;
  line: number | null;
  problem: string;
}

/** One list of patterns as written in a profile (or policy), with where it was written. */
export interface PatternList {
  /** Dotted field name, e.g. repositories.write, branches.gitea.branch.push, paths.write.deny. */
  field: string;
  line: number | null;
  patterns: CompiledPattern[];
  broken: BrokenPattern[];
}

// Repository names are case-insensitive in Gitea; branch names and file paths are not. Deny lists
// match case-insensitively so a case variant cannot slip past them.
const OPTIONS: Record<ScopeKind, micromatch.Options> = {
  repository: { dot: true, nocase: true },
  branch: { dot: true },
  path: { dot: true },
};

export function compilePatternList(
  field: string,
  kind: ScopeKind,
  written: readonly string[],
  lineOf: (index: number | null) => number | null,
  options: { deny?: boolean } = {},
): PatternList {
  const patterns: CompiledPattern[] = [];
  const broken: BrokenPattern[] = [];
  written.forEach((pattern, index) => {
    const line = lineOf(index);
    const problem = patternProblem(pattern, kind);
    if (problem) broken.push({ written: pattern, line, problem });
    else
      patterns.push({
        written: pattern,
        line,
        test: micromatch.matcher(pattern, { ...OPTIONS[kind], ...(options.deny ? { nocase: true } : {}) }),
      });
  });
  return { field, line: lineOf(null), patterns, broken };
}

/** The first pattern of the list that matches the value. */
export function firstMatch(list: PatternList, value: string): CompiledPattern | undefined {
  return list.patterns.find((pattern) => pattern.test(value));
}

/** Why a pattern is not well formed, or null. */
export function patternProblem(pattern: string, kind: ScopeKind): string | null {
  if (pattern.trim() === '') return 'is empty';
  if (pattern !== pattern.trim()) return 'has leading or trailing spaces';
  if (pattern.includes('\\')) return 'contains a backslash';
  if (!balanced(pattern)) return 'has unbalanced brackets, braces or parentheses';
  const shape = valueProblem(pattern, kind);
  if (shape) return shape;
  if (kind === 'repository' && pattern.split('/').length !== 2) return 'is not of the form owner/repo';
  return null;
}

/** Why a target value (a repository, branch or path read from a call) cannot be matched safely, or null. */
export function valueProblem(value: string, kind: ScopeKind): string | null {
  if (value === '') return 'is empty';
  if (value.startsWith('/')) return 'starts with /';
  const segments = value.split('/');
  if (segments.some((segment) => segment === '..')) return 'has a .. segment';
  if (kind === 'path' && segments.some((segment) => segment === '' || segment === '.'))
    return 'has an empty or . segment';
  if (kind === 'path' && value.includes('\\')) return 'contains a backslash';
  if (kind === 'repository' && (segments.length !== 2 || segments.some((segment) => segment === '')))
    return 'is not of the form owner/repo';
  return null;
}

const PAIRS: Record<string, string> = { ']': '[', '}': '{', ')': '(' };

function balanced(pattern: string): boolean {
  const stack: string[] = [];
  for (const char of pattern) {
    if (char === '[' || char === '{' || char === '(') stack.push(char);
    else if (char in PAIRS && stack.pop() !== PAIRS[char]) return false;
  }
  return stack.length === 0;
}

/** Patterns that match every value of their kind: `**`, `*` for paths, `*\/*` for repositories, ... */
export function matchesEverything(pattern: string, kind: ScopeKind): boolean {
  const probes: Record<ScopeKind, string[]> = {
    repository: ['a/b', 'Zz-9/.x_y'],
    branch: ['main', 'a/b/c', '.x'],
    path: ['a', '.a/b/c.d', 'x/y/z/w'],
  };
  const test = micromatch.matcher(pattern, OPTIONS[kind]);
  return probes[kind].every((probe) => test(probe));
}

/** A pattern of the list already covered by an earlier or broader one (as a literal string match). */
export function shadowedBy(pattern: string, other: string, kind: ScopeKind): boolean {
  return pattern !== other && micromatch.isMatch(pattern, other, OPTIONS[kind]);
}
