// The floor of the protocol section: a bare MCP server on the same SDK (v2) and stdio entry as the
// product, with one tool that forwards the same read to Gitea over a keep-alive connection and
// returns the body as one text item. No policy, no audit, no validation, no redaction: whatever the
// product spends per call above this is its own. Bundled at bench time (bench/protocol-builds.ts) so
// that it starts the way the installed product does. Reads GITEA_URL and RELAY_TOKEN.
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const gitea = process.env.GITEA_URL ?? '';
const headers = { Authorization: `token ${process.env.RELAY_TOKEN ?? ''}` };

function createRelay(): Server {
  const server = new Server({ name: 'bench-relay', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({
    tools: [
      {
        name: 'relay_repo_get',
        description: 'GET /repos/{owner}/{repo}, forwarded as is',
        inputSchema: {
          type: 'object',
          properties: { owner: { type: 'string' }, repo: { type: 'string' } },
          required: ['owner', 'repo'],
        },
      },
    ],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    const { owner, repo } = (request.params.arguments ?? {}) as { owner?: string; repo?: string };
    // Node's fetch keeps the connection alive between calls, as the product's Gitea client does.
    const response = await fetch(
      `${gitea}/api/v1/repos/${encodeURIComponent(owner ?? '')}/${encodeURIComponent(repo ?? '')}`,
      {
        headers,
      },
    );
    const text = await response.text();
    return { content: [{ type: 'text', text }], ...(response.ok ? {} : { isError: true }) };
  });
  return server;
}

serveStdio(() => createRelay());
