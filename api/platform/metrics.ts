// `/metrics` in Prometheus's text format, and the middleware that times every request by its route pattern.
//
// Who may scrape: with METRICS_TOKEN set, a caller bearing it; without, only a caller on this machine
// (a loopback peer with no forwarding headers, so a reverse proxy on the same host does not open it to the
// world). Everyone else gets 404, as if there were nothing here.
import { timingSafeEqual } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { matchedRoutes } from 'hono/route';
import type { Metrics } from '../../infra/metrics/metrics.js';
import type { AppEnv } from './app-env.js';

/**
 * Times each request; the route is the pattern it matched (`/v1/orgs/:orgId/…`; `/mcp`, registered for every
 * method, under its own path), `unmatched` for 404s. Middleware (any method, a path ending in `*`) names no route.
 */
export function requestMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const routes = matchedRoutes(c);
      const handler =
        routes.findLast((route) => route.method !== 'ALL') ??
        routes.findLast((route) => !route.path.endsWith('*'));
      metrics.httpRequest(
        c.req.method,
        handler?.path ?? 'unmatched',
        c.res.status,
        (performance.now() - started) / 1000,
      );
    }
  };
}

const loopback = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function registerMetricsRoute(
  app: OpenAPIHono<AppEnv>,
  metrics: Metrics,
  options: { token?: string },
): void {
  // Not in the OpenAPI document: it is for operators' scrapers, not API clients.
  app.get('/metrics', async (c) => {
    const bearer = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    const allowed = options.token
      ? bearer !== undefined && sameSecret(bearer, options.token)
      : isLocalUnforwarded(peerAddress(c), c.req.raw.headers);
    if (!allowed) return c.json({ error: 'Not found' }, 404);
    const { contentType, body } = await metrics.scrape();
    return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
  });
}

/** The socket peer's address; undefined outside @hono/node-server (e.g. `app.request` in tests). */
function peerAddress(c: Parameters<typeof getConnInfo>[0]): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

function isLocalUnforwarded(remoteAddress: string | undefined, headers: Headers): boolean {
  if (!remoteAddress || !loopback.test(remoteAddress)) return false;
  return !headers.has('x-forwarded-for') && !headers.has('forwarded') && !headers.has('x-real-ip');
}
