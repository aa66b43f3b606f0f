// `gitea-warden catalog docs [--check] [--out FILE]`: docs/operations.md from the policies, the
// reference profiles and the catalog. Loads the data; src/policy/operations-doc.ts renders it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCatalog } from '../catalog/load.js';
import { lineDrift } from '../catalog/generate.js';
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
    options: { check: { type: 'boolean', default: false }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const file = values.out ?? operationsDocFile;
  const fresh = renderOperationsDoc(operationsDocInput());
  return values.check ? check(file, fresh) : write(file, fresh);
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

function check(file: string, fresh: string): number {
  const committed = readCommitted(file);
  if (committed === fresh) {
    process.stdout.write(`catalog docs: ${file} is up to date\n`);
    return 0;
  }
  const drift = lineDrift(file, fresh, committed);
  process.stdout.write(`catalog docs: ${file} differs from a fresh generation; run ${OPERATIONS_DOC_REGENERATE}\n${drift.map((d) => `  ${d}\n`).join('')}`);
  return 1;
}

function readCommitted(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function write(file: string, fresh: string): number {
  writeFileSync(file, fresh);
  process.stdout.write(`catalog docs: wrote ${file}\n`);
  return 0;
}
