// `gitea-warden catalog docs [--check] [--out FILE]`: docs/operations.md from the policies, the
// reference profiles and the catalog. Loads the data; src/policy/operations-doc.ts renders it.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCatalog } from '../catalog/load.js';
import { writeOrCheckDoc } from './generated-doc.js';
import { packageRoot } from '../shared/paths.js';
import { loadPolicySet } from '../policy-files/policy-set.js';
import { loadReferenceProfiles } from '../policy-files/profile-files.js';
import { OPERATIONS_DOC_REGENERATE, renderOperationsDoc, type OperationsDocInput } from '../policy/operations-doc.js';

export const operationsDocFile: string = join(packageRoot, 'docs', 'operations.md');

const USAGE = `usage: gitea-warden catalog docs [--check] [--out FILE]

Generates docs/operations.md: every canonical operation with its risk, meaning, legacy aliases, the
reference profiles that allow or forbid it, the catalog tools that need it, the argument rules, the
guarded-only operations and how repository scopes hold each operation that can reach another repository.
  --check     write nothing; exit 1 and list the differing lines when the file is stale
  --out FILE  the file to write or check (default: docs/operations.md)
`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      check: { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const fresh = renderOperationsDoc(operationsDocInput());
  return writeOrCheckDoc('catalog docs', values.out ?? operationsDocFile, fresh, {
    check: values.check,
    regenerate: OPERATIONS_DOC_REGENERATE,
  });
}

/** The data docs/operations.md is rendered from, as committed in this checkout. */
export function operationsDocInput(): OperationsDocInput {
  const policy = loadPolicySet();
  return {
    vocabulary: policy.vocabulary,
    operationMap: policy.operationMap,
    legacyCategories: policy.legacyCategories,
    profiles: loadReferenceProfiles(policy),
    tools: loadCatalog().entries,
    guardedOnly: policy.guards.guarded_only,
    targets: policy.targets,
    scopeFiltered: policy.scopeFiltered,
  };
}
