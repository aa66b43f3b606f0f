// gitea_activate_profile: switches this namespace to another profile of its multi-identity config
// (GITEA_MCP_CONFIG), only when that file says allow_runtime_switching: true. Static profiles, one
// namespace per role, are the default and recommended. A switch rebuilds the tool list, takes the new
// profile's token and verifies it with GET /user before anything else runs; the audit records it.
import { loadProfile } from '../../policy-files/profile-files.js';
import { runtimeSwitchingAllowed } from '../../policy-files/runtime-switching.js';
import { switchProfile } from '../namespace.js';
import type { ReasonCode } from '../../policy/reasons.js';
import type { BuiltinOutcome, BuiltinTool } from './builtin-tool.js';

export const activateProfileTool: BuiltinTool = {
  name: 'gitea_activate_profile',
  title: 'Switch to another profile',
  description:
    'Switches this namespace to another profile of its multi-identity config, only if the config sets allow_runtime_switching: true. ' +
    "The tool list is rebuilt, the new profile's token is used and the identity is verified again (GET /user) before any call. " +
    'Prefer one namespace per role (static profiles).',
  inputSchema: {
    type: 'object',
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'Profile name, identity key or alias in the config',
      },
    },
    required: ['name'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  operations: [],
  async handler({ args, session }, namespace) {
    const name = String(args.name);
    if (session.signedIn) {
      // The profile decided who may sign in; switching it for one person's call would undo that.
      return refused(
        'runtime_switching_disabled',
        "This call runs as a person signed in through OAuth; the namespace's profile cannot be switched.",
        'Sign in to the namespace of the profile you need.',
      );
    }
    const config = session.settings.config;
    if (config === null || !runtimeSwitchingAllowed(config)) {
      return refused(
        'runtime_switching_disabled',
        'This namespace has a static profile; runtime switching is off.',
        "Use the namespace of the profile you need (one per role); whether a namespace may switch is its operator's decision.",
      );
    }
    let next;
    try {
      next = loadProfile(`${config}#${name}`, session.policy);
    } catch (error) {
      return refused(
        'profile_unavailable',
        error instanceof Error ? error.message : 'The profile could not be loaded.',
        'Name a profile of the GITEA_MCP_CONFIG file (identity key, profile_name or alias); see gitea-warden check.',
      );
    }
    const switched = await switchProfile(namespace, next);
    const status = switched.identity.current();
    const payload = {
      switched: true,
      previous_profile: session.profile.name,
      profile: next.name,
      role: next.role,
      login: status.state === 'unverified' ? null : status.login,
      verification: status.state,
      verified: status.state === 'verified',
      tools: switched.registry.tools.length,
    };
    const evidence = {
      previous_profile: session.profile.name ?? session.profile.file,
      profile: next.name ?? next.file,
    };
    return {
      kind: 'answer',
      payload,
      isError: false,
      audit: { operation: null, decision: 'allow', reason: 'profile_switched', evidence },
    };
  },
};

function refused(reason: ReasonCode, message: string, hint: string): BuiltinOutcome {
  return {
    kind: 'answer',
    payload: { error: { kind: 'policy_denied', reason, message, hint }, request: null },
    isError: true,
    audit: { operation: null, decision: 'deny', reason },
  };
}
