// The table of docs/integrity.md: every answer type that carries text, who wrote it, which fields are
// its text and which embedded objects are labelled on their own, rendered from the integrity catalog
// (policies/integrity.yaml). test/integrity-doc.test.ts keeps the page equal to it.
import type { IntegrityCatalog, Rule } from './integrity-walk.js';

export const INTEGRITY_TABLE_BEGIN = '<!-- integrity-table: generated from policies/integrity.yaml -->';
export const INTEGRITY_TABLE_END = '<!-- /integrity-table -->';

const WHO: Readonly<Record<string, string>> = {
  writer: 'the repository’s writers',
  admin: 'the repository’s administrators',
  ref: 'the ref read: writers when a branch, else unknown',
  site: 'the Gitea site',
  self: 'the signed-in account',
  enclosing: 'the object it is part of',
  unknown: 'nobody Gitea can name: unknown',
};

function who(rule: Rule): string {
  const attribution = rule.attribution;
  if (attribution === null) return '(wrapper)';
  if (attribution.kind === 'author') {
    const signed = rule.verification ? ', believed only when signed or read from a branch' : '';
    return `author \`${attribution.path.join('.')}\`${signed}`;
  }
  if (attribution.kind === 'organisation') return `the owners of organisation \`${attribution.path.join('.')}\``;
  return WHO[attribution.origin] ?? attribution.origin;
}

/** Whether the rule carries text itself or through what it embeds (cycles counted once). */
function carriesText(rule: Rule, seen: Set<string> = new Set()): boolean {
  if (rule.text.length > 0) return true;
  if (seen.has(rule.name)) return false;
  seen.add(rule.name);
  return rule.embeds.some(([, inner]) => carriesText(inner, seen));
}

const code = (names: readonly string[]): string => (names.length === 0 ? '—' : names.map((n) => `\`${n}\``).join(', '));

const enclosed = (rule: Rule): boolean =>
  rule.attribution?.kind === 'origin' && rule.attribution.origin === 'enclosing';

/** The rule's own text fields, and those of the parts embedded in it that share its label (`commit.message`). */
function textOf(rule: Rule, prefix = '', seen: Set<string> = new Set()): string[] {
  if (seen.has(rule.name)) return [];
  seen.add(rule.name);
  const own = rule.text.map((field) => `${prefix}${field}`);
  const parts = rule.embeds.filter(([, inner]) => enclosed(inner));
  return [...own, ...parts.flatMap(([key, inner]) => textOf(inner, `${prefix}${key}.`, seen))];
}

export function renderIntegrityTable(catalog: IntegrityCatalog): string {
  const operations = new Map<string, number>();
  for (const rule of catalog.answers.values()) operations.set(rule.name, (operations.get(rule.name) ?? 0) + 1);
  const rows = [...catalog.rules.values()]
    .filter((rule) => carriesText(rule))
    .sort((a, b) => Number(a.raw) - Number(b.raw) || a.name.localeCompare(b.name))
    .map((rule) => {
      const name = rule.raw ? `raw: ${rule.name}` : rule.name;
      const text = textOf(rule);
      const fields = rule.raw ? 'the whole answer' : code(text);
      const embeds = rule.embeds
        .filter(([, inner]) => carriesText(inner) && !enclosed(inner))
        .map(([key, inner]) => `${key} (${inner.name})`);
      const type = text.length > 0 ? `\`${rule.type}\`` : '—';
      return `| ${name} | ${type} | ${who(rule)} | ${fields} | ${code(embeds)} | ${operations.get(rule.name) ?? 0} |`;
    });
  return [
    '| answer type | label type | who wrote the text | text fields | labelled on their own | operations answering with it |',
    '|---|---|---|---|---|---:|',
    ...rows,
  ].join('\n');
}
