// Bearer authentication and workspace authorisation middleware, plus the one-line `secured()` that puts
// both on a createRoute and marks it with the bearer security scheme in the OpenAPI document.
import type { Context, MiddlewareHandler } from 'hono';
import { Forbidden } from '../../domain/shared/errors.js';
import type { Permission } from '../../domain/workspaces/roles.js';
import { billingAccessMiddleware } from '../billing/access-middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { rateLimitKeysOf, routeGroupOf } from '../platform/rate-limits.js';
import { InvalidToken, type AuthService } from './auth-service.js';
import type { Principal } from './principal.js';

/** Name of the security scheme registered in the OpenAPI document. */
export const bearerSchemeName = 'bearerAuth';
export const bearerSecurity = [{ [bearerSchemeName]: [] as string[] }];

export interface AuthenticateOptions {
  /** Defaults to the AuthService createApp puts on the context. */
  auth?: AuthService;
  /** Extra challenge parameters, e.g. `{ resource_metadata: 'https://…/.well-known/oauth-protected-resource/mcp' }`. */
  challengeParams?: Record<string, string>;
}

// RFC 6750 token68 syntax; anything else in the header is malformed rather than a token.
const bearerHeader = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

function challenge(params: Record<string, string>): string {
  const parts = Object.entries(params).map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`);
  return parts.length > 0 ? `Bearer ${parts.join(', ')}` : 'Bearer';
}

/**
 * Requires a valid bearer token and puts its Principal on the context; 401 otherwise, also for a token of a
 * workspace the user is no longer an active member of (the role comes from the membership, not the token).
 * Then counts the request against the token's and its workspace's rate limits (429 once either is spent).
 */
export function authenticate(options: AuthenticateOptions = {}): MiddlewareHandler<AppEnv> {
  const base = options.challengeParams ?? {};
  return async function authenticateMiddleware(c, next) {
    const auth = options.auth ?? c.get('auth');
    if (!auth) throw new Error('authenticate: no AuthService given and none on the context');
    const header = c.req.header('Authorization');
    if (header === undefined || header.trim() === '') {
      throw new InvalidToken('Missing bearer token', challenge(base));
    }
    const match = bearerHeader.exec(header.trim());
    if (!match?.[1]) {
      throw new InvalidToken(
        'Malformed Authorization header',
        challenge({ ...base, error: 'invalid_token', error_description: 'Malformed Authorization header' }),
      );
    }
    let principal: Principal;
    try {
      principal = await auth.verify(match[1]);
    } catch (error) {
      if (error instanceof InvalidToken) {
        throw new InvalidToken(
          error.message,
          challenge({ ...base, error: 'invalid_token', error_description: error.message }),
        );
      }
      throw error;
    }
    c.set('principal', principal);
    // Here rather than in each route's list, so every authenticated route is limited, `secured()` or not.
    await c.get('rateLimiter')?.consume(routeGroupOf(c.req.method, c.req.path), rateLimitKeysOf(principal));
    await next();
  };
}

export interface RequireWorkspaceOptions {
  /** Path parameter holding the workspace id. */
  param?: string;
}

/**
 * Requires a workspace-scoped principal whose workspace is the one in the path and whose role grants
 * `permission`; 403 otherwise. The same 403 for another workspace whether or not it exists. A token its workspace
 * refused answers that refusal there (403 `membership_suspended`, 410 `workspace_deleted`).
 */
export function requireWorkspace(
  permission?: Permission,
  options: RequireWorkspaceOptions = {},
): MiddlewareHandler<AppEnv> {
  const param = options.param ?? 'orgId';
  return async function requireWorkspaceMiddleware(c, next) {
    const principal = principalOf(c);
    // Lower-cased like every id at the edge (token ids are lower case already).
    const orgId = c.req.param(param)?.toLowerCase();
    // The token's workspace refused it (suspended member, deleted workspace): that workspace's routes say why.
    const refusal = principal.workspaceRefusal;
    if (refusal && (orgId === undefined || orgId === refusal.orgId)) throw refusal.error;
    if (principal.orgId === null) {
      throw new Forbidden('This token is not scoped to a workspace; exchange it at POST /v1/auth/token');
    }
    if (orgId !== undefined && orgId !== principal.orgId) {
      throw new Forbidden('This token does not give access to that workspace');
    }
    if (permission !== undefined) requirePermission(c, permission);
    await next();
  };
}

/** 403 unless the principal's role grants one of the permissions (for checks that depend on the body). */
export function requirePermission(c: Context<AppEnv>, ...anyOf: Permission[]): void {
  const granted = principalOf(c).permissions;
  if (!anyOf.some((p) => granted.includes(p))) throw new Forbidden('Your role does not allow this action');
}

/** The authenticated principal; a route that forgot `authenticate()` fails loudly instead of leaking. */
export function principalOf(c: Context<AppEnv>): Principal {
  const principal = c.get('principal') as Principal | undefined;
  if (!principal) throw new Error('principalOf: route is not behind authenticate()');
  return principal;
}

export interface SecuredOptions extends AuthenticateOptions {
  /** Require a workspace-scoped token for the `{orgId}` in the path (default true). */
  workspace?: boolean;
  permission?: Permission;
}

/**
 * Spread into createRoute: `createRoute({ ...secured({ permission: 'posts:read' }), method, path, … })`
 * so enforcement and the document's `security` cannot drift apart.
 */
export function secured(options: SecuredOptions = {}) {
  const { workspace = true, permission, ...rest } = options;
  const middleware: MiddlewareHandler<AppEnv>[] = [authenticate(rest)];
  // The subscription's 402 comes last, so a role without the permission still gets its 403 first.
  if (workspace) middleware.push(requireWorkspace(permission), billingAccessMiddleware());
  return { middleware, security: bearerSecurity };
}
