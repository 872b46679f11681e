// The billing slice's subscription operations (owners and admins, permission billing:manage): GET ORG/billing
// (the overview: plan, subscription, trial length, credits, costs and recent history), GET
// ORG/billing/checkout-data (plans and credit packs with their provider price ids), and POST cancel, pause,
// resume, change-plan and update-payment. Everything under ORG/billing is exempt from the 402 (`billing: null`):
// billing, and fixing the payment, is how an overdue workspace gets out.
import type { z } from '@hono/zod-openapi';
import {
  cancelSubscription,
  changePlan,
  pauseSubscription,
  resumeSubscription,
  updatePaymentMethod,
} from '../../../commands/billing/subscription-use-cases.js';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import { writeMetadata } from '../../../commands/shared/write-pipeline.js';
import { subscriptionView } from '../../../domain/billing/subscription.js';
import type { Plan } from '../../../infra/billing/config.js';
import type { OperationCall } from '../../shared/operation.js';
import { orgParams } from '../../shared/params.js';
import {
  billingOverviewSchema,
  cancelAnswerSchema,
  changePlanAnswerSchema,
  changePlanBody,
  checkoutDataSchema,
  statusAnswerSchema,
  updatePaymentAnswerSchema,
  updatePaymentBody,
} from '../schemas.js';
import { billingOperation, managing, type BillingOperationDeps } from './deps.js';

type Overview = z.infer<typeof billingOverviewSchema>;

const base = '/v1/orgs/{orgId}/billing';

const planOf = (plan: Plan) => ({
  id: plan.id,
  key: plan.key,
  name: plan.name,
  monthlyPrice: plan.monthlyPrice,
  monthlyCredits: plan.monthlyCredits,
  teamsEnabled: plan.teamsEnabled,
  maxMembers: plan.maxMembers,
});

/** The subscription, started (its trial) on this read when the workspace has none yet. */
async function startedSubscription(
  { billing }: BillingOperationDeps,
  { caller, request }: OperationCall,
  orgId: string,
) {
  const metadata = writeMetadata(caller, {
    correlationId: request.correlationId,
    now: billing.now().toISOString(),
  });
  return (await ensureStarted(billing.subscriptions, orgId, metadata)).state;
}

async function overviewOf(deps: BillingOperationDeps, call: OperationCall, orgId: string): Promise<Overview> {
  const { catalog, provider, history, credits } = deps.billing;
  const state = await startedSubscription(deps, call, orgId);
  const now = deps.billing.now();
  const summary = await credits.summaryOf(orgId);
  const [transactions, invoices, events, providerCredit] = await Promise.all([
    history.recentTransactions(orgId),
    history.recentInvoices(orgId),
    history.recentSubscriptionEvents(orgId),
    state.providerCustomerId
      ? provider.customerCreditBalances(state.providerCustomerId).catch(() => undefined)
      : undefined,
  ]);
  const plan = state.planKey ? catalog.plan(state.planKey) : undefined;
  return {
    plan: plan ? planOf(plan) : null,
    subscription: subscriptionView(state, now, catalog.config, orgId),
    trialDurationDays: catalog.config.trialDays,
    creditBalance: summary.creditBalance,
    usageSummary: summary.usageSummary,
    creditActionCosts: catalog.config.creditActionCosts.map((cost) => ({
      key: cost.key,
      label: cost.label,
      description: cost.description,
      credits: cost.credits,
    })),
    recentCreditTransactions: summary.recentCreditTransactions ?? [],
    recentBillingTransactions: transactions,
    recentSubscriptionEvents: events,
    recentInvoices: invoices,
    ...(providerCredit && providerCredit.length > 0 ? { providerCreditBalance: providerCredit } : {}),
  };
}

async function checkoutDataOf(deps: BillingOperationDeps, call: OperationCall, orgId: string) {
  const state = await startedSubscription(deps, call, orgId);
  const config = deps.billing.catalog.config;
  const checkout = deps.billing.checkoutTokens.issue(orgId, deps.billing.now());
  return {
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
  };
}

export const subscriptionOperations = [
  billingOperation({
    name: 'getBilling',
    kind: 'read',
    method: 'get',
    path: base,
    tags: ['billing'],
    summary: "The workspace's plan, subscription, credits and recent billing history",
    description:
      'Owners and admins. A workspace created before billing (or whose trial has not started yet) starts its ' +
      'trial on this read. Prices and amounts are integers in minor units.',
    params: orgParams,
    output: billingOverviewSchema,
    outputDescription: 'The billing overview',
    errors: [400, 401, 403],
    access: managing,
    run: (deps, call, { orgId }) => overviewOf(deps, call, orgId),
  }),
  billingOperation({
    name: 'getCheckoutData',
    kind: 'read',
    method: 'get',
    path: `${base}/checkout-data`,
    tags: ['billing'],
    summary: 'Plans and credit packs with their provider price ids, and the checkout token, for the checkout',
    description:
      'Owners and admins. Prices are integers in minor units of the configured currency. `checkoutToken` goes ' +
      "into the checkout's custom data with the workspace id (`customData: { orgId, checkoutToken }`): a " +
      'workspace not subscribed yet is bound only by a payment whose custom data carries a valid one (it expires ' +
      'at `checkoutTokenExpiresAt`, 24 h; ask again for a later checkout).',
    params: orgParams,
    output: checkoutDataSchema,
    outputDescription: 'What the checkout offers',
    errors: [400, 401, 403],
    access: managing,
    run: (deps, call, { orgId }) => checkoutDataOf(deps, call, orgId),
  }),
  billingOperation({
    name: 'cancelSubscription',
    kind: 'write',
    method: 'post',
    path: `${base}/subscription/cancel`,
    tags: ['billing'],
    summary: 'Cancel: a trial at once, a paid subscription at the period end',
    description: 'Owners and admins. 409 `subscription_canceled` when it is canceled already.',
    params: orgParams,
    output: cancelAnswerSchema,
    outputDescription: 'Whether it ends at the period end',
    errors: [400, 401, 403, 409, 422, 503],
    access: managing,
    run: ({ billing }, { caller, request }, { orgId }) =>
      cancelSubscription(billing.subscriptions, caller, { orgId }, request),
  }),
  billingOperation({
    name: 'pauseSubscription',
    kind: 'write',
    method: 'post',
    path: `${base}/subscription/pause`,
    tags: ['billing'],
    summary: 'Pause at the period end (`pausing`, then `paused`)',
    description:
      'Owners and admins. 409 `trialing` while trialing, `past_due` while overdue, `cancel_scheduled` when a ' +
      'cancellation is scheduled, `subscription_canceled` when canceled. Pausing again answers the status.',
    params: orgParams,
    output: statusAnswerSchema,
    outputDescription: 'The status',
    errors: [400, 401, 403, 409, 422, 503],
    access: managing,
    run: ({ billing }, { caller, request }, { orgId }) =>
      pauseSubscription(billing.subscriptions, caller, { orgId }, request),
  }),
  billingOperation({
    name: 'resumeSubscription',
    kind: 'write',
    method: 'post',
    path: `${base}/subscription/resume`,
    tags: ['billing'],
    summary: 'Resume: take back a scheduled pause or cancellation, or resume a paused subscription',
    description: 'Owners and admins. With nothing to resume, nothing changes and the status is returned.',
    params: orgParams,
    output: statusAnswerSchema,
    outputDescription: 'The status',
    errors: [400, 401, 403, 422, 503],
    access: managing,
    run: ({ billing }, { caller, request }, { orgId }) =>
      resumeSubscription(billing.subscriptions, caller, { orgId }, request),
  }),
  billingOperation({
    name: 'changePlan',
    kind: 'write',
    method: 'post',
    path: `${base}/change-plan`,
    tags: ['billing'],
    summary: 'Switch the paid subscription to another plan price (monthly or annual)',
    description:
      'Owners and admins. 400 naming body.priceId for a price that is not a plan price; 409 ' +
      '`no_provider_subscription` before the workspace subscribed, 409 with the status unless active or pausing.',
    params: orgParams,
    body: changePlanBody,
    output: changePlanAnswerSchema,
    outputDescription: 'Whether the plan changed',
    errors: [400, 401, 403, 409, 413, 422, 503],
    access: managing,
    run: ({ billing }, { caller, request }, { orgId, priceId }) =>
      changePlan(billing.subscriptions, caller, { orgId, priceId }, request),
  }),
  billingOperation({
    name: 'updatePaymentMethod',
    kind: 'write',
    method: 'post',
    path: `${base}/subscription/update-payment`,
    tags: ['billing'],
    summary: 'A payment-provider transaction or URL to update the payment method',
    description:
      'Owners and admins; allowed while the workspace is read-only. 409 `no_provider_subscription` before the ' +
      'workspace subscribed.',
    params: orgParams,
    body: updatePaymentBody,
    bodyRequired: false,
    output: updatePaymentAnswerSchema,
    outputDescription: 'The transaction and where to pay',
    errors: [400, 401, 403, 409, 413, 422, 503],
    access: managing,
    run: ({ billing }, { caller, request }, { orgId, checkoutUrl }) =>
      updatePaymentMethod(
        billing.subscriptions,
        caller,
        { orgId, ...(checkoutUrl !== undefined ? { checkoutUrl } : {}) },
        request,
      ),
  }),
];
