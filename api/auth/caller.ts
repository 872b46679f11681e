// The caller use cases see, derived from the request's Principal in this one place: REST tokens are users'
// (the assistant-tool server derives its assistant callers from its own tokens).
import type { Context } from 'hono';
import type { Caller } from '../../domain/shared/caller.js';
import type { AppEnv } from '../platform/app-env.js';
import { principalOf } from './middleware.js';
import type { Principal } from './principal.js';

export function callerFromPrincipal(principal: Principal): Caller {
  return {
    kind: 'user',
    userId: principal.userId,
    orgId: principal.orgId,
    role: principal.role,
    permissions: principal.permissions,
  };
}

/** The authenticated caller of a route behind `authenticate()`. */
export function callerOf(c: Context<AppEnv>): Caller {
  return callerFromPrincipal(principalOf(c));
}
