// The write-or-check step every doc generator shares (`reasons`, `catalog docs`): write the fresh text,
// or with --check compare it with the committed file and list the lines that drifted.
import { readFileSync, writeFileSync } from 'node:fs';
import { lineDrift } from '../catalog/generate.js';

/** Exit 0 when written or up to date; 1 with the drifted lines and the command that regenerates it. */
export function writeOrCheckDoc(
  command: string,
  file: string,
  fresh: string,
  options: { check: boolean; regenerate: string },
): number {
  if (!options.check) {
    writeFileSync(file, fresh);
    process.stdout.write(`${command}: wrote ${file}\n`);
    return 0;
  }
  const committed = readCommitted(file);
  if (committed === fresh) {
    process.stdout.write(`${command}: ${file} is up to date\n`);
    return 0;
  }
  const drift = lineDrift(file, fresh, committed);
  process.stdout.write(
    `${command}: ${file} differs from a fresh generation; run ${options.regenerate}\n${drift.map((d) => `  ${d}\n`).join('')}`,
  );
  return 1;
}

/** A missing file is stale like any other. */
function readCommitted(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
