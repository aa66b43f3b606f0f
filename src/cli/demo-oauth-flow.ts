// The MCP client's part of a per-user OAuth sign-in, for the demo and the tests: an in-memory
// OAuthClientProvider for the SDK's auth(), and a person's browser walking consent (approve), Gitea's
// sign-in and grant pages and the callback, stopping at the client's redirect URI.
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '../server/sdk-client.js';
import { fieldOf, type BrowserResponse, type ScriptedBrowser } from '../sandbox/scripted-browser.js';

/** The MCP client's side: an in-memory OAuthClientProvider, a public client on a loopback redirect. */
export class AgentClientProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  /** Which authorization server the sign-in started at: the SDK checks the callback against it. */
  discovery: OAuthDiscoveryState | undefined;

  constructor(
    readonly redirectUrl = 'http://127.0.0.1:9/callback',
    readonly name = 'warden-agent',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

export interface SignIn {
  /** The consent page the browser saw (HTML). */
  consentPage: string;
  /** The browser's last answer: the redirect to the client (with code or error), or a page. */
  final: BrowserResponse;
}

/**
 * Walks the browser part: consent (approve), Gitea's sign-in as `login`, Gitea's grant page, the
 * callback. Stops at the client's redirect URI.
 */
export async function browserSignIn(
  browser: ScriptedBrowser,
  authorizationUrl: URL,
  serveBase: string,
  login: string,
  password: string,
  redirectUrl: string,
): Promise<SignIn> {
  const consent = await browser.follow(authorizationUrl.toString(), redirectUrl);
  if (consent.status !== 200) return { consentPage: consent.body, final: consent };
  const decided = await browser.request(`${serveBase}/oauth/consent`, {
    form: {
      request: fieldOf(consent.body, 'request') ?? '',
      csrf: fieldOf(consent.body, 'csrf') ?? '',
      decision: 'approve',
    },
    headers: { origin: serveBase },
  });
  if (decided.location === null) return { consentPage: consent.body, final: decided };
  // Gitea: not signed in, so the sign-in form first.
  const signInForm = await browser.follow(decided.location, redirectUrl);
  const signedIn = await browser.request(new URL('/user/login', signInForm.url).toString(), {
    form: {
      _csrf: fieldOf(signInForm.body, '_csrf') ?? '',
      redirect_to: fieldOf(signInForm.body, 'redirect_to') ?? '/',
      user_name: login,
      password,
    },
  });
  const grantPage = await browser.follow(signedIn.location ?? '', redirectUrl);
  // Gitea skips its grant page for a confidential application the person granted before.
  if (grantPage.location !== null) return { consentPage: consent.body, final: grantPage };
  const granted = await browser.request(new URL('/login/oauth/grant', grantPage.url).toString(), {
    form: {
      _csrf: fieldOf(grantPage.body, '_csrf') ?? '',
      client_id: fieldOf(grantPage.body, 'client_id') ?? '',
      state: fieldOf(grantPage.body, 'state') ?? '',
      scope: fieldOf(grantPage.body, 'scope') ?? '',
      redirect_uri: fieldOf(grantPage.body, 'redirect_uri') ?? '',
      granted: 'true',
    },
  });
  const final = await browser.follow(granted.location ?? '', redirectUrl);
  return { consentPage: consent.body, final };
}
