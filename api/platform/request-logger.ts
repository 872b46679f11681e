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
    const reqId = c.get('requestId');
    // The child logger is made when the request first logs something of its own: making one (its bindings
    // redacted, pino's serialised prefix) was a fifth of a probe's CPU, and most requests log only their line.
    let child: Logger | undefined;
    const bound = () => (child ??= options.logger.child({ reqId }));
    c.set(
      'logger',
      new Proxy({} as Logger, {
        get(_target, property) {
          const logger = bound();
          const value: unknown = Reflect.get(logger, property, logger);
          return typeof value === 'function'
            ? (value as (...args: unknown[]) => unknown).bind(logger)
            : value;
        },
      }),
    );
    await next();
    const status = c.res.status;
    const entry = {
      method: c.req.method,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    };
    // The same line either way: a child's bindings come first, as `reqId` does here.
    const logger = child ?? options.logger;
    const line = child ? entry : { reqId, ...entry };
    if (status >= 500) logger.error(line, 'request failed');
    else if (quiet.has(c.req.path)) logger.debug(line, 'request');
    else logger.info(line, 'request');
  };
}
