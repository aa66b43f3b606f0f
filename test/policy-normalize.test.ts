import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeName } from '../src/policy/normalize.js';
import { policy } from './policy-helpers.js';

const FIXED = [
  'gitea.read',
  'gitea.pr.create',
  'gitea.pr.comment',
  'gitea.pr.review',
  'gitea.pr.approve',
  'gitea.pr.request_changes',
  'gitea.pr.merge',
  'gitea.pr.close',
  'gitea.branch.create',
  'gitea.branch.push',
  'gitea.branch.delete',
  'gitea.repo.commit',
  'gitea.issue.create',
  'gitea.issue.comment',
  'gitea.issue.label',
  'gitea.issue.close',
];

const ALIASES: Record<string, string> = {
  read: 'gitea.read',
  review: 'gitea.pr.review',
  comment: 'gitea.pr.comment',
  approve: 'gitea.pr.approve',
  request_changes: 'gitea.pr.request_changes',
  merge: 'gitea.pr.merge',
  'pr.create': 'gitea.pr.create',
  'branch.push': 'gitea.branch.push',
  branch: 'gitea.branch.create',
  commit: 'gitea.repo.commit',
  push: 'gitea.branch.push',
  open_pr: 'gitea.pr.create',
};

describe('vocabulary and aliases', () => {
  test('every fixed canonical name is in the vocabulary, with the extra names the catalog needs', () => {
    for (const name of [...FIXED, 'gitea.admin.sudo', 'gitea.pr.force_merge', 'gitea.release.publish']) {
      assert.ok(policy.vocabulary.operations.has(name), name);
    }
  });

  test('the alias table is exactly the legacy spellings', () => {
    assert.deepEqual(Object.fromEntries(policy.vocabulary.aliases), ALIASES);
  });

  test('credential-minting operations have their own credential-class names', () => {
    for (const name of ['gitea.token.create', 'gitea.runner.register', 'gitea.oauth2.create']) {
      assert.equal(policy.vocabulary.operations.get(name)?.risk, 'credential', name);
    }
  });
});

describe('normalizeName (service gitea unless stated)', () => {
  const cases: [string, string | undefined, string[] | string][] = [
    ['gitea.pr.close', undefined, ['gitea.pr.close']],
    ['approve', undefined, ['gitea.pr.approve']],
    ['branch', undefined, ['gitea.branch.create']],
    ['pr.create', undefined, ['gitea.pr.create']],
    ['pr.close', undefined, 'ambiguous_operation'],
    ['issue.create', undefined, 'ambiguous_operation'],
    ['jenkins.read', undefined, 'cross_service_operation'],
    ['frobnicate', undefined, 'unknown_operation'],
    ['gitea.pr.frobnicate', undefined, 'unknown_operation'],
    ['Gitea.Read', undefined, 'unknown_operation'],
    [' gitea.read', undefined, 'unknown_operation'],
    ['', undefined, 'unknown_operation'],
    ['gitea.*', undefined, 'invalid_pattern'],
    ['read', 'jenkins', ['jenkins.read']],
    ['approve', 'jenkins', ['jenkins.approve']],
    ['jenkins.build.run', 'jenkins', ['jenkins.build.run']],
    ['gitea.read', 'jenkins', 'cross_service_operation'],
    ['pr.create', 'jenkins', 'ambiguous_operation'],
  ];
  for (const [name, service, expected] of cases) {
    test(`${JSON.stringify(name)}${service ? ` on ${service}` : ''} -> ${Array.isArray(expected) ? expected.join(',') : expected}`, () => {
      const result = normalizeName(name, policy.vocabulary, service ? { service } : {});
      if (Array.isArray(expected)) assert.deepEqual(result.ok && result.canonical, expected);
      else assert.equal(!result.ok && result.reason, expected);
    });
  }

  test('patterns expand against the vocabulary only, and only gitea.* and gitea.<area>.*', () => {
    const pr = normalizeName('gitea.pr.*', policy.vocabulary, { allowPatterns: true });
    assert.ok(pr.ok && pr.canonical.includes('gitea.pr.close') && pr.canonical.every((n) => n.startsWith('gitea.pr.')));
    const all = normalizeName('gitea.*', policy.vocabulary, { allowPatterns: true });
    assert.equal(all.ok && all.canonical.length, policy.vocabulary.operations.size);
    for (const bad of ['gitea.pr.c*', 'gitea.nosucharea.*', '*', 'gitea.*.close', 'pr.*']) {
      assert.equal(normalizeName(bad, policy.vocabulary, { allowPatterns: true }).ok, false, bad);
    }
  });
});
