// docs/reasons.md: every outcome code of src/policy/reasons.ts, grouped by where it shows up, with
// its meaning. Generated (gitea-warden reasons), never edited by hand.
import { REASONS, type ReasonKind } from './reasons.js';

export const REASONS_DOC_REGENERATE = 'gitea-warden reasons';

const SECTIONS: ReadonlyArray<[ReasonKind, string, string]> = [
  ['decision', 'Decisions', "`reason` of a decision: what the profile's lists say about the call."],
  [
    'condition',
    'Conditions',
    'A failed condition (`failed[].code`): a scope, a protected branch or path, a policies/conditions.yaml test.',
  ],
  [
    'guard',
    'Guard checks',
    "A check a live-fact guard judged (`failed[].code`, and the checks of a guarded tool's report).",
  ],
  ['refusal', 'Refusals', '`error.kind` of a result the server answers itself, before or instead of Gitea.'],
  ['outcome', 'Audit outcomes', '`reason` of an audit result event for a call that was not denied.'],
  ['finding', 'Findings of `check`', '`code` of a finding about a policy or profile file (also the SARIF rule id).'],
];

export function renderReasonsDoc(): string {
  const lines = [
    '# Outcome codes',
    '',
    `<!-- Generated from src/policy/reasons.ts by \`${REASONS_DOC_REGENERATE}\`; do not edit by hand. -->`,
    '',
    'Every code a decision, a guard, a refusal, an audit record or `check` can carry. A code not listed in',
    'src/policy/reasons.ts does not compile, and a test fails on one used anywhere else.',
  ];
  for (const [kind, title, intro] of SECTIONS) {
    const codes = Object.entries(REASONS).filter(([, entry]) => (entry.kinds as readonly ReasonKind[]).includes(kind));
    lines.push('', `## ${title}`, '', intro, '', '| code | meaning |', '|---|---|');
    for (const [code, entry] of codes.sort(([a], [b]) => a.localeCompare(b)))
      lines.push(`| \`${code}\` | ${entry.meaning.replace(/\|/g, '\\|')} |`);
  }
  return `${lines.join('\n')}\n`;
}
