// Tags and releases: list and create. A tag or a published release points a ref of this repository
// at whatever commit its target names.
import { requireSignedIn } from '../auth.js';
import { bodyObject, ok, stringField, type RequestContext, type Route } from '../context.js';
import { ApiError, conflict, notFound, unprocessable } from '../api-errors.js';
import type { Release } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentRelease, presentTag } from '../present.js';
import { pathRepo, resolveRef } from './lookup.js';

/**
 * routers/api/v1/repo.CreateTag: `target` (a branch or commit, the default branch when empty) must
 * resolve (404), the tag name must be free (409); release_service.CreateNewTag pushes the tag.
 */
function createTag(ctx: RequestContext) {
  requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx, 'write');
  const body = bodyObject(ctx);
  const name = stringField(body, 'tag_name') ?? '';
  if (name === '') throw unprocessable('[TagName]: Required');
  const sha = resolveRef(repo, stringField(body, 'target') || repo.defaultBranch);
  if (sha === undefined) throw notFound('target not found');
  if (repo.tags.has(name)) throw conflict('tag exists');
  repo.tags.set(name, sha);
  return ok(presentTag(ctx.state, repo, name, sha));
}

/**
 * routers/api/v1/repo.CreateRelease and release_service.CreateRelease: a release of an existing tag
 * keeps the tag where it is; for a new tag, a published release creates it at target_commitish (the
 * default branch when empty), a draft creates no tag until it is published. One release per tag (409).
 */
function createRelease(ctx: RequestContext) {
  const doer = requireSignedIn(ctx.caller);
  const repo = pathRepo(ctx, 'write');
  const body = bodyObject(ctx);
  const tag = stringField(body, 'tag_name') ?? '';
  if (tag === '') throw unprocessable('[TagName]: Required');
  if (repo.releases.some((r) => r.tag === tag)) throw conflict('Release has been created before');
  const draft = body.draft === true;
  const target = stringField(body, 'target_commitish') || repo.defaultBranch;
  if (!repo.tags.has(tag) && !draft) {
    const sha = resolveRef(repo, target);
    if (sha === undefined) throw new ApiError(404, 'target not found');
    repo.tags.set(tag, sha);
  }
  const release: Release = {
    id: ctx.state.nextId('release'),
    tag,
    target,
    title: stringField(body, 'name') ?? tag,
    note: stringField(body, 'body') ?? '',
    draft,
    prerelease: body.prerelease === true,
    publisher: doer.login,
    created: ctx.state.timestamp(),
  };
  repo.releases.push(release);
  return ok(presentRelease(ctx.state, repo, release, doer), 201);
}

export const tagRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/tags',
    operationId: 'repoListTags',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const tags = [...repo.tags].sort(([a], [b]) => a.localeCompare(b));
      return paginate(ctx, tags, (page) => page.map(([name, sha]) => presentTag(ctx.state, repo, name, sha)));
    },
  },
  { method: 'POST', path: '/repos/{owner}/{repo}/tags', operationId: 'repoCreateTag', handler: createTag },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/releases',
    operationId: 'repoListReleases',
    handler: (ctx) => {
      const repo = pathRepo(ctx);
      const releases = [...repo.releases].reverse();
      return paginate(ctx, releases, (page) => page.map((r) => presentRelease(ctx.state, repo, r, ctx.caller.doer)));
    },
  },
  { method: 'POST', path: '/repos/{owner}/{repo}/releases', operationId: 'repoCreateRelease', handler: createRelease },
];
