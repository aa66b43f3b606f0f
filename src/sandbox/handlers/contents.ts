// File contents: read a file (or list a directory) at a ref, and the writes that make commits:
// create, update and delete one file, and the multi-file ChangeFilesOptions. A write lands on
// `branch` (default branch when absent) or on `new_branch` started from it, and moves that branch.
import { bodyObject, ok, stringField, type RequestContext, type Route } from '../context.js';
import { forbidden, notFound, unprocessable } from '../api-errors.js';
import { blobSha, type Account, type Commit, type Repo, type Tree } from '../model.js';
import { presentContents, presentFileCommit, protectionFor, unsignedVerification } from '../present.js';
import { pathRepo, resolveRef } from './lookup.js';

type Operation = 'create' | 'update' | 'delete';

interface FileChange {
  operation: Operation;
  path: string;
  /** Base64 content for create and update. */
  content?: string;
  sha?: string;
}

function decodeContent(value: string | undefined, path: string): string {
  if (value === undefined) throw unprocessable(`content is required for ${path}`);
  return Buffer.from(value, 'base64').toString('utf8');
}

function applyChange(tree: Tree, change: FileChange): void {
  const existing = tree[change.path];
  if (change.operation === 'create') {
    if (existing !== undefined) throw unprocessable(`repository file already exists [path: ${change.path}]`);
    tree[change.path] = decodeContent(change.content, change.path);
    return;
  }
  if (existing === undefined) throw notFound(`repository file does not exist [path: ${change.path}]`);
  const expected = blobSha(existing);
  if (change.sha !== expected)
    throw unprocessable(`sha does not match [given: ${change.sha ?? ''}, expected: ${expected}]`);
  if (change.operation === 'delete') delete tree[change.path];
  else tree[change.path] = decodeContent(change.content, change.path);
}

/** Makes one commit with `changes` and returns it with the branch it landed on. */
function commitChanges(ctx: RequestContext, repo: Repo, changes: FileChange[]): { commit: Commit; branch: string } {
  const doer = ctx.caller.doer as Account;
  const body = bodyObject(ctx);
  const from = stringField(body, 'branch') || repo.defaultBranch;
  const newBranch = stringField(body, 'new_branch') ?? '';
  const parent = repo.branches.get(from);
  if (parent === undefined) throw notFound(`branch does not exist [name: ${from}]`);
  if (newBranch !== '' && repo.branches.has(newBranch))
    throw unprocessable(`branch already exists [name: ${newBranch}]`);
  const target = newBranch || from;
  const protection = protectionFor(repo, target);
  if (protection && !protection.enablePush) throw forbidden(`branch ${target} is protected from changes`);
  const tree: Tree = { ...(repo.commits.get(parent)?.tree ?? {}) };
  for (const change of changes) applyChange(tree, change);
  const first = changes[0];
  const message =
    stringField(body, 'message') ||
    `${first?.operation === 'delete' ? 'Delete' : first?.operation === 'create' ? 'Add' : 'Update'} ${first?.path ?? ''}`;
  const commit = ctx.state.addCommit(repo, {
    parents: [parent],
    message,
    author: { name: doer.fullName || doer.login, email: doer.email, login: doer.login },
    date: ctx.state.timestamp(),
    tree,
  });
  ctx.state.moveBranch(repo, target, commit.sha);
  return { commit, branch: target };
}

function singleFile(operation: Operation, status: number) {
  return (ctx: RequestContext) => {
    const repo = pathRepo(ctx, 'write');
    const body = bodyObject(ctx);
    const path = ctx.params.filepath ?? '';
    const { commit, branch } = commitChanges(ctx, repo, [
      { operation, path, content: stringField(body, 'content'), sha: stringField(body, 'sha') },
    ]);
    const fileCommit = presentFileCommit(ctx.state, repo, commit);
    const content = operation === 'delete' ? null : presentContents(ctx.state, repo, path, commit, branch);
    return ok({ content, commit: fileCommit, verification: unsignedVerification }, status);
  };
}

function changeFiles(ctx: RequestContext) {
  const repo = pathRepo(ctx, 'write');
  const files = bodyObject(ctx).files;
  if (!Array.isArray(files) || files.length === 0) throw unprocessable('[Files]: Required');
  const changes = files.map((f: Record<string, unknown>, i): FileChange => {
    const operation = f?.operation;
    const path = typeof f?.path === 'string' ? f.path : '';
    if ((operation !== 'create' && operation !== 'update' && operation !== 'delete') || path === '') {
      throw unprocessable(`files[${i}]: operation must be create, update or delete, with a path`);
    }
    return {
      operation,
      path,
      content: typeof f.content === 'string' ? f.content : undefined,
      sha: typeof f.sha === 'string' ? f.sha : undefined,
    };
  });
  const { commit, branch } = commitChanges(ctx, repo, changes);
  return ok(
    {
      files: changes.map((c) =>
        c.operation === 'delete' ? null : presentContents(ctx.state, repo, c.path, commit, branch),
      ),
      commit: presentFileCommit(ctx.state, repo, commit),
      verification: unsignedVerification,
    },
    201,
  );
}

/** The entries of a directory at a commit, as GetContentsOrList lists them (no content). */
export function directoryEntries(ctx: RequestContext, repo: Repo, commit: Commit, dir: string, ref: string) {
  const prefix = dir === '' ? '' : `${dir}/`;
  const names = new Set<string>();
  for (const path of Object.keys(commit.tree)) {
    if (path.startsWith(prefix)) names.add(path.slice(prefix.length).split('/')[0] as string);
  }
  return [...names].sort().map((name) => {
    const path = `${prefix}${name}`;
    const entry = presentContents(ctx.state, repo, path, commit, ref);
    if (commit.tree[path] !== undefined) return { ...entry, content: undefined, encoding: undefined };
    return {
      ...entry,
      type: 'dir',
      size: 0,
      sha: commit.sha,
      content: undefined,
      encoding: undefined,
      download_url: undefined,
    };
  });
}

function getContents(ctx: RequestContext) {
  const repo = pathRepo(ctx);
  const ref = ctx.query.get('ref') || repo.defaultBranch;
  const sha = resolveRef(repo, ref);
  if (sha === undefined) throw notFound();
  const commit = repo.commits.get(sha) as Commit;
  const path = (ctx.params.filepath ?? '').replace(/^\/+|\/+$/g, '');
  if (path !== '' && commit.tree[path] !== undefined) return ok(presentContents(ctx.state, repo, path, commit, ref));
  const entries = directoryEntries(ctx, repo, commit, path, ref);
  if (path !== '' && entries.length === 0) throw notFound('GetContentsOrList');
  return ok(entries);
}

export const contentRoutes: Route[] = [
  { method: 'GET', path: '/repos/{owner}/{repo}/contents', operationId: 'repoGetContentsList', handler: getContents },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/contents/{filepath}',
    operationId: 'repoGetContents',
    handler: getContents,
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/contents/{filepath}',
    operationId: 'repoCreateFile',
    handler: singleFile('create', 201),
  },
  {
    method: 'PUT',
    path: '/repos/{owner}/{repo}/contents/{filepath}',
    operationId: 'repoUpdateFile',
    handler: singleFile('update', 200),
  },
  {
    method: 'DELETE',
    path: '/repos/{owner}/{repo}/contents/{filepath}',
    operationId: 'repoDeleteFile',
    handler: singleFile('delete', 200),
  },
  { method: 'POST', path: '/repos/{owner}/{repo}/contents', operationId: 'repoChangeFiles', handler: changeFiles },
];
