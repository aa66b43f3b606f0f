// GET /repos/{owner}/{repo}/contents-ext/{filepath} (GetContentsExt, routers/api/v1/repo/file.go):
// exactly one of file_contents and dir_contents; a file's content only with includes=file_content,
// an unknown include option is 400 (the sandbox keeps no LFS objects, so lfs_metadata adds nothing).
import { ok, type RequestContext, type Route } from '../context.js';
import { ApiError, notFound } from '../api-errors.js';
import type { Commit } from '../model.js';
import { presentContents } from '../present.js';
import { directoryEntries } from './contents.js';
import { pathRepo, resolveRef } from './lookup.js';

function getContentsExt(ctx: RequestContext) {
  let fileContent = false;
  for (const option of (ctx.query.get('includes') ?? '').split(',')) {
    if (option === '') continue;
    if (option === 'file_content') fileContent = true;
    else if (option !== 'lfs_metadata') throw new ApiError(400, `unknown include option "${option}"`);
  }
  const repo = pathRepo(ctx);
  const ref = ctx.query.get('ref')?.trim() || repo.defaultBranch;
  const sha = resolveRef(repo, ref);
  if (sha === undefined) throw notFound();
  const commit = repo.commits.get(sha) as Commit;
  const path = (ctx.params.filepath ?? '').replace(/^\/+|\/+$/g, '');
  if (path !== '' && commit.tree[path] !== undefined) {
    const file = presentContents(ctx.state, repo, path, commit, ref);
    return ok({ file_contents: fileContent ? file : { ...file, content: undefined, encoding: undefined } });
  }
  const entries = directoryEntries(ctx, repo, commit, path, ref);
  if (path !== '' && entries.length === 0) throw notFound('GetContentsOrList');
  return ok({ dir_contents: entries });
}

export const contentsExtRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/contents-ext/{filepath}',
    operationId: 'repoGetContentsExt',
    handler: getContentsExt,
  },
];
