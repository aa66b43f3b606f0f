// docs/namespaces.md and README's client table are generated; they must match what the reference
// profiles list today. The static listing of each reference namespace stays within 12,000 estimated
// tokens without losing a tool its tasks need or anything a model needs to call a tool; discovery
// stays within 2,000.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCatalog } from '../src/catalog/load.js';
import type { JsonSchema } from '../src/catalog/types.js';
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { loadProfile } from '../src/policy-files/profile-files.js';
import { loadTaskCatalog } from '../src/policy-files/task-catalog.js';
import { effectiveOperations } from '../src/policy/profile.js';
import {
  namespaceListing,
  namespacesDocFile,
  readmeFile,
  readmeWithClientTable,
  renderNamespacesDoc,
} from '../src/server/namespace-report.js';
import { possiblePrimaries } from '../src/server/tool-registry.js';
import { listedSchema } from '../src/server/tool-definitions.js';

const PROFILES = [
  'gitea-author',
  'gitea-reviewer',
  'gitea-merger',
  'gitea-reconciler',
  'gitea-issue-manager',
  'gitea-owner',
];

test('docs/namespaces.md is current (regenerate: gitea-warden tools --report-md > docs/namespaces.md)', () => {
  assert.equal(readFileSync(namespacesDocFile, 'utf8'), renderNamespacesDoc());
});

test("README's client table is current (regenerate: gitea-warden tools --report-readme)", () => {
  const readme = readFileSync(readmeFile, 'utf8');
  assert.equal(readme, readmeWithClientTable(readme));
});

describe('listing sizes per reference namespace', () => {
  for (const profile of PROFILES) {
    test(profile, () => {
      const listed = namespaceListing(profile, null, 'static');
      assert.ok(listed.estimatedTokens <= 12_000, `static: ${listed.estimatedTokens} tokens`);
      assert.ok(listed.tools.length <= 128, `static: ${listed.tools.length} tools`);
      assert.equal(listed.estimatedTokens, Math.round(listed.bytes / 4));
      const discovery = namespaceListing(profile, null, 'discovery');
      assert.ok(discovery.estimatedTokens <= 2_000, `discovery: ${discovery.estimatedTokens} tokens`);
      // Over the common clients' 40 tools, auto serves discovery; within them, static.
      assert.equal(
        namespaceListing(profile).mode.mode,
        listed.tools.length > 40 || listed.estimatedTokens > 12_000 ? 'discovery' : 'static',
      );
    });
  }
});

describe("the static listing keeps every tool the profile's tasks need (policies/tasks.yaml)", () => {
  const policy = loadPolicySet();
  const tasks = loadTaskCatalog();
  const entries = loadCatalog().entries;
  for (const profile of PROFILES) {
    test(profile, () => {
      const compiled = loadProfile(profile, policy);
      const effective = effectiveOperations(compiled, policy.vocabulary);
      const listed = new Set(namespaceListing(profile, null, 'static').tools.map((tool) => tool.name));
      // Tasks of the profile's role (or any role) that it may do through Gitea tools; reads are the
      // toolsets' business (gitea.read maps to most of the API), guarded tasks have their own tool.
      const needed = Object.values(tasks.tasks)
        .filter(
          (task) =>
            (task.role === 'any' || task.role === compiled.role) && task.permissions.every((op) => effective.has(op)),
        )
        .flatMap((task) => (task.tool ? [] : task.permissions.filter((op) => op !== 'gitea.read')));
      const tools = entries.filter(
        (entry) =>
          !entry.deprecated &&
          possiblePrimaries(policy.operationMap, entry.operationId).some((op) => needed.includes(op)),
      );
      for (const entry of tools)
        assert.ok(listed.has(entry.name), `${profile} lists no ${entry.name} (${needed.join(', ')})`);
      for (const task of Object.values(tasks.tasks).filter((t) => t.tool && t.role === compiled.role))
        assert.ok(listed.has(task.tool as string), `${profile}: ${task.tool}`);
    });
  }
});

/** Every property path with what a caller must get right: its type, enum, format and whether it is required. */
function callShape(schema: JsonSchema, path = ''): Map<string, string> {
  const shape = new Map<string, string>();
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  for (const [name, property] of Object.entries(properties)) {
    const at = `${path}/${name}`;
    shape.set(at, JSON.stringify([property.type, property.enum, property.format, required.has(name)]));
    for (const [sub, value] of callShape(property, at)) shape.set(sub, value);
    if (property.items && typeof property.items === 'object')
      for (const [sub, value] of callShape(property.items as JsonSchema, `${at}[]`)) shape.set(sub, value);
  }
  return shape;
}

test('a listed schema keeps every parameter name, type, enum, format and required flag of the full one (sudo aside)', () => {
  for (const entry of loadCatalog().entries) {
    const full = callShape(entry.inputSchema);
    full.delete('/sudo');
    assert.deepEqual(callShape(listedSchema(entry.inputSchema)), full, entry.name);
  }
});
