// The judge of a grant on each call and refresh (src/auth/grant-access.ts), over every combination of
// what it depends on: the grant's profile, whether the profile names the person or only their team,
// how old the last team reading is, call or refresh, and whether Gitea answers the team question.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GrantAccess, type NamespaceAccess } from '../src/auth/grant-access.js';
import type { GrantRow } from '../src/auth/token-store.js';

const NOW = 1_000_000;
const MAX_AGE_MS = 300_000;

function grant(over: Partial<GrantRow>): GrantRow {
  return {
    id: 'g',
    login: 'alice',
    clientId: 'c',
    resource: 'http://127.0.0.1/mcp',
    scopes: [],
    giteaAccessSealed: 'x',
    giteaRefreshSealed: 'y',
    giteaExpiresAt: NOW + 3_600_000,
    version: 1,
    revoked: false,
    profile: 'team-author',
    teamsCheckedAt: null,
    ...over,
  };
}

type Teams = 'member' | 'not member' | 'unreadable';

function judge(access: Partial<NamespaceAccess>, teams: Teams) {
  let reads = 0;
  const judged = new GrantAccess(
    { profileName: 'team-author', users: [], teams: [], ...access },
    async () => {
      reads++;
      if (teams === 'unreadable') throw new Error('Gitea did not answer');
      return teams === 'member' ? ['acme/developers'] : ['acme/other'];
    },
    MAX_AGE_MS,
    () => NOW,
  );
  return { judged, reads: () => reads };
}

const byName = { users: ['alice'] };
const byTeam = { teams: ['acme/developers'] };

const rows: Array<{
  name: string;
  access: Partial<NamespaceAccess>;
  grant: Partial<GrantRow>;
  refresh: boolean;
  teams: Teams;
  expect: string;
  reads: number;
}> = [
  {
    name: 'no profile recorded',
    access: byName,
    grant: { profile: null },
    refresh: false,
    teams: 'member',
    expect: 'refused+ends',
    reads: 0,
  },
  {
    name: 'another profile',
    access: byName,
    grant: { profile: 'team-reviewer' },
    refresh: false,
    teams: 'member',
    expect: 'refused',
    reads: 0,
  },
  {
    name: 'another profile, refresh',
    access: byName,
    grant: { profile: 'team-reviewer' },
    refresh: true,
    teams: 'member',
    expect: 'refused',
    reads: 0,
  },
  { name: 'named', access: byName, grant: {}, refresh: false, teams: 'unreadable', expect: 'holds', reads: 0 },
  { name: 'named, refresh', access: byName, grant: {}, refresh: true, teams: 'unreadable', expect: 'holds', reads: 0 },
  {
    name: 'named by other case',
    access: { users: ['alice'] },
    grant: { login: 'Alice' },
    refresh: false,
    teams: 'not member',
    expect: 'holds',
    reads: 0,
  },
  {
    name: 'not named, no teams',
    access: { users: ['bob'] },
    grant: {},
    refresh: false,
    teams: 'member',
    expect: 'refused+ends',
    reads: 0,
  },
  {
    name: 'team, fresh reading',
    access: byTeam,
    grant: { teamsCheckedAt: NOW - 1000 },
    refresh: false,
    teams: 'not member',
    expect: 'holds',
    reads: 0,
  },
  {
    name: 'team, fresh reading, refresh: read again',
    access: byTeam,
    grant: { teamsCheckedAt: NOW - 1000 },
    refresh: true,
    teams: 'not member',
    expect: 'refused+ends',
    reads: 1,
  },
  {
    name: 'team, stale reading, still member',
    access: byTeam,
    grant: { teamsCheckedAt: NOW - MAX_AGE_MS - 1 },
    refresh: false,
    teams: 'member',
    expect: 'holds',
    reads: 1,
  },
  {
    name: 'team, stale reading, left the team',
    access: byTeam,
    grant: { teamsCheckedAt: NOW - MAX_AGE_MS - 1 },
    refresh: false,
    teams: 'not member',
    expect: 'refused+ends',
    reads: 1,
  },
  {
    name: 'team, never read (named before)',
    access: byTeam,
    grant: { teamsCheckedAt: null },
    refresh: false,
    teams: 'member',
    expect: 'holds',
    reads: 1,
  },
  {
    name: 'team, stale, Gitea silent',
    access: byTeam,
    grant: { teamsCheckedAt: NOW - MAX_AGE_MS - 1 },
    refresh: false,
    teams: 'unreadable',
    expect: 'unavailable',
    reads: 1,
  },
  {
    name: 'team, refresh, Gitea silent',
    access: byTeam,
    grant: { teamsCheckedAt: NOW },
    refresh: true,
    teams: 'unreadable',
    expect: 'unavailable',
    reads: 1,
  },
];

for (const row of rows) {
  test(`a grant on ${row.refresh ? 'refresh' : 'a call'}: ${row.name} -> ${row.expect}`, async () => {
    const { judged, reads } = judge(row.access, row.teams);
    const verdict = await judged.recheck(grant(row.grant), row.refresh, async () => 'gitea-token');
    const got = verdict.kind === 'refused' ? (verdict.endsGrant ? 'refused+ends' : 'refused') : verdict.kind;
    assert.equal(got, row.expect, JSON.stringify(verdict));
    assert.equal(reads(), row.reads, 'team readings');
    if (verdict.kind === 'holds' && row.reads > 0)
      assert.equal(verdict.teamsCheckedAt, NOW, 'the new reading is dated');
    if (verdict.kind !== 'holds') assert.match(verdict.reason, /alice|Alice|profile/);
  });
}

test('at sign-in: named, a member, or refused naming the profile; an unreadable team refuses', async () => {
  assert.deepEqual(await judge(byName, 'unreadable').judged.admit('alice', 't'), { ok: true, teamsCheckedAt: null });
  assert.deepEqual(await judge(byTeam, 'member').judged.admit('alice', 't'), { ok: true, teamsCheckedAt: NOW });
  const refused = await judge(byTeam, 'not member').judged.admit('alice', 't');
  assert.equal(refused.ok, false);
  assert.match(
    refused.ok ? '' : refused.reason,
    /alice is not among the people the profile team-author names .* acme\/developers/,
  );
  const silent = await judge(byTeam, 'unreadable').judged.admit('alice', 't');
  assert.match(silent.ok ? '' : silent.reason, /could not be read from Gitea/);
});
