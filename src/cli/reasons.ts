// `gitea-warden reasons [--check] [--out FILE]`: docs/reasons.md from src/policy/reasons.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { lineDrift } from '../catalog/generate.js';
import { renderReasonsDoc, REASONS_DOC_REGENERATE } from '../policy/reasons-doc.js';
import { packageRoot } from '../shared/paths.js';
import { errorMessage, fail } from './policy-context.js';

export const reasonsDocFile: string = join(packageRoot, 'docs', 'reasons.md');

const USAGE = `usage: gitea-warden reasons [--check] [--out FILE]

Generates docs/reasons.md: every outcome code (decision reasons, failed conditions, guard checks,
refusals, audit outcomes, check findings) with its meaning, from src/policy/reasons.ts.
  --check     write nothing; exit 1 and list the differing lines when the file is stale
  --out FILE  the file to write or check (default: docs/reasons.md)
`;

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { check: { type: 'boolean', default: false }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    return fail('reasons', errorMessage(error));
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const file = values.out ?? reasonsDocFile;
  const fresh = renderReasonsDoc();
  if (!values.check) {
    writeFileSync(file, fresh);
    process.stdout.write(`reasons: wrote ${file}\n`);
    return 0;
  }
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    // A missing file is stale like any other.
  }
  if (committed === fresh) {
    process.stdout.write(`reasons: ${file} is up to date\n`);
    return 0;
  }
  const drift = lineDrift(file, fresh, committed);
  process.stdout.write(`reasons: ${file} differs from a fresh generation; run ${REASONS_DOC_REGENERATE}\n${drift.map((d) => `  ${d}\n`).join('')}`);
  return 1;
}
