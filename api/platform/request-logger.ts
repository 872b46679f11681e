// Structured request logging: one child logger per request bound to its id, one line per response.
// Only method, path (no query string), status and duration are logged, never headers or bodies.
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../infra/logging/logger.js';
import type { AppEnv } from './app-env.js';

export interface RequestLoggerOptions {
  logger: Logger;
  /** Paths logged at debug instead of info (probes would drown the log). */
  quietPaths?: readonly string[];
}

export function requestLogger(options: RequestLoggerOptions): MiddlewareHandler<AppEnv> {
  const quiet = new Set(options.quietPaths ?? ['/healthz', '/readyz']);
  return async function requestLoggerMiddleware(c, next) {
    const started = performance.now();
    const logger = options.logger.child({ reqId: c.get('requestId') });
    c.set('logger', logger);
    await next();
    const status = c.res.status;
    const entry = {
      method: c.req.method,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    };
    if (status >= 500) logger.error(entry, 'request failed');
    else if (quiet.has(c.req.path)) logger.debug(entry, 'request');
    else logger.info(entry, 'request');
  };
}
