// The tunable part of the guards, as read from policies/guards.yaml. Self-review and self-merge are
// not here on purpose: no setting turns them off.

export interface MergeSettings {
  /** The caller must pass the head SHA it reviewed, and it must equal the PR's current head. */
  require_head_sha: boolean;
  /** At least one current approval from someone who is neither the author nor the merger. */
  require_independent_approval: boolean;
}

export interface BranchPatterns {
  /** Branches never deleted by the cleanup tool: the protected branches of policies/targets.yaml (micromatch globs). */
  protected_branches: string[];
  /** Preservation and evidence refs, never deleted by the cleanup tool (micromatch globs). */
  preserved_refs: string[];
}

/** Bounds on paginated fact reads; reaching the bound is a missing fact. */
export interface FactBounds {
  page_size: number;
  max_pages: number;
}

/** Canonical operation -> the guarded built-in tool that alone may perform it. */
export type GuardedOnly = Readonly<Record<string, { tool: string }>>;

export interface GuardsConfig {
  /** The operations each call guard judges (self_review, merge). */
  call_guards: Record<'self_review' | 'merge', string[]>;
  merge: MergeSettings;
  cleanup: Pick<BranchPatterns, 'preserved_refs'>;
  guarded_only: GuardedOnly;
  /** operationId -> the body field naming the commit a review verdict judges (set to the head the guards read). */
  verdict_head: Readonly<Record<string, string>>;
  /** The mutations a call may make under sudo; every other one is refused. */
  sudo: { mutations_allowed: string[] };
  facts: FactBounds;
  /** Per-profile overrides, keyed by profile name. */
  profiles: Record<string, { merge?: Partial<MergeSettings> }>;
}

export function mergeSettingsFor(config: GuardsConfig, profileName: string): MergeSettings {
  return { ...config.merge, ...config.profiles[profileName]?.merge };
}
