// The SDK's client side, for the demo's namespaces and its per-user OAuth scene (src/cli/demo*.ts),
// apart from sdk.ts so that serving never loads it.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { auth } from '@modelcontextprotocol/sdk/client/auth.js';
export { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
export type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
export type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
