// gitea-warden diff OLD NEW: every operation a profile gains or loses between two versions.
import { parseArgs } from 'node:util';
import { loadProfile } from '../policy-files/profile-files.js';
import { diffProfiles } from '../policy/diff.js';
import { errorMessage, fail, policyOptions, policySetFrom } from './policy-context.js';

const HELP = `usage: gitea-warden diff OLD NEW [--allow-gain] [--format text|json]

Compares what two versions of a profile may actually do (after normalization, wildcard expansion
and forbidden entries) and where (resource scopes: a new or lifted repository, branch or path allow
is a gain; a removed allow or a new deny is a loss). OLD and NEW are profile files (FILE#name for
a multi-identity config). Text lists '+' gained and '-' lost access; --format json gives
{"gained", "lost", "scopes": {"gained", "lost"}}. --policies DIR reads other policy files.
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
  if (!['text', 'json'].includes(values.format))
    return fail('diff', `unknown format '${values.format}' (text or json)`);
  const [oldPath, newPath, ...extra] = positionals;
  if (!oldPath || !newPath || extra.length > 0) return fail('diff', 'give exactly two profiles: OLD NEW');
  let result;
  try {
    const policy = policySetFrom(values);
    result = diffProfiles(loadProfile(oldPath, policy), loadProfile(newPath, policy), policy.vocabulary);
  } catch (error) {
    return fail('diff', errorMessage(error));
  }
  if (values.format === 'json') process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    const gained = [...result.gained, ...result.scopes.gained];
    const lost = [...result.lost, ...result.scopes.lost];
    const lines = [...gained.map((change) => `+ ${change}`), ...lost.map((change) => `- ${change}`)];
    process.stdout.write(
      lines.length === 0
        ? 'no change in access\n'
        : `${lines.join('\n')}\n${gained.length} gained, ${lost.length} lost\n`,
    );
  }
  return result.gained.length + result.scopes.gained.length > 0 && !values['allow-gain'] ? 1 : 0;
}
