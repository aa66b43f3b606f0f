// gitea_call_operation (discovery mode): calls an operation by its tool name. The call is handed back
// to the pipeline (like gitea_api_request's) before anything is written, so validation, mapping, both
// audit events, the decision, guards, execution and the envelope are the generated tool's own; only
// the tool name in the audit events says gitea_call_operation. An operation the profile cannot perform
// is refused there by the decision, exactly as its generated tool would be.
import { catalogByName } from '../../catalog/load.js';
import type { ReasonCode } from '../../policy/reasons.js';
import type { Session } from '../session.js';
import type { BuiltinOutcome, BuiltinTool } from './builtin-tool.js';

export const callOperationTool: BuiltinTool = {
  name: 'gitea_call_operation',
  title: 'Call a Gitea operation',
  description:
    'Call an operation by the tool name gitea_find_operations returned, with the arguments its schema (gitea_describe_operation) takes. ' +
    'Checked exactly like calling that tool: same schema, policy, guards and audit.',
  inputSchema: {
    type: 'object',
    properties: {
      tool: { type: 'string', minLength: 1, maxLength: 100, description: 'Tool name, e.g. gitea_pulls_merge' },
      arguments: { type: 'object', description: "The operation's arguments" },
    },
    required: ['tool', 'arguments'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  operations: [],
  discovery: true,
  resolvesFirst: true,
  async handler({ args, session }) {
    const name = String(args.tool);
    const entry = catalogByName().get(name);
    if (!entry || session.registry.isDisabled(name) || session.registry.isFilteredOut(name))
      return notOffered(session, name);
    return { kind: 'gitea_call', entry, args: args.arguments as Record<string, unknown> };
  },
};

/** The error of find's siblings for a tool name the namespace does not offer, saying why. */
export function notOffered(session: Session, name: string): BuiltinOutcome {
  const entry = catalogByName().get(name);
  const why: { reason: ReasonCode; message: string; hint: string } = !entry
    ? {
        reason: 'unknown_tool',
        message: `${name} is no Gitea operation of the catalog.`,
        hint: 'Use a tool name gitea_find_operations returned.',
      }
    : session.registry.isDisabled(name)
      ? {
          reason: 'tool_disabled',
          message: `${name} is taken away by this namespace's DISABLED_TOOLS.`,
          hint: 'Ask the operator of this namespace.',
        }
      : session.registry.isFilteredOut(name)
        ? {
            reason: 'operation_not_offered',
            message: `${name} is outside this namespace's TOOLSETS or READ_ONLY setting.`,
            hint: 'Ask the operator of this namespace.',
          }
        : {
            reason: 'operation_not_offered',
            message: `${name} is not an operation this namespace's profile may perform.`,
            hint: 'Use gitea_resolve_task_capability to find the namespace that does it.',
          };
  const payload = { error: { kind: why.reason, ...why }, request: null };
  return { kind: 'answer', payload, isError: true, audit: { operation: null, decision: 'deny', reason: why.reason } };
}
