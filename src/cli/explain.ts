// gitea-warden explain: one decision, for a person, in one screen.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { catalogByName } from '../catalog/load.js';
import { loadProfile } from '../policy-files/profile-files.js';
import type { Decision } from '../policy/decision.js';
import { budgetsFor, describeBudget } from '../policy/budgets.js';
import { decide, decideCall } from '../policy/decide.js';
import { decideContextFrom, errorMessage, fail, forOutput, policyOptions, policySetFrom } from './policy-context.js';
import { readmeFile } from '../server/namespace-report.js';
import { shownPath } from '../shared/paths.js';
import { explainTokenScopes, readmeWithTokenScopeTable } from './token-scope-lines.js';

const HELP = `usage: gitea-warden explain --profile P (--operation NAME | --tool TOOL [--args JSON]) [--service S]
       gitea-warden explain P   (or --profile P alone: the Gitea token scopes the profile needs, and why)
       gitea-warden explain --report-readme   (rewrite README's token-scope table of the reference profiles)

Shows the verdict, the canonical operation(s), the entry that decided it (file:line) and, for a
denial, what to do about it. --tool takes a catalog tool name (gitea-warden tools lists them);
with --args, resource scopes and argument conditions are checked and the one that decided is named.
--operation alone asks about the operation in general: scopes are not evaluated.
P is a profile name (gitea-reviewer: profiles/gitea-reviewer.yaml), a profile file, or a
multi-identity config as FILE#name.
Options: --policies DIR (default policies/), --reference-profiles DIR (default profiles/: the
namespaces a hint may point to).
Exit 0 allow, 1 deny, 2 unusable input.
`;

export async function run(argv: string[]): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        profile: { type: 'string' },
        operation: { type: 'string' },
        tool: { type: 'string' },
        args: { type: 'string' },
        service: { type: 'string' },
        help: { type: 'boolean' },
        'report-readme': { type: 'boolean' },
        ...policyOptions,
      },
    }));
  } catch (error) {
    return fail('explain', errorMessage(error));
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values['report-readme']) return writeReadmeTable(values);
  const alone = values.profile ?? (positionals.length === 1 ? positionals[0] : undefined);
  if (alone !== undefined && values.operation === undefined && values.tool === undefined)
    return explainScopes(alone, values);
  if (!values.profile || positionals.length > 0 || (values.operation === undefined) === (values.tool === undefined)) {
    return fail('explain', 'give --profile and exactly one of --operation or --tool');
  }
  let decision: Decision;
  let subject: string;
  try {
    const policy = policySetFrom(values);
    const profile = loadProfile(values.profile, policy, values.service);
    const context = decideContextFrom(policy, values);
    if (values.operation !== undefined) {
      subject = `operation ${values.operation}`;
      decision = decide(profile, { operations: [values.operation], targets: {} }, context);
    } else {
      const entry = catalogByName().get(values.tool as string);
      if (!entry) return fail('explain', `no catalog tool named '${values.tool}'`);
      const args: unknown = values.args === undefined ? {} : JSON.parse(values.args);
      subject = `tool ${entry.name} (${entry.method} ${entry.path}, operationId ${entry.operationId})`;
      decision = decideCall(profile, { operationId: entry.operationId, arguments: args }, policy.operationMap, context);
    }
    const shownFile = shownPath(profile.file);
    const budgets = budgetsFor(profile.budgets, decision.operations).map(
      (budget) => `${describeBudget(budget)} (${shownFile}${budget.line === null ? '' : `:${budget.line}`})`,
    );
    process.stdout.write(render(forOutput(decision), subject, shownFile, profile.name, budgets));
  } catch (error) {
    return fail('explain', errorMessage(error));
  }
  return decision.effect === 'allow' ? 0 : 1;
}

function writeReadmeTable(values: { policies?: string }): number {
  try {
    writeFileSync(readmeFile, readmeWithTokenScopeTable(readFileSync(readmeFile, 'utf8'), policySetFrom(values)));
    process.stdout.write(`wrote the token-scope table of ${readmeFile}\n`);
    return 0;
  } catch (error) {
    return fail('explain', errorMessage(error));
  }
}

function explainScopes(profile: string, values: { policies?: string; service?: string }): number {
  try {
    process.stdout.write(explainTokenScopes(policySetFrom(values), profile, values.service));
    return 0;
  } catch (error) {
    return fail('explain', errorMessage(error));
  }
}

/** `budgets`: the call budgets the operations count against, as lines for people. */
export function render(
  decision: Decision,
  subject: string,
  profileFile: string,
  profileName: string | null,
  budgets: readonly string[] = [],
): string {
  const where = `${decision.determining.file}${decision.determining.line ? `:${decision.determining.line}` : ''}`;
  const lines = [
    `${decision.effect === 'allow' ? 'ALLOW' : 'DENY'}  ${subject}`,
    `  profile:     ${profileName ?? '(unnamed)'} (${profileFile})`,
    `  operations:  ${decision.operations.length > 0 ? decision.operations.join(', ') : '(none: could not be normalized or mapped)'}`,
    `  reason:      ${decision.reason}`,
    `  decided by:  ${where}  ${decision.determining.rule}`,
    ...decision.failed.map(
      (failed) =>
        `  failed:      ${failed.code}: ` +
        `${failed.message}${failed.entry ? ` [${failed.entry.file}${failed.entry.line ? `:${failed.entry.line}` : ''} ${failed.entry.rule}]` : ''}`,
    ),
    ...(decision.hint ? [`  hint:        ${decision.hint}`] : []),
    ...(decision.fix ? [`  fix:         ${decision.fix}`] : []),
    ...budgets.map((budget) => `  budget:      ${budget}, per person (refused before Gitea past it)`),
  ];
  return `${lines.join('\n')}\n`;
}
