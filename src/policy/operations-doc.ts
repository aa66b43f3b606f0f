// Renders docs/operations.md, the reference table of canonical operations, from data the caller loads:
// the vocabulary, the operation map, the reference profiles, the catalog tools and the guarded-only
// operations. Pure: data in, Markdown out; src/cli/catalog-docs.ts reads the files.
import type { RepositoryReach } from '../catalog/reach.js';
import type { GuardedOnly } from './guards/guard-settings.js';
import { conditionText, type MapRule, type OperationMap, type OperationMapping } from './operation-map.js';
import { normalizeName } from './normalize.js';
import { effectiveOperations, type CompiledProfile } from './profile.js';
import type { RepositorySource, TargetMap } from './targets.js';
import type { Vocabulary, VocabularyEntry } from './vocabulary.js';

export interface OperationsDocInput {
  vocabulary: Vocabulary;
  operationMap: OperationMap;
  /** Legacy category spellings only `gitea-warden migrate` reads (PolicySet.legacyCategories). */
  legacyCategories: ReadonlyMap<string, string>;
  profiles: readonly CompiledProfile[];
  tools: readonly { name: string; operationId: string; reach: RepositoryReach }[];
  /** policies/targets.yaml: how each catalog operation reaches repositories. */
  targets: TargetMap;
  /** policies/targets.yaml unnamed_repositories.filtered. */
  scopeFiltered: ReadonlySet<string>;
  /** policies/guards.yaml guarded_only: operation -> the guarded built-in tool that alone may perform it. */
  guardedOnly: GuardedOnly;
}

export const OPERATIONS_DOC_REGENERATE = 'gitea-warden catalog docs';

/** A catalog tool the operation map lists, with its mapping. */
interface MappedTool {
  name: string;
  mapping: OperationMapping;
}

export function renderOperationsDoc(input: OperationsDocInput): string {
  const mapped = mappedTools(input);
  const lines = [
    '# Canonical operations',
    '',
    `<!-- Generated file: do not edit. Regenerate with \`${OPERATIONS_DOC_REGENERATE}\`;`,
    `     \`${OPERATIONS_DOC_REGENERATE} --check\` and test/docs-operations.test.ts fail when it is stale. -->`,
    '',
    'Generated from policies/vocabulary.yaml, policies/aliases.yaml, policies/operations.yaml, policies/guards.yaml,',
    `profiles/*.yaml and src/catalog/tools.json: ${input.vocabulary.operations.size} operations, ` +
      `${input.tools.length} catalog tools (${input.tools.length - mapped.length} not in the operation map: they are refused).`,
    '',
    'A profile *allows* an operation when its allowed list grants it (patterns expanded) and its forbidden list does not;',
    'it *forbids* it when its forbidden list names it. Every other profile denies it by default.',
    '*Tools* are the generated tools whose primary operation it is; *via arguments* are tools that need it',
    'because of an argument rule (see [Argument rules](#argument-rules)).',
    '',
  ];
  for (const [area, entries] of groupByArea(input.vocabulary)) {
    lines.push(
      `## ${area}`,
      '',
      '| Operation | Risk | Meaning | Legacy aliases | Allowed by | Forbidden by | Tools |',
      '|---|---|---|---|---|---|---|',
    );
    for (const entry of entries) lines.push(tableRow(operationCells(entry, input, mapped)));
    lines.push('');
  }
  lines.push(
    ...argumentRulesSection(input.operationMap, mapped),
    ...guardedOnlySection(input.guardedOnly),
    ...repositoryReachSection(input),
  );
  return lines.join('\n');
}

function mappedTools(input: OperationsDocInput): MappedTool[] {
  return input.tools.flatMap((tool) => {
    const mapping = input.operationMap.byOperationId.get(tool.operationId);
    return mapping ? [{ name: tool.name, mapping }] : [];
  });
}

/** `gitea.<area>.<verb>` grouped by area, in vocabulary order; `gitea.read` is its own area. */
function groupByArea(vocabulary: Vocabulary): Map<string, VocabularyEntry[]> {
  const groups = new Map<string, VocabularyEntry[]>();
  for (const entry of vocabulary.operations.values()) {
    const area = entry.name.split('.')[1] ?? entry.name;
    groups.set(area, [...(groups.get(area) ?? []), entry]);
  }
  return groups;
}

function operationCells(entry: VocabularyEntry, input: OperationsDocInput, mapped: readonly MappedTool[]): string[] {
  const allowedBy = input.profiles.filter((p) => effectiveOperations(p, input.vocabulary).has(entry.name));
  const forbiddenBy = input.profiles.filter((p) => p.forbidden.has(entry.name));
  return [
    `\`${entry.name}\``,
    entry.risk,
    entry.meaning,
    legacyNames(entry.name, input).join(', ') || '-',
    profileNames(allowedBy),
    profileNames(forbiddenBy),
    toolsCell(entry.name, input, mapped),
  ];
}

/** Run-time aliases (as normalization resolves them) and, marked, the spellings only `migrate` rewrites. */
function legacyNames(operation: string, input: OperationsDocInput): string[] {
  const aliases = [...input.vocabulary.aliases.keys()].filter((alias) => {
    const result = normalizeName(alias, input.vocabulary);
    return result.ok && result.via === 'alias' && result.canonical.includes(operation);
  });
  const migrateOnly = [...input.legacyCategories]
    .filter(([, canonical]) => canonical === operation)
    .map(([spelling]) => spelling);
  return [
    ...aliases.map((alias) => `\`${alias}\``),
    ...migrateOnly.map((spelling) => `\`${spelling}\` (migrate only)`),
  ];
}

function profileNames(profiles: readonly CompiledProfile[]): string {
  return profiles.map((p) => p.name ?? p.file).join(', ') || '-';
}

function toolsCell(operation: string, input: OperationsDocInput, mapped: readonly MappedTool[]): string {
  const routesTo = (rule: MapRule): boolean => rule.operation === operation || rule.also === operation;
  const primary = mapped.filter((tool) => tool.mapping.operation === operation).map((tool) => `\`${tool.name}\``);
  const routed = [
    ...input.operationMap.globalRules.filter(routesTo).map((rule) => `any tool (\`${conditionText(rule.when)}\`)`),
    ...mapped.flatMap((tool) =>
      tool.mapping.rules.filter(routesTo).map((rule) => `\`${tool.name}\` (\`${conditionText(rule.when)}\`)`),
    ),
  ];
  const parts = [collapsedList(`${primary.length} tool${primary.length === 1 ? '' : 's'}`, primary)];
  if (routed.length > 0) parts.push(collapsedList(`via arguments: ${routed.length}`, routed));
  const guardTool = input.guardedOnly[operation]?.tool;
  if (guardTool !== undefined) parts.push(`guarded-only: \`${guardTool}\``);
  return parts.join(' ');
}

function collapsedList(summary: string, items: readonly string[]): string {
  return items.length === 0 ? summary : `<details><summary>${summary}</summary>${items.join(', ')}</details>`;
}

function argumentRulesSection(map: OperationMap, mapped: readonly MappedTool[]): string[] {
  const lines = [
    '## Argument rules',
    '',
    'From policies/operations.yaml. A rule with an operation replaces the primary operation (the first match wins);',
    'a rule with *also* adds an operation the call needs as well (every one must be allowed). An argument with known',
    'values must hold one of them: any other value is refused.',
    '',
  ];
  for (const rule of map.globalRules) lines.push(`- Any tool: ${ruleWords(rule, 'the primary operation')}.`);
  for (const [issueOperation, pullOperation] of map.onPullRequests) {
    lines.push(
      `- Any tool needing \`${issueOperation}\` on an issue that is a pull request (read live; unreadable counts as one): also needs \`${pullOperation}\`.`,
    );
  }
  for (const { name, mapping } of mapped) {
    if (mapping.rules.length === 0 && mapping.known.length === 0) continue;
    const sentences = [
      ...mapping.rules.map((rule) => ruleWords(rule, mapping.operation)),
      ...mapping.known.map(
        (known) =>
          `\`${known.path}\` must be ${known.required ? 'given as ' : ''}one of ${known.values.map((v) => `\`${String(v)}\``).join(', ')}`,
      ),
    ];
    lines.push(`- \`${name}\` (${mapping.operationId}, primary \`${mapping.operation}\`): ${sentences.join('; ')}.`);
  }
  lines.push('');
  return lines;
}

function ruleWords(rule: MapRule, primary: string): string {
  const condition = `\`${conditionText(rule.when)}\``;
  if (rule.operation !== undefined) return `${condition} → \`${rule.operation}\` instead of \`${primary}\``;
  return `${condition} → also needs \`${rule.also ?? ''}\``;
}

function guardedOnlySection(guardedOnly: GuardedOnly): string[] {
  const entries = Object.entries(guardedOnly);
  const lines = ['## Guarded-only operations', ''];
  if (entries.length === 0) return [...lines, 'None: policies/guards.yaml lists no guarded_only operations.', ''];
  lines.push(
    'No generated tool and no raw request may perform these, for any profile; only the guarded built-in tool does,',
    'after checking live facts (policies/guards.yaml `guarded_only`).',
    '',
    '| Operation | Guarded tool |',
    '|---|---|',
    ...entries.map(([operation, { tool }]) => tableRow([`\`${operation}\``, `\`${tool}\``])),
    '',
  );
  return lines;
}

/** Every operation that names a repository outside its path or can reach one it does not name, and how a scope holds it. */
function repositoryReachSection(input: OperationsDocInput): string[] {
  const inPath = input.tools.filter((tool) => tool.reach.inPath).length;
  const rows = input.tools.flatMap((tool) => {
    const spec = input.targets.byOperationId.get(tool.operationId);
    const filtered = input.scopeFiltered.has(tool.operationId);
    const sources =
      spec && spec.repositories !== 'opaque' ? spec.repositories.filter((source) => !isDefault(source)) : [];
    if (!filtered && spec?.repositories !== 'opaque' && sources.length === 0) return [];
    const how = filtered
      ? 'filtered'
      : spec?.repositories === 'opaque'
        ? 'opaque'
        : `named: ${sources.map(sourceText).join(', ')}`;
    const why =
      tool.reach.unnamed ??
      (tool.reach.fields.length > 0
        ? `names a repository in ${tool.reach.fields.map((f) => `\`${f}\``).join(', ')}`
        : '-');
    return [
      {
        how,
        row: tableRow([
          `\`${tool.name}\``,
          tool.operationId,
          how.startsWith('named') ? `names it in arguments: ${sources.map(sourceText).join(', ')}` : how,
          why,
        ]),
      },
    ];
  });
  const count = (prefix: string) => rows.filter((r) => r.how.startsWith(prefix)).length;
  return [
    '## Repository reach',
    '',
    'Derived from the pinned spec (src/catalog/reach.ts) and policies/targets.yaml; test/scope-closure.test.ts fails when an',
    `operation that can reach another repository is left open. ${inPath} operations name their repository in the path;`,
    `below, ${count('named')} name one in their arguments (a scope checks it like a path's), ${count('filtered')} are *filtered* (the result`,
    "is cut to the profile's repositories.read scope: items of other repositories, nested ones included, or of none that can",
    `be told are removed and \`pagination.removed_by_scope\` counts them; a single object outside is withheld), and ${count('opaque')} are`,
    '*opaque* (refused to a profile whose repositories scope applies to the call). Profiles without a repositories scope see',
    'every result whole.',
    '',
    '| Tool | operationId | Scope | Why it can reach other repositories |',
    '|---|---|---|---|',
    ...rows.map((r) => r.row),
    '',
  ];
}

function isDefault(source: RepositorySource): boolean {
  return 'name' in source && source.owner === '$.owner' && source.name === '$.repo';
}

function sourceText(source: RepositorySource): string {
  if ('id' in source) return `id \`${source.id}\``;
  if ('url_path' in source) return `URL path \`${source.url_path}\``;
  if ('compare_head' in source) return `the head owner of \`${source.compare_head}\``;
  return `\`${source.owner}\`/\`${source.name}\`${source.optional ? ' (when set)' : ''}`;
}

function tableRow(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')).join(' | ')} |`;
}
