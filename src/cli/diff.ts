// gitea-warden diff OLD NEW: every widening and narrowing of a profile between two versions, one
// finding per change with the file and line of the newer version; the gate of the CI workflows.
import { parseArgs } from 'node:util';
import { loadCatalog } from '../catalog/load.js';
import { loadProfileVersions, type ProfileVersion } from '../policy-files/profile-files.js';
import type { PolicySet } from '../policy-files/policy-set.js';
import { diffProfiles, wholeProfile, type AccessChange, type DiffContext } from '../policy/diff.js';
import { possiblePrimaries } from '../server/tool-registry.js';
import { shownPath } from '../shared/paths.js';
import { errorMessage, fail, policyOptions, policySetFrom } from './policy-context.js';

const HELP = `usage: gitea-warden diff OLD NEW [--allow-gain] [--format text|json|sarif]

Compares everything two versions of a profile let an agent do or read, field by field: the
operations it may perform (after aliases, wildcards and forbidden entries), the Gitea user and
token variable it acts with, who may sign in, its repositories, branches and paths (by what the
patterns match, not how they are written), its call budgets, its integrity floor and lists, the
static listing's reach (toolsets) and, in a multi-identity config, runtime switching and the Gitea URL. A change
that widens is a gain, one that narrows a loss; each is one line naming the newer file and line.
OLD and NEW are profile files, FILE#name for one identity of a multi-identity config, or whole
configs (identities paired by key). --format json gives {"gained": [...], "lost": [...]}, each
change {file, line, field, change}; sarif gives one result per change (gains as errors).
--policies DIR reads other policy files.
Exit 1 when access is gained unless --allow-gain; 0 otherwise; 2 unusable input.
`;

export async function run(argv: string[]): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'allow-gain': { type: 'boolean' },
        format: { type: 'string', default: 'text' },
        help: { type: 'boolean' },
        ...policyOptions,
      },
    }));
  } catch (error) {
    return fail('diff', errorMessage(error));
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!['text', 'json', 'sarif'].includes(values.format))
    return fail('diff', `unknown format '${values.format}' (text, json or sarif)`);
  const [oldPath, newPath, ...extra] = positionals;
  if (!oldPath || !newPath || extra.length > 0) return fail('diff', 'give exactly two profiles: OLD NEW');
  let changes: AccessChange[];
  let newFile: string;
  try {
    const policy = policySetFrom(values);
    const context = diffContext(policy);
    const [before, after] = [loadProfileVersions(oldPath, policy), loadProfileVersions(newPath, policy)];
    newFile = after[0]?.profile.file ?? newPath;
    changes = pairUp(before, after).flatMap(([was, is]) => {
      if (was && is) {
        const diff = diffProfiles(was, is, context);
        return [...diff.gained, ...diff.lost];
      }
      return was ? wholeProfile(was, 'loss', context) : is ? wholeProfile(is, 'gain', context) : [];
    });
  } catch (error) {
    return fail('diff', errorMessage(error));
  }
  const shown = changes.map((change) => ({ ...change, file: shownPath(change.file) }));
  const gained = shown.filter((change) => change.direction === 'gain');
  const lost = shown.filter((change) => change.direction === 'loss');
  if (values.format === 'json') process.stdout.write(`${JSON.stringify({ gained, lost }, null, 2)}\n`);
  else if (values.format === 'sarif')
    process.stdout.write(`${JSON.stringify(toSarif([...gained, ...lost]), null, 2)}\n`);
  else process.stdout.write(text(gained, lost, shownPath(newFile)));
  return gained.length > 0 && !values['allow-gain'] ? 1 : 0;
}

/** What the static listing of each catalog domain can reach: the canonical operations of its tools. */
function diffContext(policy: PolicySet): DiffContext {
  const toolsetOperations = new Map<string, Set<string>>();
  for (const entry of loadCatalog().entries) {
    const operations = toolsetOperations.get(entry.domain) ?? new Set<string>();
    for (const operation of possiblePrimaries(policy.operationMap, entry.operationId)) operations.add(operation);
    toolsetOperations.set(entry.domain, operations);
  }
  return { vocabulary: policy.vocabulary, toolsetOperations };
}

/** Old and new versions paired: one each whatever their keys, else by identity key (a side alone is new or removed). */
function pairUp(
  before: ProfileVersion[],
  after: ProfileVersion[],
): Array<[ProfileVersion | null, ProfileVersion | null]> {
  if (before.length === 1 && after.length === 1) return [[before[0] as ProfileVersion, after[0] as ProfileVersion]];
  const keys = [...new Set([...after.map((version) => version.key), ...before.map((version) => version.key)])];
  return keys.map((key) => [
    before.find((version) => version.key === key) ?? null,
    after.find((version) => version.key === key) ?? null,
  ]);
}

function line(change: AccessChange): string {
  return `${change.file}${change.line ? `:${change.line}` : ''}: ${change.direction} ${change.field}: ${change.change}`;
}

function text(gained: AccessChange[], lost: AccessChange[], file: string): string {
  if (gained.length + lost.length === 0) return `${file}: no change in access\n`;
  return `${[...gained, ...lost].map(line).join('\n')}\n${file}: ${gained.length} gained, ${lost.length} lost\n`;
}

function toSarif(changes: AccessChange[]): object {
  const rules = [
    { id: 'access_gained', shortDescription: { text: 'the profile gains access' } },
    { id: 'access_lost', shortDescription: { text: 'the profile loses access' } },
  ];
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'gitea-warden diff', informationUri: 'https://gitea-warden.local/docs/diff', rules } },
        results: changes.map((change) => ({
          ruleId: change.direction === 'gain' ? 'access_gained' : 'access_lost',
          level: change.direction === 'gain' ? 'error' : 'note',
          message: { text: `${change.field}: ${change.change}` },
          properties: { field: change.field },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: change.file },
                ...(change.line ? { region: { startLine: change.line } } : {}),
              },
            },
          ],
        })),
      },
    ],
  };
}
