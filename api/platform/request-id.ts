// Request id middleware: honours a sane incoming X-Request-Id (so a caller can trace across services),
// otherwise generates one, and puts it on the context and on every response.
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';

export interface RequestIdOptions {
  headerName?: string;
  /** Ids outside this pattern are replaced: they end up in logs and headers, so no spaces or control chars. */
  accept?: RegExp;
  generate?: () => string;
}

export const saneRequestId = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function requestId(options: RequestIdOptions = {}): MiddlewareHandler<AppEnv> {
  const headerName = options.headerName ?? 'X-Request-Id';
  const accept = options.accept ?? saneRequestId;
  const generate = options.generate ?? (() => crypto.randomUUID());
  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header(headerName);
    const id = incoming !== undefined && accept.test(incoming) ? incoming : generate();
    c.set('requestId', id);
    c.header(headerName, id);
    await next();
    // Set again after: a handler returning its own Response object bypasses headers prepared on the context.
    c.res.headers.set(headerName, id);
  };
}
