// Lint findings about one profile, as data: what `gitea-warden check` reports. Pure: the raw text and
// the compiled profile come in, findings with file:line go out. Messages never quote a value that
// could be a credential.
import type { CompiledProfile, ListEntry } from './profile.js';
import { CAPABILITY_FLAGS, CAPABILITY_OPERATIONS, effectiveOperations } from './profile.js';
import { scopeFindings } from './scope-findings.js';
import type { Vocabulary } from './vocabulary.js';
import type { ReasonCode } from './reasons.js';

export type Severity = 'error' | 'warning';

export interface Finding {
  file: string;
  line: number | null;
  severity: Severity;
  /** Listed code (reasons.ts), e.g. unknown_operation, role_invariant (also the SARIF rule id). */
  code: ReasonCode;
  message: string;
  fix?: string;
  /** A schema finding's structure: the keyword that failed, the document path and the fields involved. */
  schema?: { keyword: string; path: string; fields: string[] };
}

export interface RoleInvariants {
  roles: ReadonlyMap<string, readonly string[]>;
  /** Roles that may hold credential-class operations. */
  credentialRoles: ReadonlySet<string>;
  /** Per role, the operations it performs on the pull requests it opened only (roles.yaml own_pull_requests). */
  ownPullRequests: ReadonlyMap<string, ReadonlySet<string>>;
}

const CONFLICT_MARKER = /^(?:<{7}|={7}|>{7})(?:\s|$)/;

/** Merge-conflict markers in the raw text: checked before parsing, since they may still parse. */
export function conflictMarkerFindings(text: string, file: string): Finding[] {
  return text.split(/\r?\n/).flatMap((lineText, i) =>
    CONFLICT_MARKER.test(lineText)
      ? [
          {
            file,
            line: i + 1,
            severity: 'error' as const,
            code: 'merge_conflict',
            message: 'merge-conflict marker',
            fix: 'resolve the conflict and remove the marker lines',
          },
        ]
      : [],
  );
}

const SECRET_KEY =
  /(?:^|[_-])(?:token|password|passwd|secret|api[_-]?key|credentials?|private[_-]?key|auth)(?:$|[_-])/i;
/** Fields whose values are names, never secrets: a variable's name, the token's scope names. */
const NAME_KEYS = new Set(['token_source_name', 'token_scopes']);
const TOKEN_VALUE = [
  /^[0-9a-f]{40}$/i, // Gitea access tokens
  /^(?:gt[ap]|gh[pousr]|glpat)[_-][A-Za-z0-9_-]{16,}$/, // prefixed tokens
  /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/, // JWT
  /^-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** Any field that carries a credential value: a secret-looking key with a value, or a value that looks like a token. */
export function credentialFindings(
  data: unknown,
  file: string,
  lineOf: (path: (string | number)[]) => number | null,
): Finding[] {
  const findings: Finding[] = [];
  const visit = (value: unknown, path: (string | number)[]): void => {
    if (Array.isArray(value)) return value.forEach((item, i) => visit(item, [...path, i]));
    if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) visit(child, [...path, key]);
      return;
    }
    const key = path.filter((segment): segment is string => typeof segment === 'string').at(-1) ?? '';
    const secretKey =
      SECRET_KEY.test(key) && !NAME_KEYS.has(key) && value !== null && value !== '' && typeof value !== 'boolean';
    const tokenLike = typeof value === 'string' && TOKEN_VALUE.some((pattern) => pattern.test(value.trim()));
    if (secretKey || tokenLike) {
      findings.push({
        file,
        line: lineOf(path),
        severity: 'error',
        code: 'inline_credential',
        message: `field '${path.join('.')}' holds what looks like a credential; the value is not shown`,
        fix: 'remove the value and name an environment variable in token_source_name instead',
      });
    }
  };
  visit(data, []);
  return findings;
}

/** Findings about the operation lists, capabilities and role of a compiled profile. */
export function profileFindings(
  profile: CompiledProfile,
  vocabulary: Vocabulary,
  invariants: RoleInvariants,
): Finding[] {
  return [
    ...entryFindings(profile),
    ...duplicateFindings(profile),
    ...overlapFindings(profile),
    ...emptyAllowedFindings(profile),
    ...capabilityFindings(profile, vocabulary),
    ...roleFindings(profile, vocabulary, invariants),
    ...scopeFindings(profile),
  ];
}

function entryFindings(profile: CompiledProfile): Finding[] {
  return profile.entries.flatMap((entry): Finding[] => {
    const at = { file: profile.file, line: entry.line };
    if (!entry.result.ok) {
      const forbidden = entry.list === 'forbidden_operations';
      const effect = forbidden ? 'this profile denies every request until it is fixed' : 'it grants nothing';
      return [
        {
          ...at,
          severity: 'error',
          code: forbidden ? 'unnormalizable_forbidden' : entry.result.reason,
          message: `${entry.list} entry '${entry.written}': ${entry.result.message}; ${effect}`,
          fix: entry.result.suggestion
            ? `write ${entry.result.suggestion}`
            : 'use a canonical name from policies/vocabulary.yaml',
        },
      ];
    }
    if (entry.result.via === 'alias') {
      const canonical = entry.result.canonical[0] as string;
      return [
        {
          ...at,
          severity: 'warning',
          code: 'legacy_alias',
          message: `'${entry.written}' is a legacy alias of ${canonical}`,
          fix: `write ${canonical} (or run gitea-warden migrate)`,
        },
      ];
    }
    return [];
  });
}

function duplicateFindings(profile: CompiledProfile): Finding[] {
  const seen = new Map<string, ListEntry>();
  const findings: Finding[] = [];
  for (const entry of profile.entries) {
    if (!entry.result.ok || entry.result.via === 'pattern') continue;
    const key = `${entry.list}:${entry.result.canonical[0]}`;
    const first = seen.get(key);
    if (!first) {
      seen.set(key, entry);
      continue;
    }
    findings.push({
      file: profile.file,
      line: entry.line,
      severity: 'warning',
      code: 'duplicate_operation',
      message: `'${entry.written}' repeats ${entry.result.canonical[0]} already listed at line ${first.line ?? '?'} of ${entry.list}`,
      fix: 'remove the duplicate entry',
    });
  }
  return findings;
}

function overlapFindings(profile: CompiledProfile): Finding[] {
  return profile.entries
    .filter((entry) => entry.list === 'allowed_operations' && entry.result.ok && entry.result.via !== 'pattern')
    .flatMap((entry) => {
      const name = (entry.result as { canonical: string[] }).canonical[0] as string;
      const forbidden = profile.forbiddenBy.get(name);
      if (!forbidden) return [];
      return [
        {
          file: profile.file,
          line: entry.line,
          severity: 'warning' as const,
          code: 'allowed_forbidden_overlap',
          message: `${name} is both allowed ('${entry.written}') and forbidden (line ${forbidden.line ?? '?'}); forbidden wins`,
          fix: `remove ${name} from one of the lists`,
        },
      ];
    });
}

function emptyAllowedFindings(profile: CompiledProfile): Finding[] {
  if ((profile.data.allowed_operations ?? []).length > 0) return [];
  return [
    {
      file: profile.file,
      line: profile.allowedListLine,
      severity: 'warning',
      code: 'empty_allowed_list',
      message: 'allowed_operations is empty or missing: this profile denies everything',
      fix: 'list the canonical operations this role needs',
    },
  ];
}

function capabilityFindings(profile: CompiledProfile, vocabulary: Vocabulary): Finding[] {
  const effective = effectiveOperations(profile, vocabulary);
  return CAPABILITY_FLAGS.flatMap((flag): Finding[] => {
    const claimed = profile.data[flag];
    if (claimed === undefined) return [];
    const carriers = CAPABILITY_OPERATIONS[flag];
    const held = carriers.filter((name) => effective.has(name));
    if (claimed === held.length > 0) return [];
    const message = claimed
      ? `${flag} is true but none of ${carriers.join(', ')} is allowed`
      : `${flag} is false but ${held.join(', ')} is allowed`;
    const fix = claimed
      ? `set ${flag}: false, or allow ${carriers[0]}`
      : `set ${flag}: true, or forbid ${held.join(', ')}`;
    return [
      {
        file: profile.file,
        line: profile.lineOf([flag]),
        severity: 'error',
        code: 'capability_contradiction',
        message,
        fix,
      },
    ];
  });
}

function roleFindings(profile: CompiledProfile, vocabulary: Vocabulary, invariants: RoleInvariants): Finding[] {
  if (profile.role === null) return [];
  const effective = effectiveOperations(profile, vocabulary);
  const never = new Set(invariants.roles.get(profile.role) ?? []);
  if (!invariants.credentialRoles.has(profile.role)) {
    for (const entry of vocabulary.operations.values()) if (entry.risk === 'credential') never.add(entry.name);
  }
  return [...never]
    .filter((name) => effective.has(name))
    .map((name) => ({
      file: profile.file,
      line: profile.allowedBy.get(name)?.line ?? null,
      severity: 'error' as const,
      code: 'role_invariant',
      message: `role ${profile.role} must never hold ${name}`,
      fix: `remove it from allowed_operations or add ${name} to forbidden_operations`,
    }));
}
