// Where the project's own files live. Modules sit at src/<room>/x.ts (tsx) or dist/<room>/x.js (built),
// so the package root is two levels above either; this is the one place that knows it.
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

export const packageRoot: string = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const policiesDir: string = join(packageRoot, 'policies');
export const profilesDir: string = join(packageRoot, 'profiles');
export const catalogFile: string = join(packageRoot, 'src', 'catalog', 'tools.json');
export const toolsDocFile: string = join(packageRoot, 'docs', 'tools.md');

/** The pinned Gitea API description: `GITEA_SPEC`, else beside the project root in ../shared/spec/. */
export function defaultSpecPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.GITEA_SPEC ?? resolve(packageRoot, '..', 'shared', 'spec', 'gitea-1.27.1.swagger.v1.json');
}
