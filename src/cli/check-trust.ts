// `check` asks Gitea about the people a profile trusts by name (integrity.trusted_users), when it
// can: GITEA_URL and the profile's own token variable set. A trusted login that is no Gitea user, or
// no member, owner or collaborator of anything the profile names, is a warning at its line.
import { GiteaHttpClient } from '../gitea/http.js';
import { membershipOf, type TrustDomain } from '../gitea/membership.js';
import type { FoundProfile } from '../policy-files/profile-files.js';
import type { Finding } from '../policy/findings.js';
import type { ProfileData } from '../policy/profile.js';
import { tokenVariableOf } from '../policy/profile.js';
import { giteaBaseUrl } from '../server/settings.js';
import { unexpandedReference } from '../shared/unexpanded.js';

export interface TrustCheck {
  findings: Finding[];
  /** Profiles whose trusted users were not asked about, and why (for a note on stderr). */
  skipped: string[];
}

export async function trustFindings(profiles: readonly FoundProfile[], env: NodeJS.ProcessEnv): Promise<TrustCheck> {
  const findings: Finding[] = [];
  const skipped: string[] = [];
  const withTrust = profiles.filter((found) => (found.source.data.integrity?.trusted_users ?? []).length > 0);
  if (withTrust.length === 0 || !env.GITEA_URL) return { findings, skipped };
  const baseUrl = giteaBaseUrl(env.GITEA_URL, 'GITEA_URL');
  for (const found of withTrust) {
    const { data, file } = found.source;
    const variable = tokenVariableOf({ data });
    const token = env[variable] ?? '';
    if (token === '' || unexpandedReference(token) !== null) {
      skipped.push(`${data.profile_name ?? file}: ${variable} is not set`);
      continue;
    }
    const reader = new GiteaHttpClient({ baseUrl, token }, { timeoutMs: 10_000 });
    const domain = domainOf(data);
    for (const [index, login] of (data.integrity?.trusted_users ?? []).entries()) {
      const line = found.source.lineOf?.(['integrity', 'trusted_users', index]) ?? null;
      const answer = await membershipOf(reader, login, domain);
      if (answer.verdict === 'no_such_user')
        findings.push({
          file,
          line,
          severity: 'warning',
          code: 'trusted_user_unknown',
          message: `integrity.trusted_users names '${login}', and Gitea has no user of that name: whoever registers it is trusted`,
          fix: `remove '${login}', or write the login the person actually has`,
        });
      else if (answer.verdict === 'outside')
        findings.push({
          file,
          line,
          severity: 'warning',
          code: 'trusted_user_outside',
          message:
            `integrity.trusted_users names '${login}', who is no member, owner or collaborator of anything this profile names ` +
            `(${answer.asked.join(', ')})`,
          fix: `remove '${login}' unless their text should pass the floor, or name the repository or organization they work in`,
        });
      else if (answer.verdict === 'unknown') skipped.push(`${data.profile_name ?? file}: ${login}: ${answer.detail}`);
    }
  }
  return { findings, skipped };
}

/** The owners, exact repositories and people a profile names. */
function domainOf(data: ProfileData): TrustDomain {
  const repositories = data.repositories;
  const patterns = Array.isArray(repositories)
    ? repositories
    : [...(repositories?.read ?? []), ...(repositories?.write ?? [])];
  const literal = (text: string) => !/[*?[\]{}()!+@]/.test(text);
  const owners = [
    ...patterns.map((pattern) => pattern.split('/')[0] ?? '').filter((owner) => owner !== '' && literal(owner)),
    ...(data.authenticated_teams ?? []).map((team) => team.split('/')[0] ?? ''),
    // The organisations and teams of the integrity trust domain (issue 28) count as named too.
    ...(data.integrity?.trusted_orgs ?? []),
    ...(data.integrity?.trusted_teams ?? []).map((team) => team.split('/')[0] ?? ''),
  ];
  return {
    owners: [...new Set(owners.map((owner) => owner.toLowerCase()))],
    repositories: [...new Set(patterns.filter(literal).map((pattern) => pattern.toLowerCase()))],
    people: [
      ...(data.authenticated_username ? [data.authenticated_username] : []),
      ...(data.authenticated_users ?? []),
    ],
  };
}
