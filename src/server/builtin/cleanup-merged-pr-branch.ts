// gitea_cleanup_merged_pr_branch: the only way to delete a branch (policies/guards.yaml guarded_only).
// The reconciler names a merged pull request and its head branch; the branch goes only when every
// check of judgeCleanup passes on facts read just now and a person confirmed the deletion (the
// confirm stage, policies/confirmations.yaml). The typed phrase is only the fallback a profile may keep
// for clients that cannot ask their person. The report lists every check.
import { cleanupMergedPrBranch } from '../../gitea/reconcile.js';
import { judgeCleanup, type CleanupRequest } from '../../policy/guards/cleanup-branch-guard.js';
import { judgeUnmoved } from '../../policy/guards/unmoved-guard.js';
import { cleanupPatterns } from '../../policy-files/policy-set.js';
import { PULL_REQUEST_REF_PROPERTIES, pullRequestOf } from './pull-request-ref.js';
import type { BuiltinTool } from './builtin-tool.js';

const OPERATIONS = ['gitea.branch.delete'];

/** The reference reconciler's typed phrase (confirmation_fallback: phrase). */
export function cleanupPhrase(prNumber: number, branch: string): string {
  return `CLEANUP MERGED PR ${prNumber} BRANCH ${branch}`;
}

export const cleanupMergedPrBranchTool: BuiltinTool = {
  name: 'gitea_cleanup_merged_pr_branch',
  title: 'Delete the head branch of a merged pull request',
  description:
    'Deletes the head branch of a merged pull request, only when every check passes on live facts and a person confirms it (the ' +
    "server asks them through the client): the branch is the pull request's head in this repository, the pull request is merged, " +
    'the branch tip is proven on the target branch (a commit the target contains has it as a parent; squash and rebase merges are never ' +
    'proven), Gitea and policies/guards.yaml do not protect or preserve it, and no open pull request uses it as head or base (Gitea would ' +
    'close those). Returns each check with pass/fail and the evidence (SHAs, refs).',
  inputSchema: {
    type: 'object',
    properties: {
      ...PULL_REQUEST_REF_PROPERTIES,
      branch: { type: 'string', minLength: 1, description: "The pull request's head branch" },
      confirmation: {
        type: 'string',
        description:
          'Only where the profile keeps confirmation_fallback: phrase and the client cannot ask its ' +
          'person: exactly CLEANUP MERGED PR <pr_number> BRANCH <branch>',
      },
    },
    required: ['owner', 'repo', 'pr_number', 'branch'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  operations: OPERATIONS,
  role: 'reconciler',
  confirmationPhrase: (args) => cleanupPhrase(Number(args.pr_number), String(args.branch)),
  async handler(call) {
    const { args, session } = call;
    const { owner, repo, index } = pullRequestOf(call);
    const request: CleanupRequest = {
      owner,
      repo,
      prNumber: index,
      branch: String(args.branch),
    };
    const patterns = cleanupPatterns(session.policy);
    const { facts } = session.policy.guards;
    return {
      kind: 'guarded_action',
      guard: 'cleanup_branch',
      operations: OPERATIONS,
      targets: { repositories: [`${request.owner}/${request.repo}`], branches: [request.branch] },
      act: (gitea) =>
        cleanupMergedPrBranch(
          gitea,
          request,
          { judge: (gathered) => judgeCleanup(request, gathered, patterns), unmoved: judgeUnmoved },
          facts,
        ),
    };
  },
};
