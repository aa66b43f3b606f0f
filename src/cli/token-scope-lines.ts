// The Gitea token scopes a profile needs, for people: `explain --profile P` (or `explain P`) prints
// them with one operation that needs each, and `init` prints them for every profile it wrote, so a
// token is issued with exactly these (src/server/token-scope-filter.ts derives them from Gitea's routes).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadCatalog } from '../catalog/load.js';
import type { PolicySet } from '../policy-files/policy-set.js';
import { loadProfile } from '../policy-files/profile-files.js';
import { tokenVariableOf } from '../policy/profile.js';
import { profileScopeNeeds, profileTokenScopes } from '../server/token-scope-filter.js';
import { profilesDir, shownPath } from '../shared/paths.js';

/** explain's answer for a profile alone: the minimal token scopes and why each. */
export function explainTokenScopes(policy: PolicySet, profileRef: string, service?: string): string {
  const profile = loadProfile(profileRef, policy, service);
  const needs = profileScopeNeeds(policy, profile, loadCatalog().entries);
  const width = Math.max(...needs.map((n) => n.scope.length));
  const declared = profile.data.token_scopes;
  return [
    `profile ${profile.name ?? '(unnamed)'} (${shownPath(profile.file)})`,
    `  token scopes it needs (the least that does everything it allows; give ${tokenVariableOf(profile)} exactly these):`,
    `    ${needs.map((n) => n.scope).join(', ')}`,
    ...needs.map((n) => `    ${n.scope.padEnd(width)}  ${n.operations} operation(s), e.g. ${n.example}`),
    ...(declared ? [`  token_scopes says the token carries: ${declared.join(', ') || '(none)'}`] : []),
    '',
  ].join('\n');
}

/** init's closing lines: each written profile's token scopes. */
export function initTokenScopes(policy: PolicySet, profileFiles: readonly string[]): string {
  const lines = profileFiles.map((file) => {
    const profile = loadProfile(file, policy);
    const scopes = profileTokenScopes(policy, profile, loadCatalog().entries);
    return `  ${tokenVariableOf(profile)} (${profile.name ?? shownPath(file)}): ${scopes.join(', ')}`;
  });
  return ['', 'token scopes to give each token (Gitea: Settings → Applications → Access tokens):', ...lines, ''].join(
    '\n',
  );
}

const TABLE_BEGIN =
  '<!-- token-scopes:begin (generated: gitea-warden explain --report-readme; test/token-scopes-docs.test.ts) -->';
const TABLE_END = '<!-- token-scopes:end -->';

/** README's table: each reference profile and the token scopes it needs. */
export function renderTokenScopeTable(policy: PolicySet): string {
  const rows = referenceProfileFiles().map((file) => {
    const profile = loadProfile(file, policy);
    const scopes = profileTokenScopes(policy, profile, loadCatalog().entries);
    return `| ${profile.name ?? shownPath(file)} | ${scopes.map((s) => `\`${s}\``).join(', ')} |`;
  });
  return ['| profile | token scopes it needs |', '|---|---|', ...rows].join('\n');
}

/** README with its token-scope table regenerated between the markers. */
export function readmeWithTokenScopeTable(readme: string, policy: PolicySet): string {
  const begin = readme.indexOf(TABLE_BEGIN);
  const end = readme.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error('README.md lacks the token-scopes markers');
  return `${readme.slice(0, begin + TABLE_BEGIN.length)}\n${renderTokenScopeTable(policy)}\n${readme.slice(end)}`;
}

function referenceProfileFiles(): string[] {
  return readdirSync(profilesDir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join(profilesDir, name));
}
