// Call budgets, the pure judgement: a sliding window of the counted calls' times, over at `max`,
// fitting again when the oldest call that keeps the count at `max` leaves the window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetsFor, compileBudgets, judgeBudget, parseWindow } from '../src/policy/budgets.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { prng } from './support/prng.js';

const HOUR = 3_600_000;

test('windows: seconds, minutes, hours and days; anything else or past 31 days is refused', () => {
  assert.equal(parseWindow('30s'), 30_000);
  assert.equal(parseWindow('1m'), 60_000);
  assert.equal(parseWindow('1h'), HOUR);
  assert.equal(parseWindow('7d'), 7 * 24 * HOUR);
  for (const bad of ['0h', '1w', '1.5h', 'h', '', '01h', '32d', '1 h']) assert.equal(parseWindow(bad), null, bad);
});

test('a budget of 2 per hour: two calls fit, the third is over until the first leaves the window', () => {
  const budget = { max: 2, perMs: HOUR };
  const first = judgeBudget(budget, [], 1_000);
  assert.deepEqual(first, { over: false, used: 1, freesAt: null, next: [1_000] });
  const second = judgeBudget(budget, first.next, 5_000);
  assert.deepEqual(second, { over: false, used: 2, freesAt: null, next: [1_000, 5_000] });
  const third = judgeBudget(budget, second.next, 9_000);
  assert.deepEqual(third, { over: true, used: 2, freesAt: 1_000 + HOUR, next: [1_000, 5_000] });
  // Just before the first call leaves the window: still over; at the moment it leaves: fits.
  assert.equal(judgeBudget(budget, second.next, 1_000 + HOUR - 1).over, true);
  assert.equal(judgeBudget(budget, second.next, 1_000 + HOUR).over, false);
});

test('calls in the future of the clock (a clock set back) still count', () => {
  assert.equal(judgeBudget({ max: 1, perMs: HOUR }, [10_000], 5_000).over, true);
});

test('property: never more than max calls in any window, and a refusal frees exactly when one would fit', () => {
  const random = prng(30);
  for (let round = 0; round < 200; round++) {
    const budget = { max: 1 + Math.floor(random() * 5), perMs: 1_000 + Math.floor(random() * 10_000) };
    let stamps: number[] = [];
    const accepted: number[] = [];
    let now = 0;
    for (let call = 0; call < 60; call++) {
      now += Math.floor(random() * budget.perMs * 0.4);
      const judged = judgeBudget(budget, stamps, now);
      if (judged.over) {
        assert.ok(judged.freesAt !== null && judged.freesAt > now);
        assert.equal(judgeBudget(budget, judged.next, (judged.freesAt as number) - 1).over, true);
        assert.equal(judgeBudget(budget, judged.next, judged.freesAt as number).over, false);
      } else {
        accepted.push(now);
        stamps = judged.next;
        assert.ok(stamps.length <= budget.max, 'the stored window never holds more than max calls');
      }
      const inWindow = accepted.filter((at) => at > now - budget.perMs && at <= now).length;
      assert.ok(inWindow <= budget.max, `${inWindow} calls in one window of a budget of ${budget.max}`);
    }
  }
});

test('a budget counts every operation its names and patterns cover, and only those', () => {
  const { vocabulary } = loadPolicySet();
  const budgets = compileBudgets(
    [
      { operations: ['gitea.pr.merge'], max: 20, per: '1h' },
      { operations: ['gitea.issue.*'], max: 30, per: '1m' },
      { operations: ['gitea.pr.merj'], max: 1, per: '1h' },
    ],
    vocabulary,
    'gitea',
    (path) => (path[0] === 'budgets' ? 10 + Number(path[1]) : null),
  );
  assert.deepEqual(
    budgetsFor(budgets, ['gitea.pr.merge']).map((b) => b.index),
    [0],
  );
  assert.deepEqual(
    budgetsFor(budgets, ['gitea.issue.comment']).map((b) => b.index),
    [1],
  );
  assert.deepEqual(budgetsFor(budgets, ['gitea.pr.approve']), []);
  assert.deepEqual(budgets[2]?.unknown, ['gitea.pr.merj']);
  assert.equal(budgets[1]?.line, 11);
  assert.equal(budgets[0]?.key, 'gitea.pr.merge/1h');
});
