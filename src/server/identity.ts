// Who the token really is: GET /user compared with the profile's authenticated_username. Until the
// check passed (and whenever it failed) mutating calls fail closed; reads may proceed.
import { missingScopes } from '../gitea/errors.js';
import { GiteaReadError } from '../gitea/http.js';
import type { FactReader } from '../gitea/gitea-identity.js';
import { sameLogin } from '../policy/guards/guard-facts.js';

export type IdentityStatus =
  /** GET /user answered with the profile's login. */
  | { state: 'verified'; login: string }
  /** GET /user answered with another login: terminal until the profile changes. */
  | { state: 'mismatch'; login: string; expected: string | null }
  /**
   * Not checked yet, no token, Gitea did not answer, or (cause token_scope) the token lacks the
   * read:user scope GET /user needs: checked again before the next mutating call.
   */
  | { state: 'unverified'; detail: string; cause?: 'token_scope' };

export class IdentityVerifier {
  private status: IdentityStatus = { state: 'unverified', detail: 'The Gitea identity has not been checked yet.' };
  private pending: Promise<IdentityStatus> | null = null;

  constructor(
    private readonly reader: FactReader | null,
    private readonly expected: string | null,
  ) {}

  /** A person signed in through OAuth: their login was read from Gitea (GET /user) when the token was issued. */
  static signedIn(reader: FactReader, login: string): IdentityVerifier {
    const verifier = new IdentityVerifier(reader, login);
    verifier.status = { state: 'verified', login };
    return verifier;
  }

  current(): IdentityStatus {
    return this.status;
  }

  /** The verified login, or null. */
  login(): string | null {
    return this.status.state === 'verified' ? this.status.login : null;
  }

  /** Waits for a check under way; checks again unless already verified or mismatched. */
  async ensure(): Promise<IdentityStatus> {
    if (this.pending) return this.pending;
    return this.status.state === 'unverified' ? this.verify() : this.status;
  }

  /** The status once a check under way has ended; starts none. */
  settled(): Promise<IdentityStatus> {
    return this.pending ?? Promise.resolve(this.status);
  }

  /** Checks now; a check already under way is shared, never doubled. */
  verify(): Promise<IdentityStatus> {
    this.pending ??= this.check()
      .then((status) => (this.status = status))
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private async check(): Promise<IdentityStatus> {
    if (this.reader === null) return { state: 'unverified', detail: 'No Gitea token is configured for this profile.' };
    let answer;
    try {
      answer = await this.reader.get('/user');
    } catch (error) {
      // A GiteaReadError's message and hint name the origin and the cause's code, never the token.
      const cause = error instanceof GiteaReadError ? [error.message, error.hint].filter(Boolean).join('. ') : null;
      return { state: 'unverified', detail: `Gitea did not answer GET /user${cause ? `: ${cause}` : '.'}` };
    }
    // A scope refusal is no statement about who the token is (Gitea's tokenRequiresScopes runs first).
    const scopes = missingScopes(answer.status, answer.data);
    if (scopes) {
      return {
        state: 'unverified',
        cause: 'token_scope',
        detail: `The token lacks the scope ${scopes.join(', ')} that GET /user needs, so Gitea will not say whose it is.`,
      };
    }
    const login = (answer.data as { login?: unknown } | null)?.login;
    if (answer.status === 404) {
      return {
        state: 'unverified',
        detail:
          'GET /user answered HTTP 404: GITEA_URL is not the base URL of a Gitea (the server adds /api/v1 itself).',
      };
    }
    if (answer.status !== 200 || typeof login !== 'string' || login === '') {
      return {
        state: 'unverified',
        detail: `GET /user answered HTTP ${answer.status} without a login; check the token.`,
      };
    }
    if (!sameLogin(login, this.expected)) return { state: 'mismatch', login, expected: this.expected };
    return { state: 'verified', login };
  }
}
