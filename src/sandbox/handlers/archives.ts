// GET /repos/{owner}/{repo}/archive/{archive} (repoGetArchive): the tree of a ref as a .zip, .tar.gz
// or .bundle, as Gitea serves it. routers/api/v1/repo/file.go GetArchive -> serveRepoArchive ->
// services/repository/archiver NewRequest (repo_model.SplitArchiveNameType: the name ends in .zip,
// .tar.gz or .bundle, else 400; a ref that does not resolve is 404) and ServeRepoArchive, which
// streams `git archive` (or `git bundle create`) with Content-Type application/octet-stream
// (httplib.ServeSetHeaders), a Content-Disposition naming `<repo>-<ref>.<ext>`, and a Link header to
// the immutable archive of the commit. With setting.Repository.PrefixArchiveFiles (the default) every
// path starts with `<repo>/`; `git archive` writes a pax global header holding the commit id (tar) or
// puts it in the zip comment. A bundle here carries a v2 header naming the ref and a pack of the
// tree's blobs: the bytes of every file, compressed, which is what makes it matter.
import { createHash } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { zipSync, type Zippable } from 'fflate';
import type { RequestContext, Route } from '../context.js';
import { ApiError, notFound } from '../api-errors.js';
import type { Commit, Repo } from '../model.js';
import { paxRecords, tarEntry, writeTar } from '../../shared/tar.js';
import { pathRepo, resolveRef } from './lookup.js';

const FORMATS = ['.tar.gz', '.zip', '.bundle'] as const;
type Format = (typeof FORMATS)[number];

function splitArchiveName(name: string): { ref: string; format: Format } | null {
  const format = FORMATS.find((ext) => name.endsWith(ext) && name.length > ext.length);
  return format ? { ref: name.slice(0, -format.length), format } : null;
}

/** The files of the commit below the requested paths (the `path` query), with the `<repo>/` prefix. */
function filesOf(repo: Repo, commit: Commit, paths: string[]): Array<[string, string]> {
  const wanted = (file: string) =>
    paths.length === 0 || paths.some((p) => file === p || file.startsWith(`${p.replace(/\/+$/, '')}/`));
  return Object.entries(commit.tree)
    .filter(([file]) => wanted(file))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([file, content]) => [`${repo.name}/${file}`, content]);
}

function directoriesOf(files: Array<[string, string]>): string[] {
  const dirs = new Set<string>();
  for (const [file] of files) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(`${parts.slice(0, i).join('/')}/`);
  }
  return [...dirs].sort();
}

function tarGz(commit: Commit, files: Array<[string, string]>): Buffer {
  const mtime = Math.floor(Date.parse(commit.date) / 1000) || 0;
  return gzipSync(
    writeTar([
      tarEntry({ name: 'pax_global_header', type: 'g', data: paxRecords([['comment', commit.sha]]) }),
      ...directoriesOf(files).map((name) => tarEntry({ name, type: '5', mtime })),
      ...files.map(([name, content]) => tarEntry({ name, data: Buffer.from(content, 'utf8'), mtime })),
    ]),
  );
}

function zip(commit: Commit, files: Array<[string, string]>): Buffer {
  const mtime = new Date(commit.date);
  const entries: Zippable = {};
  for (const name of directoriesOf(files)) entries[name] = [new Uint8Array(0), { mtime }];
  for (const [name, content] of files) entries[name] = [Buffer.from(content, 'utf8'), { mtime }];
  return Buffer.from(zipSync(entries, { comment: commit.sha }));
}

/** A v2 bundle header and a pack (version 2) of the tree's blobs, each zlib-compressed, with its SHA-1 trailer. */
function bundle(ref: string, commit: Commit, files: Array<[string, string]>): Buffer {
  const objects = files.map(([, content]) => {
    const data = Buffer.from(content, 'utf8');
    // Object header: type 3 (blob) and the size, 4 bits in the first byte and 7 in each one after.
    const header = [(3 << 4) | (data.length & 0x0f) | (data.length > 0x0f ? 0x80 : 0)];
    for (let size = data.length >> 4; size > 0; size >>= 7) header.push((size & 0x7f) | (size > 0x7f ? 0x80 : 0));
    return Buffer.concat([Buffer.from(header), deflateSync(data)]);
  });
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(objects.length, 8);
  const pack = Buffer.concat([head, ...objects]);
  const trailer = createHash('sha1').update(pack).digest();
  return Buffer.concat([Buffer.from(`# v2 git bundle\n${commit.sha} refs/heads/${ref}\n\n`), pack, trailer]);
}

function getArchive(ctx: RequestContext) {
  const repo = pathRepo(ctx);
  const requested = splitArchiveName(ctx.params.archive ?? '');
  if (requested === null) throw new ApiError(400, `unknown format: ${ctx.params.archive ?? ''}`);
  const sha = resolveRef(repo, requested.ref);
  const commit = sha === undefined ? undefined : repo.commits.get(sha);
  if (commit === undefined) throw notFound(`unrecognized repository reference: ${requested.ref}`);
  const files = filesOf(repo, commit, ctx.query.getAll('path'));
  const body =
    requested.format === '.zip'
      ? zip(commit, files)
      : requested.format === '.tar.gz'
        ? tarGz(commit, files)
        : bundle(requested.ref, commit, files);
  const download = `${repo.name}-${requested.ref.replaceAll('/', '-')}${requested.format}`;
  return {
    status: 200,
    body,
    headers: {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${download}"`,
      Link: `<${ctx.state.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/archive/${commit.sha}${requested.format}?rev=${commit.sha}>; rel="immutable"`,
    },
  };
}

export const archiveRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/archive/{archive}',
    operationId: 'repoGetArchive',
    handler: getArchive,
  },
];
