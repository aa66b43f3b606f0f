// GiteaWriter over the HTTP client: the three writes of the guarded reconciler tools. A request
// Gitea never answered throws (the caller reports it as a failed action); any answer returns its status.
import { repoPath } from './facts.js';
import type { GiteaHttpClient, HttpRequest } from './http.js';
import type { GiteaWriter, WriteResult } from './gitea-identity.js';

export class HttpGiteaWriter implements GiteaWriter {
  constructor(private readonly client: GiteaHttpClient) {}

  deleteBranch(owner: string, repo: string, branch: string): Promise<WriteResult> {
    return this.send('DELETE', repoPath(owner, repo, 'branches', { branch }));
  }

  closePull(owner: string, repo: string, index: number): Promise<WriteResult> {
    return this.send('PATCH', repoPath(owner, repo, 'pulls', String(index)), { state: 'closed' });
  }

  commentIssue(owner: string, repo: string, index: number, body: string): Promise<WriteResult> {
    return this.send('POST', repoPath(owner, repo, 'issues', String(index), 'comments'), { body });
  }

  private async send(method: HttpRequest['method'], path: string | null, json?: object): Promise<WriteResult> {
    if (path === null) throw new Error('a name in the path is not valid');
    const body = json ? { content: JSON.stringify(json), contentType: 'application/json' } : null;
    const outcome = await this.client.send({ method, path, body });
    if (!outcome.ok) throw new Error(outcome.message);
    return { status: outcome.status };
  }
}
