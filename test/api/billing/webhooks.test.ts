// Payment provider webhooks through HTTP (the sandbox provider, the default, signs like Paddle): applied once,
// a redelivery answered as a duplicate and applying nothing, a bad signature refused and recorded with nothing
// changed, an out-of-order snapshot changing nothing; unknown providers 404, oversized bodies 413. A workspace
// not bound to a provider subscription yet is bound only by a notice carrying its checkout token (finding 6).
import { createHmac } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSubscription, subscriptionStream } from '../../../commands/billing/subscription-commands.js';
import type { SubscriptionNotice } from '../../../domain/billing/provider-events.js';
import {
  SANDBOX_SIGNATURE_HEADER,
  SandboxPaymentProvider,
  signWebhookBody,
} from '../../../infra/billing/sandbox-provider.js';
import type { IncomingWebhook } from '../../../infra/billing/provider.js';
import { WebhookStore } from '../../../infra/billing/webhook-store.js';
import { CheckoutTokens } from '../../../infra/billing/checkout-token.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace } from '../../support/workspace.js';
import {
  secret as paddleSecret,
  subscription as paddleSubscription,
} from '../../infra/billing/paddle-fixtures.js';

let service: TestService;
let sandbox: SandboxPaymentProvider;
let store: WebhookStore;
let tokens: CheckoutTokens;

beforeAll(async () => {
  service = await startTestService();
  const db = service.runtime.database.db;
  sandbox = new SandboxPaymentProvider({ db, publicBaseUrl: 'http://localhost:3000' });
  store = new WebhookStore(db);
  tokens = new CheckoutTokens(service.runtime.tokenCipher);
});

afterAll(async () => {
  await service.stop();
});

function post(webhook: IncomingWebhook, provider = 'sandbox') {
  const headers = Object.fromEntries(
    Object.entries(webhook.headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return service.request('POST', `/v1/billing/webhooks/${provider}`, { body: webhook.rawBody, headers });
}

/** The same body signed again now, as a provider's redelivery is. */
async function resigned(webhook: IncomingWebhook): Promise<IncomingWebhook> {
  return {
    ...webhook,
    headers: {
      ...webhook.headers,
      [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(webhook.rawBody, await sandbox.secret(), new Date()),
    },
  };
}

/** The checkout token GET ORG/billing/checkout-data would hand the web app now. */
const checkoutToken = (orgId: string) => tokens.issue(orgId, new Date()).token;

/** A snapshot of the workspace's own checkout (its custom data carries the workspace's checkout token). */
function activeSnapshot(
  orgId: string,
  at: Date,
  token: string | null = checkoutToken(orgId),
): SubscriptionNotice {
  const start = at.toISOString();
  const end = new Date(at.getTime() + 30 * 24 * 3600 * 1000).toISOString();
  return sandbox.subscriptionNotice(
    {
      orgId,
      status: 'active',
      priceId: 'pri_pro_monthly',
      currentPeriodStart: start,
      currentPeriodEnd: end,
      ...(token !== null ? { checkoutToken: token } : {}),
    },
    at,
  );
}

/**
 * Events in the workspace's subscription stream (the whole log also grows with the background work a payment
 * starts: credit periods, notifications), for "a redelivery appends nothing".
 */
async function subscriptionEvents(on: TestService, orgId: string): Promise<number> {
  const rows = await on.runtime.database.pool.query<{ n: string }>(
    'select count(*) as n from es_events where stream_name = $1',
    [subscriptionStream(orgId)],
  );
  return Number(rows.rows[0]!.n);
}

async function statusOf(orgId: string) {
  return (await loadSubscription({ commands: service.runtime.commands }, orgId)).state;
}

describe('POST /v1/billing/webhooks/{provider}', () => {
  it('applies a validly signed notice: the subscription becomes active, the delivery is recorded applied', async () => {
    const ws = await createTestWorkspace(service);
    const notice = activeSnapshot(ws.orgId, new Date());
    const res = await post(await sandbox.webhookFor(notice));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { received: true, duplicate: false, ignored: false } });
    const state = await statusOf(ws.orgId);
    expect(state.status).toBe('active');
    expect(state.planKey).toBe('pro');
    expect(state.providerSubscriptionId).toBe(SandboxPaymentProvider.subscriptionIdOf(ws.orgId));
    const rows = await store.deliveriesOf('sandbox', notice.eventId);
    expect(rows.map((r) => [r.outcome, r.signature_ok, r.event_type, r.notice_count])).toEqual([
      ['applied', true, 'subscription.updated', 1],
    ]);
  });

  it('answers a redelivery as a duplicate and applies nothing', async () => {
    const ws = await createTestWorkspace(service);
    const notice = activeSnapshot(ws.orgId, new Date());
    const webhook = await sandbox.webhookFor(notice);
    expect((await post(webhook)).status).toBe(200);
    const events = await subscriptionEvents(service, ws.orgId);
    const before = await statusOf(ws.orgId);

    const replay = await post(await resigned(webhook));
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ data: { received: true, duplicate: true, ignored: false } });
    expect(await subscriptionEvents(service, ws.orgId)).toBe(events);
    expect(await statusOf(ws.orgId)).toEqual(before);
    const rows = await store.deliveriesOf('sandbox', notice.eventId);
    expect(rows.map((r) => r.outcome)).toEqual(['applied', 'duplicate']);
  });

  it('applies a transaction notice once, recording the billing transaction', async () => {
    const ws = await createTestWorkspace(service);
    const notice = await sandbox.transactionNotice({
      orgId: ws.orgId,
      type: 'subscription',
      status: 'completed',
      amount: 4900,
      currency: 'USD',
      priceId: 'pri_pro_monthly',
      description: 'Pro (monthly)',
      checkoutToken: checkoutToken(ws.orgId),
    });
    const webhook = await sandbox.webhookFor(notice);
    expect((await post(webhook)).status).toBe(200);
    const recorded = (await statusOf(ws.orgId)).recordedTransactions;
    expect(recorded).toContain(`${notice.transactionId}:completed`);
    const events = await subscriptionEvents(service, ws.orgId);
    expect(await (await post(await resigned(webhook))).json()).toEqual({
      data: { received: true, duplicate: true, ignored: false },
    });
    expect(await subscriptionEvents(service, ws.orgId)).toBe(events);
  });

  it('refuses a bad or missing signature (400 invalid_signature), records it, and changes nothing', async () => {
    const ws = await createTestWorkspace(service);
    const notice = activeSnapshot(ws.orgId, new Date());
    const webhook = await sandbox.webhookFor(notice);
    // Tampered: the body says past_due, the signature is the active body's.
    const tampered = { ...webhook, rawBody: webhook.rawBody.replace('"active"', '"past_due"') };
    expect(tampered.rawBody).not.toBe(webhook.rawBody);
    const events = await subscriptionEvents(service, ws.orgId);
    const before = await statusOf(ws.orgId);

    const res = await post(tampered);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'Webhook signature is missing, wrong or too old',
      code: 'invalid_signature',
    });
    const unsigned = await post({ ...webhook, headers: { 'content-type': 'application/json' } });
    expect(unsigned.status).toBe(400);
    expect(((await unsigned.json()) as { code: string }).code).toBe('invalid_signature');
    const otherSecret = await post({
      ...webhook,
      headers: { [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(webhook.rawBody, 'not-the-secret', new Date()) },
    });
    expect(otherSecret.status).toBe(400);

    expect(await subscriptionEvents(service, ws.orgId)).toBe(events);
    expect(await statusOf(ws.orgId)).toEqual(before);
    const rows = await store.deliveriesOf('sandbox', notice.eventId);
    expect(rows.map((r) => [r.outcome, r.signature_ok])).toEqual([
      ['refused', false],
      ['refused', false],
      ['refused', false],
    ]);
    // Refusals are not the dedupe key: the genuine delivery still applies.
    expect(await (await post(webhook)).json()).toEqual({
      data: { received: true, duplicate: false, ignored: false },
    });
    expect((await statusOf(ws.orgId)).status).toBe('active');
  });

  it('ignores a notice naming a paid workspace with another provider subscription or customer (finding 6)', async () => {
    const victim = await createTestWorkspace(service);
    expect((await post(await sandbox.webhookFor(activeSnapshot(victim.orgId, new Date())))).status).toBe(200);
    const events = await subscriptionEvents(service, victim.orgId);
    const before = await statusOf(victim.orgId);
    expect(before.status).toBe('active');
    // Another customer's subscription whose custom data names the victim's workspace: cancel it, or take it over.
    const hostile = (over: Partial<SubscriptionNotice>): SubscriptionNotice => ({
      ...activeSnapshot(victim.orgId, new Date()),
      providerCustomerId: 'ctm_sbx_attacker',
      providerSubscriptionId: 'sub_sbx_attacker',
      ...over,
    });
    const canceled = hostile({ status: 'canceled' });
    const takeover = hostile({ priceId: 'pri_business_annual' });
    const failed = {
      ...(await sandbox.transactionNotice({
        orgId: victim.orgId,
        type: 'renewal',
        status: 'failed',
        amount: 4900,
        currency: 'USD',
        priceId: 'pri_pro_monthly',
        description: 'Pro (monthly)',
      })),
      providerCustomerId: 'ctm_sbx_attacker',
      providerSubscriptionId: 'sub_sbx_attacker',
    };
    for (const notice of [canceled, takeover, failed]) {
      const res = await post(await sandbox.webhookFor(notice));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: { received: true, duplicate: false, ignored: true } });
      const rows = await store.deliveriesOf('sandbox', notice.eventId);
      expect(rows.map((r) => [r.outcome, r.signature_ok])).toEqual([['refused', true]]);
      expect(rows[0]!.error).toMatch(/bound to another/);
    }
    expect(await subscriptionEvents(service, victim.orgId)).toBe(events);
    expect(await statusOf(victim.orgId)).toEqual(before);
    // Its own subscription's notices still apply.
    const own = await post(await sandbox.webhookFor(activeSnapshot(victim.orgId, new Date())));
    expect(await own.json()).toEqual({ data: { received: true, duplicate: false, ignored: false } });
  });

  it('binds a workspace not subscribed yet only with its own unexpired checkout token (finding 6, first binding)', async () => {
    const victim = await createTestWorkspace(service);
    const other = await createTestWorkspace(service);
    // The victim's own checkout-data: owners and admins get the token the web app puts in the custom data.
    const res = await service.request('GET', `/v1/orgs/${victim.orgId}/billing/checkout-data`, {
      token: victim.tokens.owner,
    });
    expect(res.status).toBe(200);
    const checkout = (
      (await res.json()) as { data: { checkoutToken: string; checkoutTokenExpiresAt: string } }
    ).data;
    expect(typeof checkout.checkoutToken).toBe('string');
    expect(Date.parse(checkout.checkoutTokenExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    const events = await subscriptionEvents(service, victim.orgId);
    const before = await statusOf(victim.orgId);
    expect(before.status).toBe('trialing');

    // Someone else's payment whose custom data names the victim's workspace, as it would bind it.
    const hostile = (token: string | null): SubscriptionNotice => ({
      ...activeSnapshot(victim.orgId, new Date(), token),
      providerCustomerId: 'ctm_sbx_attacker',
      providerSubscriptionId: 'sub_sbx_attacker',
    });
    // The sealed expiry with one bit flipped (a bit of the bytes: base64url text has slack bits).
    const parts = checkout.checkoutToken.split('.');
    const sealed = Buffer.from(parts[3]!, 'base64url');
    sealed[0] = sealed[0]! ^ 0x01;
    const tampered = [...parts.slice(0, 3), sealed.toString('base64url')].join('.');
    const refusedTokens: [string, string | null][] = [
      ['none', null],
      ['another workspace', checkoutToken(other.orgId)],
      ['expired', tokens.issue(victim.orgId, new Date(Date.now() - 25 * 3600 * 1000)).token],
      ['tampered', tampered],
      ['garbage', 'v1.not.a.token'],
    ];
    const canceledTrial = {
      ...hostile(null),
      status: 'canceled' as const,
    };
    const creditPack = await sandbox.transactionNotice({
      orgId: victim.orgId,
      type: 'credit_pack',
      status: 'completed',
      amount: 1900,
      currency: 'USD',
      priceId: 'pri_credits_500',
      description: 'Credits',
    });
    for (const notice of [...refusedTokens.map(([, token]) => hostile(token)), canceledTrial, creditPack]) {
      const answer = await post(await sandbox.webhookFor(notice));
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ data: { received: true, duplicate: false, ignored: true } });
      const rows = await store.deliveriesOf('sandbox', notice.eventId);
      expect(rows.map((r) => [r.outcome, r.signature_ok])).toEqual([['refused', true]]);
      expect(rows[0]!.error).toMatch(/checkout token/);
    }
    expect(await subscriptionEvents(service, victim.orgId)).toBe(events);
    expect(await statusOf(victim.orgId)).toEqual(before);

    // The victim's own checkout, carrying the token checkout-data answered, binds it.
    const own = activeSnapshot(victim.orgId, new Date(), checkout.checkoutToken);
    const bound = await post(await sandbox.webhookFor(own));
    expect(await bound.json()).toEqual({ data: { received: true, duplicate: false, ignored: false } });
    const state = await statusOf(victim.orgId);
    expect(state.status).toBe('active');
    expect(state.providerSubscriptionId).toBe(SandboxPaymentProvider.subscriptionIdOf(victim.orgId));
    expect(state.providerCustomerId).toBe(SandboxPaymentProvider.customerIdOf(victim.orgId));
    // Bound now: renewals carry no fresh token and apply by the ids; the attacker's stay ignored.
    const renewal = await post(await sandbox.webhookFor(activeSnapshot(victim.orgId, new Date(), null)));
    expect(await renewal.json()).toEqual({ data: { received: true, duplicate: false, ignored: false } });
    const late = await post(await sandbox.webhookFor(hostile(checkout.checkoutToken)));
    expect(await late.json()).toEqual({ data: { received: true, duplicate: false, ignored: true } });
    expect((await statusOf(victim.orgId)).providerSubscriptionId).toBe(state.providerSubscriptionId);
  });

  it('ignores an out-of-order snapshot: an older past_due after a newer active changes nothing', async () => {
    const ws = await createTestWorkspace(service);
    const now = Date.now();
    const newer = activeSnapshot(ws.orgId, new Date(now));
    const older = sandbox.subscriptionNotice(
      {
        orgId: ws.orgId,
        status: 'past_due',
        priceId: 'pri_pro_monthly',
        currentPeriodStart: newer.currentPeriodStart,
        currentPeriodEnd: newer.currentPeriodEnd,
      },
      new Date(now - 60_000),
    );
    expect((await post(await sandbox.webhookFor(newer))).status).toBe(200);
    const events = await subscriptionEvents(service, ws.orgId);
    const before = await statusOf(ws.orgId);

    const res = await post(await sandbox.webhookFor(older, new Date()));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { received: true, duplicate: false, ignored: false } });
    expect(await subscriptionEvents(service, ws.orgId)).toBe(events);
    const after = await statusOf(ws.orgId);
    expect(after).toEqual(before);
    expect(after.status).toBe('active');
  });

  it('answers 404 for a provider that is not the configured one, 400 for a signed body that does not read', async () => {
    const ws = await createTestWorkspace(service);
    const webhook = await sandbox.webhookFor(activeSnapshot(ws.orgId, new Date()));
    const unknown = await post(webhook, 'stripe');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/stripe/);
    expect((await post(webhook, 'paddle')).status).toBe(404);

    const rawBody = JSON.stringify({ event_id: 'evt_sbx_garbage', event_type: 'x', occurred_at: 'soon' });
    const signed = await post({
      rawBody,
      headers: { [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(rawBody, await sandbox.secret(), new Date()) },
      receivedAt: new Date(),
    });
    expect(signed.status).toBe(400);
    expect(((await signed.json()) as { code: string }).code).toBe('invalid_webhook_body');
    expect(
      (await store.deliveriesOf('sandbox', 'evt_sbx_garbage')).map((r) => [r.outcome, r.signature_ok]),
    ).toEqual([['refused', true]]);
  });

  it('refuses a body over the webhook limit with 413', async () => {
    const rawBody = JSON.stringify({ padding: 'x'.repeat(300 * 1024) });
    const res = await post({
      rawBody,
      headers: { [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(rawBody, await sandbox.secret(), new Date()) },
      receivedAt: new Date(),
    });
    expect(res.status).toBe(413);
  });

  it('ignores a notice for no workspace of this service (200 ignored, recorded refused), starting nothing', async () => {
    const stranger = '0f0e0d0c-0000-4000-8000-0000000000ff';
    const notice = activeSnapshot(stranger, new Date());
    const events = await subscriptionEvents(service, stranger);
    const res = await post(await sandbox.webhookFor(notice));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { received: true, duplicate: false, ignored: true } });
    expect(await subscriptionEvents(service, stranger)).toBe(events);
    expect(events).toBe(0);
    expect((await statusOf(stranger)).status).toBe('none');
    const rows = await store.deliveriesOf('sandbox', notice.eventId);
    expect(rows.map((r) => [r.outcome, r.signature_ok])).toEqual([['refused', true]]);
    expect(rows[0]!.error).toMatch(/no workspace/);
  });

  it('records a notice the subscription refuses (an unknown price) as failed and answers its error', async () => {
    const ws = await createTestWorkspace(service);
    const unknownPrice = sandbox.subscriptionNotice({
      orgId: ws.orgId,
      status: 'active',
      priceId: 'pri_nobody_sells_this',
      currentPeriodStart: null,
      currentPeriodEnd: null,
      checkoutToken: checkoutToken(ws.orgId),
    });
    const res = await post(await sandbox.webhookFor(unknownPrice));
    expect(res.status).toBe(400);
    expect((await store.deliveriesOf('sandbox', unknownPrice.eventId)).map((r) => r.outcome)).toEqual([
      'failed',
    ]);
    expect((await statusOf(ws.orgId)).status).toBe('trialing');
  });

  it('applies two concurrent deliveries of one event once: one applied, one duplicate', async () => {
    const ws = await createTestWorkspace(service);
    const notice = activeSnapshot(ws.orgId, new Date());
    const webhook = await sandbox.webhookFor(notice);
    const answers = await Promise.all([post(webhook), post(await resigned(webhook))]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const duplicates = await Promise.all(
      answers.map(async (r) => ((await r.json()) as { data: { duplicate: boolean } }).data.duplicate),
    );
    expect(duplicates.sort()).toEqual([false, true]);
    const applied = await service.runtime.database.pool.query<{ n: string }>(
      `select count(*) as n from es_events where type = 'SubscriptionNoticeApplied' and data->>'providerEventId' = $1`,
      [notice.eventId],
    );
    expect(Number(applied.rows[0]!.n)).toBe(1);
    const rows = await store.deliveriesOf('sandbox', notice.eventId);
    expect(rows.map((r) => r.outcome).sort()).toEqual(['applied', 'duplicate']);
    expect((await statusOf(ws.orgId)).status).toBe('active');
  });

  it('is in the OpenAPI document without security, and the document stays valid', async () => {
    const doc = (await (await service.request('GET', '/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(doc.paths['/v1/billing/webhooks/{provider}']?.post?.security).toEqual([]);
    expect(doc.paths['/v1/billing/sandbox/invoices/{transactionId}']?.get?.security).toEqual([]);
  });
});

describe('POST /v1/billing/webhooks/paddle (BILLING_PROVIDER=paddle)', () => {
  let paddle: TestService;

  beforeAll(async () => {
    paddle = await startTestService({
      env: {
        BILLING_PROVIDER: 'paddle',
        PADDLE_API_KEY: 'pdl_sdbx_apikey_test',
        PADDLE_WEBHOOK_SECRET: paddleSecret,
        // Nothing here calls Paddle's API; a closed local port makes sure nothing could.
        PADDLE_API_URL: 'http://127.0.0.1:9',
      },
    });
  });

  afterAll(async () => {
    await paddle.stop();
  });

  function paddleSigned(rawBody: string, key = paddleSecret) {
    const ts = Math.floor(Date.now() / 1000);
    return `ts=${ts};h1=${createHmac('sha256', key).update(`${ts}:${rawBody}`).digest('hex')}`;
  }

  it("ignores Paddle's first subscription.activated for a workspace when its custom data has no checkout token", async () => {
    const ws = await createTestWorkspace(paddle);
    const before = await subscriptionEvents(paddle, ws.orgId);
    const rawBody = JSON.stringify({
      event_id: 'evt_01hva10000000000000000000c',
      event_type: 'subscription.activated',
      occurred_at: new Date().toISOString(),
      notification_id: 'ntf_01hva10000000000000000000d',
      data: paddleSubscription({ custom_data: { orgId: ws.orgId } }),
    });
    const res = await paddle.request('POST', '/v1/billing/webhooks/paddle', {
      body: rawBody,
      headers: { 'paddle-signature': paddleSigned(rawBody) },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { received: true, duplicate: false, ignored: true } });
    expect(await subscriptionEvents(paddle, ws.orgId)).toBe(before);
    expect((await loadSubscription({ commands: paddle.runtime.commands }, ws.orgId)).state.status).toBe(
      'trialing',
    );
  });

  it("applies Paddle's subscription.activated signed with the notification secret, once", async () => {
    const ws = await createTestWorkspace(paddle);
    const rawBody = JSON.stringify({
      event_id: 'evt_01hva10000000000000000000a',
      event_type: 'subscription.activated',
      occurred_at: new Date().toISOString(),
      notification_id: 'ntf_01hva10000000000000000000b',
      data: paddleSubscription({
        custom_data: {
          orgId: ws.orgId,
          checkoutToken: new CheckoutTokens(paddle.runtime.tokenCipher).issue(ws.orgId, new Date()).token,
        },
      }),
    });
    const send = (signature: string) =>
      paddle.request('POST', '/v1/billing/webhooks/paddle', {
        body: rawBody,
        headers: { 'paddle-signature': signature },
      });

    const bad = await send(paddleSigned(rawBody, 'another-secret'));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_signature');
    const before = await subscriptionEvents(paddle, ws.orgId);

    const res = await send(paddleSigned(rawBody));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { received: true, duplicate: false, ignored: false } });
    const state = (await loadSubscription({ commands: paddle.runtime.commands }, ws.orgId)).state;
    expect(state.status).toBe('active');
    expect(state.providerSubscriptionId).toBe('sub_01hv8x2tq7cx0jv3n5g1wq9e4a');
    expect(state.currentPeriodEnd).toBe('2026-12-01T09:00:00.000Z');
    const after = await subscriptionEvents(paddle, ws.orgId);
    expect(after).toBeGreaterThan(before);

    const replay = await send(paddleSigned(rawBody));
    expect(await replay.json()).toEqual({ data: { received: true, duplicate: true, ignored: false } });
    expect(await subscriptionEvents(paddle, ws.orgId)).toBe(after);
    // The sandbox takes no webhooks when Paddle is the provider.
    expect((await paddle.request('POST', '/v1/billing/webhooks/sandbox', { body: rawBody })).status).toBe(
      404,
    );
  });
});
