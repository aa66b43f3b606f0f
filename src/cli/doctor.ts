// gitea-warden doctor: before any MCP client is wired, does this namespace's setup work? The
// settings as serve reads them, the profile, then Gitea's answers (src/gitea/doctor-checks.ts): the URL,
// the token, its scopes, whose it is, and the repositories the profile names. One line per check,
// each failure with its fix.
import { parseArgs } from 'node:util';
import { GiteaHttpClient } from '../gitea/http.js';
import { readiness, type Probe } from '../gitea/doctor-checks.js';
import { loadProfile } from '../policy-files/profile-files.js';
import type { PolicySet } from '../policy-files/policy-set.js';
import { effectiveOperations, tokenVariableOf, type CompiledProfile } from '../policy/profile.js';
import { profileReference, withLoginFromEnv } from '../server/namespace.js';
import { readSettings, type Settings } from '../server/settings.js';
import { shownPath } from '../shared/paths.js';
import { unexpandedMessage, unexpandedReference } from '../shared/unexpanded.js';
import { errorMessage, fail, policySetFrom } from './policy-context.js';

const HELP = `usage: gitea-warden doctor [--profile P] [--gitea-url URL] [--format text|json]

Checks one namespace's setup the way serve will use it, before any MCP client is wired: the
settings (GITEA_MCP_PROFILE, GITEA_URL and the rest, flags winning as in serve), the profile, then
Gitea itself: the URL answers, the token in the profile's variable is accepted and has read:user,
it belongs to the profile's user, it reads repositories and issues, and that user can see (and, for
a profile that writes, write) each repository the profile names. Nothing is written to Gitea.
Exit 0 when every check passes, 1 when one fails, 2 unusable input.
`;

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        profile: { type: 'string' },
        'gitea-url': { type: 'string' },
        format: { type: 'string', default: 'text' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    return fail('doctor', errorMessage(error));
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!['text', 'json'].includes(values.format))
    return fail('doctor', `unknown format '${values.format}' (text or json)`);
  const probes = await diagnose({ profile: values.profile, 'gitea-url': values['gitea-url'] }, process.env);
  if (values.format === 'json') process.stdout.write(`${JSON.stringify({ checks: probes }, null, 2)}\n`);
  else process.stdout.write(render(probes));
  return probes.some((probe) => probe.ok === false) ? 1 : 0;
}

async function diagnose(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): Promise<Probe[]> {
  let settings: Settings;
  try {
    settings = readSettings(flags, env);
  } catch (error) {
    return [
      {
        name: 'settings',
        ok: false,
        detail: errorMessage(error),
        fix: 'gitea-warden serve --help lists every setting',
      },
    ];
  }
  let profile: CompiledProfile;
  let vocabulary: PolicySet['vocabulary'];
  try {
    const policy = policySetFrom({});
    vocabulary = policy.vocabulary;
    profile = withLoginFromEnv(loadProfile(profileReference(settings), policy), env);
  } catch (error) {
    return [{ name: 'profile', ok: false, detail: errorMessage(error) }];
  }
  const variable = tokenVariableOf(profile);
  const probes: Probe[] = [
    {
      name: 'profile',
      ok: true,
      detail: `${profile.name ?? '(unnamed)'} (${shownPath(profile.file)}), acting as ${profile.data.authenticated_username ?? 'nobody named'}`,
    },
  ];
  const token = env[variable] ?? '';
  const reference = unexpandedReference(token);
  if (token === '' || reference !== null) {
    probes.push({
      name: 'token',
      ok: false,
      detail:
        reference !== null
          ? unexpandedMessage(variable, reference)
          : `${variable} is not set (the profile's token_source_name; no other variable is read)`,
      fix: `export ${variable}=<a token of ${profile.data.authenticated_username ?? 'the profile user'}>`,
    });
    return probes;
  }
  const client = new GiteaHttpClient({ baseUrl: settings.giteaUrl, token }, { timeoutMs: settings.timeoutMs });
  const writes = [...effectiveOperations(profile, vocabulary)].some(
    (operation) => vocabulary.operations.get(operation)?.risk !== 'read',
  );
  return [
    ...probes,
    ...(await readiness(client, settings.giteaUrl, {
      login: profile.data.authenticated_username ?? null,
      tokenVariable: variable,
      repositories: exactRepositories(profile),
      writes,
    })),
  ];
}

/** The repositories a profile names exactly (no pattern), which doctor can look up. */
function exactRepositories(profile: CompiledProfile): string[] {
  const { read, write } = profile.scopes.repositories;
  const written = [...(read?.patterns ?? []), ...(write?.patterns ?? [])].map((pattern) => pattern.written);
  return [...new Set(written.filter((pattern) => !/[*?[\]{}()!+@]/.test(pattern)))];
}

function render(probes: Probe[]): string {
  const mark = (probe: Probe) => (probe.ok === true ? 'ok  ' : probe.ok === false ? 'FAIL' : '--  ');
  const lines = probes.map(
    (probe) => `${mark(probe)}  ${probe.name}: ${probe.detail}${probe.fix ? `\n      fix: ${probe.fix}` : ''}`,
  );
  const failed = probes.filter((probe) => probe.ok === false).length;
  return `${lines.join('\n')}\n${failed === 0 ? 'doctor: ready' : `doctor: ${failed} check(s) failed`}\n`;
}
