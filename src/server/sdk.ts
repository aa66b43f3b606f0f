// The only module (with src/transports/) that touches @modelcontextprotocol/sdk, so moving to the
// SDK's next major version changes one place. Everything else imports these names from here.
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
// The client side, for the demo's namespaces (src/cli/demo.ts) and tests.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
// The SDK's OAuth client, for the demo's per-user OAuth scene (src/cli/demo-oauth.ts).
export { auth } from '@modelcontextprotocol/sdk/client/auth.js';
export type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
export type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
export { CallToolRequestSchema, ListToolsRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
export type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
