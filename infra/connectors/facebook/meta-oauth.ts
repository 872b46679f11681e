// Meta's OAuth for Facebook Login, Threads and Instagram Login: the app's id and secret, the Login dialog URL,
// token calls, and the long-lived tokens Threads and Instagram renew themselves (no refresh token).
import type { LiveConnectorOptions } from '../http.js';
import { authorizationUrl, pkce, refusedRefreshIsAuth } from '../oauth2.js';
import { ConnectorError, type AuthorizationRequest, type TokenSet } from '../port.js';
import { expiresAt, form, graphCall } from './graph.js';

export interface MetaAppCredentials {
  appId: string;
  appSecret: string;
}

export interface MetaApp {
  /** Environment variables still unset. */
  missingConfiguration(): string[];
  /** The app's id and secret, or a permanent error naming the variables to set. */
  credentials(): MetaAppCredentials;
}

export function metaApp(
  platform: string,
  config: { appId?: string | undefined; appSecret?: string | undefined },
  env: { appId: string; appSecret: string },
): MetaApp {
  return {
    missingConfiguration: () => [
      ...(config.appId ? [] : [env.appId]),
      ...(config.appSecret ? [] : [env.appSecret]),
    ],
    credentials() {
      if (!config.appId || !config.appSecret)
        throw new ConnectorError(
          'permanent',
          `${platform}: the live connector is not configured (${env.appId}, ${env.appSecret})`,
        );
      return { appId: config.appId, appSecret: config.appSecret };
    },
  };
}

/**
 * A Meta Login dialog URL. Facebook Login takes a PKCE S256 challenge in its manually built flow (`withPkce`;
 * the code is then redeemed only with the verifier). The Threads and Instagram authorization windows document
 * no PKCE parameters, so they get none and rely on the single-use state and our callback's own checks.
 */
export function metaAuthorizationUrl(
  dialogUrl: string,
  appId: string,
  request: AuthorizationRequest,
  scopes: string[],
  options: { withPkce?: boolean } = {},
): string {
  return authorizationUrl(dialogUrl, {
    client_id: appId,
    redirect_uri: request.callbackUrl,
    response_type: 'code',
    scope: scopes.join(','),
    state: request.state,
    ...(options.withPkce ? pkce(request.codeChallenge) : {}),
  });
}

/** A token call: the tokens and the app secret travel in the query, as Meta's token endpoints require. */
export async function graphTokenGet<T>(
  platform: string,
  url: string,
  query: Record<string, string>,
  options: LiveConnectorOptions,
): Promise<T> {
  const target = new URL(url);
  target.search = new URLSearchParams(query).toString();
  const { body } = await graphCall<T>(platform, { url: target.toString(), effect: 'read' }, options);
  return body;
}

/** Where a platform exchanges and renews long-lived tokens (Threads, Instagram), and with which grants. */
export interface LongLivedTokenFlow {
  platform: string;
  /** Where the code is exchanged (a form POST) for a token that lasts an hour. */
  codeExchangeUrl: string;
  /** Host of `access_token` (the long-lived exchange) and `refresh_access_token`. */
  tokenBaseUrl: string;
  /** `th_exchange_token`, `ig_exchange_token`. */
  exchangeGrant: string;
  /** `th_refresh_token`, `ig_refresh_token`. */
  refreshGrant: string;
  scopes: string[];
  options: LiveConnectorOptions;
}

async function longLivedToken(flow: LongLivedTokenFlow, path: string, query: Record<string, string>) {
  const body = await graphTokenGet<{ access_token: string; expires_in?: number }>(
    flow.platform,
    `${flow.tokenBaseUrl}/${path}`,
    query,
    flow.options,
  );
  const now = flow.options.now?.() ?? new Date();
  return {
    accessToken: body.access_token,
    // The long-lived token renews itself; there is no separate refresh token.
    refreshToken: null,
    expiresAt: expiresAt(now, body.expires_in),
    scopes: [...flow.scopes],
  };
}

/** The code's token lasts an hour; the long-lived one it is exchanged for lasts 60 days and can be renewed. */
export async function longLivedTokenFromCode(
  flow: LongLivedTokenFlow,
  app: MetaAppCredentials,
  code: string,
  callbackUrl: string,
): Promise<TokenSet> {
  const { body } = await graphCall<{ access_token?: string; data?: Array<{ access_token?: string }> }>(
    flow.platform,
    {
      method: 'POST',
      url: flow.codeExchangeUrl,
      body: form({
        client_id: app.appId,
        client_secret: app.appSecret,
        grant_type: 'authorization_code',
        redirect_uri: callbackUrl,
        code,
      }),
      effect: 'read',
    },
    flow.options,
  );
  // Documented as a flat object; newer Instagram answers wrap it in `data`.
  const shortLived = body.access_token ?? body.data?.[0]?.access_token;
  if (!shortLived)
    throw new ConnectorError('permanent', `${flow.platform}: the token exchange returned no access token`);
  return longLivedToken(flow, 'access_token', {
    grant_type: flow.exchangeGrant,
    client_secret: app.appSecret,
    access_token: shortLived,
  });
}

/** Renews the long-lived access token with itself; a refusal means reconnecting. */
export async function refreshLongLivedToken(flow: LongLivedTokenFlow, tokens: TokenSet): Promise<TokenSet> {
  const renewed = await refusedRefreshIsAuth(() =>
    longLivedToken(flow, 'refresh_access_token', {
      grant_type: flow.refreshGrant,
      access_token: tokens.accessToken,
    }),
  );
  return { ...renewed, scopes: tokens.scopes.length ? tokens.scopes : renewed.scopes };
}
