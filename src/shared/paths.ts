// Where the project's own files live. Modules sit at src/<room>/x.ts (tsx) or dist/<room>/x.js (built),
// so the package root is two levels above either; this is the one place that knows it.
import { fileURLToPath } from 'node:url';
import { isAbsolute, join, relative, resolve } from 'node:path';

export const packageRoot: string = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const policiesDir: string = join(packageRoot, 'policies');
export const profilesDir: string = join(packageRoot, 'profiles');
export const catalogFile: string = join(packageRoot, 'src', 'catalog', 'tools.json');
export const toolsDocFile: string = join(packageRoot, 'docs', 'tools.md');

/**
 * A file as denials, findings and status show it, wherever the server or command runs (clients start
 * servers from anywhere): relative to the working directory when under it (the user's own files;
 * SARIF needs them so), else the package's own files as gitea-warden:policies/guards.yaml, else
 * absolute. Never a ../ path. <inline> and the like stay as they are.
 */
export function shownPath(file: string, cwd: string = process.cwd()): string {
  if (file.startsWith('<')) return file;
  const absolute = resolve(cwd, file);
  const under = (dir: string) => {
    const path = relative(dir, absolute);
    return path !== '' && !path.startsWith('..') && !isAbsolute(path) ? path : null;
  };
  const inCwd = under(cwd);
  if (inCwd !== null) return inCwd;
  const inPackage = under(packageRoot);
  return inPackage !== null ? `gitea-warden:${inPackage}` : absolute;
}

/** The pinned Gitea API description: `GITEA_SPEC`, else beside the project root in ../shared/spec/. */
export function defaultSpecPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.GITEA_SPEC ?? resolve(packageRoot, '..', 'shared', 'spec', 'gitea-1.27.1.swagger.v1.json');
}
