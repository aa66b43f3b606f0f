// The SDK's HTTP entry, apart from sdk.ts so that a stdio namespace does not load it: the
// 2026-07-28 handler (a fresh server per request), the predicate that tells a 2025 request from it,
// and the 2025 streamable HTTP transport with Node's (req, res), from @modelcontextprotocol/node.
export { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
export type { AuthInfo } from '@modelcontextprotocol/server';
export { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
