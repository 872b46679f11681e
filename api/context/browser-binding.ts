// Binds a Notion authorization to the browser that started it, as the social accounts' OAuth does: oauth/start's
// answer sets an HttpOnly cookie (named after the state's digest, holding the state) on the Notion callback's path,
// and the callback completes the authorization only when the browser brings it back. Someone who starts connecting
// Notion in their workspace and sends the authorization URL to another person gets nothing: that person's browser
// has no such cookie, and no other site can set one for this service. SameSite=Lax, which the top-level redirect
// from Notion still carries; Secure (with the `__Secure-` prefix) when the request came over https.
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { secretDigest } from '../../infra/crypto/digests.js';
import { contextAuthorizationMinutes } from '../../infra/notion/stores.js';
import { clientOf } from '../platform/client-address.js';
import type { AppEnv } from '../platform/app-env.js';
import { notionCallbackPath } from './services.js';

const cookieName = (state: string) => `notion_oauth_${secretDigest(state).slice(0, 16)}`;
/** The callback's folder: the cookie goes only with requests to the Notion OAuth paths. */
const cookiePath = notionCallbackPath.replace(/[^/]+$/, '');

function overHttps(c: Context<AppEnv>): boolean {
  return new URL(c.req.url).protocol === 'https:' || clientOf(c).forwardedHttps;
}

/** oauth/start's middleware: after a successful answer, the cookie for its state. */
export const bindNotionAuthorization: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (c.res.status !== 200) return;
  const answer = (await c.res.clone().json()) as { data?: { state?: unknown } };
  const state = answer.data?.state;
  if (typeof state !== 'string') return;
  const secure = overHttps(c);
  setCookie(c, cookieName(state), state, {
    path: cookiePath,
    httpOnly: true,
    sameSite: 'Lax',
    secure,
    maxAge: contextAuthorizationMinutes * 60,
    ...(secure ? { prefix: 'secure' as const } : {}),
  });
  c.header('Cache-Control', 'no-store');
};

/** Whether the callback's browser started this authorization (it brings the cookie back). */
export function startedInThisBrowser(c: Context<AppEnv>, state: string): boolean {
  const name = cookieName(state);
  return getCookie(c, name) === state || getCookie(c, name, 'secure') === state;
}

/** The cookie is of no further use once the callback ran. */
export function forgetBrowserBinding(c: Context<AppEnv>, state: string): void {
  const secure = overHttps(c);
  setCookie(c, cookieName(state), '', {
    path: cookiePath,
    httpOnly: true,
    sameSite: 'Lax',
    secure,
    maxAge: 0,
    ...(secure ? { prefix: 'secure' as const } : {}),
  });
}
