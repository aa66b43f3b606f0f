// `gitea-warden reasons [--check] [--out FILE]`: docs/reasons.md from src/policy/reasons.ts.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderReasonsDoc, REASONS_DOC_REGENERATE } from '../policy/reasons-doc.js';
import { packageRoot } from '../shared/paths.js';
import { writeOrCheckDoc } from './generated-doc.js';
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
    ({ values } = parseArgs({
      args: argv,
      options: {
        check: { type: 'boolean', default: false },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return fail('reasons', errorMessage(error));
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  return writeOrCheckDoc('reasons', values.out ?? reasonsDocFile, renderReasonsDoc(), {
    check: values.check,
    regenerate: REASONS_DOC_REGENERATE,
  });
}
