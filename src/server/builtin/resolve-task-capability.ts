// gitea_resolve_task_capability: can this namespace do a task (policies/tasks.yaml), and if not,
// which namespace can. An unknown task fails closed (an error naming the known tasks).
import { effectiveOperations } from '../../policy/profile.js';
import { resolveTaskCapability } from '../../policy/tasks.js';
import type { BuiltinTool } from './builtin-tool.js';

export const resolveTaskCapabilityTool: BuiltinTool = {
  name: 'gitea_resolve_task_capability',
  title: 'Resolve a task to a role and permissions',
  description:
    'For a task such as merge_pr, approve_pr, create_pr or cleanup_merged_pr_branch: the role that does it, the canonical permissions it needs, ' +
    'allowed_in_current_session (the profile allows every permission and its role matches), and otherwise the namespace to use instead ' +
    '(use_namespace) and a hint. Guarded tasks name the built-in tool to use.',
  inputSchema: {
    type: 'object',
    properties: {
      task: {
        type: 'string',
        minLength: 1,
        maxLength: 100,
        description: 'Task name from policies/tasks.yaml, e.g. merge_pr',
      },
    },
    required: ['task'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  operations: [],
  async handler({ args, session }) {
    const { profile } = session;
    const effective = effectiveOperations(profile, session.policy.vocabulary);
    const capability = resolveTaskCapability(session.tasks, String(args.task), {
      role: profile.role,
      profileName: profile.name ?? profile.file,
      isAllowed: (operation) => effective.has(operation),
    });
    const unknown = capability.reason === 'unknown_task';
    const payload = unknown
      ? {
          error: { kind: 'unknown_task', reason: 'unknown_task', message: capability.hint ?? 'Unknown task.' },
          request: null,
        }
      : { ...capability };
    return {
      kind: 'answer',
      payload,
      isError: unknown,
      audit: { operation: null, decision: unknown ? 'deny' : null, reason: capability.reason },
    };
  },
};
