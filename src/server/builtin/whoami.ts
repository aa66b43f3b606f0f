// gitea_whoami: who this namespace acts as. The verified login, never the token.
import { describeScopes } from '../../policy/scope-views.js';
import type { BuiltinTool } from './builtin-tool.js';

export const whoamiTool: BuiltinTool = {
  name: 'gitea_whoami',
  title: 'Who am I',
  description:
    'The Gitea identity of this namespace: the login verified with GET /user, the active profile, its role and audit label, the repositories, branches ' +
    'and file paths it is scoped to, and whether verification passed. Mutating tools are refused while it has not.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  operations: [],
  async handler({ session }) {
    const status = await session.identity.ensure();
    const payload = {
      login: status.state === 'unverified' ? null : status.login,
      expected_login: session.signedIn?.login ?? session.profile.data.authenticated_username ?? null,
      signed_in_via: session.signedIn ? 'oauth' : 'profile_token',
      // A one-person setup says where the login came from (the profile's authenticated_username_from_env).
      ...(session.profile.data.authenticated_username_from_env
        ? { expected_login_from_env: session.profile.data.authenticated_username_from_env }
        : {}),
      verification: status.state,
      verified: status.state === 'verified',
      ...(status.state === 'unverified'
        ? { detail: status.detail, ...(status.cause ? { cause: status.cause } : {}) }
        : {}),
      profile: session.profile.name,
      role: session.profile.role,
      audit_label: session.profile.data.audit_label ?? null,
      scopes: describeScopes(session.profile),
      gitea_url: session.gitea.baseUrl,
    };
    return { kind: 'answer', payload, isError: false, audit: { operation: null, decision: null, reason: 'whoami' } };
  },
};
