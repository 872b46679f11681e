// OAuth 2.0 plumbing the live connectors share: app settings, the authorization URL (with PKCE where the
// platform has it), the callback's code, form-encoded token requests, token sets and refused refreshes.
import type { PlatformRequest, PlatformResponse } from './http.js';
import { ConnectorError, isConnectorError, type TokenSet } from './port.js';

/** One setting a live connector needs, under the environment variable that supplies it. */
export interface AppSetting {
  env: string;
  value: string | undefined;
}

/** The environment variables still unset, in the order given. */
export function missingSettings(settings: readonly AppSetting[]): string[] {
  return settings.filter((s) => !s.value).map((s) => s.env);
}

/** The settings' values, or a permanent error naming the environment variables still unset. */
export function requireSettings<const T extends readonly AppSetting[]>(
  platform: string,
  settings: T,
): { [K in keyof T]: string } {
  const missing = missingSettings(settings);
  if (missing.length > 0)
    throw new ConnectorError('permanent', `${platform}: not configured (set ${missing.join(', ')})`);
  return settings.map((s) => s.value) as { [K in keyof T]: string };
}

/** The platform's authorization URL with these query parameters. */
export function authorizationUrl(authorizeUrl: string, params: Record<string, string>): string {
  const url = new URL(authorizeUrl);
  url.search = new URLSearchParams(params).toString();
  return url.toString();
}

/** PKCE with S256: the challenge goes with the authorization URL, the verifier with the code. */
export function pkce(codeChallenge: string): { code_challenge: string; code_challenge_method: 'S256' } {
  return { code_challenge: codeChallenge, code_challenge_method: 'S256' };
}

function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

/** The callback's code; a refusal (the user denied) or a callback without a code is permanent. */
export function callbackCode(platform: string, params: Record<string, string>): string {
  const { code, error } = params;
  if (error)
    throw new ConnectorError('permanent', `${platform}: access was not granted (${truncate(error, 64)})`);
  if (!code) throw new ConnectorError('permanent', `${platform}: the callback brought no authorization code`);
  return code;
}

/**
 * A token endpoint request: a form POST. Exchanging a code or a refresh token creates nothing that a second
 * try would duplicate, hence `read`.
 */
export function tokenEndpointRequest(
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): PlatformRequest {
  return {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
    effect: 'read',
  };
}

/** The standard token answer (RFC 6749 §5.1 and §5.2). */
export interface OAuth2TokenBody {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
  error?: string;
  error_description?: string;
}

/** The answer when it grants an access token; null when the platform refused (a 4xx, or `error` in a 200). */
export function grantedTokenBody<T extends OAuth2TokenBody>(response: PlatformResponse<T>): T | null {
  const body = response.body && typeof response.body === 'object' ? response.body : null;
  return response.status < 400 && typeof body?.access_token === 'string' && !body.error ? body : null;
}

/** A refused refresh token means reconnecting (`auth`); a refused code is the user's to try again. */
export function refusedGrantKind(
  grant: 'code' | 'refresh',
  errorCode: string | undefined,
): 'auth' | 'permanent' {
  return grant === 'refresh' && errorCode === 'invalid_grant' ? 'auth' : 'permanent';
}

/** `seconds` from `now` as an ISO time; null when the platform did not say. */
export function secondsFrom(now: Date, seconds: number | undefined): string | null {
  return typeof seconds === 'number' ? new Date(now.getTime() + seconds * 1000).toISOString() : null;
}

/**
 * Tokens from a token answer. Platforms send a refresh token with the first grant and not always with a
 * refresh, so a refresh answer without one keeps the previous refresh token (and scopes).
 */
export function tokenSetFrom(
  body: OAuth2TokenBody,
  previous: TokenSet | null,
  options: { now: Date; defaultScopes: string[] },
): TokenSet {
  return {
    accessToken: body.access_token ?? '',
    refreshToken: body.refresh_token ?? previous?.refreshToken ?? null,
    expiresAt: secondsFrom(options.now, body.expires_in),
    scopes: body.scope
      ? body.scope.split(/[\s,]+/).filter(Boolean)
      : (previous?.scopes ?? options.defaultScopes),
  };
}

/** The refresh token to refresh with; without one the account has to be connected again. */
export function refreshTokenOf(platform: string, tokens: TokenSet): string {
  if (!tokens.refreshToken)
    throw new ConnectorError('auth', `${platform}: no refresh token was granted; connect the account again`);
  return tokens.refreshToken;
}

/**
 * Runs a refresh; a refusal for good (the token was revoked, expired or used already) means reconnecting,
 * so a `permanent` failure becomes `auth`.
 */
export async function refusedRefreshIsAuth<T>(
  refresh: () => Promise<T>,
  message: (refused: ConnectorError) => string = (refused) => refused.message,
): Promise<T> {
  try {
    return await refresh();
  } catch (error) {
    if (isConnectorError(error) && error.kind === 'permanent')
      throw new ConnectorError('auth', message(error), error.details);
    throw error;
  }
}
