#!/usr/bin/env node
// Last step of `npm run build`: bundles the command (dist/cli/main.js, what tsc built) into
// dist/bin/, the installed `gitea-warden`: one file per command plus shared chunks instead of some
// 700 modules, whose resolving and linking was a third of a namespace's start-up (ADR 0010). The
// precompiled policy files go beside the chunks, where src/shared/precompiled-*.ts look for them.
// Modules loaded through createRequire (yaml and ajv's compiler, on first use) stay in node_modules.
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
// Loaded from node_modules, as installed: a native addon, a driver with an optional native binding
// that it requires by name, and express (the OAuth service only), which requires view engines by name.
const EXTERNAL = ['better-sqlite3', 'pg', 'express'];
const outdir = join(root, 'dist', 'bin');

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: { 'gitea-warden': join(root, 'dist', 'cli', 'main.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Not minified: stack traces and profiles keep their names; minifying measured no faster to start.
  external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
  // Bundled CommonJS modules call require for node's own modules.
  banner: {
    js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
});
for (const file of ['precompiled-documents.json', 'precompiled-schemas.cjs']) {
  copyFileSync(join(root, 'dist', 'shared', file), join(outdir, file));
}
const files = Object.keys(result.metafile.outputs).length;
process.stderr.write(
  `bundled the command into dist/bin/ (${files} files; ${EXTERNAL.join(', ')} left in node_modules)\n`,
);
