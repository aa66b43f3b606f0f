// The "Confirmations" section of docs/namespaces.md: what each reference namespace asks a person
// about (policies/confirmations.yaml and the profile, within what the profile may do at all), whose
// answer counts, and how the question appears in the clients. Generated with the rest of that page.
import { basename } from 'node:path';
import { confirmationSettings } from '../../policy/confirmations.js';
import { effectiveOperations } from '../../policy/profile.js';
import { loadPolicySet } from '../../policy-files/policy-set.js';
import { loadProfile, profileFilesIn } from '../../policy-files/profile-files.js';
import { profilesDir } from '../../shared/paths.js';
import { builtinTools } from '../builtin/builtin-tools.js';

/** How a question appears in each client that asks its person (docs/confirmations.md links here). */
const CLIENTS: ReadonlyArray<{ client: string; shows: string; note: string }> = [
  {
    client: 'Claude Code',
    shows: 'a dialog in the session with the message and the `Confirm` box: accept, decline or cancel',
    note: 'an `Elicitation` hook in its settings can answer for the person: do not let one answer gitea-warden',
  },
  {
    client: 'VS Code (GitHub Copilot Chat, agent mode)',
    shows: "a prompt in VS Code's own UI with the message and the box",
    note: '',
  },
  { client: 'Cursor', shows: "a prompt in the agent's chat with the message and the box", note: '' },
];

export function confirmationsSection(): string[] {
  const policy = loadPolicySet();
  const tools = builtinTools();
  const rows = profileFilesIn(profilesDir).map((file) => {
    const profile = loadProfile(file, policy);
    const settings = confirmationSettings(policy.confirmations, profile, policy.vocabulary);
    const may = effectiveOperations(profile, policy.vocabulary);
    // An operation only a guarded tool performs, or a rule limited to one, is asked about where that tool serves.
    const reachable = (operation: string, through: string | null): boolean => {
      const name = through ?? policy.guards.guarded_only[operation]?.tool;
      if (name === undefined) return may.has(operation);
      const tool = tools.find((t) => t.name === name);
      return (
        tool !== undefined &&
        (tool.role === undefined || tool.role === profile.role) &&
        tool.operations.every((op) => may.has(op))
      );
    };
    const asked = settings.rules
      .filter((rule) => reachable(rule.operation, rule.through))
      .map((rule) => `\`${rule.operation}\`${rule.through ? ` (through \`${rule.through}\`)` : ''}`);
    return `| ${profile.name ?? basename(file)} | ${asked.join(', ') || 'nothing'} | ${settings.approver} | ${settings.fallback} |`;
  });
  return [
    '## Confirmations',
    '',
    'What each reference namespace asks a person to confirm before it reaches Gitea (policies/confirmations.yaml and',
    "the profile's `confirmations:`, within what the profile may do), whose answer counts, and whether it keeps the",
    'typed phrase for clients that cannot ask ([docs/confirmations.md](confirmations.md)):',
    '',
    '| profile | asks about | approver | confirmation_fallback |',
    '|---|---|---|---|',
    ...rows,
    '',
    'Nothing in a client configuration turns this on: a client that supports elicitation declares it when it connects,',
    'and the server asks. A client without it is refused such calls (`confirmation_unavailable`), naming elicitation.',
    '',
    'Every namespace serves MCP 2026-07-28 and the 2025 revisions (2025-11-25 back to 2024-10-07), over stdio and',
    'streamable HTTP, whichever the client opens with ([docs/conformance.md](conformance.md)). How the question travels:',
    '',
    '| client speaks | stdio | streamable HTTP |',
    '|---|---|---|',
    '| 2026-07-28 | `input_required`: the client asks its person and retries the call | the same (the sealed state carries the call) |',
    '| 2025 | `elicitation/create` while the call waits | cannot be asked: refused (`confirmation_unavailable`) |',
    '',
    '| client | how a question appears | note |',
    '|---|---|---|',
    ...CLIENTS.map(({ client, shows, note }) => `| ${client} | ${shows} | ${note} |`),
    '',
    'A `signed_in` or `four_eyes` question is a link (URL-mode elicitation) to the `/confirm/<id>` page of an HTTP',
    'namespace: a client that supports only form mode cannot be asked it, and the call is refused, naming URL mode.',
    '',
  ];
}
