// "Sign in with <provider>": an external OpenID Connect provider (OIDC_ISSUER, OIDC_CLIENT_ID, optional
// OIDC_CLIENT_SECRET) through `openid-client`: the authorization code flow with PKCE, its state, nonce and code
// verifier sealed in a short-lived cookie of the browser that started it. The provider must vouch for the
// address (`email_verified: true`); the person is then the user of that address, as with an e-mail link.
import { isLoopbackHostname } from '../../infra/http/loopback.js';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import * as client from 'openid-client';
import { z } from 'zod';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import type { TokenCipher } from '../../infra/crypto/token-cipher.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorPage } from './pages.js';
import { htmlPage, userForVerifiedEmail } from './routes.js';
import { cookieSettings, safeReturnTo, type SignInSessions } from './sessions.js';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret?: string | undefined;
  /** On the button; default: the issuer's host name. */
  name?: string | undefined;
}

export const oidcStartPath = '/sign-in/oidc';
export const oidcCallbackPath = '/sign-in/oidc/callback';
const flowCookie = 'sign_in_oidc';
const flowMinutes = 10;
const sealedFor = 'sign-in:oidc-flow';

const Flow = z.object({
  state: z.string(),
  nonce: z.string(),
  verifier: z.string(),
  returnTo: z.string(),
  startedAt: z.number(),
});

export function providerName(settings: OidcSettings): string {
  return settings.name ?? new URL(settings.issuer).hostname;
}

/** Plain http only for an issuer on this machine (development and tests). */
function insecureAllowed(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && isLoopbackHostname(url.hostname);
}

export function createOidcRoutes(deps: {
  settings: OidcSettings;
  sessions: SignInSessions;
  cipher: TokenCipher;
  commands: CommandDeps;
  publicBaseUrl: string;
  logger: Logger;
}) {
  const { settings } = deps;
  const redirectUri = `${deps.publicBaseUrl}${oidcCallbackPath}`;
  let configuration: Promise<client.Configuration> | undefined;
  /** The provider's metadata, discovered on first use (and again after a failure). */
  const config = () => {
    configuration ??= client
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        settings.clientSecret,
        undefined,
        insecureAllowed(settings.issuer) ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
    return configuration;
  };

  const failed = (c: Context, message: string, status: 400 | 403 | 503 = 400) =>
    htmlPage(c, status, errorPage('Sign-in did not complete', message));

  return (app: OpenAPIHono<AppEnv>): void => {
    app.get(oidcStartPath, async (c) => {
      let provider: client.Configuration;
      try {
        provider = await config();
      } catch (error) {
        deps.logger.error({ err: error }, 'identity provider discovery failed');
        return failed(c, `${providerName(settings)} cannot be reached just now. Try again later.`, 503);
      }
      const flow = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier: client.randomPKCECodeVerifier(),
        returnTo: safeReturnTo(c.req.query('return_to')),
        startedAt: Date.now(),
      };
      const { options } = cookieSettings(deps.publicBaseUrl, flowMinutes * 60);
      setCookie(c, flowCookie, deps.cipher.encrypt(JSON.stringify(flow), sealedFor), options);
      const url = client.buildAuthorizationUrl(provider, {
        redirect_uri: redirectUri,
        scope: 'openid email',
        response_type: 'code',
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
      });
      return c.redirect(url.href, 302);
    });

    app.get(oidcCallbackPath, async (c) => {
      const { options, prefix } = cookieSettings(deps.publicBaseUrl, 0);
      const sealed = getCookie(c, flowCookie, prefix);
      deleteCookie(c, flowCookie, options);
      let flow: z.infer<typeof Flow> | null;
      try {
        flow = sealed ? Flow.parse(JSON.parse(deps.cipher.decrypt(sealed, sealedFor))) : null;
      } catch {
        flow = null;
      }
      if (!flow || Date.now() - flow.startedAt > flowMinutes * 60_000)
        return failed(c, 'This sign-in was not started in this browser, or took too long. Start again.');
      if (c.req.query('error'))
        return failed(c, `${providerName(settings)} did not sign you in (${c.req.query('error')}).`);
      let claims: Record<string, unknown> | undefined;
      try {
        const provider = await config();
        // The URL the provider sent the browser to, as the provider sees it (behind PUBLIC_BASE_URL).
        const current = new URL(redirectUri);
        current.search = new URL(c.req.url).search;
        const tokens = await client.authorizationCodeGrant(provider, current, {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims();
      } catch (error) {
        deps.logger.warn({ err: error }, 'identity provider sign-in refused');
        return failed(c, `${providerName(settings)} did not sign you in. Start again.`);
      }
      const email = z.email().safeParse(claims?.email);
      if (!email.success || claims?.email_verified !== true)
        return failed(
          c,
          `${providerName(settings)} did not confirm an e-mail address of yours; sign in with an e-mail link instead.`,
          403,
        );
      const user = await userForVerifiedEmail(
        deps.commands,
        email.data,
        c.get('requestId'),
        'identity_provider',
      );
      await deps.sessions.start(c, user);
      return c.redirect(safeReturnTo(flow.returnTo), 303);
    });
  };
}
