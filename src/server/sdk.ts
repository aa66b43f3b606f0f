// With sdk-http.ts, sdk-client.ts and src/transports/, the only modules that touch
// @modelcontextprotocol/sdk, so moving to the SDK's next major version changes one room.
// Everything else imports these names from here.
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
// The HTTP server transport (it brings @hono/node-server) and the client side are in their own
// modules (sdk-http.ts, sdk-client.ts), so a stdio namespace does not load them at start.
export { CallToolRequestSchema, ListToolsRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
export type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
