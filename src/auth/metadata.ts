// What this server publishes about itself: the authorization server metadata (RFC 8414, with RFC
// 9207's iss flag and the client metadata document flag of MCP 2025-11-25) and the protected
// resource metadata of the namespace (RFC 9728). The scopes are Gitea token scopes: a grant carries
// exactly the ones the person consented to, and the Gitea token behind it carries the same.

export interface ServerUrls {
  /** The public base URL, no trailing slash (e.g. https://warden.example). */
  base: string;
  /** The issuer identifier: the base URL with its slash, as every iss and every client compares it. */
  issuer: string;
  /** The MCP endpoint: the resource every token is bound to. */
  resource: string;
}

export function issuerOf(base: string): string {
  return new URL(base).href;
}

export function authorizationServerMetadata(urls: ServerUrls, scopes: readonly string[]): Record<string, unknown> {
  const methods = ['none', 'client_secret_post', 'client_secret_basic'];
  return {
    issuer: urls.issuer,
    authorization_endpoint: `${urls.base}/authorize`,
    token_endpoint: `${urls.base}/token`,
    // Dynamic client registration: deprecated by the 2026-07-28 revision, kept for clients without a document.
    registration_endpoint: `${urls.base}/register`,
    revocation_endpoint: `${urls.base}/revoke`,
    scopes_supported: [...scopes],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: methods,
    revocation_endpoint_auth_methods_supported: methods,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

export function protectedResourceMetadata(
  urls: ServerUrls,
  scopes: readonly string[],
  resourceName: string,
): Record<string, unknown> {
  return {
    resource: urls.resource,
    authorization_servers: [urls.issuer],
    scopes_supported: [...scopes],
    bearer_methods_supported: ['header'],
    resource_name: resourceName,
  };
}

/** Where RFC 9728 puts the metadata of a resource: /.well-known/oauth-protected-resource + its path. */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}
