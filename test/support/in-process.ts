// A namespace loaded in this process, as `serve` loads it, for tests that need no child process:
// the pipeline can be called directly, or through the official SDK client over an in-memory transport.
import { InMemoryTransport, type Client } from '@modelcontextprotocol/client';
import { createMcpServer } from '../../src/server/mcp-server.js';
import { loadNamespace } from '../../src/server/namespace.js';
import type { Namespace } from '../../src/server/session.js';
import { testClient } from './namespace.js';
import { readSettings } from '../../src/server/settings.js';
import { createLogger } from '../../src/shared/logger.js';

export interface OpenOptions {
  /**
   * 'settled' (the default): returns once the identity check that starts in the background (GET
   * /user) has ended, so a test counting a call's requests never sees it. 'background': returns at
   * once, as `serve` answers initialize, for tests of a Gitea that does not answer.
   */
  identity?: 'settled' | 'background';
}

/** Loads a namespace from an environment (GITEA_URL, GITEA_MCP_PROFILE, AUDIT_LOG, the token, ...). */
export async function openNamespace(env: Record<string, string>, options: OpenOptions = {}): Promise<Namespace> {
  const namespace = await loadNamespace(readSettings({}, env), env, createLogger('silent'));
  if (options.identity !== 'background') await namespace.session.identity.settled();
  return namespace;
}

export interface InProcessConnection {
  namespace: Namespace;
  client: Client;
  /** Closes the client and the namespace's audit log. */
  close(): Promise<void>;
}

/** A namespace and an SDK client connected to it; `prepare` runs on the client before it connects (notification handlers). */
export async function connectInProcess(
  env: Record<string, string>,
  prepare: (client: Client) => void = () => {},
  options: OpenOptions = {},
): Promise<InProcessConnection> {
  const namespace = await openNamespace(env, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // The test client is a 2025 one (initialize): the server it meets is a 2025 stdio connection's.
  await createMcpServer(namespace, { era: 'legacy', transport: 'stdio' }).connect(serverSide);
  const client = testClient();
  prepare(client);
  await client.connect(clientSide);
  return {
    namespace,
    client,
    close: async () => {
      await client.close();
      await namespace.session.audit.close();
    },
  };
}
