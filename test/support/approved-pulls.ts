// The default sandbox seed plus pull requests that a merger may merge: each authored by alice on its
// own branch off main (one new file each, so they never conflict), approved by bob. They are numbered
// after the seed's own two pull requests: 3, 4, ... (the seed's issues follow them).
import assert from 'node:assert/strict';
import { defaultSeed } from '../../src/sandbox/index.js';
import type { SandboxSeed } from '../../src/sandbox/index.js';

export function seedWithApprovedPulls(count: number): SandboxSeed {
  const seed = defaultSeed();
  const repo = seed.repos.find((r) => r.owner === 'acme' && r.name === 'widgets');
  assert.ok(repo, 'the default seed holds acme/widgets');
  const first = (repo.pulls ?? []).length + 1;
  for (let n = first; n < first + count; n++) {
    repo.branches.push({
      name: `feature/change-${n}`,
      from: 'main',
      commits: [
        { message: `Change ${n}`, author: 'alice', files: { [`src/change-${n}.js`]: `export const n = ${n};\n` } },
      ],
    });
    repo.pulls = [
      ...(repo.pulls ?? []),
      {
        title: `Change ${n}`,
        author: 'alice',
        head: `feature/change-${n}`,
        base: 'main',
        reviews: [{ user: 'bob', state: 'APPROVED' }],
      },
    ];
  }
  return seed;
}
