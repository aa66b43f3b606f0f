// gitea_reconcile_already_landed_pr: closes an open pull request whose head is already on its target
// branch (e.g. landed through another pull request), with an evidence comment first. Refused, with
// the report, when the head has not landed or the pull request is not open.
import { reconcileAlreadyLandedPr } from '../../gitea/reconcile.js';
import { judgeReconcileLanded } from '../../policy/guards/reconcile-landed-guard.js';
import { judgeUnmoved } from '../../policy/guards/unmoved-guard.js';
import { PULL_REQUEST_REF_PROPERTIES, pullRequestOf } from './pull-request-ref.js';
import type { BuiltinTool } from './builtin-tool.js';

const OPERATIONS = ['gitea.pr.close', 'gitea.issue.comment'];

export const reconcileAlreadyLandedPrTool: BuiltinTool = {
  name: 'gitea_reconcile_already_landed_pr',
  title: 'Close a pull request whose head already landed',
  description:
    'Closes an open pull request only when live facts prove its head commit is already on its target branch: it is the tip, or the ' +
    'compare head...target lists a commit with the head as a parent ("0 commits ahead" is no proof: unrelated histories answer it too). ' +
    'Posts an evidence comment (head SHA, target SHA, compare) before closing, once a person confirmed the close (the server asks them ' +
    'through the client). Returns each check with pass/fail and the evidence.',
  inputSchema: {
    type: 'object',
    properties: {
      ...PULL_REQUEST_REF_PROPERTIES,
      confirmation: {
        type: 'string',
        description:
          'Only where the profile keeps confirmation_fallback: phrase and the client cannot ask its person: exactly CLOSE LANDED PR <pr_number>',
      },
    },
    required: ['owner', 'repo', 'pr_number'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  operations: OPERATIONS,
  role: 'reconciler',
  confirmationPhrase: (args) => `CLOSE LANDED PR ${Number(args.pr_number)}`,
  async handler(call) {
    const ref = pullRequestOf(call);
    return {
      kind: 'guarded_action',
      guard: 'reconcile_landed',
      operations: OPERATIONS,
      targets: { repositories: [`${ref.owner}/${ref.repo}`] },
      act: (gitea) => reconcileAlreadyLandedPr(gitea, ref, { judge: judgeReconcileLanded, unmoved: judgeUnmoved }),
    };
  },
};
