// The arguments that name a pull request, for the built-in tools that act on one: the same name
// rules as the generated tools, so a guarded tool is no looser about its input than the raw ones.
import { LOGIN_SCHEMA, REPO_NAME_SCHEMA } from '../../catalog/gitea-names.js';
import type { JsonSchema } from '../../catalog/types.js';

export const PULL_REQUEST_REF_PROPERTIES: Record<string, JsonSchema> = {
  owner: LOGIN_SCHEMA,
  repo: REPO_NAME_SCHEMA,
  pr_number: { type: 'integer', minimum: 1 },
};

export interface PullRequestRef {
  owner: string;
  repo: string;
  index: number;
}

/** The pull request named by schema-valid arguments. */
export function pullRequestRefOf(args: Record<string, unknown>): PullRequestRef {
  return { owner: String(args.owner), repo: String(args.repo), index: Number(args.pr_number) };
}
