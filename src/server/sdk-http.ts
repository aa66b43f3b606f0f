// The SDK's streamable HTTP server transport, apart from sdk.ts: it loads @hono/node-server, which a
// stdio namespace never needs.
export { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
