// The HTTP application: the platform middleware in order, probes, feature routes, the OpenAPI document
// and reference page, JSON 404 and the one error mapping. No sockets here; main.ts serves it.
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from '../infra/logging/logger.js';
import type { AuthService } from './auth/auth-service.js';
import type { AppEnv } from './platform/app-env.js';
import { createErrorHandler, defaultHook, type ErrorMapper } from './platform/errors.js';
import { registerHealthRoutes, type Readiness } from './platform/health.js';
import { registerOpenApiRoutes, registerSecurityScheme } from './platform/openapi.js';
import { requestId } from './platform/request-id.js';
import { requestLogger } from './platform/request-logger.js';

export type { AppEnv } from './platform/app-env.js';

export type RouteInstaller = (app: OpenAPIHono<AppEnv>) => void;

export interface AppDeps {
  logger: Logger;
  config: { bodyLimitBytes: number; publicBaseUrl?: string };
  auth: AuthService;
  readiness: Readiness;
  /** Feature routes, installed after the probes and before the OpenAPI document. */
  routes?: RouteInstaller[];
  /** Turn errors of other layers (e.g. WrongExpectedVersion → Conflict) into AppErrors. */
  errorMappers?: ErrorMapper[];
}

export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook });

  app.use(requestId());
  app.use(requestLogger({ logger: deps.logger }));
  app.use(async (c, next) => {
    c.set('auth', deps.auth);
    await next();
  });
  app.use(
    bodyLimit({
      maxSize: deps.config.bodyLimitBytes,
      onError: () => {
        throw new HTTPException(413, { message: `Request body exceeds ${deps.config.bodyLimitBytes} bytes` });
      },
    }),
  );

  registerSecurityScheme(app);
  registerHealthRoutes(app, deps.readiness);
  for (const install of deps.routes ?? []) install(app);
  registerOpenApiRoutes(app, {
    ...(deps.config.publicBaseUrl !== undefined ? { publicBaseUrl: deps.config.publicBaseUrl } : {}),
  });

  app.notFound((c) => c.json({ error: 'Not found' }, 404));
  app.onError(createErrorHandler({ mappers: deps.errorMappers ?? [], logger: deps.logger }));
  return app;
}
