// The one place a request's client address comes from, for everything that limits or logs per address: the
// socket peer, or behind TRUSTED_PROXIES the address they forwarded (infra/http/trusted-proxies.ts).
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { addressLimitKey, TrustedProxies, type ClientOrigin } from '../../infra/http/trusted-proxies.js';

/** The socket peer's address; undefined without a socket (`app.request` in tests). */
export function socketPeerOf(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

const noProxies = new TrustedProxies();

function resolve(c: Context, proxies: TrustedProxies): ClientOrigin {
  return proxies.clientOf(
    socketPeerOf(c),
    c.req.header('x-forwarded-for'),
    c.req.header('x-forwarded-proto'),
  );
}

/**
 * Hands each request the trusted proxies (createApp installs it first); the client is worked out on first use
 * by `clientOf` and kept, so requests that never ask (most of them) pay nothing.
 */
export function clientAddress(options: { trustedProxies?: readonly string[] } = {}): MiddlewareHandler {
  const proxies = new TrustedProxies(options.trustedProxies ?? []);
  return async function clientAddressMiddleware(c, next) {
    c.set('clientProxies', proxies);
    await next();
  };
}

/** This request's client; outside createApp (no middleware ran) the socket peer, forwarded headers ignored. */
export function clientOf(c: Context): ClientOrigin {
  const known = c.get('client') as ClientOrigin | undefined;
  if (known) return known;
  const client = resolve(c, (c.get('clientProxies') as TrustedProxies | undefined) ?? noProxies);
  c.set('client', client);
  return client;
}

/** Whether a trusted proxy said the request came over https (never, and nothing read, without trusted proxies). */
export function forwardedHttpsOf(c: Context): boolean {
  const proxies = c.get('clientProxies') as TrustedProxies | undefined;
  return proxies !== undefined && proxies.any && clientOf(c).forwardedHttps;
}

/**
 * The key this request's client counts under in per-address limits (an IPv6 client by its /64); one shared
 * key, `unknown`, when there is no address (`app.request` in tests).
 */
export function clientLimitKeyOf(c: Context): string {
  const { address } = clientOf(c);
  return address === null ? 'unknown' : addressLimitKey(address);
}
