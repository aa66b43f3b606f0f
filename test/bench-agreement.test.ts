// Agreement is a correctness property of the benchmark: Cedar and casbin, given the profiles as their
// own policies, must decide every request as gitea-warden does, or the timings compare nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAgreement } from '../bench/agreement.js';
import { createEngines } from '../bench/decision-engines.js';
import type { Engine } from '../bench/engines/engine.js';
import { profileSizeWorkload } from '../bench/scaling.js';
import { buildWorkload } from '../bench/workload.js';

test('gitea-warden, Cedar and casbin agree on a reduced workload, argument variants and self-merge facts included', async () => {
  const workload = buildWorkload({ every: 25 });
  const report = checkAgreement(await createEngines(workload), workload.requests);
  assert.deepEqual(report.disagreements, []);
  assert.ok(
    report.allowed > 0 && report.allowed < report.requests,
    'the workload has both allowed and denied requests',
  );
  const variants = new Set(workload.requests.map((r) => r.call.variant));
  for (const variant of ['none', 'body.force_merge=true', 'body.state=<unknown>', 'sudo'])
    assert.ok(variants.has(variant), variant);
  const authors = workload.requests.filter((r) => r.facts).map((r) => r.facts?.author === r.facts?.login);
  assert.ok(authors.includes(true) && authors.includes(false), 'merges by the author and by someone else');
});

test('the three engines agree on a synthetic profile of 100 entries', async () => {
  const workload = profileSizeWorkload(100);
  assert.deepEqual(checkAgreement(await createEngines(workload), workload.requests).disagreements, []);
});

test('an engine that answers differently is reported, request by request', async () => {
  const workload = buildWorkload({ every: 50 });
  const [warden] = await createEngines(workload);
  const allowAll: Engine = { name: 'allow-all', prepare: () => () => true };
  const report = checkAgreement([warden as Engine, allowAll], workload.requests);
  assert.equal(report.disagreements.length, report.requests - report.allowed);
  assert.ok(report.disagreements.length > 0);
  assert.deepEqual(Object.values(report.disagreements[0]?.answers ?? {}).sort(), ['allow', 'deny']);
});
