// gitea-warden check [paths...]: lint profile files and the policies; text, json or sarif.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkPolicies, loadPolicySet } from '../policy-files/policy-set.js';
import { checkProfileFile, profileFilesIn, type FoundProfile } from '../policy-files/profile-files.js';
import { policiesDir, userProfilesDir } from '../shared/paths.js';
import type { Finding } from '../policy/findings.js';
import { loadCatalog } from '../catalog/load.js';
import { tokenScopeFindings } from '../server/token-scope-filter.js';
import { compileProfile } from '../policy/profile.js';
import { trustFindings } from './check-trust.js';
import { errorMessage, fail, findingLine } from './policy-context.js';
import { shownPath } from '../shared/paths.js';

const HELP = `usage: gitea-warden check [paths...] [--format text|json|sarif] [--policies DIR]

Lints profile files (YAML or JSON, single profiles or multi-identity configs) and policy files.
Without paths it checks your team's profiles: ./profiles/ and the directory gitea-warden init
writes to (${shownPath(userProfilesDir())}), each that exists, and says which files it checked.
A directory holding vocabulary.yaml is checked as policies (the package's own are used otherwise).
With GITEA_URL and a profile's token variable set, the people its integrity.trusted_users names are
looked up in Gitea: a login that is no user, or no member, owner or collaborator of anything the
profile names, is a warning (--offline asks nothing).
Exit 0 clean, 1 findings, 2 unusable input.
`;

export async function run(argv: string[]): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string', default: 'text' },
        policies: { type: 'string' },
        offline: { type: 'boolean' },
        help: { type: 'boolean' },
      },
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
  const paths = positionals.length > 0 ? positionals : teamProfileDirs();
  if (paths.length === 0) {
    return fail(
      'check',
      `no profiles to check: neither ./profiles/ nor ${shownPath(userProfilesDir())} exists; give the files or directories to check ` +
        `(gitea-warden init writes profiles)`,
    );
  }
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
      process.stdout.write(format(findings, values.format, checked(files, policyDirs)));
      return 1; // the policy findings say why profiles could not be checked
    }
    const found: FoundProfile[] = [];
    for (const file of files) {
      const report = checkProfileFile(file, policy);
      const compiled = report.profiles.map((profile) => compileProfile(profile.source, policy.vocabulary));
      findings.push(
        ...report.findings,
        ...compiled.flatMap((p) => tokenScopeFindings(policy, p, loadCatalog().entries)),
      );
      found.push(...report.profiles);
    }
    if (!values.offline) {
      const trust = await trustFindings(found, process.env);
      findings.push(...trust.findings);
      for (const note of trust.skipped)
        process.stderr.write(`gitea-warden check: trusted users not asked about: ${note}\n`);
    }
  }
  process.stdout.write(format(findings, values.format, checked(files, policyDirs)));
  return findings.length === 0 ? 0 : 1;
}

/** The team's profile directories that exist: ./profiles/, then where init writes (never the package's reference profiles). */
function teamProfileDirs(): string[] {
  const dirs = [resolve('profiles'), userProfilesDir()];
  return [...new Set(dirs)].filter((dir) => existsSync(dir) && statSync(dir).isDirectory());
}

/** What was checked, as output shows files: each profile file and each policy directory. */
function checked(files: string[], policyDirs: string[]): string[] {
  return [...files, ...policyDirs].map((file) => shownPath(file));
}

function isPolicyDir(path: string): boolean {
  return existsSync(join(path, 'vocabulary.yaml'));
}

function format(findings: Finding[], kind: string, files: string[]): string {
  const shown = findings.map((finding) => ({ ...finding, file: shownPath(finding.file) }));
  if (kind === 'json') return `${JSON.stringify({ checked: files, findings: shown }, null, 2)}\n`;
  if (kind === 'sarif') return `${JSON.stringify(toSarif(shown, files), null, 2)}\n`;
  const what = `checked ${files.length} file${files.length === 1 ? '' : 's'}: ${files.join(', ')}`;
  if (shown.length === 0) return `check: no findings (${what})\n`;
  return `${shown.map(findingLine).join('\n')}\n${shown.length} finding(s) (${what})\n`;
}

function toSarif(findings: Finding[], files: string[]): object {
  const rules = [...new Set(findings.map((f) => f.code))]
    .sort()
    .map((id) => ({ id, shortDescription: { text: id.replace(/_/g, ' ') } }));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'gitea-warden', informationUri: 'https://gitea-warden.local/docs/check', rules } },
        // Every file checked, findings or not: a clean run still says what it looked at.
        artifacts: files.map((uri) => ({ location: { uri } })),
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
