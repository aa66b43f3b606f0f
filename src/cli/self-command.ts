// The command line that runs this program again: the package's bin (the bundle in dist/bin) once
// built, the TypeScript sources under tsx when this module is itself running from src/ (`npm run demo`,
// the tests). The demo starts its namespaces with it, so an installed package needs neither its
// sources nor its development tools to tell the story.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../shared/paths.js';

export function selfCommand(args: string[]): { command: string; args: string[] } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    return { command: process.execPath, args: ['--import', 'tsx', join(dirname(here), 'main.ts'), ...args] };
  }
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  const bin = manifest.bin['gitea-warden'];
  if (bin === undefined) throw new Error(`${join(packageRoot, 'package.json')} names no gitea-warden bin`);
  return { command: process.execPath, args: [join(packageRoot, bin), ...args] };
}
