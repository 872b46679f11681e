// The hono environment shared by every route: what middleware puts on the context for handlers to read.
// requestId, logger and auth are set for every request; principal only behind authenticate().
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ClientOrigin, TrustedProxies } from '../../infra/http/trusted-proxies.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { AuthService } from '../auth/auth-service.js';
import type { Principal } from '../auth/principal.js';
import type { RequestRateLimiter } from './rate-limits.js';

export interface AppVariables {
  requestId: string;
  /** Child logger bound to this request's id. */
  logger: Logger;
  /** The app's token service, so `authenticate()` needs no argument inside createApp. */
  auth: AuthService;
  /** Present only on routes behind `authenticate()`; read it with `principalOf(c)`. */
  principal: Principal;
  /** Who sent the request (the client behind TRUSTED_PROXIES), worked out on first use; read it with `clientOf(c)`. */
  client: ClientOrigin;
  /** The trusted proxies the client is worked out through (set first by `clientAddress`). */
  clientProxies: TrustedProxies;
  /** Counts authenticated requests per token and workspace; absent when rate limiting is off. */
  rateLimiter?: RequestRateLimiter;
}

export interface AppEnv {
  Variables: AppVariables;
}

/** What a slice gives the app for each of its raw routes: a function installing them. */
export type RouteInstaller = (app: OpenAPIHono<AppEnv>) => void;
