// With sdk-http.ts, sdk-client.ts and src/transports/, the only modules that touch
// @modelcontextprotocol/sdk, so moving to the SDK's next major version changes one room.
// Everything else imports these names from here.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
// The HTTP server transport (it brings @hono/node-server) and the client side are in their own
// modules (sdk-http.ts, sdk-client.ts), so a stdio namespace does not load them at start.
export { CallToolRequestSchema, ListToolsRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
export type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';

let ajvValidator: AjvJsonSchemaValidator | undefined;
/**
 * For every Server: the SDK's own validator, made on first use and shared. The SDK uses it only to
 * check elicitation answers (a confirmation's), and would otherwise build an ajv instance with
 * formats per Server: at each start, and per request over streamable HTTP.
 */
export const sharedSchemaValidator: jsonSchemaValidator = {
  getValidator: (schema) => (ajvValidator ??= new AjvJsonSchemaValidator()).getValidator(schema),
};
