// Every outcome code gitea-warden can carry, each with a one-line meaning: the reason of a decision,
// the code of a failed condition (scope, protected target, argument condition), a guard's check, a
// refusal by the server, the reason an audit record keeps, and a finding of `check`. The union type
// ReasonCode is what every field that carries one is typed with, so an unlisted code does not compile;
// docs/reasons.md is generated from this table (gitea-warden reasons) and drift-checked.

/** Where a code shows up. One code may show up in several places (e.g. guarded_tool_only). */
export type ReasonKind =
  /** decision.reason of decide(): why the profile's lists allow or deny. */
  | 'decision'
  /** A failed condition: a scope, a protected branch or path, a conditions.yaml test. */
  | 'condition'
  /** A check a live-fact guard judged (self-review, merge, cleanup, reconcile). */
  | 'guard'
  /** The kind of a refusal the server answers itself, before or instead of Gitea. */
  | 'refusal'
  /** What an audit record says of a call that was not denied (built-in tools, guarded actions). */
  | 'outcome'
  /** A finding of `gitea-warden check` about a policy or profile file. */
  | 'finding';

export interface ReasonEntry {
  kinds: readonly ReasonKind[];
  meaning: string;
}

export const REASONS = {
  // decide(): the profile's lists
  allowed: {
    kinds: ['decision', 'outcome'],
    meaning: 'Every operation of the call is in the allowed list and none is forbidden; every check passed.',
  },
  forbidden: {
    kinds: ['decision'],
    meaning: 'An operation of the call is in forbidden_operations (forbid wins over allow).',
  },
  not_allowed: {
    kinds: ['decision'],
    meaning: 'An operation of the call is not in allowed_operations (deny by default).',
  },
  empty_allowed_list: {
    kinds: ['decision', 'finding'],
    meaning: 'The profile allows nothing: allowed_operations is empty or missing.',
  },
  forbidden_list_invalid: {
    kinds: ['decision'],
    meaning: 'A forbidden_operations entry cannot be read, so nothing is allowed until it is fixed.',
  },
  service_mismatch: { kinds: ['decision'], meaning: 'The profile was compiled for another service than the call.' },
  invalid_profile: {
    kinds: ['decision'],
    meaning: 'The profile a decide request names or carries inline does not load.',
  },
  invalid_request: {
    kinds: ['decision', 'refusal'],
    meaning: 'The request names no operation or call, or is not a well-formed request.',
  },
  guarded_tool_only: {
    kinds: ['decision', 'condition'],
    meaning: 'Only a guarded built-in tool (policies/guards.yaml guarded_only) may perform this operation.',
  },
  role_mismatch: { kinds: ['decision'], meaning: "The tool or task belongs to another role than the profile's." },
  permission_not_allowed: { kinds: ['decision'], meaning: 'The task needs an operation the profile does not allow.' },
  unknown_task: { kinds: ['decision', 'refusal'], meaning: 'The task is not in policies/tasks.yaml.' },
  // normalization and mapping of names and calls
  unknown_operation: {
    kinds: ['decision', 'finding'],
    meaning: 'The name is not a canonical operation, alias or pattern of the vocabulary.',
  },
  ambiguous_operation: {
    kinds: ['decision', 'finding'],
    meaning: 'The name could mean several canonical operations; it is not guessed.',
  },
  cross_service_operation: {
    kinds: ['decision', 'finding'],
    meaning: 'The name belongs to another service than the profile.',
  },
  invalid_pattern: { kinds: ['decision', 'finding'], meaning: 'The operation pattern is not a well-formed wildcard.' },
  unknown_operation_id: {
    kinds: ['decision', 'finding'],
    meaning: 'The Gitea operationId is not in the catalog or not mapped to an operation.',
  },
  unknown_argument_value: {
    kinds: ['decision'],
    meaning: 'An argument the mapping depends on has a value policies/operations.yaml does not know.',
  },
  missing_argument: { kinds: ['decision'], meaning: 'An argument the mapping depends on is missing.' },
  // conditions: scopes, protected targets, conditions.yaml
  target_unreadable: {
    kinds: ['condition'],
    meaning: "A target a scope or condition needs cannot be read from the call's arguments or the live pull request.",
  },
  bad_target: { kinds: ['condition'], meaning: 'A repository, branch or path name is not one Gitea could hold.' },
  untrusted_content_taint: {
    kinds: ['decision', 'condition'],
    meaning:
      'The session read content below its integrity floor; writes stay in that repository, and only while no other was read.',
  },
  repository_out_of_scope: {
    kinds: ['condition'],
    meaning: "The repository is outside the profile's repositories scope.",
  },
  branch_out_of_scope: {
    kinds: ['condition'],
    meaning: "The branch is outside the profile's branches scope of the operation.",
  },
  protected_branch: {
    kinds: ['condition'],
    meaning: 'The branch is in policies/targets.yaml protected_branches, which the operation never targets.',
  },
  protected_branch_unknown: {
    kinds: ['condition'],
    meaning: "The repository's default branch or Gitea's protected flag of the targeted branch could not be read live.",
  },
  path_not_allowed: {
    kinds: ['condition'],
    meaning: "The file path is denied by the profile's paths scope or is a protected path.",
  },
  malformed_pattern: {
    kinds: ['condition', 'finding'],
    meaning: 'A scope pattern is not a well-formed glob, so the scope denies until it is fixed.',
  },
  unfilterable_result: {
    kinds: ['condition'],
    meaning: 'A result that spans repositories is not one the server can filter to the scope; it is withheld.',
  },
  force_push_refused: {
    kinds: ['condition'],
    meaning: 'force_push through the contents API rewrites branch history (policies/conditions.yaml).',
  },
  scheduled_merge_refused: {
    kinds: ['condition'],
    meaning: 'merge_when_checks_succeed would merge later a head no guard judged (policies/conditions.yaml).',
  },
  sudo_not_independent: {
    kinds: ['condition'],
    meaning:
      "A mutation under sudo would be recorded as another person's; only policies/guards.yaml sudo.mutations_allowed may use it.",
  },
  // guards: checks over live facts
  self_review: { kinds: ['guard'], meaning: 'The reviewer is the pull request author.' },
  self_merge: { kinds: ['guard'], meaning: 'The merger is the pull request author.' },
  pr_author_unknown: { kinds: ['guard'], meaning: 'Gitea did not report the pull request author.' },
  own_pull_request: {
    kinds: ['guard'],
    meaning:
      'The role edits and closes only pull requests its own user opened (policies/roles.yaml own_pull_requests); the poster is read live.',
  },
  fact_unavailable: { kinds: ['guard'], meaning: 'A fact the guard needs could not be read from Gitea, so it denies.' },
  issue_is_pull_request: {
    kinds: ['guard'],
    meaning:
      'The issue the call names is a pull request (or could not be told from one), so the issue route needs ' +
      'the pull request permission too (policies/operations.yaml on_pull_requests).',
  },
  head_sha_missing: { kinds: ['guard'], meaning: 'The merge does not name the head it expects (body.head_commit_id).' },
  head_sha_mismatch: { kinds: ['guard'], meaning: 'The pull request head is not the one the call names.' },
  no_independent_approval: {
    kinds: ['guard'],
    meaning: 'No current approval from someone who is neither the author nor the merger.',
  },
  approval_stale: { kinds: ['guard'], meaning: 'The approvals are on an older head, stale or dismissed.' },
  changes_requested: {
    kinds: ['guard'],
    meaning: 'An official reviewer requests changes (their latest, undismissed review).',
  },
  branch_deleted_by_default: {
    kinds: ['guard'],
    meaning: 'The merge names no delete_branch_after_merge and the repository default deletes the head branch.',
  },
  pr_not_open: { kinds: ['guard'], meaning: 'The pull request is not open.' },

  branch_not_pr_head: { kinds: ['guard'], meaning: "The branch is not the pull request's head branch." },
  head_repo_mismatch: { kinds: ['guard'], meaning: 'The head branch lives in another repository (a fork).' },
  pr_not_merged: { kinds: ['guard'], meaning: 'The pull request is not merged.' },
  head_not_landed: { kinds: ['guard'], meaning: 'The head commits are not on the target branch.' },
  branch_protected: {
    kinds: ['guard'],
    meaning: 'Gitea protects the branch (its protected flag or a protection rule).',
  },
  branch_protected_by_policy: {
    kinds: ['guard'],
    meaning: 'The branch is in policies/targets.yaml protected_branches.',
  },
  branch_preserved: { kinds: ['guard'], meaning: 'The branch matches policies/guards.yaml cleanup.preserved_refs.' },
  branch_in_use: { kinds: ['guard'], meaning: 'Another open pull request uses the branch.' },
  // the server's own refusals
  policy_denied: {
    kinds: ['refusal'],
    meaning: 'The policy denied the call; the reason, determining entry and hint say why.',
  },
  invalid_arguments: { kinds: ['refusal'], meaning: "The arguments do not match the tool's input schema." },
  unknown_tool: { kinds: ['refusal'], meaning: 'No tool of this namespace has that name.' },
  audit_unavailable: { kinds: ['refusal'], meaning: 'The audit log cannot be written, so no call is carried out.' },
  identity_mismatch: { kinds: ['refusal'], meaning: "The token belongs to another Gitea user than the profile's." },
  identity_unverified: {
    kinds: ['refusal'],
    meaning: "GET /user has not confirmed the profile's user, so mutations are refused.",
  },
  token_missing: {
    kinds: ['refusal'],
    meaning: "The profile's token variable is not set, so every Gitea call is refused.",
  },
  token_scope_missing: {
    kinds: ['refusal'],
    meaning:
      'The token lacks a scope the check of its identity or this operation needs (known from the OAuth grant, token_scopes, or an earlier refusal by Gitea).',
  },
  result_withheld: {
    kinds: ['refusal'],
    meaning: "The result could not be cut down to the profile's scope, so it is withheld.",
  },
  internal_error: {
    kinds: ['refusal'],
    meaning: 'The server failed unexpectedly; the call may not have reached Gitea.',
  },
  action_failed: { kinds: ['refusal'], meaning: 'Every check of a guarded action passed but Gitea refused the write.' },
  no_route: { kinds: ['refusal'], meaning: 'No Gitea operation has the raw request path.' },
  method_not_allowed: { kinds: ['refusal'], meaning: 'The raw request path exists, but not with that method.' },
  bad_path: { kinds: ['refusal'], meaning: 'The raw request path is not a plain path below /api/v1.' },
  tool_disabled: {
    kinds: ['refusal'],
    meaning: "The raw request resolves to a tool the namespace's DISABLED_TOOLS takes away.",
  },
  operation_not_offered: {
    kinds: ['refusal'],
    meaning: 'Discovery: the operation is not one this namespace offers (its profile, TOOLSETS or READ_ONLY).',
  },
  runtime_switching_disabled: {
    kinds: ['refusal'],
    meaning: 'The config file does not allow switching profiles at runtime.',
  },
  profile_unavailable: { kinds: ['refusal'], meaning: 'The profile to switch to does not load.' },
  invalid_json: { kinds: ['refusal'], meaning: 'A decide --batch request line is not JSON.' },
  too_deep: { kinds: ['refusal'], meaning: 'A decide --batch request line nests deeper than the bound.' },
  // call budgets (issue 30): refused before Gitea, counted per person and namespace
  budget_exceeded: {
    kinds: ['refusal'],
    meaning:
      'A call budget of the profile is spent for this person and namespace; the refusal names it and when a call fits again.',
  },
  budget_unavailable: {
    kinds: ['refusal'],
    meaning: 'The store that counts call budgets did not answer, so a call that counts against one is refused.',
  },
  // audit outcomes of calls that were not denied
  whoami: { kinds: ['outcome'], meaning: 'gitea_whoami answered.' },
  server_status: { kinds: ['outcome'], meaning: 'gitea_server_status answered.' },
  find_operations: { kinds: ['outcome'], meaning: 'gitea_find_operations answered.' },
  describe_operation: { kinds: ['outcome'], meaning: 'gitea_describe_operation answered.' },
  profile_switched: {
    kinds: ['outcome'],
    meaning: 'gitea_activate_profile switched the namespace to another profile.',
  },
  deleted: { kinds: ['outcome'], meaning: 'The cleanup tool deleted the branch after every check passed.' },
  closed: { kinds: ['outcome'], meaning: 'The reconcile tool closed the pull request after every check passed.' },
  refused: { kinds: ['outcome'], meaning: 'A guarded action refused: a check failed; the report lists them.' },
  failed: { kinds: ['outcome'], meaning: 'A guarded action passed its checks but its write failed.' },
  // confirmations by a person (issue 27): src/policy/confirmations.ts, src/server/confirm/
  confirmation_mismatch: {
    kinds: ['refusal'],
    meaning: 'The typed phrase (confirmation_fallback: phrase) is not exactly the one the tool asks for.',
  },
  confirmation_unavailable: {
    kinds: ['refusal'],
    meaning:
      "The call needs a person's confirmation and the client cannot ask (it declared no elicitation, or not the mode needed).",
  },
  confirmation_declined: {
    kinds: ['refusal', 'outcome'],
    meaning:
      'The person declined or cancelled the confirmation, or left it unchecked, or the client failed to show it; nothing reached Gitea.',
  },
  confirmation_rejected: {
    kinds: ['refusal'],
    meaning: 'The approver rejected the call on the confirmation page; nothing reached Gitea.',
  },
  confirmation_expired: {
    kinds: ['refusal'],
    meaning: 'The answer came after the confirmation expired (policies/confirmations.yaml); nothing reached Gitea.',
  },
  confirmation_replayed: {
    kinds: ['refusal'],
    meaning: 'The confirmation was used or declined already: each one answers one call, once, on any replica.',
  },
  confirmation_invalid: {
    kinds: ['refusal'],
    meaning: 'The confirmation state does not open: altered, forged, or sealed under another CONFIRMATION_KEY.',
  },
  confirmation_transplanted: {
    kinds: ['refusal'],
    meaning:
      'The confirmation belongs to another call: another principal, operation, tool, arguments, repository or pull request.',
  },
  confirmation_asked: {
    kinds: ['outcome'],
    meaning: "The call waits for a person's confirmation (input_required); nothing reached Gitea yet.",
  },
  confirmation_void: {
    kinds: ['outcome'],
    meaning:
      'Gitea changed between question and answer (a push, a retarget): the answer is void, the person is asked again.',
  },
  secrets_revealed: {
    kinds: ['outcome'],
    meaning: 'A person confirmed that the masked values of a result be shown in clear, and they were.',
  },
  approvers_missing: {
    kinds: ['finding'],
    meaning: 'A profile asks for four-eyes approval but names no approvers (confirmations.approvers, approver_teams).',
  },
  confirmation_fallback_phrase: {
    kinds: ['finding'],
    meaning:
      'confirmation_fallback: phrase accepts a typed phrase from clients without elicitation; a model can type it.',
  },
  // findings of `check`
  unreadable: { kinds: ['finding'], meaning: 'The file cannot be read.' },
  parse_error: {
    kinds: ['finding'],
    meaning: 'The file is not valid YAML or JSON (the finding names line and column).',
  },
  too_large: {
    kinds: ['finding'],
    meaning: 'The file is over the 256 KiB limit for profile and policy files; it is not parsed.',
  },
  binary: {
    kinds: ['finding'],
    meaning: 'The file is binary (NUL bytes or not UTF-8), not YAML or JSON; its content is not shown.',
  },
  empty: { kinds: ['finding'], meaning: 'The file holds no YAML or JSON content, only blanks or comments.' },
  merge_conflict: { kinds: ['finding'], meaning: 'The file holds a merge-conflict marker.' },
  schema: { kinds: ['finding'], meaning: "A value does not fit the file's JSON Schema." },
  invalid_policy: { kinds: ['finding'], meaning: 'The policy files are unusable as a whole.' },
  inline_credential: {
    kinds: ['finding'],
    meaning: 'A profile holds a credential; name its environment variable instead.',
  },
  unnormalizable_forbidden: {
    kinds: ['finding'],
    meaning: 'A forbidden_operations entry cannot be normalized, so the profile allows nothing.',
  },
  legacy_alias: { kinds: ['finding'], meaning: 'A profile uses a legacy alias instead of the canonical name.' },
  duplicate_operation: { kinds: ['finding'], meaning: 'A list names the same operation twice.' },
  allowed_forbidden_overlap: {
    kinds: ['finding'],
    meaning: 'An operation is both allowed and forbidden (forbid wins).',
  },
  capability_contradiction: { kinds: ['finding'], meaning: "A can_* flag contradicts the profile's lists." },
  role_invariant: {
    kinds: ['finding'],
    meaning: 'The profile holds an operation its role must never hold (policies/roles.yaml).',
  },
  duplicate_mapping: {
    kinds: ['finding'],
    meaning: 'policies/operations.yaml maps one operationId twice, or integrity.yaml lists one under two item types.',
  },
  unknown_item_type: {
    kinds: ['finding'],
    meaning: 'policies/integrity.yaml lists operations under an item type it does not define.',
  },
  unmapped_rule: {
    kinds: ['finding'],
    meaning: 'policies/operations.yaml has rules for an operationId its map does not list.',
  },
  jsonpath_not_in_schema: {
    kinds: ['finding'],
    meaning: "A JSONPath cannot find anything in the operation's input schema.",
  },
  unscoped_reach: {
    kinds: ['finding'],
    meaning:
      'An operation reaches repositories it does not name and targets.yaml neither filters it nor marks it opaque.',
  },
  filtered_and_opaque: {
    kinds: ['finding'],
    meaning: 'targets.yaml lists an operationId both as filtered and as opaque.',
  },
  unlisted_reason_code: {
    kinds: ['finding'],
    meaning: 'A condition in policies/conditions.yaml denies with a code src/policy/reasons.ts does not list.',
  },
  empty_scope: { kinds: ['finding'], meaning: 'A scope lists no pattern, so it denies everything.' },
  always_true_pattern: {
    kinds: ['finding'],
    meaning: 'A scope pattern matches everything, so the scope restricts nothing.',
  },
  shadowed_pattern: { kinds: ['finding'], meaning: 'A scope pattern is covered by another one of the same list.' },
  // integrity by the profile's trust, secrecy and the taint store (issue 28)
  secrecy_public_sink: {
    kinds: ['decision', 'condition'],
    meaning:
      "The session read a private repository; until the window closes a write reaches nothing public the profile's secrecy.allowed_sinks does not name.",
  },
  taint_store_unavailable: {
    kinds: ['decision', 'condition', 'refusal'],
    meaning:
      'The store of what the session read cannot be read or written, so writes are refused and reads withheld until it answers.',
  },

  // issue 29 (authz lane): the token's scopes against what the profile needs
  token_scopes_broader: {
    kinds: ['finding'],
    meaning:
      "A profile's token_scopes grant more than its operations need; the token can do more outside gitea-warden.",
  },
  token_scopes_short: {
    kinds: ['finding'],
    meaning: "A profile's token_scopes lack a scope some of its operations need; those are not offered.",
  },

  // issue 24: guards judge what a call changes
  approval_base_changed: {
    kinds: ['guard'],
    meaning: 'The pull request was retargeted after the approval (Gitea keeps reviews across a change of base).',
  },
  approval_unseen_head: {
    kinds: ['guard'],
    meaning: 'The approved commit was not the pull request head when the review was submitted (the timeline says).',
  },
  review_head_mismatch: {
    kinds: ['guard'],
    meaning: 'An approval or request for changes names another commit than the head the guard read.',
  },
  branch_moved: {
    kinds: ['guard'],
    meaning: 'The branch tip moved between the proof and the delete, so the proof no longer holds.',
  },
  head_moved: {
    kinds: ['guard'],
    meaning: 'The pull request head moved between the proof and the close, so the proof no longer holds.',
  },

  // issue 26: a team's own profiles (check asks Gitea about the names a profile trusts)
  trusted_user_unknown: {
    kinds: ['finding'],
    meaning: 'integrity.trusted_users names a login Gitea has no user for: whoever registers it is trusted.',
  },
  trusted_user_outside: {
    kinds: ['finding'],
    meaning:
      'integrity.trusted_users names a user who is no member, owner or collaborator of anything the profile names.',
  },
} as const satisfies Record<string, ReasonEntry>;

export type ReasonCode = keyof typeof REASONS;

const CODES: ReadonlySet<string> = new Set(Object.keys(REASONS));

/** Whether a code read from data (conditions.yaml) is one of the listed codes. */
export function isReasonCode(code: string): code is ReasonCode {
  return CODES.has(code);
}
