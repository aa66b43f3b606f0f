// The stdio transport: JSON-RPC on stdin/stdout, both protocol eras. The SDK's entry reads the
// opening (a 2025 `initialize`, or a 2026-07-28 request with its envelope) and pins one server for
// the connection from the factory. Nothing else may reach stdout, so logs go to stderr (see
// logger.ts) and stray console.log calls are sent there too.
import type { Readable, Writable } from 'node:stream';
import { serveSdkStdio, StdioServerTransport, type McpRequestContext, type Server } from '../server/sdk.js';

export interface StdioStreams {
  stdin: Readable;
  stdout: Writable;
}

export interface StdioHandle {
  /** Settles when the connection has closed (stdin ended, or close() was called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Builds the server for the connection's era. */
export type StdioServerFactory = (era: McpRequestContext['era']) => Server;

/** Serves the factory's servers on stdin/stdout (or the given streams); closes when stdin ends. */
export async function serveStdio(
  createServer: StdioServerFactory,
  streams: StdioStreams = { stdin: process.stdin, stdout: process.stdout },
): Promise<StdioHandle> {
  if (streams.stdout === process.stdout) keepStdoutForProtocol();
  let settle: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    settle = resolve;
  });
  // The entry owns the transport's onclose; its close() is the one place both an ended stdin and
  // handle.close() pass through.
  class Transport extends StdioServerTransport {
    override async close(): Promise<void> {
      await super.close();
      settle();
    }
  }
  const handle = serveSdkStdio(({ era }) => createServer(era), {
    transport: new Transport(streams.stdin, streams.stdout),
  });
  return { closed, close: () => handle.close() };
}

/** A dependency's console.log on stdout would corrupt the JSON-RPC stream; send it to stderr. */
function keepStdoutForProtocol(): void {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
}
