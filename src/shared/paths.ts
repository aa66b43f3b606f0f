// Where the project's own files live. Modules sit at src/<room>/x.ts (tsx) or dist/<room>/x.js (built),
// so the package root is two levels above either; this is the one place that knows it.
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { isAbsolute, join, relative, resolve } from 'node:path';

export const packageRoot: string = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const policiesDir: string = join(packageRoot, 'policies');
export const profilesDir: string = join(packageRoot, 'profiles');
export const catalogFile: string = join(packageRoot, 'src', 'catalog', 'tools.json');
export const toolsDocFile: string = join(packageRoot, 'docs', 'tools.md');

/** How the package's own files are named in output, and how a reference profile is asked for: `gitea-warden:gitea-reviewer`. */
export const PACKAGE_PREFIX = 'gitea-warden:';

/**
 * The user's configuration directory for gitea-warden: $XDG_CONFIG_HOME/gitea-warden (else ~/.config/gitea-warden;
 * %APPDATA%\gitea-warden on Windows). `init` writes a team's profiles under it by default (profiles/), outside any
 * repository an agent works in, and a bare profile name is looked up there first.
 */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_CONFIG_HOME) return join(resolve(env.XDG_CONFIG_HOME), 'gitea-warden');
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'gitea-warden');
  return join(env.HOME || homedir(), '.config', 'gitea-warden');
}

/** Where `init` writes profiles by default, and the first place a bare profile name is looked for. */
export function userProfilesDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userConfigDir(env), 'profiles');
}

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
  return inPackage !== null ? `${PACKAGE_PREFIX}${inPackage}` : absolute;
}

/** The pinned Gitea API description: `GITEA_SPEC`, else beside the project root in ../shared/spec/. */
export function defaultSpecPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.GITEA_SPEC ?? resolve(packageRoot, '..', 'shared', 'spec', 'gitea-1.27.1.swagger.v1.json');
}
