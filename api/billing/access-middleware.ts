// Billing access (402): the runtime's one policy (commands/billing/access.ts), which operations ask before their use
// case (api/shared/operation-adapters.ts) and the few hand-written workspace routes ask for their writes.
// The policy instance is per runtime (provided by the billing slice, `billingAccessService`): `installBillingAccess`
// puts it on every request's context (install it before the routes).
import type { Context, MiddlewareHandler } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { BillingAccess } from '../../commands/billing/access.js';
import type { AppEnv } from '../platform/app-env.js';
import { service } from '../shared/service.js';
import type { BackgroundWorker } from '../shared/slice.js';

const variable = 'billingAccess';

type WithBillingAccess = { [variable]?: BillingAccess };

/** The runtime's one policy, provided by the billing slice with its clock. */
export const billingAccessService = service<BillingAccess>()('billing access');

/** The runtime's policy on this request's context, if installed. */
export function billingAccessOf(c: Context<AppEnv>): BillingAccess | undefined {
  return (c.var as WithBillingAccess)[variable];
}

/** A route installer putting the runtime's policy on every request's context; install it before any route. */
export function installBillingAccess(policy: () => BillingAccess | undefined) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.use(async (c, next) => {
      const access = policy();
      if (access) (c.set as (key: string, value: unknown) => void)(variable, access);
      await next();
    });
  };
}

/**
 * For the few hand-written workspace routes (api/auth/middleware.ts's `secured()`): a write refused with 402
 * while the workspace's subscription does not allow writes (overdue: `subscription_overdue_read_only`). Reads
 * pass. Operations declare their own rule instead (api/shared/operation.ts). Does nothing without a policy.
 */
export function billingAccessMiddleware(): MiddlewareHandler<AppEnv> {
  return async function billingAccessCheck(c, next) {
    const access = billingAccessOf(c);
    const method = c.req.method;
    const orgId = c.req.param('orgId')?.toLowerCase();
    if (access && orgId && method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS')
      await access.check(orgId, 'write');
    await next();
  };
}

/**
 * Caches the runtime's policy while it runs (server mode): LISTENs for the subscriptions projection's
 * notifications, and stops listening (nothing cached) when stopped. Without it every check reads the read model.
 */
export function billingAccessCacheWorker(): BackgroundWorker<typeof billingAccessService> {
  return {
    name: 'billing-access-cache',
    async start(ctx) {
      if (ctx.mode !== 'server') return undefined;
      const access = ctx.use(billingAccessService);
      await access.listen(ctx.database.url);
      return { stop: () => access.close() };
    },
  };
}
