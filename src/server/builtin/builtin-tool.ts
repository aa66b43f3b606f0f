// The contract of a built-in tool (whoami, server_status, api_request, ...): one file per tool in
// this directory, registered in builtin-tools.ts. The pipeline audits every call; a handler either
// answers itself or hands a Gitea call back so it runs through the same steps as a generated tool.
import type { AuditEvidence } from '../../audit/event.js';
import type { CatalogEntry, JsonSchema } from '../../catalog/types.js';
import type { GiteaSides, ReconcileReport } from '../../gitea/reconcile.js';
import type { ReasonCode } from '../../policy/reasons.js';
import type { CallContext } from '../call/call-context.js';
import type { Namespace } from '../session.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What the audit result event records about a built-in call. */
export interface BuiltinAudit {
  operation: string | null;
  decision: 'allow' | 'deny' | null;
  reason: ReasonCode | null;
  target?: { owner: string | null; repo: string | null; index: number | null } | null;
  httpStatus?: number | null;
  /** Facts worth keeping in the result event (names, SHAs; nothing secret). */
  evidence?: AuditEvidence;
}

export type BuiltinOutcome =
  /** Answered by the tool itself; `payload` becomes the result's JSON. */
  | { kind: 'answer'; payload: Record<string, unknown>; isError: boolean; audit: BuiltinAudit }
  /** A Gitea operation to run through the pipeline's validation, mapping, decision, guards and executor. */
  | { kind: 'gitea_call'; entry: CatalogEntry; args: Record<string, unknown> }
  /**
   * A guarded write: the pipeline checks the tool's role, decides `operations` (lists, scopes, conditions)
   * with these targets, verifies the identity, then `act` gathers facts, judges and writes only if all passed.
   */
  | {
      kind: 'guarded_action';
      guard: string;
      operations: readonly string[];
      targets: { repositories: string[]; branches?: string[] };
      act(gitea: GiteaSides): Promise<ReconcileReport>;
    };

export interface BuiltinTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
  /** Canonical operations the profile must all allow for the tool to be listed; empty: always listed. */
  operations: readonly string[];
  /**
   * The handler only names another call (it writes nothing): it runs before the write-ahead event, so a
   * handed-back Gitea call is audited with that call's own operation, target and argument names.
   */
  resolvesFirst?: true;
  /** Listed only in discovery mode (gitea_find_operations, gitea_describe_operation, gitea_call_operation). */
  discovery?: true;
  /** The profile role the tool requires (listed and usable only for it); absent: any role. */
  role?: string;
  /** The typed phrase a profile's confirmation_fallback: phrase accepts from a client that cannot ask its person. */
  confirmationPhrase?: (args: Readonly<Record<string, unknown>>) => string;
  /** `call.session` is the call's own (fixed for the whole call); `namespace` is only for switching it. */
  handler(call: CallContext, namespace: Namespace): Promise<BuiltinOutcome>;
}
