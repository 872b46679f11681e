// The subscription endpoints through the whole service: a new workspace's trial (started by the process
// manager), GET ORG/billing with every field, checkout data, cancel / pause / resume / change-plan /
// update-payment on a trial and on a paid subscription, owners and admins only, bad input and refusals
// changing nothing, and Idempotency-Key replays.
import { randomUUID } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { applyNotice, restrictAccess } from '../../../commands/billing/subscription-commands.js';
import type { SubscriptionNotice } from '../../../domain/billing/provider-events.js';
import { BillingCatalog, loadBillingConfig } from '../../../infra/billing/config.js';
import { restrictOverdue } from '../../../processes/billing/grace-timer.js';
import { streamName } from '../../../infra/event-store/port.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
const catalog = new BillingCatalog(loadBillingConfig());
const dayMs = 24 * 3600 * 1000;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}

const billingPath = (orgId: string, tail = '') => `/v1/orgs/${orgId}/billing${tail}`;

async function call(
  ws: TestWorkspace,
  method: string,
  tail: string,
  options: { role?: keyof TestWorkspace['tokens']; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  return service.request(method, billingPath(ws.orgId, tail), {
    token: ws.tokens[options.role ?? 'owner'],
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

async function dataOf<T = Record<string, unknown>>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (JSON.parse(text) as { data: T }).data;
}

async function errorOf(res: Response, status: number): Promise<ErrorBody> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as ErrorBody;
}

async function trialStarted(orgId: string) {
  return waitUntil(
    async () => {
      const events = await service.runtime.eventStore.readStream(streamName('subscription', orgId));
      return events.find((e) => e.type === 'SubscriptionTrialStarted');
    },
    { what: 'the trial to start' },
  );
}

/** The provider's first paid snapshot for the workspace, applied as a webhook would. */
async function subscribe(orgId: string, over: Partial<SubscriptionNotice> = {}) {
  const start = new Date();
  const notice: SubscriptionNotice = {
    kind: 'subscription',
    provider: 'sandbox',
    eventId: `evt_${randomUUID()}`,
    occurredAt: start.toISOString(),
    orgId,
    status: 'active',
    providerCustomerId: `ctm_${orgId.slice(0, 8)}`,
    providerSubscriptionId: `sub_${orgId.slice(0, 8)}`,
    priceId: 'pri_pro_monthly',
    currentPeriodStart: start.toISOString(),
    currentPeriodEnd: new Date(start.getTime() + 30 * dayMs).toISOString(),
    cancelAtPeriodEnd: false,
    pauseAtPeriodEnd: false,
    ...over,
  };
  await applyNotice({ commands: service.runtime.commands, catalog, now: () => new Date() }, notice);
}

describe('a new workspace', () => {
  test('starts a trial of the configured length on the trial plan, shown with every field of GET ORG/billing', async () => {
    const ws = await createTestWorkspace(service);
    const started = await trialStarted(ws.orgId);
    const { trialStart, trialEndsAt } = started!.data as { trialStart: string; trialEndsAt: string };
    expect(Date.parse(trialEndsAt) - Date.parse(trialStart)).toBe(catalog.config.trialDays * dayMs);

    const billing = await dataOf(await call(ws, 'GET', ''));
    expect(Object.keys(billing).sort()).toEqual(
      [
        'plan',
        'subscription',
        'trialDurationDays',
        'creditBalance',
        'usageSummary',
        'creditActionCosts',
        'recentCreditTransactions',
        'recentBillingTransactions',
        'recentSubscriptionEvents',
        'recentInvoices',
      ].sort(),
    );
    expect(billing.trialDurationDays).toBe(14);
    expect(billing.plan).toEqual({
      id: expect.any(String),
      key: 'pro',
      name: 'Pro',
      monthlyPrice: 4900,
      monthlyCredits: 1500,
      teamsEnabled: true,
      maxMembers: 5,
    });
    expect(billing.subscription).toEqual({
      id: expect.any(String),
      status: 'trialing',
      accessState: 'full',
      trialEndsAt,
      trialDaysRemaining: 14,
      isTrialExpired: false,
      canChangePlan: false,
      canPause: false,
      pastDueSince: null,
      graceEndsAt: null,
      billingInterval: 'month',
      currentPeriodStart: trialStart,
      currentPeriodEnd: trialEndsAt,
      cancelAtPeriodEnd: false,
      providerCustomerId: null,
      hasProviderSubscription: false,
    });
    expect(Object.keys(billing.creditBalance as object)).toEqual(
      expect.arrayContaining(['monthly', 'purchased', 'allowance', 'total']),
    );
    expect(Object.keys(billing.usageSummary as object).sort()).toEqual(
      [
        'periodStart',
        'periodEnd',
        'periodUsedCredits',
        'periodAllowanceCredits',
        'periodPurchasedCredits',
        'periodBudgetCredits',
        'periodRemainingCredits',
        'usagePercent',
      ].sort(),
    );
    expect(billing.creditActionCosts).toEqual(catalog.config.creditActionCosts);
    for (const list of [
      'recentCreditTransactions',
      'recentBillingTransactions',
      'recentSubscriptionEvents',
      'recentInvoices',
    ])
      expect(Array.isArray(billing[list])).toBe(true);
  });

  test('checkout data lists the plans and credit packs with their provider price ids, prices in minor units', async () => {
    const ws = await createTestWorkspace(service);
    const data = await dataOf<{
      providerCustomerId: string | null;
      trialDurationDays: number;
      plans: Array<Record<string, unknown>>;
      creditPacks: Array<Record<string, unknown>>;
    }>(await call(ws, 'GET', '/checkout-data'));
    expect(data.providerCustomerId).toBeNull();
    expect(data.trialDurationDays).toBe(14);
    expect(data.plans.map((p) => p.key)).toEqual(['starter', 'pro', 'business']);
    expect(data.plans[1]).toEqual({
      key: 'pro',
      name: 'Pro',
      providerPriceId: 'pri_pro_monthly',
      providerPriceIdAnnual: 'pri_pro_annual',
      monthlyPrice: 4900,
      annualPrice: 49000,
      monthlyCredits: 1500,
      teamsEnabled: true,
      maxMembers: 5,
    });
    expect(data.creditPacks[0]).toEqual({
      key: 'credits_500',
      name: '500 credits',
      providerPriceId: 'pri_credits_500',
      credits: 500,
      price: 1000,
    });
  });
});

describe('on a trial', () => {
  test('cancel ends the trial at once; canceling again is a conflict that changes nothing', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    const answer = await dataOf(await call(ws, 'POST', '/subscription/cancel'));
    expect(answer).toEqual({ cancelAtPeriodEnd: false, message: expect.any(String) });
    const billing = await dataOf<{ subscription: { status: string } }>(await call(ws, 'GET', ''));
    expect(billing.subscription.status).toBe('canceled');

    const before = await eventCount(service);
    const again = await errorOf(await call(ws, 'POST', '/subscription/cancel'), 409);
    expect(again.code).toBe('subscription_canceled');
    expect(await eventCount(service)).toBe(before);
  });

  test('pause is refused while trialing (409 trialing) and changes nothing', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    const before = await eventCount(service);
    const refused = await errorOf(await call(ws, 'POST', '/subscription/pause'), 409);
    expect(refused.code).toBe('trialing');
    expect(await eventCount(service)).toBe(before);
  });

  test('resume with nothing to resume answers the status and records nothing', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    const before = await eventCount(service);
    const answer = await dataOf(await call(ws, 'POST', '/subscription/resume'));
    expect(answer).toEqual({ status: 'trialing', message: expect.any(String) });
    expect(await eventCount(service)).toBe(before);
  });

  test('change-plan: 400 naming body.priceId for an unknown or missing price, 409 before subscribing', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    const before = await eventCount(service);
    const unknown = await errorOf(
      await call(ws, 'POST', '/change-plan', { body: { priceId: 'pri_nope' } }),
      400,
    );
    expect(unknown.details?.map((d) => d.path)).toEqual(['body.priceId']);
    const pack = await errorOf(
      await call(ws, 'POST', '/change-plan', { body: { priceId: 'pri_credits_500' } }),
      400,
    );
    expect(pack.details?.map((d) => d.path)).toEqual(['body.priceId']);
    const missing = await errorOf(await call(ws, 'POST', '/change-plan', { body: {} }), 400);
    expect(missing.details?.[0]?.path).toBe('body.priceId');
    const notString = await errorOf(await call(ws, 'POST', '/change-plan', { body: { priceId: 7 } }), 400);
    expect(notString.details?.[0]?.path).toBe('body.priceId');
    const extra = await call(ws, 'POST', '/change-plan', { body: { priceId: 'pri_pro_annual', x: 1 } });
    expect(extra.status).toBe(400);
    const trial = await errorOf(
      await call(ws, 'POST', '/change-plan', { body: { priceId: 'pri_business_monthly' } }),
      409,
    );
    expect(trial.code).toBe('no_provider_subscription');
    expect(await eventCount(service)).toBe(before);
  });

  test('update-payment before subscribing is a conflict; a bad checkoutUrl is a 400', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    const refused = await errorOf(await call(ws, 'POST', '/subscription/update-payment'), 409);
    expect(refused.code).toBe('no_provider_subscription');
    const bad = await errorOf(
      await call(ws, 'POST', '/subscription/update-payment', { body: { checkoutUrl: 'not a url' } }),
      400,
    );
    expect(bad.details?.[0]?.path).toBe('body.checkoutUrl');
  });
});

describe('a paid subscription', () => {
  test('change plan, pause (pausing), resume, cancel at the period end, as GET ORG/billing shows', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    await subscribe(ws.orgId);
    type Billing = {
      plan: { key: string } | null;
      subscription: {
        status: string;
        billingInterval: string;
        cancelAtPeriodEnd: boolean;
        canPause: boolean;
        canChangePlan: boolean;
        hasProviderSubscription: boolean;
        providerCustomerId: string | null;
        trialDaysRemaining: number | null;
      };
    };
    const paid = await dataOf<Billing>(await call(ws, 'GET', ''));
    expect(paid.subscription).toMatchObject({
      status: 'active',
      canPause: true,
      canChangePlan: true,
      hasProviderSubscription: true,
      providerCustomerId: `ctm_${ws.orgId.slice(0, 8)}`,
      trialDaysRemaining: null,
    });

    const changed = await dataOf(
      await call(ws, 'POST', '/change-plan', { body: { priceId: 'pri_business_annual' } }),
    );
    expect(changed).toEqual({ updated: true, message: expect.stringContaining('Business') });
    const same = await dataOf(
      await call(ws, 'POST', '/change-plan', { body: { priceId: 'pri_business_annual' } }),
    );
    expect(same).toMatchObject({ updated: false });
    const afterChange = await dataOf<Billing>(await call(ws, 'GET', ''));
    expect(afterChange.plan?.key).toBe('business');
    expect(afterChange.subscription.billingInterval).toBe('year');

    expect(await dataOf(await call(ws, 'POST', '/subscription/pause'))).toMatchObject({ status: 'pausing' });
    expect((await dataOf<Billing>(await call(ws, 'GET', ''))).subscription.status).toBe('pausing');
    expect(await dataOf(await call(ws, 'POST', '/subscription/resume'))).toMatchObject({ status: 'active' });

    const cancel = await dataOf(await call(ws, 'POST', '/subscription/cancel'));
    expect(cancel).toEqual({
      cancelAtPeriodEnd: true,
      message: expect.stringContaining('end of the current period'),
    });
    const canceling = await dataOf<Billing>(await call(ws, 'GET', ''));
    expect(canceling.subscription).toMatchObject({
      status: 'active',
      cancelAtPeriodEnd: true,
      canPause: false,
    });
    expect(await dataOf(await call(ws, 'POST', '/subscription/resume'))).toMatchObject({ status: 'active' });
    expect((await dataOf<Billing>(await call(ws, 'GET', ''))).subscription.cancelAtPeriodEnd).toBe(false);
  });

  test('update-payment answers a provider transaction, also while the workspace is read-only', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    await subscribe(ws.orgId);
    await subscribe(ws.orgId, { status: 'past_due', occurredAt: new Date(Date.now() + 1000).toISOString() });
    await restrictAccess({ commands: service.runtime.commands, catalog, now: () => new Date() }, ws.orgId, {
      force: true,
    });
    const billing = await dataOf<{ subscription: { status: string; accessState: string } }>(
      await call(ws, 'GET', ''),
    );
    expect(billing.subscription).toMatchObject({ status: 'past_due', accessState: 'read_only' });
    const answer = await dataOf<{ transactionId: string; checkoutUrl?: string | null }>(
      await call(ws, 'POST', '/subscription/update-payment', {
        body: { checkoutUrl: 'https://app.example.org/billing' },
      }),
    );
    expect(answer.transactionId).toEqual(expect.any(String));
  });
});

describe('the grace period', () => {
  test('the timer restricts a past-due workspace once its grace is over, not before, and once', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    await subscribe(ws.orgId);
    const failedAt = new Date(Date.now() + 1000);
    await subscribe(ws.orgId, { status: 'past_due', occurredAt: failedAt.toISOString() });
    const deps = { commands: service.runtime.commands, catalog, now: () => new Date() };
    const graceEnd = failedAt.getTime() + catalog.config.graceDays * dayMs;
    const restrictedTypes = async () =>
      (await service.runtime.eventStore.readStream(streamName('subscription', ws.orgId))).filter(
        (e) => e.type === 'SubscriptionAccessRestricted',
      );

    await waitUntil(
      async () =>
        (await dataOf<{ subscription: { status: string } }>(await call(ws, 'GET', ''))).subscription
          .status === 'past_due',
      { what: 'the read model to show past_due' },
    );
    expect(await restrictOverdue(deps, service.runtime.readModels, new Date(graceEnd - dayMs))).not.toContain(
      ws.orgId,
    );
    expect(await restrictedTypes()).toHaveLength(0);
    expect(await restrictOverdue(deps, service.runtime.readModels, new Date(graceEnd + 1000))).toContain(
      ws.orgId,
    );
    expect(await restrictedTypes()).toHaveLength(1);
    expect(await restrictOverdue(deps, service.runtime.readModels, new Date(graceEnd + 2000))).not.toContain(
      ws.orgId,
    );
    expect(await restrictedTypes()).toHaveLength(1);
  });
});

describe('roles and idempotency', () => {
  test('owners and admins may; reviewers, editors and viewers get 403 and change nothing', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    for (const role of ['owner', 'admin'] as const) {
      expect((await call(ws, 'GET', '', { role })).status).toBe(200);
      expect((await call(ws, 'GET', '/checkout-data', { role })).status).toBe(200);
    }
    const before = await eventCount(service);
    for (const role of ['reviewer', 'editor', 'viewer'] as const) {
      for (const [method, tail, body] of [
        ['GET', '', undefined],
        ['GET', '/checkout-data', undefined],
        ['POST', '/subscription/cancel', undefined],
        ['POST', '/subscription/pause', undefined],
        ['POST', '/subscription/resume', undefined],
        ['POST', '/subscription/update-payment', undefined],
        ['POST', '/change-plan', { priceId: 'pri_pro_annual' }],
      ] as const) {
        const res = await call(ws, method, tail, { role, ...(body ? { body } : {}) });
        expect(res.status, `${role} ${method} ${tail}`).toBe(403);
      }
    }
    expect(await eventCount(service)).toBe(before);
    // The admin's write goes through.
    expect((await call(ws, 'POST', '/subscription/resume', { role: 'admin' })).status).toBe(200);
  });

  test('a repeated Idempotency-Key replays the first answer and appends nothing', async () => {
    const ws = await createTestWorkspace(service);
    await trialStarted(ws.orgId);
    await subscribe(ws.orgId);
    const key = randomUUID();
    const first = await call(ws, 'POST', '/subscription/cancel', { headers: { 'idempotency-key': key } });
    const firstBody = await dataOf(first);
    expect(firstBody).toMatchObject({ cancelAtPeriodEnd: true });
    const before = await eventCount(service);
    const again = await call(ws, 'POST', '/subscription/cancel', { headers: { 'idempotency-key': key } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await dataOf(again)).toEqual(firstBody);
    expect(await eventCount(service)).toBe(before);

    const planKey = randomUUID();
    const plan = await dataOf(
      await call(ws, 'POST', '/change-plan', {
        body: { priceId: 'pri_starter_monthly' },
        headers: { 'idempotency-key': planKey },
      }),
    );
    const reused = await call(ws, 'POST', '/change-plan', {
      body: { priceId: 'pri_business_monthly' },
      headers: { 'idempotency-key': planKey },
    });
    expect((await errorOf(reused, 422)).code).toBe('idempotency_key_reused');
    const replayed = await call(ws, 'POST', '/change-plan', {
      body: { priceId: 'pri_starter_monthly' },
      headers: { 'idempotency-key': planKey },
    });
    expect(await dataOf(replayed)).toEqual(plan);
  });

  test('the trial starts once, whether the process manager or a billing read starts it first', async () => {
    const ws = await createTestWorkspace(service);
    // Racing the process manager: each read starts the trial unless it exists.
    const reads = await Promise.all([call(ws, 'GET', ''), call(ws, 'GET', '/checkout-data')]);
    for (const res of reads) expect(res.status).toBe(200);
    await trialStarted(ws.orgId);
    const billing = await dataOf<{ subscription: { status: string; trialDaysRemaining: number } }>(
      await call(ws, 'GET', ''),
    );
    expect(billing.subscription).toMatchObject({ status: 'trialing', trialDaysRemaining: 14 });
    const events = await service.runtime.eventStore.readStream(streamName('subscription', ws.orgId));
    expect(events.filter((e) => e.type === 'SubscriptionTrialStarted')).toHaveLength(1);
  });
});

describe('the OpenAPI document', () => {
  test('lists the subscription operations and stays a valid OpenAPI 3.1 document', async () => {
    const res = await service.request('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    const base = '/v1/orgs/{orgId}/billing';
    expect(doc.paths[base]?.get?.operationId).toBe('getBilling');
    expect(doc.paths[`${base}/checkout-data`]?.get?.operationId).toBe('getCheckoutData');
    expect(doc.paths[`${base}/change-plan`]?.post?.operationId).toBe('changePlan');
    for (const [action, id] of [
      ['cancel', 'cancelSubscription'],
      ['pause', 'pauseSubscription'],
      ['resume', 'resumeSubscription'],
      ['update-payment', 'updatePaymentMethod'],
    ])
      expect(doc.paths[`${base}/subscription/${action}`]?.post?.operationId).toBe(id);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['BillingOverview', 'Subscription', 'Plan', 'CheckoutData', 'ChangePlan']),
    );
  });
});
