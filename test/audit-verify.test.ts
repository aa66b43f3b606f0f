import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, GENESIS_PREV, sealEvent, sha256Hex } from '../src/audit/chain.js';
import { verifyAuditLog } from '../src/audit/verify.js';
import { sampleEvent } from './fixtures/audit-sample.js';

/** A valid log of `count` events, as lines (without newlines). */
function chainLines(count: number): string[] {
  const lines: string[] = [];
  let prev = GENESIS_PREV;
  for (let seq = 1; seq <= count; seq += 1) {
    const { line } = sealEvent(sampleEvent(seq), '2025-01-01T00:00:00.000Z', seq, prev);
    lines.push(line);
    prev = sha256Hex(line);
  }
  return lines;
}

const asText = (lines: string[]): string => lines.map((l) => `${l}\n`).join('');

/** Re-seals a modified line so its own hash matches: a forger who knows the scheme. */
function resealed(line: string, change: (event: Record<string, unknown>) => void): string {
  const { hash: _hash, ...event } = JSON.parse(line) as Record<string, unknown>;
  change(event);
  return JSON.stringify({ ...event, hash: sha256Hex(canonicalJson(event)) });
}

describe('verifyAuditLog', () => {
  test('an intact chain verifies and counts its events', () => {
    assert.deepEqual(verifyAuditLog(asText(chainLines(5))), { ok: true, events: 5 });
  });

  test('an empty log verifies with zero events', () => {
    assert.deepEqual(verifyAuditLog(''), { ok: true, events: 0 });
  });

  const tampering: { name: string; tamper: (lines: string[]) => string[]; line: number; reason: RegExp }[] = [
    {
      name: 'an edited field',
      tamper: (l) => l.map((line, i) => (i === 2 ? line.replace('"decision":null', '"decision":"allow"') : line)),
      line: 3,
      reason: /hash does not match/,
    },
    {
      name: 'an edited and re-hashed line',
      tamper: (l) => l.map((line, i) => (i === 2 ? resealed(line, (e) => (e.decision = 'allow')) : line)),
      line: 4,
      reason: /prev does not match/,
    },
    {
      name: 'a dropped line',
      tamper: (l) => [...l.slice(0, 2), ...l.slice(3)],
      line: 3,
      reason: /prev does not match/,
    },
    { name: 'a dropped first line', tamper: (l) => l.slice(1), line: 1, reason: /genesis/ },
    {
      name: 'two reordered lines',
      tamper: (l) => [l[0]!, l[2]!, l[1]!, l[3]!, l[4]!],
      line: 2,
      reason: /prev does not match/,
    },
    {
      name: 'a duplicated line',
      tamper: (l) => [...l.slice(0, 2), l[1]!, ...l.slice(2)],
      line: 3,
      reason: /prev does not match/,
    },
    {
      name: 'an inserted forged line with a correct prev',
      tamper: (l) => [...l.slice(0, 2), sealEvent(sampleEvent(9), 't', 3, sha256Hex(l[1]!)).line, ...l.slice(2)],
      line: 4,
      reason: /prev does not match/,
    },
    {
      name: 'a re-serialised line (same content, other spacing)',
      tamper: (l) => l.map((line, i) => (i === 1 ? line.replace('{', '{ ') : line)),
      line: 3,
      reason: /prev does not match/,
    },
    {
      name: 'a line that is not JSON',
      tamper: (l) => [l[0]!, 'hello', ...l.slice(2)],
      line: 2,
      reason: /not valid JSON/,
    },
    { name: 'an empty line in the middle', tamper: (l) => [l[0]!, '', ...l.slice(1)], line: 2, reason: /empty line/ },
  ];

  for (const { name, tamper, line, reason } of tampering) {
    test(`finds ${name}`, () => {
      const result = verifyAuditLog(asText(tamper(chainLines(5))));
      assert.equal(result.ok, false);
      assert.equal(result.firstBroken?.line, line);
      assert.match(result.firstBroken?.reason ?? '', reason);
      assert.equal(result.events, line - 1);
    });
  }

  test('reports a torn final line distinctly and verifies the prefix', () => {
    const lines = chainLines(4);
    const text = asText(lines.slice(0, 3)) + lines[3]!.slice(0, 40);
    assert.deepEqual(verifyAuditLog(text), {
      ok: false,
      events: 3,
      firstBroken: { line: 4, reason: 'truncated final line' },
    });
  });

  test('a final line missing only its newline is still a torn write', () => {
    const lines = chainLines(2);
    const result = verifyAuditLog(`${lines[0]}\n${lines[1]}`);
    assert.equal(result.firstBroken?.reason, 'truncated final line');
    assert.equal(result.events, 1);
  });
});
