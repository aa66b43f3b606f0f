// gitea_find_operations (discovery mode): the operations this namespace may perform, ranked for a
// query by the full-text index. Only the registry's offered operations are searched, so an operation
// the profile cannot perform (or TOOLSETS, READ_ONLY, DISABLED_TOOLS take away) is never returned.
import { operationIndexFor } from '../operation-index.js';
import type { BuiltinTool } from './builtin-tool.js';

export const DEFAULT_FIND_LIMIT = 8;
export const MAX_FIND_LIMIT = 25;

export const findOperationsTool: BuiltinTool = {
  name: 'gitea_find_operations',
  title: 'Find Gitea operations',
  description:
    'Search the Gitea operations this namespace may perform, e.g. "merge a pull request". Returns the best matches with their tool name, ' +
    'method, path and required arguments; then gitea_describe_operation for the input schema and gitea_call_operation to call one.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 500, description: 'What you want to do, in words' },
      limit: { type: 'integer', minimum: 1, maximum: MAX_FIND_LIMIT, default: DEFAULT_FIND_LIMIT },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  operations: [],
  discovery: true,
  async handler({ args, session }) {
    const { registry } = session;
    const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_FIND_LIMIT;
    const names = operationIndexFor(session.entries, session.policy.operationMap).find(
      String(args.query),
      limit,
      (name) => registry.operation(name) !== undefined,
    );
    const operations = names.flatMap((name) => {
      const tool = registry.operation(name);
      if (!tool) return [];
      const { entry } = tool;
      return [
        {
          tool: entry.name,
          operation_id: entry.operationId,
          operation: session.policy.operationMap.byOperationId.get(entry.operationId)?.operation ?? null,
          summary: entry.summary,
          method: entry.method,
          path: entry.path,
          required: (entry.inputSchema.required ?? []) as string[],
        },
      ];
    });
    return {
      kind: 'answer',
      payload: { operations },
      isError: false,
      audit: { operation: null, decision: null, reason: 'find_operations' },
    };
  },
};
