// The token store's records and every statement on them, the same for SQLite and PostgreSQL.
// One-shot things (a parked request's upstream state, an authorization code, a refresh token's
// rotation) are taken with one conditional UPDATE ... RETURNING, so two replicas cannot both take them.
import { migrate } from './migrations.js';
import { asNumber, asText, type Row, type SqlDriver } from './sql-driver.js';

export interface ClientRow {
  clientId: string;
  /** The registration as the client sent it and we answered it, without the secret. */
  metadata: Record<string, unknown>;
  secretSealed: string | null;
}

export type ParkStatus = 'parked' | 'approved' | 'done';

export interface ParkRow {
  id: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  clientState: string | null;
  scopes: string[];
  resource: string;
  /** Hash of the consent cookie: the browser that saw the consent page. */
  browserHash: string | null;
  upstreamStateHash: string | null;
  upstreamVerifierSealed: string | null;
  status: ParkStatus;
  expiresAt: number;
  /** The client's name and where that identity comes from ('registered', or the document's URL), for the consent page. */
  clientName: string | null;
  clientSource: string | null;
}

export interface GrantRow {
  id: string;
  login: string;
  clientId: string;
  resource: string;
  scopes: string[];
  giteaAccessSealed: string | null;
  giteaRefreshSealed: string | null;
  giteaExpiresAt: number;
  version: number;
  revoked: boolean;
  /** The profile the grant was given under; null for a grant older than that binding (refused). */
  profile: string | null;
  /** When team membership last let the person in (ms); null when the profile names them. */
  teamsCheckedAt: number | null;
  /** Why the grant ended (revoked), for the refusal of its next call or refresh; set by revokeGrant only. */
  endedReason?: string | null;
}

export interface CodeRow {
  codeHash: string;
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  used: boolean;
  expiresAt: number;
}

export type TokenKind = 'access' | 'refresh';

export interface TokenRow {
  tokenHash: string;
  kind: TokenKind;
  grantId: string;
  clientId: string;
  expiresAt: number;
  revoked: boolean;
  rotated: boolean;
}

export class TokenStore {
  private constructor(readonly driver: SqlDriver) {}

  /** Opens the store and brings its schema up to date. */
  static async open(driver: SqlDriver): Promise<TokenStore> {
    await migrate(driver);
    return new TokenStore(driver);
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  async putClient(client: ClientRow): Promise<void> {
    await this.q('INSERT INTO oauth_clients (client_id, metadata, secret_sealed, created_at) VALUES ($1, $2, $3, $4)', [
      client.clientId,
      JSON.stringify(client.metadata),
      client.secretSealed,
      Date.now(),
    ]);
  }

  async getClient(clientId: string): Promise<ClientRow | undefined> {
    const row = (await this.q('SELECT * FROM oauth_clients WHERE client_id = $1', [clientId]))[0];
    return (
      row && {
        clientId: String(row.client_id),
        metadata: JSON.parse(String(row.metadata)) as Record<string, unknown>,
        secretSealed: asText(row.secret_sealed),
      }
    );
  }

  async putPark(park: ParkRow): Promise<void> {
    await this.q(
      `INSERT INTO oauth_parks (id, client_id, redirect_uri, code_challenge, client_state, scopes, resource, browser_hash,
        upstream_state_hash, upstream_verifier_sealed, status, expires_at, client_name, client_source)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        park.id,
        park.clientId,
        park.redirectUri,
        park.codeChallenge,
        park.clientState,
        park.scopes.join(' '),
        park.resource,
        park.browserHash,
        park.upstreamStateHash,
        park.upstreamVerifierSealed,
        park.status,
        park.expiresAt,
        park.clientName,
        park.clientSource,
      ],
    );
  }

  async getPark(id: string): Promise<ParkRow | undefined> {
    const row = (await this.q('SELECT * FROM oauth_parks WHERE id = $1', [id]))[0];
    return row && parkOf(row);
  }

  /** The consent page was shown to the browser holding this cookie (its hash). */
  async bindParkToBrowser(id: string, browserHash: string): Promise<void> {
    await this.q("UPDATE oauth_parks SET browser_hash = $2 WHERE id = $1 AND status = 'parked'", [id, browserHash]);
  }

  /** Consent given: the park now waits for Gitea's callback with this state. False when it was no longer parked. */
  async approvePark(id: string, upstreamStateHash: string, verifierSealed: string): Promise<boolean> {
    const rows = await this.q(
      "UPDATE oauth_parks SET status = 'approved', upstream_state_hash = $2, upstream_verifier_sealed = $3 WHERE id = $1 AND status = 'parked' RETURNING id",
      [id, upstreamStateHash, verifierSealed],
    );
    return rows.length === 1;
  }

  /** Ends a park (denied, refused, or finished); returns it when it was still open. */
  async closePark(id: string): Promise<ParkRow | undefined> {
    const row = (
      await this.q("UPDATE oauth_parks SET status = 'done' WHERE id = $1 AND status <> 'done' RETURNING *", [id])
    )[0];
    return row && parkOf(row);
  }

  /** The approved park with this upstream state, taken once: a replayed state finds nothing. */
  async takeParkByUpstreamState(stateHash: string): Promise<ParkRow | undefined> {
    const row = (
      await this.q(
        "UPDATE oauth_parks SET status = 'done' WHERE upstream_state_hash = $1 AND status = 'approved' RETURNING *",
        [stateHash],
      )
    )[0];
    return row && parkOf(row);
  }

  async putGrant(grant: GrantRow): Promise<void> {
    await this.q(
      `INSERT INTO oauth_grants (id, login, client_id, resource, scopes, gitea_access_sealed, gitea_refresh_sealed, gitea_expires_at,
        version, revoked, created_at, profile, teams_checked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        grant.id,
        grant.login,
        grant.clientId,
        grant.resource,
        grant.scopes.join(' '),
        grant.giteaAccessSealed,
        grant.giteaRefreshSealed,
        grant.giteaExpiresAt,
        grant.version,
        grant.revoked ? 1 : 0,
        Date.now(),
        grant.profile,
        grant.teamsCheckedAt,
      ],
    );
  }

  async getGrant(id: string): Promise<GrantRow | undefined> {
    const row = (await this.q('SELECT * FROM oauth_grants WHERE id = $1', [id]))[0];
    return row && grantOf(row);
  }

  /** Stores refreshed Gitea tokens unless another replica refreshed first (then false: read the grant again). */
  async replaceGiteaTokens(
    id: string,
    fromVersion: number,
    accessSealed: string,
    refreshSealed: string,
    expiresAt: number,
  ): Promise<boolean> {
    const rows = await this.q(
      `UPDATE oauth_grants SET gitea_access_sealed = $3, gitea_refresh_sealed = $4, gitea_expires_at = $5, version = version + 1
        WHERE id = $1 AND version = $2 AND revoked = 0 RETURNING id`,
      [id, fromVersion, accessSealed, refreshSealed, expiresAt],
    );
    return rows.length === 1;
  }

  /** Team membership was read from Gitea now and still lets the person in. */
  async markTeamsChecked(id: string, at: number): Promise<void> {
    await this.q('UPDATE oauth_grants SET teams_checked_at = $2 WHERE id = $1', [id, at]);
  }

  /** Ends a grant, saying why: its tokens stop working and the sealed Gitea tokens are wiped. */
  async revokeGrant(id: string, reason: string): Promise<void> {
    await this.q(
      `UPDATE oauth_grants SET revoked = 1, gitea_access_sealed = NULL, gitea_refresh_sealed = NULL, version = version + 1,
        ended_reason = COALESCE(ended_reason, $2) WHERE id = $1`,
      [id, reason],
    );
    await this.q('UPDATE oauth_tokens SET revoked = 1 WHERE grant_id = $1', [id]);
  }

  async putCode(code: CodeRow): Promise<void> {
    await this.q(
      'INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, ' +
        'code_challenge, resource, used, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [
        code.codeHash,
        code.grantId,
        code.clientId,
        code.redirectUri,
        code.codeChallenge,
        code.resource,
        code.used ? 1 : 0,
        code.expiresAt,
      ],
    );
  }

  async getCode(codeHash: string): Promise<CodeRow | undefined> {
    const row = (await this.q('SELECT * FROM oauth_codes WHERE code_hash = $1', [codeHash]))[0];
    return row && codeOf(row);
  }

  /** Marks the code used; undefined when it was used already (a replay). */
  async takeCode(codeHash: string): Promise<CodeRow | undefined> {
    const row = (
      await this.q('UPDATE oauth_codes SET used = 1 WHERE code_hash = $1 AND used = 0 RETURNING *', [codeHash])
    )[0];
    return row && codeOf(row);
  }

  async putToken(token: TokenRow): Promise<void> {
    await this.q(
      'INSERT INTO oauth_tokens (token_hash, kind, grant_id, client_id, expires_at, revoked, rotated) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [
        token.tokenHash,
        token.kind,
        token.grantId,
        token.clientId,
        token.expiresAt,
        token.revoked ? 1 : 0,
        token.rotated ? 1 : 0,
      ],
    );
  }

  async getToken(tokenHash: string): Promise<TokenRow | undefined> {
    const row = (await this.q('SELECT * FROM oauth_tokens WHERE token_hash = $1', [tokenHash]))[0];
    return row && tokenOf(row);
  }

  /** An access token with its grant, in one read: the per-call verification. */
  async accessTokenWithGrant(tokenHash: string): Promise<{ token: TokenRow; grant: GrantRow } | undefined> {
    const row = (
      await this.q(
        `SELECT t.token_hash, t.kind, t.grant_id, t.client_id AS token_client_id, t.expires_at AS token_expires_at, t.revoked AS token_revoked,
        t.rotated, g.* FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1 AND t.kind = 'access'`,
        [tokenHash],
      )
    )[0];
    if (!row) return undefined;
    const token = tokenOf({
      ...row,
      client_id: row.token_client_id,
      expires_at: row.token_expires_at,
      revoked: row.token_revoked,
    });
    return { token, grant: grantOf(row) };
  }

  /** Takes a refresh token for rotation, once; undefined when it was revoked or rotated already. */
  async rotateRefreshToken(tokenHash: string): Promise<TokenRow | undefined> {
    const row = (
      await this.q(
        "UPDATE oauth_tokens SET rotated = 1 WHERE token_hash = $1 AND kind = 'refresh' AND rotated = 0 AND revoked = 0 RETURNING *",
        [tokenHash],
      )
    )[0];
    return row && tokenOf(row);
  }

  async revokeToken(tokenHash: string): Promise<void> {
    await this.q('UPDATE oauth_tokens SET revoked = 1 WHERE token_hash = $1', [tokenHash]);
  }

  private q(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return this.driver.query(sql, params);
  }
}

const words = (value: unknown): string[] =>
  String(value ?? '')
    .split(' ')
    .filter(Boolean);
const flag = (value: unknown): boolean => asNumber(value) !== 0;

function parkOf(row: Row): ParkRow {
  return {
    id: String(row.id),
    clientId: String(row.client_id),
    redirectUri: String(row.redirect_uri),
    codeChallenge: String(row.code_challenge),
    clientState: asText(row.client_state),
    scopes: words(row.scopes),
    resource: String(row.resource),
    browserHash: asText(row.browser_hash),
    upstreamStateHash: asText(row.upstream_state_hash),
    upstreamVerifierSealed: asText(row.upstream_verifier_sealed),
    status: String(row.status) as ParkStatus,
    expiresAt: asNumber(row.expires_at),
    clientName: asText(row.client_name),
    clientSource: asText(row.client_source),
  };
}

function grantOf(row: Row): GrantRow {
  return {
    id: String(row.id),
    login: String(row.login),
    clientId: String(row.client_id),
    resource: String(row.resource),
    scopes: words(row.scopes),
    giteaAccessSealed: asText(row.gitea_access_sealed),
    giteaRefreshSealed: asText(row.gitea_refresh_sealed),
    giteaExpiresAt: asNumber(row.gitea_expires_at),
    version: asNumber(row.version),
    revoked: flag(row.revoked),
    profile: asText(row.profile),
    teamsCheckedAt:
      row.teams_checked_at === null || row.teams_checked_at === undefined ? null : asNumber(row.teams_checked_at),
    endedReason: asText(row.ended_reason),
  };
}

function codeOf(row: Row): CodeRow {
  return {
    codeHash: String(row.code_hash),
    grantId: String(row.grant_id),
    clientId: String(row.client_id),
    redirectUri: String(row.redirect_uri),
    codeChallenge: String(row.code_challenge),
    resource: String(row.resource),
    used: flag(row.used),
    expiresAt: asNumber(row.expires_at),
  };
}

function tokenOf(row: Row): TokenRow {
  return {
    tokenHash: String(row.token_hash),
    kind: String(row.kind) as TokenKind,
    grantId: String(row.grant_id),
    clientId: String(row.client_id),
    expiresAt: asNumber(row.expires_at),
    revoked: flag(row.revoked),
    rotated: flag(row.rotated),
  };
}
