// The Paddle Billing adapter against a local server answering Paddle's documented response shapes (the
// subscription and transaction entities, `{ data, meta }` envelopes, `{ error }` bodies): each call's method, path
// and snake_case body, the parsed answers, and webhooks verified with a real HMAC-SHA256 signature.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PaddleApiError, PaddlePaymentProvider } from '../../../infra/billing/paddle-provider.js';
import { WebhookSignatureError } from '../../../infra/billing/provider.js';
import { ValidationError } from '../../../domain/shared/errors.js';
import {
  customerId,
  meta,
  orgId,
  price,
  ref,
  secret,
  subscription,
  subscriptionId,
  transaction,
} from './paddle-fixtures.js';

interface Seen {
  method: string;
  path: string;
  body: unknown;
  authorization: string | undefined;
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
/** `METHOD /path` → [status, body]. */
let answers: Record<string, [number, unknown]> = {};

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      // The SDK sends an empty query as a bare `?` on Node 24 (not on Node 20); Paddle reads both alike.
      const path = (req.url ?? '').replace(/\?$/, '');
      seen.push({
        method: req.method ?? '',
        path,
        body,
        authorization: req.headers.authorization,
      });
      const answer = answers[`${req.method} ${path}`] ?? [
        404,
        {
          error: {
            type: 'request_error',
            code: 'not_found',
            detail: 'Entity not found',
            documentation_url: 'https://developer.paddle.com/v1/errors/shared/not_found',
          },
          meta,
        },
      ];
      res.writeHead(answer[0], { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer[1]));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  answers = {};
});

function provider() {
  return new PaddlePaymentProvider({
    apiKey: 'pdl_sdbx_apikey_test',
    webhookSecret: secret,
    environment: 'sandbox',
    apiUrl: baseUrl,
    creditPackPriceIds: ['pri_credits_500'],
  });
}

describe('Paddle adapter: API calls', () => {
  it('changes the plan with a prorated items update', async () => {
    answers[`PATCH /subscriptions/${subscriptionId}`] = [200, { data: subscription(), meta }];
    await provider().changePlan(ref, 'pri_business_monthly');
    expect(seen).toEqual([
      {
        method: 'PATCH',
        path: `/subscriptions/${subscriptionId}`,
        body: {
          items: [{ price_id: 'pri_business_monthly', quantity: 1 }],
          proration_billing_mode: 'prorated_immediately',
        },
        authorization: 'bearer pdl_sdbx_apikey_test',
      },
    ]);
  });

  it('schedules cancel and pause at the next billing period', async () => {
    const scheduled = (action: string) =>
      subscription({
        scheduled_change: { action, effective_at: '2026-12-01T09:00:00.000000Z', resume_at: null },
      });
    answers[`POST /subscriptions/${subscriptionId}/cancel`] = [200, { data: scheduled('cancel'), meta }];
    answers[`POST /subscriptions/${subscriptionId}/pause`] = [200, { data: scheduled('pause'), meta }];
    await provider().cancelAtPeriodEnd(ref);
    await provider().pauseAtPeriodEnd(ref);
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([
      ['POST', `/subscriptions/${subscriptionId}/cancel`, { effective_from: 'next_billing_period' }],
      ['POST', `/subscriptions/${subscriptionId}/pause`, { effective_from: 'next_billing_period' }],
    ]);
  });

  it('resumes a paused subscription now', async () => {
    answers[`GET /subscriptions/${subscriptionId}`] = [
      200,
      { data: subscription({ status: 'paused', paused_at: '2026-12-01T09:00:00.000000Z' }), meta },
    ];
    answers[`POST /subscriptions/${subscriptionId}/resume`] = [200, { data: subscription(), meta }];
    await provider().resume(ref);
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([
      ['GET', `/subscriptions/${subscriptionId}`, undefined],
      ['POST', `/subscriptions/${subscriptionId}/resume`, { effective_from: 'immediately' }],
    ]);
  });

  it('removes a scheduled cancellation to resume, and does nothing when nothing is scheduled', async () => {
    answers[`GET /subscriptions/${subscriptionId}`] = [
      200,
      {
        data: subscription({
          scheduled_change: {
            action: 'cancel',
            effective_at: '2026-12-01T09:00:00.000000Z',
            resume_at: null,
          },
        }),
        meta,
      },
    ];
    answers[`PATCH /subscriptions/${subscriptionId}`] = [200, { data: subscription(), meta }];
    await provider().resume(ref);
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([
      ['GET', `/subscriptions/${subscriptionId}`, undefined],
      ['PATCH', `/subscriptions/${subscriptionId}`, { scheduled_change: null }],
    ]);
    seen.length = 0;
    answers[`GET /subscriptions/${subscriptionId}`] = [200, { data: subscription(), meta }];
    await provider().resume(ref);
    expect(seen.map((s) => s.method)).toEqual(['GET']);
  });

  it('gets the payment-method update transaction and its checkout URL', async () => {
    answers[`GET /subscriptions/${subscriptionId}/update-payment-method-transaction`] = [
      200,
      {
        data: transaction({
          id: 'txn_01hv9b0000000000000000000e',
          status: 'ready',
          origin: 'subscription_payment_method_change',
          invoice_id: null,
          invoice_number: null,
          payments: [],
          checkout: { url: 'https://pay.example.org/checkout?_ptxn=txn_01hv9b0000000000000000000e' },
        }),
        meta,
      },
    ];
    await expect(provider().updatePaymentMethod(ref, 'https://app.example.org/billing')).resolves.toEqual({
      transactionId: 'txn_01hv9b0000000000000000000e',
      checkoutUrl: 'https://pay.example.org/checkout?_ptxn=txn_01hv9b0000000000000000000e',
    });
  });

  it('answers the invoice PDF link, and null for a transaction without an invoice', async () => {
    answers['GET /transactions/txn_01hv9a0000000000000000000b/invoice?disposition=inline'] = [
      200,
      { data: { url: 'https://paddle-sandbox-invoice-service-pdfs.example.org/invoice.pdf?sig=abc' }, meta },
    ];
    await expect(provider().invoiceUrl(orgId, 'txn_01hv9a0000000000000000000b')).resolves.toBe(
      'https://paddle-sandbox-invoice-service-pdfs.example.org/invoice.pdf?sig=abc',
    );
    await expect(provider().invoiceUrl(orgId, 'txn_01hv9z0000000000000000000z')).resolves.toBeNull();
  });

  it("reads the customer's credit balances in minor units", async () => {
    answers[`GET /customers/${customerId}/credit-balances`] = [
      200,
      {
        data: [
          {
            customer_id: customerId,
            currency_code: 'USD',
            balance: { available: '1250', reserved: '0', used: '300' },
          },
          {
            customer_id: customerId,
            currency_code: 'EUR',
            balance: { available: '0', reserved: '0', used: '0' },
          },
        ],
        meta,
      },
    ];
    await expect(provider().customerCreditBalances(customerId)).resolves.toEqual([
      { currencyCode: 'USD', availableCents: 1250 },
      { currencyCode: 'EUR', availableCents: 0 },
    ]);
  });

  it('creates a customer portal session and answers its overview link', async () => {
    answers[`POST /customers/${customerId}/portal-sessions`] = [
      201,
      {
        data: {
          id: 'cpls_01hv9e0000000000000000000i',
          customer_id: customerId,
          urls: {
            general: { overview: 'https://customer-portal.paddle.com/cpl_01hv9e?action=overview&token=t' },
            subscriptions: [
              {
                id: subscriptionId,
                cancel_subscription: 'https://customer-portal.paddle.com/cpl_01hv9e?action=cancel&token=t',
                update_subscription_payment_method:
                  'https://customer-portal.paddle.com/cpl_01hv9e?action=update&token=t',
              },
            ],
          },
          created_at: '2026-11-25T10:00:00.000000Z',
        },
        meta,
      },
    ];
    await expect(provider().customerPortalUrl(ref)).resolves.toBe(
      'https://customer-portal.paddle.com/cpl_01hv9e?action=overview&token=t',
    );
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([
      ['POST', `/customers/${customerId}/portal-sessions`, { subscription_ids: [subscriptionId] }],
    ]);
  });

  it("turns Paddle's error body into a PaddleApiError with its code", async () => {
    answers[`POST /subscriptions/${subscriptionId}/pause`] = [
      409,
      {
        error: {
          type: 'request_error',
          code: 'subscription_locked_pending_changes',
          detail: 'Subscription has pending changes',
          documentation_url:
            'https://developer.paddle.com/errors/subscriptions/subscription_locked_pending_changes',
        },
        meta,
      },
    ];
    const error = await provider()
      .pauseAtPeriodEnd(ref)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaddleApiError);
    expect((error as PaddleApiError).code).toBe('subscription_locked_pending_changes');
  });

  it('refuses a call for a workspace without a Paddle subscription, asking Paddle nothing', async () => {
    await expect(provider().cancelAtPeriodEnd({ ...ref, providerSubscriptionId: null })).rejects.toThrow(
      PaddleApiError,
    );
    expect(seen).toEqual([]);
  });
});

function sign(body: string, at = new Date(), key = secret): string {
  const ts = Math.floor(at.getTime() / 1000);
  return `ts=${ts};h1=${createHmac('sha256', key).update(`${ts}:${body}`).digest('hex')}`;
}

function notification(eventType: string, data: unknown, eventId = 'evt_01hv9c0000000000000000000f') {
  return JSON.stringify({
    event_id: eventId,
    event_type: eventType,
    occurred_at: '2026-12-01T09:00:07.000412Z',
    notification_id: 'ntf_01hv9c0000000000000000000g',
    data,
  });
}

function webhook(rawBody: string, signature: string | undefined) {
  return {
    rawBody,
    headers: signature === undefined ? {} : { 'paddle-signature': signature },
    receivedAt: new Date(),
  };
}

describe('Paddle adapter: webhooks', () => {
  it('reads a signed subscription.updated as a snapshot of the subscription', async () => {
    const body = notification(
      'subscription.updated',
      subscription({
        scheduled_change: { action: 'cancel', effective_at: '2026-12-01T09:00:00.000000Z', resume_at: null },
      }),
    );
    const read = await provider().readWebhook(webhook(body, sign(body)));
    expect(read).toEqual({
      eventId: 'evt_01hv9c0000000000000000000f',
      eventType: 'subscription.updated',
      notices: [
        {
          kind: 'subscription',
          provider: 'paddle',
          eventId: 'evt_01hv9c0000000000000000000f',
          occurredAt: '2026-12-01T09:00:07.000Z',
          orgId,
          status: 'active',
          providerCustomerId: customerId,
          providerSubscriptionId: subscriptionId,
          priceId: 'pri_pro_monthly',
          currentPeriodStart: '2026-11-01T09:00:00.000Z',
          currentPeriodEnd: '2026-12-01T09:00:00.000Z',
          cancelAtPeriodEnd: true,
          pauseAtPeriodEnd: false,
        },
      ],
    });
  });

  it('reads transaction.completed (a renewal) and transaction.payment_failed as transaction notices', async () => {
    const completed = notification('transaction.completed', transaction());
    const [renewal] = (await provider().readWebhook(webhook(completed, sign(completed)))).notices;
    expect(renewal).toEqual({
      kind: 'transaction',
      provider: 'paddle',
      eventId: 'evt_01hv9c0000000000000000000f',
      occurredAt: '2026-12-01T09:00:07.000Z',
      orgId,
      providerCustomerId: customerId,
      providerSubscriptionId: subscriptionId,
      transactionId: 'txn_01hv9a0000000000000000000b',
      type: 'renewal',
      status: 'completed',
      amount: 4900,
      currency: 'USD',
      priceId: 'pri_pro_monthly',
      invoiceId: 'inv_01hv9a0000000000000000000c',
      invoiceNumber: '325-10566',
      invoiceUrl: null,
      paidAt: '2026-12-01T09:00:06.000Z',
      createdAt: '2026-12-01T09:00:00.000Z',
    });
    const failed = notification(
      'transaction.payment_failed',
      transaction({
        status: 'past_due',
        payments: [
          {
            payment_attempt_id: 'a1b2c3d4-0000-4000-8000-000000000004',
            stored_payment_method_id: 'e5f6a7b8-0000-4000-8000-000000000003',
            payment_method_id: null,
            amount: '4900',
            status: 'error',
            error_code: 'declined',
            method_details: null,
            created_at: '2026-12-01T09:00:05.000000Z',
            captured_at: null,
          },
        ],
      }),
      'evt_01hv9d0000000000000000000h',
    );
    const [failure] = (await provider().readWebhook(webhook(failed, sign(failed)))).notices;
    expect(failure).toMatchObject({ kind: 'transaction', type: 'renewal', status: 'failed', paidAt: null });
  });

  it('reads a credit pack purchase by its price', async () => {
    const body = notification(
      'transaction.completed',
      transaction({
        origin: 'web',
        subscription_id: null,
        items: [{ price: price('pri_credits_500', '1000', false), quantity: 1, proration: null }],
      }),
    );
    const [notice] = (await provider().readWebhook(webhook(body, sign(body)))).notices;
    expect(notice).toMatchObject({ type: 'credit_pack', priceId: 'pri_credits_500', status: 'completed' });
  });

  it('reads event types it does not act on, and notifications without a workspace, as no notices', async () => {
    const customer = notification('customer.created', {
      id: customerId,
      name: null,
      email: 'owner@example.org',
      marketing_consent: false,
      status: 'active',
      custom_data: null,
      locale: 'en',
      created_at: '2026-11-01T09:00:00.000000Z',
      updated_at: '2026-11-01T09:00:00.000000Z',
      import_meta: null,
    });
    expect((await provider().readWebhook(webhook(customer, sign(customer)))).notices).toEqual([]);
    const orphan = notification('subscription.activated', subscription({ custom_data: null }));
    expect((await provider().readWebhook(webhook(orphan, sign(orphan)))).notices).toEqual([]);
  });

  it("reads the service's checkout token from the custom data, and nothing when there is none or it is not text", async () => {
    const withToken = notification(
      'subscription.activated',
      subscription({ custom_data: { orgId, checkoutToken: 'v1.aaa.bbb.ccc' } }),
    );
    const [notice] = (await provider().readWebhook(webhook(withToken, sign(withToken)))).notices;
    expect(notice?.checkoutToken).toBe('v1.aaa.bbb.ccc');
    const odd = notification(
      'subscription.activated',
      subscription({ custom_data: { orgId, checkoutToken: 7 } }),
    );
    const [plain] = (await provider().readWebhook(webhook(odd, sign(odd)))).notices;
    expect(plain).toBeDefined();
    expect(plain).not.toHaveProperty('checkoutToken');
  });

  it('refuses a missing, wrong, other-secret or stale signature', async () => {
    const body = notification('subscription.updated', subscription());
    const p = provider();
    await expect(p.readWebhook(webhook(body, undefined))).rejects.toThrow(WebhookSignatureError);
    await expect(p.readWebhook(webhook(body, 'garbage'))).rejects.toThrow(WebhookSignatureError);
    await expect(p.readWebhook(webhook(body, sign(body, new Date(), 'another-secret')))).rejects.toThrow(
      WebhookSignatureError,
    );
    await expect(p.readWebhook(webhook(`${body} `, sign(body)))).rejects.toThrow(WebhookSignatureError);
    await expect(
      p.readWebhook(webhook(body, sign(body, new Date(Date.now() - 10 * 60 * 1000)))),
    ).rejects.toThrow(WebhookSignatureError);
  });

  it('refuses a correctly signed body that is not JSON', async () => {
    const body = 'not json';
    await expect(provider().readWebhook(webhook(body, sign(body)))).rejects.toThrow(ValidationError);
  });
});
