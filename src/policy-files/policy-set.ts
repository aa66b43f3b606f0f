// Loads the policy data under policies/ (vocabulary, aliases, operation map, role invariants), validates
// each file against its JSON Schema and against each other, and hands plain data to the pure core.
// Fails closed: any error makes loadPolicySet throw; checkPolicies reports them all for `check`.
import { join } from 'node:path';
import {
  DocumentError,
  parseDocumentText,
  readDocumentText,
  validateDocument,
  type DocumentProblem,
  type LoadedDocument,
} from '../shared/document.js';
import { policiesDir } from '../shared/paths.js';
import { conflictMarkerFindings, type Finding, type RoleInvariants } from '../policy/findings.js';
import type { KnownValues, MapRule, OperationMap, OperationMapping } from '../policy/operation-map.js';
import type { RiskClass, Vocabulary, VocabularyEntry } from '../policy/vocabulary.js';
import { unknownGuardedOperations } from '../policy/guards/guarded-only.js';
import type { BranchPatterns, GuardsConfig } from '../policy/guards/guard-settings.js';
import type { CallGuard, CallGuardTable } from '../policy/guards/call-guards.js';
import type { SudoRule } from '../policy/guards/sudo.js';
import type { IntegrityCatalog } from '../policy/integrity-walk.js';
import type { ConfirmationPolicy } from '../policy/confirmations.js';
import { buildConfirmationPolicy, confirmationPolicyFindings } from './confirmation-policy.js';
import { buildIntegrityCatalog, integrityFindings } from './integrity-catalog.js';
import { buildTargetPolicies, targetFindings, type TargetPolicies } from './target-policies.js';

export interface PolicySet extends TargetPolicies {
  dir: string;
  vocabulary: Vocabulary;
  /** policies/guards.yaml: call guards, merge requirements, cleanup refs, guarded-only operations, fact bounds. */
  guards: GuardsConfig;
  /** guards.yaml sudo: the mutations a call may make under sudo, with where the rule is written. */
  sudoRule: SudoRule;
  /** guards.yaml call_guards with the line of each operation, for the guards' denials. */
  callGuards: CallGuardTable;
  /** policies/integrity.yaml: the item types results carry and the operations that return them. */
  integrity: IntegrityCatalog;
  /** policies/confirmations.yaml: the operations a person confirms, for every profile. */
  confirmations: ConfirmationPolicy;
  operationMap: OperationMap;
  invariants: RoleInvariants;
  /** Legacy category spellings -> canonical, for `migrate` only. */
  legacyCategories: ReadonlyMap<string, string>;
}

const POLICY_FILES = [
  'vocabulary',
  'aliases',
  'operations',
  'roles',
  'targets',
  'conditions',
  'guards',
  'integrity',
  'confirmations',
] as const;
type PolicyName = (typeof POLICY_FILES)[number];

const schemaCache = new Map<string, object>();

/** A JSON Schema under dir, read once per process (ajv compiles each schema object once). */
export function loadSchema(name: string, dir: string = policiesDir): object {
  const file = join(dir, `${name}.schema.json`);
  let schema = schemaCache.get(file);
  if (!schema) {
    schema = readSchemaFile(file);
    schemaCache.set(file, schema);
  }
  return schema;
}

/** A JSON Schema is JSON: JSON.parse reads it at a fraction of the YAML parser's cost. */
function readSchemaFile(file: string): object {
  const text = readDocumentText(file);
  try {
    return JSON.parse(text) as object;
  } catch {
    throw new DocumentError(file, null, 'not valid JSON');
  }
}

const setCache = new Map<string, PolicySet>();

export function loadPolicySet(dir: string = policiesDir): PolicySet {
  const cached = setCache.get(dir);
  if (cached) return cached;
  const { set, findings } = readPolicies(dir);
  const error = findings.find((finding) => finding.severity === 'error');
  if (error || !set)
    throw new DocumentError(
      error?.file ?? dir,
      error?.line ?? null,
      `${error?.code ?? 'invalid_policy'}: ${error?.message ?? 'policies unusable'}`,
    );
  setCache.set(dir, set);
  return set;
}

/** tasks.yaml has its own loader (src/policy-files/task-catalog.ts); `check` lints it too. */
const SEPARATELY_LOADED_FILES = ['tasks'] as const;

/** Every finding about the policy files, for `gitea-warden check`; each file is read and linted once. */
export function checkPolicies(dir: string = policiesDir): Finding[] {
  const { findings } = readPolicies(dir);
  for (const name of SEPARATELY_LOADED_FILES) {
    const read = readChecked(join(dir, `${name}.yaml`));
    findings.push(
      ...(read.doc ? [...read.findings, ...schemaFindings(read.doc, loadSchema(name, dir))] : read.findings),
    );
  }
  return findings;
}

/** A guarded_only or call_guards entry outside the vocabulary would guard nothing. */
function guardsFindings(doc: LoadedDocument, vocabulary: Vocabulary): Finding[] {
  const { guarded_only: guardedOnly } = doc.data as Pick<GuardsConfig, 'guarded_only'>;
  const callGuards = callGuardTable(doc)
    .entries.filter((entry) => !vocabulary.operations.has(entry.operation))
    .map((entry) => ({
      file: doc.file,
      line: entry.line,
      severity: 'error' as const,
      code: 'unknown_operation' as const,
      message: `call_guards.${entry.guard} names ${entry.operation}, which is not in the vocabulary, so the guard never judges it`,
      fix: 'use a canonical operation from policies/vocabulary.yaml',
    }));
  return [
    ...callGuards,
    ...unknownGuardedOperations(guardedOnly, vocabulary).map((operation) => ({
      file: doc.file,
      line: doc.lineOf(['guarded_only', operation]),
      severity: 'error' as const,
      code: 'unknown_operation' as const,
      message: `guarded_only names ${operation}, which is not in the vocabulary, so it guards nothing`,
      fix: 'use a canonical operation from policies/vocabulary.yaml',
    })),
  ];
}

/** What the cleanup tool never deletes: the protected branches (targets.yaml) and the preserved refs (guards.yaml). */
export function cleanupPatterns(policy: Pick<PolicySet, 'scopePolicy' | 'guards'>): BranchPatterns {
  return {
    protected_branches: policy.scopePolicy.protectedBranches.patterns.map((p) => p.written),
    preserved_refs: policy.guards.cleanup.preserved_refs,
  };
}

function callGuardTable(doc: LoadedDocument): CallGuardTable {
  const { call_guards: callGuards } = doc.data as Pick<GuardsConfig, 'call_guards'>;
  const entries = (Object.entries(callGuards) as Array<[CallGuard, string[]]>).flatMap(([guard, operations]) =>
    operations.map((operation, i) => ({ guard, operation, line: doc.lineOf(['call_guards', guard, i]) })),
  );
  return { file: doc.file, entries };
}

function readPolicies(dir: string): { set: PolicySet | null; findings: Finding[] } {
  const docs = new Map<PolicyName, LoadedDocument>();
  const findings: Finding[] = [];
  for (const name of POLICY_FILES) {
    const file = join(dir, `${name}.yaml`);
    const read = readChecked(file);
    const fileFindings = read.doc
      ? [...read.findings, ...schemaFindings(read.doc, loadSchema(name, dir))]
      : read.findings;
    findings.push(...fileFindings);
    if (read.doc && fileFindings.length === 0) docs.set(name, read.doc);
  }
  if (docs.size !== POLICY_FILES.length) return { set: null, findings };
  const set = buildPolicySet(dir, docs as Map<PolicyName, LoadedDocument>);
  findings.push(...crossReferenceFindings(set, docs as Map<PolicyName, LoadedDocument>));
  findings.push(...guardsFindings(docs.get('guards') as LoadedDocument, set.vocabulary));
  findings.push(...integrityFindings(docs.get('integrity') as LoadedDocument));
  findings.push(...confirmationPolicyFindings(docs.get('confirmations') as LoadedDocument, set.vocabulary));
  findings.push(
    ...targetFindings(
      set,
      docs.get('targets') as LoadedDocument,
      docs.get('conditions') as LoadedDocument,
      new Set(set.vocabulary.operations.keys()),
    ),
  );
  return { set, findings };
}

/** Reads a file, checks the raw text for merge-conflict markers (before parsing: they may still parse), then parses it. */
export function readChecked(file: string): { doc: LoadedDocument | null; findings: Finding[] } {
  let text: string;
  try {
    text = readDocumentText(file);
  } catch (error) {
    return { doc: null, findings: [documentErrorFinding(error, file)] };
  }
  const markers = conflictMarkerFindings(text, file);
  if (markers.length > 0) return { doc: null, findings: markers };
  try {
    return { doc: parseDocumentText(text, file), findings: [] };
  } catch (error) {
    return { doc: null, findings: [documentErrorFinding(error, file)] };
  }
}

export function schemaFindings(doc: LoadedDocument, schema: object): Finding[] {
  return validateDocument(doc, schema).map((finding) => ({
    file: finding.file,
    line: finding.line,
    severity: 'error' as const,
    code: 'schema',
    message: `${finding.path}: ${finding.message}`,
    fix: schemaFix(finding, schema),
    schema: { keyword: finding.keyword, path: finding.path, fields: finding.fields },
  }));
}

/** How to mend one schema finding; the schema file is named so an editor (or a person) can see what fits. */
function schemaFix(finding: { path: string; keyword: string; fields: string[] }, schema: object): string {
  const id = (schema as { $id?: unknown }).$id;
  const file = typeof id === 'string' ? `policies/${id.slice(id.lastIndexOf('/') + 1)}` : 'its JSON Schema';
  const { path, keyword, fields } = finding;
  if (keyword === 'additionalProperties') return `remove ${path} or correct its spelling; ${file} lists the fields`;
  if (keyword === 'required') return `add ${fields[0] ?? 'the field'}; ${file} describes it`;
  if ((keyword === 'oneOf' || keyword === 'anyOf') && fields.length > 0)
    return `set exactly one of ${fields.join(', ')}; ${file} describes them`;
  return `correct the value at ${path}; ${file} describes what fits`;
}

const DOCUMENT_FIXES: Record<DocumentProblem, string> = {
  parse_error: 'correct the YAML/JSON syntax: indentation, quotes, brackets, a colon after each key',
  unreadable: 'check the path and that the file is readable',
  too_large: 'a profile or policy file is a few kilobytes: check that this is the file you meant',
  binary: 'point at the YAML or JSON text file, not a binary one',
  empty: 'write the profile or policy (see profiles/ for examples), or remove the file',
};

function documentErrorFinding(error: unknown, file: string): Finding {
  const known = error instanceof DocumentError ? error : null;
  const problem = known?.problem ?? 'parse_error';
  return {
    file,
    line: known?.line ?? null,
    severity: 'error',
    code: problem,
    message: known?.detail ?? 'not valid YAML/JSON',
    fix: DOCUMENT_FIXES[problem],
  };
}

interface RawVocabulary {
  service: string;
  operations: Record<string, { risk: RiskClass; meaning: string }>;
}
interface RawAliases {
  aliases: Record<string, string>;
  migration?: Record<string, string>;
}
interface RawOperations {
  map: Record<string, string[]>;
  global_rules?: MapRule[];
  on_pull_requests?: Record<string, string>;
  rules?: Record<string, { known?: KnownValues[]; rules?: MapRule[] }>;
}
interface RawRoles {
  credential_roles: string[];
  roles: Record<string, { never: string[]; own_pull_requests?: string[] }>;
}

function buildPolicySet(dir: string, docs: Map<PolicyName, LoadedDocument>): PolicySet {
  const vocabularyData = docs.get('vocabulary')?.data as RawVocabulary;
  const aliases = docs.get('aliases')?.data as RawAliases;
  const roles = docs.get('roles')?.data as RawRoles;
  const operationsDoc = docs.get('operations') as LoadedDocument;
  const operations = new Map<string, VocabularyEntry>(
    Object.entries(vocabularyData.operations).map(([name, entry]) => [
      name,
      { name, risk: entry.risk, meaning: entry.meaning },
    ]),
  );
  return {
    dir,
    vocabulary: { service: vocabularyData.service, operations, aliases: new Map(Object.entries(aliases.aliases)) },
    operationMap: buildOperationMap(operationsDoc),
    invariants: {
      roles: new Map(Object.entries(roles.roles).map(([role, entry]) => [role, entry.never])),
      credentialRoles: new Set(roles.credential_roles),
      ownPullRequests: new Map(
        Object.entries(roles.roles).map(([role, entry]) => [role, new Set(entry.own_pull_requests ?? [])]),
      ),
    },
    legacyCategories: new Map(Object.entries(aliases.migration ?? {})),
    guards: docs.get('guards')?.data as GuardsConfig,
    integrity: buildIntegrityCatalog(docs.get('integrity') as LoadedDocument),
    confirmations: buildConfirmationPolicy(docs.get('confirmations') as LoadedDocument),
    ...buildTargetPolicies(docs.get('targets') as LoadedDocument, docs.get('conditions') as LoadedDocument),
    callGuards: callGuardTable(docs.get('guards') as LoadedDocument),
    sudoRule: sudoRule(docs.get('guards') as LoadedDocument),
  };
}

function sudoRule(doc: LoadedDocument): SudoRule {
  const { sudo } = doc.data as Pick<GuardsConfig, 'sudo'>;
  return { mutationsAllowed: new Set(sudo.mutations_allowed), file: doc.file, line: doc.lineOf(['sudo']) };
}

function buildOperationMap(doc: LoadedDocument): OperationMap {
  const data = doc.data as RawOperations;
  const byOperationId = new Map<string, OperationMapping>();
  for (const [operation, ids] of Object.entries(data.map)) {
    ids.forEach((operationId, index) => {
      if (byOperationId.has(operationId)) return; // reported by crossReferenceFindings
      const rules = data.rules?.[operationId];
      byOperationId.set(operationId, {
        operationId,
        operation,
        known: rules?.known ?? [],
        rules: rules?.rules ?? [],
        line: doc.lineOf(['map', operation, index]),
      });
    });
  }
  return {
    file: doc.file,
    byOperationId,
    globalRules: data.global_rules ?? [],
    onPullRequests: new Map(Object.entries(data.on_pull_requests ?? {})),
  };
}

/** Names that must exist in the vocabulary, operationIds mapped twice, rules for unmapped operationIds. */
function crossReferenceFindings(set: PolicySet, docs: Map<PolicyName, LoadedDocument>): Finding[] {
  const known = set.vocabulary.operations;
  const findings: Finding[] = [];
  const unknownName = (doc: LoadedDocument, path: (string | number)[], name: string): void => {
    if (!known.has(name))
      findings.push({
        file: doc.file,
        line: doc.lineOf(path),
        severity: 'error',
        code: 'unknown_operation',
        message: `'${name}' is not in the vocabulary`,
        fix: 'add it to policies/vocabulary.yaml or correct the name',
      });
  };
  const aliasesDoc = docs.get('aliases') as LoadedDocument;
  const aliases = aliasesDoc.data as RawAliases;
  for (const table of ['aliases', 'migration'] as const) {
    for (const [alias, name] of Object.entries(aliases[table] ?? {})) unknownName(aliasesDoc, [table, alias], name);
  }
  const operationsDoc = docs.get('operations') as LoadedDocument;
  const operations = operationsDoc.data as RawOperations;
  const seen = new Map<string, string>();
  for (const [name, ids] of Object.entries(operations.map)) {
    unknownName(operationsDoc, ['map', name], name);
    ids.forEach((id, index) => {
      const first = seen.get(id);
      if (first !== undefined)
        findings.push({
          file: operationsDoc.file,
          line: operationsDoc.lineOf(['map', name, index]),
          severity: 'error',
          code: 'duplicate_mapping',
          message: `operationId ${id} is mapped twice (${first} and ${name})`,
          fix: 'keep exactly one mapping',
        });
      else seen.set(id, name);
    });
  }
  for (const [id, entry] of Object.entries(operations.rules ?? {})) {
    if (!seen.has(id))
      findings.push({
        file: operationsDoc.file,
        line: operationsDoc.lineOf(['rules', id]),
        severity: 'error',
        code: 'unmapped_rule',
        message: `rules for ${id}, which map: does not list`,
        fix: 'map the operationId or remove its rules',
      });
    (entry.rules ?? []).forEach((rule, i) => {
      for (const key of ['operation', 'also'] as const) {
        const name = rule[key];
        if (name !== undefined) unknownName(operationsDoc, ['rules', id, 'rules', i, key], name);
      }
    });
  }
  (operations.global_rules ?? []).forEach(
    (rule, i) => rule.also !== undefined && unknownName(operationsDoc, ['global_rules', i, 'also'], rule.also),
  );
  for (const [issueOperation, pullOperation] of Object.entries(operations.on_pull_requests ?? {})) {
    unknownName(operationsDoc, ['on_pull_requests', issueOperation], issueOperation);
    unknownName(operationsDoc, ['on_pull_requests', issueOperation], pullOperation);
  }
  const rolesDoc = docs.get('roles') as LoadedDocument;
  for (const [role, entry] of Object.entries((rolesDoc.data as RawRoles).roles)) {
    entry.never.forEach((name, i) => unknownName(rolesDoc, ['roles', role, 'never', i], name));
    (entry.own_pull_requests ?? []).forEach((name, i) =>
      unknownName(rolesDoc, ['roles', role, 'own_pull_requests', i], name),
    );
  }
  return findings;
}
