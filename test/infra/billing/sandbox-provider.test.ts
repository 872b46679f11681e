// The sandbox payment provider on a real database: one signing secret per database (every process verifies what
// another signed), its calls recorded, invoice links only for the workspace's completed transactions, the
// payment-method page it links to served, and its webhooks read back exactly as signed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../domain/shared/errors.js';
import { WebhookSignatureError } from '../../../infra/billing/provider.js';
import {
  SANDBOX_SIGNATURE_HEADER,
  SandboxPaymentProvider,
  signWebhookBody,
} from '../../../infra/billing/sandbox-provider.js';
import { startTestService, type TestService } from '../../support/runtime.js';

let service: TestService;
let sandbox: SandboxPaymentProvider;
const orgId = '5b6c7d8e-0000-4000-8000-00000000000a';
const otherOrgId = '5b6c7d8e-0000-4000-8000-00000000000b';
const ref = {
  orgId,
  providerCustomerId: SandboxPaymentProvider.customerIdOf(orgId),
  providerSubscriptionId: SandboxPaymentProvider.subscriptionIdOf(orgId),
};

beforeAll(async () => {
  service = await startTestService({ background: false });
  sandbox = new SandboxPaymentProvider({
    db: service.runtime.database.db,
    publicBaseUrl: 'http://localhost:3000',
  });
});

afterAll(async () => {
  await service.stop();
});

const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

describe('sandbox payment provider', () => {
  it('keeps one signing secret per database: another instance verifies what this one signed', async () => {
    const other = new SandboxPaymentProvider({ db: service.runtime.database.db, publicBaseUrl: 'http://x' });
    expect(await other.secret()).toBe(await sandbox.secret());
    expect((await sandbox.secret()).length).toBeGreaterThanOrEqual(40);
    const notice = sandbox.subscriptionNotice({
      orgId,
      status: 'active',
      priceId: 'pri_pro_monthly',
      currentPeriodStart: '2026-11-01T00:00:00.000Z',
      currentPeriodEnd: '2026-12-01T00:00:00.000Z',
    });
    const read = await other.readWebhook(await sandbox.webhookFor(notice));
    expect(read).toEqual({ eventId: notice.eventId, eventType: 'subscription.updated', notices: [notice] });
  });

  it('carries the checkout token of the custom data through its webhook, and refuses an oversized one', async () => {
    const notice = sandbox.subscriptionNotice({
      orgId,
      status: 'active',
      priceId: 'pri_pro_monthly',
      currentPeriodStart: null,
      currentPeriodEnd: null,
      checkoutToken: 'v1.aaa.bbb.ccc',
    });
    const read = await sandbox.readWebhook(await sandbox.webhookFor(notice));
    expect(read.notices[0]?.checkoutToken).toBe('v1.aaa.bbb.ccc');
    const oversized = await sandbox.webhookFor({ ...notice, checkoutToken: 'x'.repeat(5000) });
    await expect(sandbox.readWebhook(oversized)).rejects.toThrow(ValidationError);
  });

  it('refuses a webhook whose signature is stale or dated in the future, or whose body does not match what it claims', async () => {
    const notice = sandbox.subscriptionNotice({
      orgId,
      status: 'past_due',
      priceId: 'pri_pro_monthly',
      currentPeriodStart: null,
      currentPeriodEnd: null,
    });
    // Signed ten minutes ago (or ten minutes from now), delivered now.
    const stale = await sandbox.webhookFor(notice, new Date(Date.now() - 10 * 60 * 1000));
    await expect(sandbox.readWebhook({ ...stale, receivedAt: new Date() })).rejects.toThrow(
      WebhookSignatureError,
    );
    const future = await sandbox.webhookFor(notice, new Date(Date.now() + 10 * 60 * 1000));
    await expect(sandbox.readWebhook({ ...future, receivedAt: new Date() })).rejects.toThrow(
      WebhookSignatureError,
    );
    // Signed correctly, but the notice names another event than the envelope.
    const rawBody = JSON.stringify({
      event_id: 'evt_sbx_envelope',
      event_type: 'subscription.past_due',
      occurred_at: notice.occurredAt,
      notice,
    });
    const mismatched = {
      rawBody,
      headers: { [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(rawBody, await sandbox.secret(), new Date()) },
      receivedAt: new Date(),
    };
    await expect(sandbox.readWebhook(mismatched)).rejects.toThrow(ValidationError);
  });

  it('records what it was asked, in order', async () => {
    await sandbox.changePlan(ref, 'pri_business_monthly');
    await sandbox.cancelAtPeriodEnd(ref);
    await sandbox.resume(ref);
    await sandbox.pauseAtPeriodEnd(ref);
    const requests = await sandbox.requestsOf(orgId);
    expect(requests.map((r) => [r.operation, r.provider_subscription_id, r.details])).toEqual([
      [
        'change_plan',
        ref.providerSubscriptionId,
        { priceId: 'pri_business_monthly', prorationBillingMode: 'prorated_immediately' },
      ],
      ['cancel', ref.providerSubscriptionId, { effectiveFrom: 'next_billing_period' }],
      ['resume', ref.providerSubscriptionId, {}],
      ['pause', ref.providerSubscriptionId, { effectiveFrom: 'next_billing_period' }],
    ]);
    expect(await sandbox.customerCreditBalances(ref.providerCustomerId)).toEqual([]);
  });

  it('answers a payment-method update with a local page that opens', async () => {
    const { transactionId, checkoutUrl } = await sandbox.updatePaymentMethod(ref, 'https://app.example.org');
    expect(transactionId).toMatch(/^txn_sbx_/);
    expect(checkoutUrl).toMatch(/^http:\/\/localhost:3000\/v1\/billing\/sandbox\/payment-method\/txn_sbx_/);
    const page = await service.request('GET', pathOf(checkoutUrl!));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('Update payment method');
    expect((await sandbox.requestsOf(orgId)).at(-1)?.operation).toBe('update_payment_method');
  });

  it("gives invoice links only for the workspace's own completed transactions", async () => {
    const paid = await sandbox.transactionNotice({
      orgId,
      type: 'credit_pack',
      status: 'completed',
      amount: 1000,
      currency: 'USD',
      priceId: 'pri_credits_500',
      description: '500 credits',
    });
    const failed = await sandbox.transactionNotice({
      orgId,
      type: 'renewal',
      status: 'failed',
      amount: 4900,
      currency: 'USD',
      priceId: 'pri_pro_monthly',
      description: 'Pro (monthly)',
    });
    expect(paid.invoiceNumber).toMatch(/^SBX-/);
    expect(failed.invoiceUrl).toBeNull();
    const url = await sandbox.invoiceUrl(orgId, paid.transactionId);
    expect(url).toBe(paid.invoiceUrl);
    expect(await sandbox.invoiceUrl(otherOrgId, paid.transactionId)).toBeNull();
    expect(await sandbox.invoiceUrl(orgId, failed.transactionId)).toBeNull();
    expect(await sandbox.invoiceUrl(orgId, 'txn_sbx_unknown')).toBeNull();

    const page = await service.request('GET', pathOf(url!));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('10.00 USD');
    expect(html).toContain(paid.invoiceNumber!);
    // Not without its token, and not for the failed transaction even with a token of its own.
    const bare = new URL(url!).pathname;
    expect((await service.request('GET', bare)).status).toBe(404);
    const failedToken = await sandbox.pageToken('invoices', failed.transactionId);
    expect(
      (
        await service.request(
          'GET',
          `/v1/billing/sandbox/invoices/${failed.transactionId}?token=${encodeURIComponent(failedToken)}`,
        )
      ).status,
    ).toBe(404);
  });
});
