// gitea_describe_operation (discovery mode): one offered operation's full definition, the whole
// description and the input schema its calls are validated against. Not offered: an error that says so.
import { fullDefinition } from '../tool-definitions.js';
import { notOffered } from './call-operation.js';
import type { BuiltinTool } from './builtin-tool.js';

export const describeOperationTool: BuiltinTool = {
  name: 'gitea_describe_operation',
  title: 'Describe a Gitea operation',
  description:
    'The full description and input schema of an operation gitea_find_operations returned, by its tool name.',
  inputSchema: {
    type: 'object',
    properties: {
      tool: { type: 'string', minLength: 1, maxLength: 100, description: 'Tool name, e.g. gitea_pulls_merge' },
    },
    required: ['tool'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  operations: [],
  discovery: true,
  async handler({ args, session }) {
    const name = String(args.tool);
    const tool = session.registry.operation(name);
    if (!tool) return notOffered(session, name);
    return {
      kind: 'answer',
      payload: { ...fullDefinition(tool.entry) },
      isError: false,
      audit: { operation: null, decision: null, reason: 'describe_operation' },
    };
  },
};
