// policies/integrity.yaml against the pinned spec: every operation whose answer carries text a person
// wrote is labelled, with the item type its answer really is, so a spec upgrade cannot add an
// unlabelled route silently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { loadSpec } from './support/spec-contract.js';

/** Spec definitions (or answers) -> the item type that labels them. */
const LABELLED: Record<string, string> = {
  Issue: 'issue',
  PullRequest: 'pull_request',
  Comment: 'comment',
  TimelineComment: 'timeline_comment',
  PullReview: 'review',
  PullReviewComment: 'review_comment',
  Release: 'release',
  Commit: 'commit',
  Activity: 'activity',
  ContentsResponse: 'contents',
  WikiPage: 'wiki_page',
  NotificationThread: 'notification',
  Note: 'note',
};
/** Answers that are text or bytes a person wrote, by operation. */
const RAW: Record<string, string> = {
  repoGetRawFile: 'raw_file',
  repoGetRawFileOrLFS: 'raw_file',
  repoDownloadCommitDiffOrPatch: 'diff',
  repoDownloadPullDiffOrPatch: 'diff',
};

function answerType(spec: ReturnType<typeof loadSpec>, op: Record<string, any>): string | null {
  const response = op.responses?.['200'] ?? op.responses?.['201'];
  if (!response) return null;
  const resolved = response.$ref ? (spec.responses as Record<string, any>)[response.$ref.split('/').pop()] : response;
  const schema = resolved?.schema;
  const ref: unknown = schema?.$ref ?? schema?.items?.$ref;
  return typeof ref === 'string' ? (ref.split('/').pop() ?? null) : null;
}

test('every operation answering with authored text is labelled as its item type, and nothing else is', () => {
  const spec = loadSpec();
  const catalog = loadPolicySet().integrity;
  const expected = new Map<string, string>();
  for (const methods of Object.values(spec.paths)) {
    for (const op of Object.values(methods as Record<string, any>)) {
      if (typeof op !== 'object' || !op.operationId) continue;
      const type = RAW[op.operationId] ?? LABELLED[answerType(spec, op) ?? ''];
      if (type) expected.set(op.operationId, type);
    }
  }
  assert.ok(expected.size > 60, `found ${expected.size} operations`);
  assert.deepEqual(Object.fromEntries([...catalog.operations].sort()), Object.fromEntries([...expected].sort()));
});
