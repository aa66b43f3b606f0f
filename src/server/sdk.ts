// With sdk-http.ts, sdk-client.ts and src/transports/, the only modules that touch the MCP SDK (the
// v2 line: @modelcontextprotocol/server, /node, /client), so moving to its next major version
// changes one room. Everything else imports these names from here.
export { Server, inputRequired, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
export type {
  CallToolResult,
  ClientCapabilities,
  InputRequiredResult,
  McpRequestContext,
  ServerContext,
  Tool,
} from '@modelcontextprotocol/server';
// serveStdio owns the era decision for a stdio connection (an `initialize` opening is 2025, an
// enveloped request is 2026-07-28) and pins one instance from the factory for the connection.
export { serveStdio as serveSdkStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
