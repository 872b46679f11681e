// Answers are not kept by browsers or proxies unless a route says otherwise: tokens (POST /v1/auth/token),
// OAuth callbacks and authorization redirects carry secrets, and so may any answer about a workspace.
import type { Context, MiddlewareHandler } from 'hono';

/** Marks this answer not to be stored (`Cache-Control: no-store`, and `Pragma` for HTTP/1.0 caches). */
export function preventCaching(c: Context): void {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
}

/**
 * `Cache-Control: no-store` on every answer whose route set no policy of its own (the JWKS and the storage
 * downloads set theirs); error answers included.
 */
export function noStoreByDefault(): MiddlewareHandler {
  return async function noStoreByDefaultMiddleware(c, next) {
    await next();
    const headers = c.res.headers;
    if (headers.has('Cache-Control')) return;
    // On the answer's own headers: c.header() on a finished answer copies it into a new Response, whose body
    // then becomes a stream that @hono/node-server reads back chunk by chunk (a sixth of a list request's CPU).
    try {
      headers.set('Cache-Control', 'no-store');
      headers.set('Pragma', 'no-cache');
    } catch {
      // Immutable headers (a Response from fetch): the copy it is.
      preventCaching(c);
    }
  };
}
