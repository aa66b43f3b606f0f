// gitea-warden migrate: rewrite legacy spellings in a profile into canonical names, keeping comments
// (yaml Document API). Dry run by default; -w writes after a backup. The result is validated.
import { copyFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isSeq, isScalar, parseDocument } from 'yaml';
import { parseDocumentText, readDocumentText } from '../shared/document.js';
import { loadSchema, schemaFindings, type PolicySet } from '../policy-files/policy-set.js';
import { profileFindings, type Finding } from '../policy/findings.js';
import { planMigration, type MigrationStep } from '../policy/migrate.js';
import { compileProfile, type ProfileData } from '../policy/profile.js';
import { errorMessage, fail, findingLine, policyOptions, policySetFrom } from './policy-context.js';

const HELP = `usage: gitea-warden migrate -i FILE [-o OUT] [--backup PATH] [-w]

Turns legacy spellings (aliases such as approve, and categories such as pr.close or issue.create)
into canonical gitea.<area>.<verb> names. Prints the result and validates it (dry run); -w writes
it to OUT (or FILE in place) after copying the original to --backup (default FILE.bak).
The rewrites go to stderr, one per entry, with any finding left (and its fix). --policies DIR
reads other policy files. Exit 0 when the result is valid, 1 when it still has findings, 2 unusable input.
`;

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        input: { type: 'string', short: 'i' },
        output: { type: 'string', short: 'o' },
        backup: { type: 'string' },
        write: { type: 'boolean', short: 'w' },
        help: { type: 'boolean' },
        ...policyOptions,
      },
    }));
  } catch (error) {
    return fail('migrate', errorMessage(error));
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!values.input) return fail('migrate', '-i FILE is required');
  let text: string;
  let policy: PolicySet;
  try {
    text = readDocumentText(values.input);
    const data = parseDocumentText(text, values.input).data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      return fail('migrate', `${values.input} is not a profile (a YAML or JSON mapping of profile fields)`);
    }
    policy = policySetFrom(values);
  } catch (error) {
    return fail('migrate', errorMessage(error));
  }
  const migrated = migrateProfileText(text, policy);
  if (!migrated) return fail('migrate', `${values.input} is not a YAML/JSON profile`);
  for (const step of migrated.steps) {
    if (step.to !== null)
      process.stderr.write(`${step.list}[${step.index}]: ${step.from} -> ${step.to} (${step.kind})\n`);
    if (step.kind === 'unknown')
      process.stderr.write(
        `${step.list}[${step.index}]: '${step.from}' has no canonical replacement; fix it by hand\n`,
      );
  }
  const findings = validate(migrated.text, values.output ?? values.input, policy);
  for (const finding of findings) process.stderr.write(`${findingLine(finding)}\n`);
  const blocking = findings.some((finding) => finding.severity === 'error');
  if (!values.write) {
    process.stdout.write(migrated.text);
    return findings.length === 0 ? 0 : 1;
  }
  if (blocking) {
    process.stderr.write('not written: the migrated profile still has errors (above)\n');
    return 1;
  }
  const target = values.output ?? values.input;
  copyFileSync(values.input, values.backup ?? `${values.input}.bak`);
  writeFileSync(target, migrated.text);
  process.stderr.write(`wrote ${target}\n`);
  return findings.length === 0 ? 0 : 1;
}

export interface MigratedProfile {
  text: string;
  steps: (MigrationStep & { list: string })[];
}

/** Rewrites only the migrated entries' own characters in the text, so comments, alignment and quoting survive byte for byte. */
export function migrateProfileText(text: string, policy: PolicySet): MigratedProfile | null {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return null;
  const steps: MigratedProfile['steps'] = [];
  const edits: { start: number; end: number; to: string }[] = [];
  for (const list of ['allowed_operations', 'forbidden_operations']) {
    const node = doc.get(list, true);
    if (!isSeq(node)) continue;
    const written = node.items.map((item) => (isScalar(item) ? String(item.value) : ''));
    for (const step of planMigration(written, policy.vocabulary, policy.legacyCategories)) {
      steps.push({ ...step, list });
      const item = node.items[step.index];
      const range = isScalar(item) ? item.range : undefined;
      if (step.to !== null && range)
        edits.push({ start: range[0], end: range[1], to: quotedLike(text.slice(range[0], range[1]), step.to) });
    }
  }
  const migrated = edits
    .sort((a, b) => b.start - a.start)
    .reduce((out, edit) => out.slice(0, edit.start) + edit.to + out.slice(edit.end), text);
  return { text: migrated, steps };
}

/** A canonical name needs no quotes; an entry that had them keeps its kind. */
function quotedLike(written: string, name: string): string {
  const quote = written[0];
  return quote === '"' || quote === "'" ? `${quote}${name}${quote}` : name;
}

function validate(text: string, file: string, policy: PolicySet): Finding[] {
  const doc = parseDocumentText(text, file);
  const schema = schemaFindings(doc, loadSchema('profile', policy.dir));
  const lint =
    schema.length > 0
      ? []
      : profileFindings(
          compileProfile({ data: doc.data as ProfileData, file, lineOf: doc.lineOf }, policy.vocabulary),
          policy.vocabulary,
          policy.invariants,
        );
  return [...schema, ...lint];
}
