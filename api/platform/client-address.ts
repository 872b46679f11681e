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

/** Works out the client once per request (createApp installs it first) for `clientOf` to read. */
export function clientAddress(options: { trustedProxies?: readonly string[] } = {}): MiddlewareHandler {
  const proxies = new TrustedProxies(options.trustedProxies ?? []);
  return async function clientAddressMiddleware(c, next) {
    c.set('client', resolve(c, proxies));
    await next();
  };
}

/** This request's client; outside createApp (no middleware ran) the socket peer, forwarded headers ignored. */
export function clientOf(c: Context): ClientOrigin {
  return (c.get('client') as ClientOrigin | undefined) ?? resolve(c, noProxies);
}

/**
 * The key this request's client counts under in per-address limits (an IPv6 client by its /64); one shared
 * key, `unknown`, when there is no address (`app.request` in tests).
 */
export function clientLimitKeyOf(c: Context): string {
  const { address } = clientOf(c);
  return address === null ? 'unknown' : addressLimitKey(address);
}
