// A grant follows the profile, across restarts of the namespace at the same URL on the same store:
// a person the profile no longer names is refused on the next call and the next refresh, with the
// reason; a person still named keeps working; a namespace restarted under another profile serves
// none of the old grants; team membership is read again from Gitea (every refresh, and on a call
// once older than OAUTH_TEAMS_MAX_AGE); a token for another resource stays refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { payloadOf, repoRoot, tempDir } from './support/namespace.js';
import {
  connectWithToken,
  mcpStatus,
  OAUTH_PROFILE,
  registerWardenApp,
  signInWithSdk,
  spawnOAuthServe,
  tokenRequest,
  type OAuthServe,
  type TestClientProvider,
} from './support/oauth-flow.js';

const EXAMPLE = readFileSync(join(repoRoot, OAUTH_PROFILE), 'utf8');

/** The example OAuth profile under another name and with other people. */
function profileText(name: string, users: string[], teams: string[]): string {
  return EXAMPLE.replace(/^profile_name: .*$/m, `profile_name: ${name}`)
    .replace(/^audit_label: .*$/m, `audit_label: ${name}`)
    .replace(/^authenticated_users: .*$/m, `authenticated_users: [${users.join(', ')}]`)
    .replace(/^authenticated_teams: .*$/m, `authenticated_teams: [${teams.join(', ')}]`)
    .replace(/\$schema=\.\.\/\.\.\/policies/, `$schema=${join(repoRoot, 'policies')}`);
}

describe('a grant follows the profile it was given under', () => {
  let sandbox: Sandbox;
  let dir: ReturnType<typeof tempDir>;
  let app: Awaited<ReturnType<typeof registerWardenApp>>;
  let serve: OAuthServe | null = null;
  let port = 0;
  const profile = () => join(dir.path, 'team-author.yaml');
  const start = async (profileFile: string, extra: Record<string, string> = {}, at = port) => {
    serve = await spawnOAuthServe(sandbox, app, {
      auditLog: join(dir.path, 'audit.jsonl'),
      store: join(dir.path, 'tokens.sqlite'),
      profile: profileFile,
      ...(at ? { port: at } : {}),
      extra,
    });
    port = Number(new URL(serve.url).port);
    return serve;
  };
  const restart = async (profileFile: string, extra: Record<string, string> = {}) => {
    await serve?.close();
    return start(profileFile, extra);
  };
  const refresh = (ns: OAuthServe, provider: TestClientProvider) =>
    tokenRequest(ns.base, {
      grant_type: 'refresh_token',
      refresh_token: provider.saved?.refresh_token ?? '',
      client_id: provider.info?.client_id ?? '',
    });
  const whoami = async (ns: OAuthServe, token: string) => {
    const client = await connectWithToken(ns.url, token);
    try {
      return payloadOf(await client.callTool({ name: 'gitea_whoami', arguments: {} })).login;
    } finally {
      await client.close();
    }
  };

  before(async () => {
    sandbox = await startSandbox();
    dir = tempDir('warden-grants-');
    app = await registerWardenApp(sandbox);
  });

  after(async () => {
    await serve?.close();
    await sandbox?.close();
    dir?.dispose();
  });

  test('removed from the profile: refused on the next call and refresh; still named: works across the restart', async () => {
    writeFileSync(profile(), profileText('team-author', ['alice', 'bob'], []));
    let ns = await start(profile());
    const alice = (await signInWithSdk(ns.url, ns.base, sandbox, 'alice')).provider;
    const bob = (await signInWithSdk(ns.url, ns.base, sandbox, 'bob')).provider;
    assert.equal(await whoami(ns, alice.saved?.access_token ?? ''), 'alice');

    // The operator takes alice off the profile and restarts the namespace at the same URL.
    writeFileSync(profile(), profileText('team-author', ['bob'], []));
    ns = await restart(profile());
    const call = await mcpStatus(ns.url, alice.saved?.access_token ?? '');
    assert.equal(call.status, 401);
    assert.match(call.wwwAuthenticate ?? '', /error="invalid_token"/);
    assert.match(call.wwwAuthenticate ?? '', /alice is not among the people the profile team-author names/);
    const renewed = await refresh(ns, alice);
    assert.equal(renewed.status, 400);
    assert.equal(renewed.body.error, 'invalid_grant');
    assert.match(String(renewed.body.error_description), /alice is not among the people the profile team-author names/);

    // Bob is still named: his token from before the restart works, and so does his refresh.
    assert.equal(await whoami(ns, bob.saved?.access_token ?? ''), 'bob');
    const bobRenewed = await refresh(ns, bob);
    assert.equal(bobRenewed.status, 200, JSON.stringify(bobRenewed.body));
    assert.equal(await whoami(ns, String(bobRenewed.body.access_token)), 'bob');
  });

  test('restarted under another profile at the same URL: no old grant is served, call or refresh', async () => {
    writeFileSync(profile(), profileText('team-author', ['bob'], []));
    let ns = await restart(profile());
    const bob = (await signInWithSdk(ns.url, ns.base, sandbox, 'bob')).provider;
    assert.equal(await whoami(ns, bob.saved?.access_token ?? ''), 'bob');
    const other = join(dir.path, 'team-reviewer.yaml');
    writeFileSync(other, profileText('team-reviewer', ['bob'], []));
    ns = await restart(other);
    const call = await mcpStatus(ns.url, bob.saved?.access_token ?? '');
    assert.equal(call.status, 401);
    assert.match(
      call.wwwAuthenticate ?? '',
      /given under profile team-author, and this namespace now serves profile team-reviewer; sign in again/,
    );
    const renewed = await refresh(ns, bob);
    assert.equal(renewed.body.error, 'invalid_grant');
    assert.match(String(renewed.body.error_description), /now serves profile team-reviewer/);
    // Signing in again under the new profile works.
    const again = (await signInWithSdk(ns.url, ns.base, sandbox, 'bob')).provider;
    assert.equal(await whoami(ns, again.saved?.access_token ?? ''), 'bob');
  });

  test('a team member leaving the team: refused once the reading is stale, and at the next refresh', async () => {
    writeFileSync(profile(), profileText('team-author', [], ['acme/Developers']));
    const ns = await restart(profile(), { OAUTH_TEAMS_MAX_AGE: '0' });
    const carol = (await signInWithSdk(ns.url, ns.base, sandbox, 'carol')).provider;
    assert.equal(await whoami(ns, carol.saved?.access_token ?? ''), 'carol');
    const developers = sandbox.state.teams.get('acme')?.find((t) => t.name === 'Developers');
    assert.ok(developers);
    const teamReads = () => sandbox.requests.filter((r) => r.path === '/api/v1/user/teams').length;
    const reads = teamReads();
    developers.members.splice(developers.members.indexOf('carol'), 1);
    try {
      const call = await mcpStatus(ns.url, carol.saved?.access_token ?? '');
      assert.equal(call.status, 401);
      assert.match(call.wwwAuthenticate ?? '', /carol is not among the people the profile team-author names/);
      assert.ok(teamReads() > reads, 'the teams were read from Gitea again');
      // The grant ended with it: a refresh finds it revoked.
      assert.equal((await refresh(ns, carol)).body.error, 'invalid_grant');
    } finally {
      developers.members.push('carol');
    }
  });

  test('within the operator bound a call trusts the last team reading; a refresh reads the teams again', async () => {
    writeFileSync(profile(), profileText('team-author', [], ['acme/Developers']));
    const ns = await restart(profile(), { OAUTH_TEAMS_MAX_AGE: '3600' });
    const dave = (await signInWithSdk(ns.url, ns.base, sandbox, 'dave')).provider;
    const developers = sandbox.state.teams.get('acme')?.find((t) => t.name === 'Developers');
    assert.ok(developers);
    developers.members.splice(developers.members.indexOf('dave'), 1);
    try {
      assert.equal(await whoami(ns, dave.saved?.access_token ?? ''), 'dave', 'the reading is an hour good');
      const renewed = await refresh(ns, dave);
      assert.equal(renewed.body.error, 'invalid_grant');
      assert.match(
        String(renewed.body.error_description),
        /dave is not among the people the profile team-author names/,
      );
      assert.equal((await mcpStatus(ns.url, dave.saved?.access_token ?? '')).status, 401, 'and the grant ended');
    } finally {
      developers.members.push('dave');
    }
  });

  test('a token stays bound to its resource: a namespace at another URL refuses it, before and after a restart', async () => {
    writeFileSync(profile(), profileText('team-author', ['alice'], []));
    const ns = await restart(profile());
    const alice = (await signInWithSdk(ns.url, ns.base, sandbox, 'alice')).provider;
    const token = alice.saved?.access_token ?? '';
    await ns.close();
    // The same profile and store, restarted at another port: another resource URL.
    const moved = await start(profile(), {}, 0);
    const call = await mcpStatus(moved.url, token);
    assert.equal(call.status, 401);
    assert.match(call.wwwAuthenticate ?? '', /not issued for this resource/);
    assert.equal((await refresh(moved, alice)).body.error, 'invalid_target');
    const again = await restart(profile());
    assert.equal((await mcpStatus(again.url, token)).status, 401);
  });
});
