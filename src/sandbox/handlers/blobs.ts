// GET /repos/{owner}/{repo}/git/blobs/{sha} (GetBlob, routers/api/v1/repo/blob.go): a blob by its
// hash, base64-encoded (files_service.GetBlobBySHA); a hash the repository does not hold is 400.
import { ok, type Route } from '../context.js';
import { ApiError } from '../api-errors.js';
import { blobSha } from '../model.js';
import { pathRepo } from './lookup.js';

export const blobRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/git/blobs/{sha}',
    operationId: 'GetBlob',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const sha = (ctx.params.sha ?? '').toLowerCase();
      if (sha === '') throw new ApiError(400, 'sha not provided');
      // Every commit the repository holds, those of refs/pull/N/head included: a blob is any of their files.
      for (const commit of repo.commits.values()) {
        for (const content of Object.values(commit.tree)) {
          if (blobSha(content) !== sha) continue;
          return ok({
            sha,
            url: `${ctx.state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/git/blobs/${sha}`,
            size: Buffer.byteLength(content, 'utf8'),
            encoding: 'base64',
            content: Buffer.from(content, 'utf8').toString('base64'),
          });
        }
      }
      throw new ApiError(400, `object does not exist [id: ${sha}, rel_path: ]`);
    },
  },
];
