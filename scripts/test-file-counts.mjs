// A node:test reporter beside the usual one (scripts/run-tests.mjs adds it): counts the tests each
// test file ran and writes {file: count} as JSON at the end. A file that exits or crashes before it
// declares a test is reported by node as one test named after the file, which passes when the exit
// code is 0 (Node 20); that wrapper is not counted, so such a file shows 0 and the run fails.
// A declared skip is a test that ran: a skipped test counts like any other (node reports it as a
// pass with `skip` set), and a suite skipped as a whole (its tests never declared) counts once, so a
// file that skips for a stated reason (no browser installed) is not taken for one that crashed.
import { resolve } from 'node:path';

export default async function* testFileCounts(source) {
  const counts = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, details, skip } = event.data;
    if (file === undefined) continue;
    counts[file] ??= 0;
    if (details?.type === 'suite') {
      if (skip !== undefined && skip !== false) counts[file] += 1;
      continue;
    }
    const wrapper = name === file || resolve(name) === file;
    if (!wrapper) counts[file] += 1;
  }
  yield `${JSON.stringify(counts)}\n`;
}
