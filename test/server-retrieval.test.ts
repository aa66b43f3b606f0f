// Recall at 3 of gitea_find_operations over the retrieval tasks (test/fixtures/retrieval-tasks.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../src/catalog/load.js';
import { heldOutTasks, retrievalTasks } from './fixtures/retrieval-tasks.js';
import { recallAt3, type Recall } from './support/retrieval.js';

const missed = (r: Recall) =>
  r.misses.map((m) => `  ${m.task}: ${m.found.join(', ')} (want ${m.expected.join(' | ')})`).join('\n');

test('the retrieval sets hold at least 60 tasks, each naming operations of the catalog', () => {
  const ids = new Set(loadCatalog().entries.map((entry) => entry.operationId));
  assert.ok(retrievalTasks.length >= 60, `${retrievalTasks.length} tasks`);
  for (const { task, operationIds } of [...retrievalTasks, ...heldOutTasks])
    for (const id of operationIds) assert.ok(ids.has(id), `${task}: ${id}`);
});

test('gitea_find_operations finds the operation for at least 90% of the tasks in its first three', (t) => {
  const result = recallAt3(retrievalTasks);
  t.diagnostic(`recall@3 ${(result.recall * 100).toFixed(1)}% over ${result.tasks} tasks`);
  assert.ok(result.recall >= 0.9, `recall@3 ${(result.recall * 100).toFixed(1)}%; missed:\n${missed(result)}`);
});

test('the held-out tasks (never tuned on) reach at least 80% in the first three', (t) => {
  const result = recallAt3(heldOutTasks);
  t.diagnostic(`held-out recall@3 ${(result.recall * 100).toFixed(1)}% over ${result.tasks} tasks`);
  assert.ok(result.recall >= 0.8, `recall@3 ${(result.recall * 100).toFixed(1)}%; missed:\n${missed(result)}`);
});
