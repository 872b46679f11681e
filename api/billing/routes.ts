// Subscription routes (owners and admins, permission billing:manage): GET ORG/billing (the overview: plan,
// subscription, trial length, credits, costs and recent history), GET ORG/billing/checkout-data (plans and credit
// packs with their provider price ids), and POST cancel, pause, resume, change-plan and update-payment. The
// credit and history parts come from the credits and history services when present, else empty.
import { createRoute, type OpenAPIHono, type z } from '@hono/zod-openapi';
import {
  cancelSubscription,
  changePlan,
  pauseSubscription,
  resumeSubscription,
  updatePaymentMethod,
  type SubscriptionDeps,
} from '../../commands/billing/subscription-use-cases.js';
import { ensureStarted } from '../../commands/billing/subscription-commands.js';
import {
  currentPeriodOf,
  subscriptionView,
  type SubscriptionState,
} from '../../domain/billing/subscription.js';
import { authorize } from '../../domain/shared/caller.js';
import type { CheckoutTokens } from '../../infra/billing/checkout-token.js';
import type { BillingCatalog, Plan } from '../../infra/billing/config.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import { answered, commandMetadata, writeRequest } from '../shared/write.js';
import type { RouteServices } from '../shared/services.js';
import {
  billingOverviewSchema,
  cancelAnswerSchema,
  changePlanAnswerSchema,
  changePlanBody,
  checkoutDataSchema,
  statusAnswerSchema,
  updatePaymentAnswerSchema,
  updatePaymentBody,
} from './schemas.js';

type Overview = z.infer<typeof billingOverviewSchema>;

/** Where GET ORG/billing takes its credit and history parts from; each absent part answers empty. */
export interface BillingOverviewSources {
  credits?: {
    summaryOf(orgId: string): Promise<
      Pick<Overview, 'creditBalance' | 'usageSummary'> & {
        recentCreditTransactions?: Overview['recentCreditTransactions'];
      }
    >;
  };
  history?: {
    recentTransactions(orgId: string): Promise<Overview['recentBillingTransactions']>;
    recentInvoices(orgId: string): Promise<Overview['recentInvoices']>;
    recentSubscriptionEvents(orgId: string): Promise<Overview['recentSubscriptionEvents']>;
  };
}

export interface SubscriptionRouteDeps extends BillingOverviewSources {
  subscriptions: SubscriptionDeps;
  /** The checkout token checkout-data answers (the webhook accepts a first binding only with it). */
  checkoutTokens: CheckoutTokens;
}

const base = '/v1/orgs/{orgId}/billing';
const managing = (orgId: string) => ({ orgId, permission: 'billing:manage', scope: null }) as const;

const overviewRoute = createRoute({
  ...secured({ permission: 'billing:manage' }),
  method: 'get',
  path: base,
  operationId: 'getBilling',
  tags: ['billing'],
  summary: "The workspace's plan, subscription, credits and recent billing history",
  description:
    'Owners and admins. A workspace created before billing (or whose trial has not started yet) starts its ' +
    'trial on this read. Prices and amounts are integers in minor units.',
  request: { params: orgParams },
  responses: {
    200: jsonResponse(dataOf(billingOverviewSchema), 'The billing overview'),
    ...errorResponses(400, 401, 403),
  },
});

const checkoutDataRoute = createRoute({
  ...secured({ permission: 'billing:manage' }),
  method: 'get',
  path: `${base}/checkout-data`,
  operationId: 'getCheckoutData',
  tags: ['billing'],
  summary: 'Plans and credit packs with their provider price ids, and the checkout token, for the checkout',
  description:
    'Owners and admins. Prices are integers in minor units of the configured currency. `checkoutToken` goes ' +
    "into the checkout's custom data with the workspace id (`customData: { orgId, checkoutToken }`): a " +
    'workspace not subscribed yet is bound only by a payment whose custom data carries a valid one (it expires ' +
    'at `checkoutTokenExpiresAt`, 24 h; ask again for a later checkout).',
  request: { params: orgParams },
  responses: {
    200: jsonResponse(dataOf(checkoutDataSchema), 'What the checkout offers'),
    ...errorResponses(400, 401, 403),
  },
});

const cancelRoute = createRoute({
  ...secured({ permission: 'billing:manage' }),
  method: 'post',
  path: `${base}/subscription/cancel`,
  operationId: 'cancelSubscription',
  tags: ['billing'],
  summary: 'Cancel: a trial at once, a paid subscription at the period end',
  description: 'Owners and admins. 409 `subscription_canceled` when it is canceled already.',
  request: { params: orgParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(dataOf(cancelAnswerSchema), 'Whether it ends at the period end'),
    ...errorResponses(400, 401, 403, 409, 422, 503),
  },
});

const pauseRoute = createRoute({
  ...secured({ permission: 'billing:manage' }),
  method: 'post',
  path: `${base}/subscription/pause`,
  operationId: 'pauseSubscription',
  tags: ['billing'],
  summary: 'Pause at the period end (`pausing`, then `paused`)',
  description:
    'Owners and admins. 409 `trialing` while trialing, `past_due` while overdue, `cancel_scheduled` when a ' +
    'cancellation is scheduled, `subscription_canceled` when canceled. Pausing again answers the status.',
  request: { params: orgParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(dataOf(statusAnswerSchema), 'The status'),
    ...errorResponses(400, 401, 403, 409, 422, 503),
  },
});

const resumeRoute = createRoute({
  ...secured({ permission: 'billing:manage' }),
  method: 'post',
  path: `${base}/subscription/resume`,
  operationId: 'resumeSubscription',
  tags: ['billing'],
  summary: 'Resume: take back a scheduled pause or cancellation, or resume a paused subscription',
  description: 'Owners and admins. With nothing to resume, nothing changes and the status is returned.',
  request: { params: orgParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(dataOf(statusAnswerSchema), 'The status'),
    ...errorResponses(400, 401, 403, 422, 503),
  },
});

const changePlanRoute = createRoute({
  ...secured({ permission: 'billing:manage' }),
  method: 'post',
  path: `${base}/change-plan`,
  operationId: 'changePlan',
  tags: ['billing'],
  summary: 'Switch the paid subscription to another plan price (monthly or annual)',
  description:
    'Owners and admins. 400 naming body.priceId for a price that is not a plan price; 409 ' +
    '`no_provider_subscription` before the workspace subscribed, 409 with the status unless active or pausing.',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(changePlanBody) },
  responses: {
    200: jsonResponse(dataOf(changePlanAnswerSchema), 'Whether the plan changed'),
    ...errorResponses(400, 401, 403, 409, 413, 422, 503),
  },
});

const updatePaymentRoute = createRoute({
  ...secured({ permission: 'billing:manage' }),
  method: 'post',
  path: `${base}/subscription/update-payment`,
  operationId: 'updatePaymentMethod',
  tags: ['billing'],
  summary: 'A payment-provider transaction or URL to update the payment method',
  description:
    'Owners and admins; allowed while the workspace is read-only. 409 `no_provider_subscription` before the ' +
    'workspace subscribed.',
  request: {
    params: orgParams,
    headers: idempotencyHeaders,
    body: { required: false, content: { 'application/json': { schema: updatePaymentBody } } },
  },
  responses: {
    200: jsonResponse(dataOf(updatePaymentAnswerSchema), 'The transaction and where to pay'),
    ...errorResponses(400, 401, 403, 409, 413, 422, 503),
  },
});

const planOf = (plan: Plan) => ({
  id: plan.id,
  key: plan.key,
  name: plan.name,
  monthlyPrice: plan.monthlyPrice,
  monthlyCredits: plan.monthlyCredits,
  teamsEnabled: plan.teamsEnabled,
  maxMembers: plan.maxMembers,
});

/** Without the credits service: nothing used, the plan's allowance over the current period. */
function emptyCredits(state: SubscriptionState, catalog: BillingCatalog) {
  const period = currentPeriodOf(state);
  const allowance = catalog.plan(period?.planKey ?? '')?.monthlyCredits ?? 0;
  return {
    creditBalance: { monthly: allowance, purchased: 0, allowance, total: allowance },
    usageSummary: {
      periodStart: period?.start ?? '',
      periodEnd: period?.end ?? '',
      periodUsedCredits: 0,
      periodAllowanceCredits: allowance,
      periodPurchasedCredits: 0,
      periodBudgetCredits: allowance,
      periodRemainingCredits: allowance,
      usagePercent: 0,
    },
    recentCreditTransactions: [],
  };
}

export function subscriptionRoutes(services: RouteServices, deps: SubscriptionRouteDeps) {
  const billing = deps.subscriptions;
  const { catalog } = billing;
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(overviewRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      authorize(callerOf(c), managing(orgId));
      const { state } = await ensureStarted(billing, orgId, commandMetadata(c, { now: billing.now }));
      const now = billing.now();
      const credits = deps.credits ? await deps.credits.summaryOf(orgId) : emptyCredits(state, catalog);
      const [transactions, invoices, events, providerCredit] = await Promise.all([
        deps.history?.recentTransactions(orgId) ?? [],
        deps.history?.recentInvoices(orgId) ?? [],
        deps.history?.recentSubscriptionEvents(orgId) ?? [],
        state.providerCustomerId
          ? billing.provider.customerCreditBalances(state.providerCustomerId).catch(() => undefined)
          : undefined,
      ]);
      const plan = state.planKey ? catalog.plan(state.planKey) : undefined;
      const overview: Overview = {
        plan: plan ? planOf(plan) : null,
        subscription: subscriptionView(state, now, catalog.config, orgId),
        trialDurationDays: catalog.config.trialDays,
        creditBalance: credits.creditBalance,
        usageSummary: credits.usageSummary,
        creditActionCosts: catalog.config.creditActionCosts.map((cost) => ({
          key: cost.key,
          label: cost.label,
          description: cost.description,
          credits: cost.credits,
        })),
        recentCreditTransactions: credits.recentCreditTransactions ?? [],
        recentBillingTransactions: transactions,
        recentSubscriptionEvents: events,
        recentInvoices: invoices,
        ...(providerCredit && providerCredit.length > 0 ? { providerCreditBalance: providerCredit } : {}),
      };
      return c.json({ data: overview }, 200);
    });

    app.openapi(checkoutDataRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      authorize(callerOf(c), managing(orgId));
      const { state } = await ensureStarted(billing, orgId, commandMetadata(c, { now: billing.now }));
      const config = catalog.config;
      const checkout = deps.checkoutTokens.issue(orgId, billing.now());
      return c.json(
        {
          data: {
            providerCustomerId: state.providerCustomerId,
            checkoutToken: checkout.token,
            checkoutTokenExpiresAt: checkout.expiresAt,
            trialDurationDays: config.trialDays,
            plans: config.plans.map((p) => ({
              key: p.key,
              name: p.name,
              providerPriceId: p.providerPriceId,
              providerPriceIdAnnual: p.providerPriceIdAnnual,
              monthlyPrice: p.monthlyPrice,
              annualPrice: p.annualPrice,
              monthlyCredits: p.monthlyCredits,
              teamsEnabled: p.teamsEnabled,
              maxMembers: p.maxMembers,
            })),
            creditPacks: config.creditPacks.map((p) => ({
              key: p.key,
              name: p.name,
              providerPriceId: p.providerPriceId,
              credits: p.credits,
              price: p.price,
            })),
          },
        },
        200,
      );
    });

    app.openapi(cancelRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const written = await cancelSubscription(
        billing,
        callerOf(c),
        { orgId },
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(pauseRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const written = await pauseSubscription(
        billing,
        callerOf(c),
        { orgId },
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(resumeRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const written = await resumeSubscription(
        billing,
        callerOf(c),
        { orgId },
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(changePlanRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await changePlan(
        billing,
        callerOf(c),
        { orgId, priceId: body.priceId },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(updatePaymentRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = (c.req.valid('json') as z.infer<typeof updatePaymentBody> | undefined) ?? {};
      const written = await updatePaymentMethod(
        billing,
        callerOf(c),
        { orgId, ...(body.checkoutUrl !== undefined ? { checkoutUrl: body.checkoutUrl } : {}) },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
