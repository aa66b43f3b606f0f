// docs/namespaces.md is generated; it must match what the reference profiles list today.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { namespaceListing, namespacesDocFile, renderNamespacesDoc } from '../src/server/namespace-report.js';

test('docs/namespaces.md is current (regenerate: gitea-warden tools --report-md > docs/namespaces.md)', () => {
  assert.equal(readFileSync(namespacesDocFile, 'utf8'), renderNamespacesDoc());
});

test('every reference profile lists at most 128 tools by default', () => {
  for (const profile of ['gitea-author', 'gitea-reviewer', 'gitea-merger', 'gitea-reconciler', 'gitea-issue-manager', 'gitea-owner']) {
    const listing = namespaceListing(profile);
    assert.ok(listing.tools.length <= 128, `${profile}: ${listing.tools.length}`);
    assert.equal(listing.estimatedTokens, Math.round(listing.bytes / 4));
  }
});
