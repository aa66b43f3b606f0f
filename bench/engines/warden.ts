// gitea-warden's own policy layer: decideCall over the compiled profile (operation map, lists), then,
// for a merge, the merge guard judged over the gathered facts.
import { decideCall, type DecideContext } from '../../src/policy/decide.js';
import { callGuardsFor, judgeCall, type CallFacts } from '../../src/policy/guards/call-guards.js';
import type { MergeSettings } from '../../src/policy/guards/guard-settings.js';
import { applyGuardVerdict } from '../../src/policy/guards/verdict.js';
import type { HolderIndex } from '../../src/policy/hints.js';
import type { BenchRequest, MergeFactsInput, Workload } from '../workload.js';
import type { Engine } from './engine.js';

const HEAD = '0123456789abcdef0123456789abcdef01234567';
const MERGE_SETTINGS: MergeSettings = { require_head_sha: true, require_independent_approval: true };

export function createWardenEngine(workload: Workload, holders?: HolderIndex): Engine {
  const context: DecideContext = { vocabulary: workload.vocabulary, ...(holders ? { holders } : {}) };
  return {
    name: 'gitea-warden',
    prepare({ profile, call, facts }: BenchRequest) {
      const target = { operationId: call.operationId, arguments: call.arguments };
      const callFacts = facts ? mergeFacts(facts) : null;
      return () => {
        const decision = decideCall(profile, target, workload.operationMap, context);
        if (decision.effect === 'deny' || !callFacts) return decision.effect === 'allow';
        const guards = callGuardsFor(decision.operations, workload.callGuards);
        if (guards.length === 0) return true;
        return applyGuardVerdict(decision, judgeCall(guards, callFacts, MERGE_SETTINGS)).effect === 'allow';
      };
    },
  };
}

/** Facts in which only the author varies: the PR is open, the caller names its head, and someone else approved that head after it was pushed. */
function mergeFacts({ login, author }: MergeFactsInput): CallFacts {
  return {
    identity: { ok: true, value: login },
    pull: {
      ok: true,
      value: {
        number: 7,
        author,
        state: 'open',
        merged: false,
        headSha: HEAD,
        headRef: 'feature',
        headBranchExists: true,
        headRepo: 'acme/widgets',
        baseRef: 'main',
        baseRepo: 'acme/widgets',
      },
    },
    reviews: {
      ok: true,
      value: [
        {
          id: 1,
          reviewer: 'independent-reviewer',
          state: 'APPROVED',
          commitId: HEAD,
          stale: false,
          dismissed: false,
          official: true,
        },
      ],
    },
    // The timeline the merge guard reads: the head was pushed, then the approval was submitted.
    timeline: {
      ok: true,
      value: [
        { kind: 'push', head: HEAD },
        { kind: 'review', reviewId: 1 },
      ],
    },
    expectedHeadSha: HEAD,
    deleteBranch: false,
  };
}
