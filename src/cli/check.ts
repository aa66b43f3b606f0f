// gitea-warden check [paths...]: lint profile files and the policies; text, json or sarif.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkPolicies, loadPolicySet } from '../policy-files/policy-set.js';
import { checkProfileFile, profileFilesIn } from '../policy-files/profile-files.js';
import { policiesDir, profilesDir } from '../shared/paths.js';
import type { Finding } from '../policy/findings.js';
import { loadCatalog } from '../catalog/load.js';
import { tokenScopeFindings } from '../server/token-scopes.js';
import { compileProfile } from '../policy/profile.js';
import { errorMessage, fail, findingLine } from './policy-context.js';
import { shownPath } from '../shared/paths.js';

const HELP = `usage: gitea-warden check [paths...] [--format text|json|sarif] [--policies DIR]

Lints profile files (YAML or JSON, single profiles or multi-identity configs) and the policy
files. Paths default to profiles/ and policies/. A directory holding vocabulary.yaml is checked
as policies. Exit 0 clean, 1 findings, 2 unusable input.
`;

export async function run(argv: string[]): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { format: { type: 'string', default: 'text' }, policies: { type: 'string' }, help: { type: 'boolean' } },
    }));
  } catch (error) {
    return fail('check', errorMessage(error));
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!['text', 'json', 'sarif'].includes(values.format))
    return fail('check', `unknown format '${values.format}' (text, json or sarif)`);
  const dir = resolve(values.policies ?? policiesDir);
  const paths = positionals.length > 0 ? positionals : [profilesDir, dir];
  const missing = paths.find((path) => !existsSync(path));
  if (missing) return fail('check', `cannot read ${missing}`);
  const findings: Finding[] = [];
  const policyDirs = paths.filter(isPolicyDir).map((path) => resolve(path));
  for (const policyDir of policyDirs) findings.push(...checkPolicies(policyDir));
  const files = paths.filter((path) => !isPolicyDir(path)).flatMap(profileFilesIn);
  if (files.length === 0 && policyDirs.length === 0)
    return fail('check', 'nothing to check (no .yaml, .yml or .json files)');
  if (files.length > 0) {
    let policy;
    try {
      policy = loadPolicySet(dir);
    } catch {
      if (!policyDirs.includes(dir)) findings.push(...checkPolicies(dir));
      process.stdout.write(format(findings, values.format));
      return 1; // the policy findings say why profiles could not be checked
    }
    for (const file of files) {
      const checked = checkProfileFile(file, policy);
      const compiled = checked.profiles.map((found) => compileProfile(found.source, policy.vocabulary));
      findings.push(
        ...checked.findings,
        ...compiled.flatMap((p) => tokenScopeFindings(policy, p, loadCatalog().entries)),
      );
    }
  }
  process.stdout.write(format(findings, values.format));
  return findings.length === 0 ? 0 : 1;
}

function isPolicyDir(path: string): boolean {
  return existsSync(join(path, 'vocabulary.yaml'));
}

function format(findings: Finding[], kind: string): string {
  const shown = findings.map((finding) => ({ ...finding, file: shownPath(finding.file) }));
  if (kind === 'json') return `${JSON.stringify({ findings: shown }, null, 2)}\n`;
  if (kind === 'sarif') return `${JSON.stringify(toSarif(shown), null, 2)}\n`;
  if (shown.length === 0) return 'check: no findings\n';
  return `${shown.map(findingLine).join('\n')}\n${shown.length} finding(s)\n`;
}

function toSarif(findings: Finding[]): object {
  const rules = [...new Set(findings.map((f) => f.code))]
    .sort()
    .map((id) => ({ id, shortDescription: { text: id.replace(/_/g, ' ') } }));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'gitea-warden', informationUri: 'https://gitea-warden.local/docs/check', rules } },
        results: findings.map((f) => ({
          ruleId: f.code,
          level: f.severity === 'error' ? 'error' : 'warning',
          message: { text: f.fix ? `${f.message} (fix: ${f.fix})` : f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: f.file },
                ...(f.line ? { region: { startLine: f.line } } : {}),
              },
            },
          ],
        })),
      },
    ],
  };
}
