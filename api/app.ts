// The HTTP application: the platform middleware in order, probes, feature routes, the OpenAPI document
// and reference page, JSON 404 and the one error mapping. No sockets here; main.ts serves it.
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { STORAGE_OBJECTS_PATH } from '../infra/object-storage/local-object-storage.js';
import { HTTPException } from 'hono/http-exception';
import { getPath } from 'hono/utils/url';
import type { Logger } from '../infra/logging/logger.js';
import type { Metrics } from '../infra/metrics/metrics.js';
import type { AuthService } from './auth/auth-service.js';
import type { AppEnv, RouteInstaller } from './platform/app-env.js';
import type { RequestRateLimiter } from './platform/rate-limits.js';
import { clientAddress } from './platform/client-address.js';
import { createErrorHandler, defaultHook, type ErrorMapper } from './platform/errors.js';
import { registerHealthRoutes, type Readiness } from './platform/health.js';
import { registerMetricsRoute, requestMetrics } from './platform/metrics.js';
import { registerOpenApiRoutes, registerSecurityScheme } from './platform/openapi.js';
import { noStoreByDefault } from './platform/no-store.js';
import { requestId } from './platform/request-id.js';
import { requestLogger } from './platform/request-logger.js';
import { securityHeaders } from './platform/security-headers.js';
import { canonicalIdsPath } from './shared/params.js';

export type { AppEnv, RouteInstaller } from './platform/app-env.js';

export interface AppDeps {
  logger: Logger;
  config: {
    bodyLimitBytes: number;
    publicBaseUrl?: string;
    /** TRUSTED_PROXIES: the reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are believed. */
    trustedProxies?: readonly string[];
  };
  auth: AuthService;
  /** Limits authenticated requests (read by `authenticate()`); without it nothing is limited. */
  rateLimiter?: RequestRateLimiter;
  readiness: Readiness;
  /** Feature routes, installed after the probes and before the OpenAPI document. */
  routes?: RouteInstaller[];
  /** Turn errors of other layers (e.g. WrongExpectedVersion → Conflict) into AppErrors. */
  errorMappers?: ErrorMapper[];
  /** Request timing and `/metrics` (the token, when set, is required to scrape). */
  metrics?: { registry: Metrics; token?: string };
}

export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  // Ids in paths are canonicalised before routing: an upper-case spelling of a workspace id is that workspace.
  const app = new OpenAPIHono<AppEnv>({
    defaultHook,
    getPath: (request) => canonicalIdsPath(getPath(request)),
  });

  app.use(requestId());
  app.use(clientAddress({ trustedProxies: deps.config.trustedProxies ?? [] }));
  app.use(
    securityHeaders(
      deps.config.publicBaseUrl !== undefined ? { publicBaseUrl: deps.config.publicBaseUrl } : {},
    ),
  );
  app.use(noStoreByDefault());
  if (deps.metrics) app.use(requestMetrics(deps.metrics.registry));
  app.use(requestLogger({ logger: deps.logger }));
  app.use(async (c, next) => {
    c.set('auth', deps.auth);
    if (deps.rateLimiter) c.set('rateLimiter', deps.rateLimiter);
    await next();
  });
  const limitBody = bodyLimit({
    maxSize: deps.config.bodyLimitBytes,
    onError: () => {
      throw new HTTPException(413, { message: `Request body exceeds ${deps.config.bodyLimitBytes} bytes` });
    },
  });
  // GET and HEAD have no body to limit (@hono/node-server gives them none); asking for one anyway makes it
  // build the full Request of the runtime (6% of a list request's CPU).
  // Uploads to the local object store stream to disk under their own cap (the signed URL's size and the
  // storage route's limit), so the JSON body limit does not apply to them.
  app.use((c, next) =>
    c.req.method === 'GET' ||
    c.req.method === 'HEAD' ||
    (c.req.method === 'PUT' && c.req.path.startsWith(STORAGE_OBJECTS_PATH))
      ? next()
      : limitBody(c, next),
  );

  registerSecurityScheme(app);
  registerHealthRoutes(app, deps.readiness);
  if (deps.metrics)
    registerMetricsRoute(app, deps.metrics.registry, {
      ...(deps.metrics.token !== undefined ? { token: deps.metrics.token } : {}),
    });
  for (const install of deps.routes ?? []) install(app);
  registerOpenApiRoutes(app, {
    ...(deps.config.publicBaseUrl !== undefined ? { publicBaseUrl: deps.config.publicBaseUrl } : {}),
  });

  app.notFound((c) => c.json({ error: 'Not found' }, 404));
  app.onError(createErrorHandler({ mappers: deps.errorMappers ?? [], logger: deps.logger }));
  return app;
}
