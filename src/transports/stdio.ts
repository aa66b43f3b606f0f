// The stdio transport: JSON-RPC on stdin/stdout. Nothing else may reach stdout, so logs go to
// stderr (see logger.ts) and stray console.log calls are sent there too.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport, type Server } from '../server/sdk.js';

export interface StdioStreams {
  stdin: Readable;
  stdout: Writable;
}

export interface StdioHandle {
  /** Settles when the connection has closed (stdin ended, or close() was called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Connects the server to stdin/stdout (or the given streams); closes it when stdin ends. */
export async function serveStdio(
  server: Server,
  streams: StdioStreams = { stdin: process.stdin, stdout: process.stdout },
): Promise<StdioHandle> {
  if (streams.stdout === process.stdout) keepStdoutForProtocol();
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(transport);
  streams.stdin.once('end', () => void server.close());
  return { closed, close: () => server.close() };
}

/** A dependency's console.log on stdout would corrupt the JSON-RPC stream; send it to stderr. */
function keepStdoutForProtocol(): void {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
}
