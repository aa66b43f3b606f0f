// What per-user OAuth adds to each MCP call: verifying the bearer token (SHA-256 of it, one indexed
// read of token and grant in the SQLite store) and opening the person's Gitea token, AES-256-GCM.
// Cached: the opened Gitea token is kept per grant in the process (what a busy replica sees);
// uncached: a fresh service each call, so every call decrypts (the first call after a start or a
// Gitea refresh). The refresh at Gitea itself is not timed: it happens once an hour per person.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientDocuments } from '../src/auth/client-documents.js';
import { DEFAULT_DOCUMENT_POLICY } from '../src/auth/document-fetch.js';
import { OAuthService } from '../src/auth/oauth-service.js';
import { newToken, Sealer, tokenHash } from '../src/auth/sealing.js';
import { openSqlite } from '../src/auth/sqlite-driver.js';
import { TokenStore } from '../src/auth/token-store.js';
import { GiteaOAuthClient } from '../src/gitea/oauth-upstream.js';
import { nowMicroseconds, overRounds, progress, quantile, type Spread } from './stats.js';

export interface TokenVerificationFigures {
  store: 'sqlite';
  calls: number;
  cachedP50Microseconds: Spread;
  cachedP99Microseconds: Spread;
  uncachedP50Microseconds: Spread;
  uncachedP99Microseconds: Spread;
}

export async function benchTokenVerification(rounds: number, calls: number): Promise<TokenVerificationFigures> {
  progress(`token verification: ${rounds} rounds of ${calls} calls, cached and uncached`);
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-oauth-'));
  const store = await TokenStore.open(openSqlite(join(dir, 'tokens.sqlite')));
  try {
    const sealer = new Sealer('bench-encryption-key-0123456789abcdef0123456789');
    const service = () =>
      new OAuthService({
        store,
        sealer,
        // Never called: the Gitea token below is far from expiry.
        upstream: new GiteaOAuthClient({
          baseUrl: 'http://127.0.0.1:9',
          clientId: 'bench',
          clientSecret: 'bench',
          timeoutMs: 1000,
        }),
        giteaUrl: 'http://127.0.0.1:9',
        issuer: 'http://127.0.0.1:8741/',
        resource: 'http://127.0.0.1:8741/mcp',
        callbackUrl: 'http://127.0.0.1:8741/oauth/callback',
        // Named by login: a call checks the grant's profile and person without reading Gitea.
        access: { profileName: 'bench', users: ['alice'], teams: [] },
        describe: { role: 'author', may: [], never: [], repositories: 'any', paths: [] },
        scopes: ['read:user'],
        documents: new ClientDocuments(DEFAULT_DOCUMENT_POLICY),
        teamsMaxAgeSeconds: 300,
      });
    const access = newToken('gwa');
    const grantId = 'bench-grant';
    await store.putGrant({
      id: grantId,
      login: 'alice',
      clientId: 'bench-client',
      resource: 'http://127.0.0.1:8741/mcp',
      scopes: [],
      giteaAccessSealed: sealer.seal('gitea-access-token-of-alice', `${grantId}:gitea_access`),
      giteaRefreshSealed: sealer.seal('gitea-refresh-token-of-alice', `${grantId}:gitea_refresh`),
      giteaExpiresAt: Date.now() + 24 * 3600 * 1000,
      version: 1,
      revoked: false,
      profile: 'bench',
      teamsCheckedAt: null,
    });
    await store.putToken({
      tokenHash: tokenHash(access),
      kind: 'access',
      grantId,
      clientId: 'bench-client',
      expiresAt: Date.now() + 24 * 3600 * 1000,
      revoked: false,
      rotated: false,
    });
    const figures = await overRounds(rounds, async () => {
      const warm = service();
      await warm.verify(access);
      const cached = await timed(calls, () => warm.verify(access));
      const uncached = await timed(calls, () => service().verify(access));
      return {
        cachedP50Microseconds: quantile(cached, 0.5),
        cachedP99Microseconds: quantile(cached, 0.99),
        uncachedP50Microseconds: quantile(uncached, 0.5),
        uncachedP99Microseconds: quantile(uncached, 0.99),
      };
    });
    return { store: 'sqlite', calls, ...figures };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timed(calls: number, work: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = nowMicroseconds();
    await work();
    samples.push(nowMicroseconds() - start);
  }
  return samples;
}
