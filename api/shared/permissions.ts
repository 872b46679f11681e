// Writes whose needed permission depends on the body (PATCH of a post or a group: content needs posts:draft,
// `status: approved` posts:approve, …) still have a baseline: a role that may not change posts at all is
// refused before the body is read, so no request of theirs is validated, executed or stored.
// The use cases check the same baseline and the body-specific permissions again, for every caller.
import type { MiddlewareHandler } from 'hono';
import type { Permission } from '../../domain/workspaces/roles.js';
import { requirePermission, secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';

export { postWritePermissions } from '../../commands/post-groups/post-group-use-cases.js';

/** 403 (in the error shape) unless the principal holds one of `anyOf`; runs before the route's validators. */
export function requireAnyPermission(anyOf: readonly Permission[]): MiddlewareHandler<AppEnv> {
  return async function requireAnyPermissionMiddleware(c, next) {
    requirePermission(c, ...anyOf);
    await next();
  };
}

/**
 * `secured()` for a workspace route whose exact permission depends on the body: the workspace and one of
 * `anyOf` are checked as middleware, the body-specific permissions in the handler.
 */
export function securedAnyOf(anyOf: readonly Permission[]) {
  const base = secured();
  // The permission check goes before the subscription's 402 (the last of secured()'s middleware).
  const [authenticated, workspace, billing] = base.middleware;
  return { ...base, middleware: [authenticated!, workspace!, requireAnyPermission(anyOf), billing!] };
}
