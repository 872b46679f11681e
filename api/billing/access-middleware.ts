// Billing access (402) at the HTTP edge and in the tool server: both ask the one policy (commands/billing/access.ts)
// what a request or tool call needs of the workspace's subscription, and refuse it as the policy says.
// The policy instance is per runtime (made by the billing slice): `installBillingAccess` puts it on every
// request's context (install it before the routes); `enforceBillingAccess` runs where the workspace and the
// caller are known (requireWorkspace, after the permission check, so a 403 still comes before a 402).
import type { Context, MiddlewareHandler } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { accessKindOfRequest, accessKindOfTool, BillingAccess } from '../../commands/billing/access.js';
import type { AppEnv } from '../platform/app-env.js';
import type { BackgroundWorker, SliceContext } from '../shared/slice.js';
import type { AnyTool } from '../shared/tools.js';

const variable = 'billingAccess';

type WithBillingAccess = { [variable]?: BillingAccess };

/**
 * One policy per runtime, keyed by the runtime's route services (the same object in the context the routes and
 * the workers get): the billing slice creates it with its clock (`billingAccessFor`), the edge looks it up.
 */
const perRuntime = new WeakMap<object, BillingAccess>();

/** The runtime's policy, created on first call with the billing clock. */
export function billingAccessFor(
  ctx: Pick<SliceContext, 'services' | 'readModels'>,
  now: () => Date,
): BillingAccess {
  let access = perRuntime.get(ctx.services);
  if (!access) {
    access = new BillingAccess({ db: ctx.readModels, now });
    perRuntime.set(ctx.services, access);
  }
  return access;
}

/** The runtime's policy if the billing slice made one (a service without the billing slice has none). */
export function registeredBillingAccess(ctx: Pick<SliceContext, 'services'>): BillingAccess | undefined {
  return perRuntime.get(ctx.services);
}

/** The runtime's policy on this request's context, if installed. */
export function billingAccessOf(c: Context<AppEnv>): BillingAccess | undefined {
  return (c.var as WithBillingAccess)[variable];
}

/** A route installer putting the runtime's policy on every request's context; install it before any route. */
export function installBillingAccess(ctx: Pick<SliceContext, 'services'>) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.use(async (c, next) => {
      const access = registeredBillingAccess(ctx);
      if (access) (c.set as (key: string, value: unknown) => void)(variable, access);
      await next();
    });
  };
}

/**
 * Refuses the request with 402 when the workspace's subscription does not allow it now: writes of a read-only
 * workspace (`subscription_overdue_read_only`), paid actions without a usable subscription
 * (`subscription_required`). Reads, billing, leaving or deleting the workspace and one's own notifications
 * pass. Does nothing when no policy is installed.
 */
export async function enforceBillingAccess(c: Context<AppEnv>): Promise<void> {
  const access = billingAccessOf(c);
  if (!access) return;
  const principal = c.get('principal') as { userId: string } | undefined;
  const needed = await accessKindOfRequest({
    method: c.req.method,
    path: c.req.path,
    userId: principal?.userId ?? null,
    body: () => c.req.json(),
  });
  if (needed) await access.check(needed.orgId, needed.kind);
}

/** `enforceBillingAccess` as a middleware, for routes that do not go through requireWorkspace. */
export function billingAccessMiddleware(): MiddlewareHandler<AppEnv> {
  return async function billingAccessCheck(c, next) {
    await enforceBillingAccess(c);
    await next();
  };
}

/** The tool server's check before a tool runs (its input parsed): the same policy as the routes it mirrors. */
export async function enforceToolBillingAccess(
  ctx: Pick<SliceContext, 'services'>,
  orgId: string,
  tool: AnyTool,
  input: unknown,
): Promise<void> {
  const access = registeredBillingAccess(ctx);
  const kind = accessKindOfTool(tool, input);
  if (access && kind) await access.check(orgId, kind);
}

/**
 * Caches the runtime's policy while it runs (server mode): LISTENs for the subscriptions projection's
 * notifications, and stops listening (nothing cached) when stopped. Without it every check reads the read model.
 */
export function billingAccessCacheWorker(clockOf: (ctx: SliceContext) => () => Date): BackgroundWorker {
  return {
    name: 'billing-access-cache',
    async start(ctx) {
      if (ctx.mode !== 'server') return undefined;
      const access = billingAccessFor(ctx, clockOf(ctx));
      await access.listen(ctx.database.url);
      return { stop: () => access.close() };
    },
  };
}
