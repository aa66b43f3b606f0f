// Recall at 3 of the operation search over a retrieval set: for how many tasks one of the first three
// operations found does the task. The index is the same for every profile (a profile only narrows what
// it admits), so this measures the ranking. Shared by test/server-retrieval.test.ts and the benchmark.
import { loadCatalog } from '../../src/catalog/load.js';
import { loadPolicySet } from '../../src/policy-files/policy-set.js';
import { operationIndexFor } from '../../src/server/operation-index.js';
import type { RetrievalTask } from '../fixtures/retrieval-tasks.js';

export interface Recall {
  tasks: number;
  recall: number;
  misses: Array<{ task: string; expected: string[]; found: string[] }>;
}

export function recallAt3(tasks: readonly RetrievalTask[]): Recall {
  const entries = loadCatalog().entries;
  const byOperationId = new Map(entries.map((entry) => [entry.operationId, entry.name]));
  const index = operationIndexFor(entries, loadPolicySet().operationMap);
  const misses = tasks.flatMap(({ task, operationIds }) => {
    const expected = operationIds.map((id) => byOperationId.get(id) ?? `unknown operationId ${id}`);
    const found = index.find(task, 3, () => true);
    return found.some((name) => expected.includes(name)) ? [] : [{ task, expected, found }];
  });
  return { tasks: tasks.length, recall: 1 - misses.length / tasks.length, misses };
}
