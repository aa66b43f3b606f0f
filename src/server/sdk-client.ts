// The SDK's client side (@modelcontextprotocol/client, v2), for the demo's namespaces and its
// per-user OAuth scene (src/cli/demo*.ts), apart from sdk.ts so that serving never loads it.
export { Client, StreamableHTTPClientTransport, auth } from '@modelcontextprotocol/client';
export { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
export type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
