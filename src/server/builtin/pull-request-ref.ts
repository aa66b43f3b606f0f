// The arguments that name a pull request, for the built-in tools that act on one: the same name
// rules as the generated tools, so a guarded tool is no looser about its input than the raw ones.
import { LOGIN_SCHEMA, REPO_NAME_SCHEMA } from '../../catalog/gitea-names.js';
import type { JsonSchema } from '../../catalog/types.js';
import type { PullRef } from '../../gitea/facts.js';
import type { CallContext } from '../call/call-context.js';

export const PULL_REQUEST_REF_PROPERTIES: Record<string, JsonSchema> = {
  owner: LOGIN_SCHEMA,
  repo: REPO_NAME_SCHEMA,
  pr_number: { type: 'integer', minimum: 1 },
};

/** The pull request a call with these (schema-required) properties names, from its context. */
export function pullRequestOf(call: CallContext): PullRef {
  const { ref } = call.live;
  if (ref === null) throw new Error('the call context names no pull request, although the schema requires one');
  return ref;
}
