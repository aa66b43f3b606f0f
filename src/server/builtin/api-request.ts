// gitea_api_request: the raw escape hatch. The method and path resolve through the catalog's route
// table to one operation; its reconstructed arguments then go through exactly the pipeline of the
// generated tool (schema, mapping, decision, identity, guards, executor). No route: refused.
import { matchRoute, routeTableOf } from '../../catalog/routes.js';
import type { CatalogEntry } from '../../catalog/types.js';
import type { BuiltinTool } from './builtin-tool.js';

export const apiRequestTool: BuiltinTool = {
  name: 'gitea_api_request',
  title: 'Raw Gitea API request',
  description:
    'Call any Gitea REST operation by method and path below /api/v1 (e.g. GET /repos/{owner}/{repo}/pulls/1). ' +
    "It is resolved to the matching catalog operation and checked exactly like that operation's own tool: same schema, same policy, same guards. " +
    'Paths must not be percent-encoded; pass query parameters in `query`, the JSON body in `body`.',
  inputSchema: {
    type: 'object',
    properties: {
      method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
      path: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        description: 'Path below /api/v1, e.g. /repos/acme/widgets/issues/1',
      },
      query: {
        type: 'object',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
        description: 'Query parameters by name',
      },
      body: { description: 'JSON request body' },
      reveal_secrets: {
        type: 'boolean',
        description:
          "Show the result's redacted or masked secret values in clear, after a person at the client confirms",
      },
    },
    required: ['method', 'path'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  operations: [],
  async handler({ args, session }) {
    const match = matchRoute(routeTableOf(session.entries), String(args.method), String(args.path));
    if (!match.ok) {
      const payload = {
        error: {
          kind: 'no_route',
          reason: match.reason,
          message: `No Gitea operation is called this way: ${match.detail}.`,
          hint: 'Use a path of the Gitea API below /api/v1, without percent-encoding; see gitea-warden tools.',
        },
        request: null,
      };
      return {
        kind: 'answer',
        payload,
        isError: true,
        audit: { operation: null, decision: 'deny', reason: match.reason },
      };
    }
    if (session.registry.isDisabled(match.entry.name)) {
      const payload = {
        error: {
          kind: 'tool_disabled',
          reason: 'tool_disabled',
          message: `${args.method} ${args.path} is ${match.entry.name}, which this namespace's DISABLED_TOOLS takes away.`,
          hint: 'Ask the operator of this namespace; the raw tool reaches only what the namespace serves.',
        },
        request: null,
      };
      return {
        kind: 'answer',
        payload,
        isError: true,
        audit: { operation: null, decision: 'deny', reason: 'tool_disabled' },
      };
    }
    const query = typedQuery(match.entry, (args.query ?? {}) as Record<string, unknown>);
    const reconstructed: Record<string, unknown> = { ...query, ...match.pathParams };
    if (args.body !== undefined) reconstructed.body = args.body;
    return { kind: 'gitea_call', entry: match.entry, args: reconstructed };
  },
};

/** Query strings as the operation's schema types them (a URL carries only text); other values stay as given. */
function typedQuery(entry: CatalogEntry, query: Record<string, unknown>): Record<string, unknown> {
  const types = new Map(entry.parameters.query.map((param) => [param.name, param.schema.type]));
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => {
      const type = types.get(name);
      if (typeof value !== 'string') return [name, value];
      if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) return [name, Number(value)];
      if (type === 'boolean' && (value === 'true' || value === 'false')) return [name, value === 'true'];
      return [name, value];
    }),
  );
}
