// The AT Protocol OAuth client metadata document (its URL is the client id), apart from the connector so the
// route serving it does not load the Bluesky SDK.

export const blueskyOAuthScope = 'atproto transition:generic';

/** The client metadata document served at GET /v1/marketing/oauth/bluesky/client-metadata (its URL is the client id). */
export function blueskyClientMetadata(publicBaseUrl: string) {
  const base = publicBaseUrl.replace(/\/$/, '');
  return {
    client_id: `${base}/v1/marketing/oauth/bluesky/client-metadata`,
    client_name: 'Social publishing',
    client_uri: base,
    redirect_uris: [`${base}/v1/marketing/oauth/bluesky/callback`] as [string],
    scope: blueskyOAuthScope,
    grant_types: ['authorization_code', 'refresh_token'] as ['authorization_code', 'refresh_token'],
    response_types: ['code'] as ['code'],
    application_type: 'web' as const,
    // A public client: no private key to guard; DPoP binds every token to a key kept in the session store.
    token_endpoint_auth_method: 'none' as const,
    dpop_bound_access_tokens: true,
  };
}
