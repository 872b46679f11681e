// The sandbox payment provider, the embedded default: every call succeeds and is recorded (billing_sandbox_*),
// invoices are local HTML pages, and its webhooks are signed like Paddle's (`ts=…;h1=…`, HMAC-SHA256 over
// `ts:body`, verified by infra/billing/webhook-signature.ts) with a secret generated once and kept in the database.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type {
  BillingTransactionStatus,
  BillingTransactionType,
  ProviderNotice,
  SubscriptionNotice,
  TransactionNotice,
} from '../../domain/billing/provider-events.js';
import { ValidationError } from '../../domain/shared/errors.js';
import {
  WebhookSignatureError,
  type CustomerCreditBalance,
  type IncomingWebhook,
  type PaymentProvider,
  type ProviderSubscriptionRef,
} from './provider.js';
import { signWebhookBody, webhookSignatureValid } from './webhook-signature.js';
import { sandboxSigningSecret, type BillingWebhookTables } from './webhook-store.js';

/** The header the sandbox signs its webhooks in (same format as Paddle-Signature). */
export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';

/** Where the sandbox's invoice and payment pages are served (api/billing/sandbox-routes.ts). */
export const SANDBOX_PAGES_PATH = '/v1/billing/sandbox';

export { signWebhookBody, webhookSignatureValid } from './webhook-signature.js';

const isoDate = z.string().datetime({ offset: true });
const base = {
  provider: z.literal('sandbox'),
  eventId: z.string().min(1),
  occurredAt: isoDate,
  orgId: z.string().min(1),
  checkoutToken: z.string().max(1000).nullable().optional(),
};
const noticeSchema = z.discriminatedUnion('kind', [
  z.object({
    ...base,
    kind: z.literal('subscription'),
    status: z.enum(['trialing', 'active', 'past_due', 'paused', 'canceled']),
    providerCustomerId: z.string(),
    providerSubscriptionId: z.string(),
    priceId: z.string(),
    currentPeriodStart: isoDate.nullable(),
    currentPeriodEnd: isoDate.nullable(),
    cancelAtPeriodEnd: z.boolean(),
    pauseAtPeriodEnd: z.boolean(),
  }),
  z.object({
    ...base,
    kind: z.literal('transaction'),
    providerCustomerId: z.string().nullable().optional(),
    providerSubscriptionId: z.string().nullable().optional(),
    transactionId: z.string().min(1),
    type: z.enum(['subscription', 'renewal', 'credit_pack', 'payment_method_update']),
    status: z.enum(['pending', 'completed', 'failed', 'canceled']),
    amount: z.number().int().min(0),
    currency: z.string().length(3),
    priceId: z.string().nullable(),
    invoiceId: z.string().nullable(),
    invoiceNumber: z.string().nullable(),
    invoiceUrl: z.string().nullable(),
    paidAt: isoDate.nullable(),
    createdAt: isoDate,
  }),
]);
const sandboxBodySchema = z.object({
  event_id: z.string().min(1),
  event_type: z.string().min(1),
  occurred_at: isoDate,
  notice: noticeSchema,
});

/** What the sandbox sends: one notice per webhook, like Paddle's one entity per notification. */
export type SandboxWebhookBody = z.infer<typeof sandboxBodySchema>;

export interface SandboxProviderOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database that has run the migrations
  db: Kysely<any>;
  /** The service's public URL: the sandbox's invoice and payment pages are served under it. */
  publicBaseUrl: string;
  now?: () => Date;
}

export interface SandboxTransactionInput {
  orgId: string;
  type: BillingTransactionType;
  status: BillingTransactionStatus;
  amount: number;
  currency: string;
  priceId: string | null;
  description: string;
  /** The checkout token the checkout carried in its custom data (GET ORG/billing/checkout-data's). */
  checkoutToken?: string | null;
}

/** The event type the sandbox names a notice with (Paddle's names). */
function eventTypeOf(notice: ProviderNotice): string {
  if (notice.kind === 'transaction')
    return notice.status === 'failed'
      ? 'transaction.payment_failed'
      : notice.status === 'completed'
        ? 'transaction.completed'
        : notice.status === 'canceled'
          ? 'transaction.canceled'
          : 'transaction.created';
  return notice.status === 'active' ? 'subscription.updated' : `subscription.${notice.status}`;
}

export class SandboxPaymentProvider implements PaymentProvider {
  readonly name = 'sandbox' as const;
  private readonly db: Kysely<BillingWebhookTables>;
  private readonly now: () => Date;
  private secretPromise: Promise<string> | undefined;

  constructor(private readonly options: SandboxProviderOptions) {
    this.db = options.db as Kysely<BillingWebhookTables>;
    this.now = options.now ?? (() => new Date());
  }

  /** The signing secret (generated once per database, cached per process). */
  secret(): Promise<string> {
    this.secretPromise ??= sandboxSigningSecret(this.options.db).catch((error: unknown) => {
      this.secretPromise = undefined;
      throw error;
    });
    return this.secretPromise;
  }

  /** The sandbox's ids for a workspace's customer and subscription. */
  static customerIdOf(orgId: string): string {
    return `ctm_sbx_${orgId.replace(/-/g, '')}`;
  }
  static subscriptionIdOf(orgId: string): string {
    return `sub_sbx_${orgId.replace(/-/g, '')}`;
  }

  private async record(
    operation: string,
    subscription: ProviderSubscriptionRef,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.db
      .insertInto('billing_sandbox_requests')
      .values({
        operation,
        org_id: subscription.orgId,
        provider_subscription_id: subscription.providerSubscriptionId,
        details: JSON.stringify(details),
      })
      .execute();
  }

  async changePlan(subscription: ProviderSubscriptionRef, priceId: string): Promise<void> {
    await this.record('change_plan', subscription, { priceId, prorationBillingMode: 'prorated_immediately' });
  }

  async cancelAtPeriodEnd(subscription: ProviderSubscriptionRef): Promise<void> {
    await this.record('cancel', subscription, { effectiveFrom: 'next_billing_period' });
  }

  async pauseAtPeriodEnd(subscription: ProviderSubscriptionRef): Promise<void> {
    await this.record('pause', subscription, { effectiveFrom: 'next_billing_period' });
  }

  async resume(subscription: ProviderSubscriptionRef): Promise<void> {
    await this.record('resume', subscription, {});
  }

  async updatePaymentMethod(
    subscription: ProviderSubscriptionRef,
    returnUrl: string | undefined,
  ): Promise<{ transactionId: string; checkoutUrl: string | null }> {
    const transactionId = `txn_sbx_${randomUUID().replace(/-/g, '')}`;
    await this.db
      .insertInto('billing_sandbox_transactions')
      .values({
        transaction_id: transactionId,
        org_id: subscription.orgId,
        type: 'payment_method_update',
        status: 'pending',
        amount: 0,
        currency: 'USD',
        description: 'Payment method update',
        invoice_number: null,
        created_at: this.now().toISOString(),
        paid_at: null,
      })
      .execute();
    await this.record('update_payment_method', subscription, { transactionId, returnUrl: returnUrl ?? null });
    return { transactionId, checkoutUrl: await this.pageUrl('payment-method', transactionId) };
  }

  async invoiceUrl(orgId: string, transactionId: string): Promise<string | null> {
    const row = await this.transaction(transactionId);
    if (!row || row.org_id !== orgId || row.status !== 'completed') return null;
    return this.pageUrl('invoices', transactionId);
  }

  async customerCreditBalances(providerCustomerId: string): Promise<CustomerCreditBalance[]> {
    void providerCustomerId;
    return [];
  }

  async readWebhook(
    webhook: IncomingWebhook,
  ): Promise<{ eventId: string; eventType: string; notices: ProviderNotice[] }> {
    const signature = webhook.headers[SANDBOX_SIGNATURE_HEADER];
    if (!signature) throw new WebhookSignatureError(`Missing ${SANDBOX_SIGNATURE_HEADER} header`);
    if (!webhookSignatureValid(webhook.rawBody, await this.secret(), signature, webhook.receivedAt))
      throw new WebhookSignatureError('Webhook signature is wrong or too old');
    let json: unknown;
    try {
      json = JSON.parse(webhook.rawBody);
    } catch {
      throw new ValidationError('Webhook body is not JSON');
    }
    const parsed = sandboxBodySchema.safeParse(json);
    if (!parsed.success || parsed.data.notice.eventId !== parsed.data.event_id)
      throw new ValidationError('Webhook body is not a sandbox notification');
    const body = parsed.data;
    return { eventId: body.event_id, eventType: body.event_type, notices: [body.notice] };
  }

  /** A signed webhook carrying one notice, as the sandbox would deliver it. */
  async webhookFor(notice: ProviderNotice, at: Date = this.now()): Promise<IncomingWebhook> {
    const body: SandboxWebhookBody = {
      event_id: notice.eventId,
      event_type: eventTypeOf(notice),
      occurred_at: notice.occurredAt,
      notice: notice as SandboxWebhookBody['notice'],
    };
    const rawBody = JSON.stringify(body);
    return {
      rawBody,
      headers: {
        'content-type': 'application/json',
        [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(rawBody, await this.secret(), at),
      },
      receivedAt: at,
    };
  }

  /** A new transaction of the sandbox (recorded for its invoice page) and its notice. */
  async transactionNotice(input: SandboxTransactionInput, at: Date = this.now()): Promise<TransactionNotice> {
    const transactionId = `txn_sbx_${randomUUID().replace(/-/g, '')}`;
    const completed = input.status === 'completed';
    const invoiceNumber = completed
      ? `SBX-${at.toISOString().slice(0, 10).replace(/-/g, '')}-${transactionId.slice(-6)}`
      : null;
    await this.db
      .insertInto('billing_sandbox_transactions')
      .values({
        transaction_id: transactionId,
        org_id: input.orgId,
        type: input.type,
        status: input.status,
        amount: input.amount,
        currency: input.currency,
        description: input.description,
        invoice_number: invoiceNumber,
        created_at: at.toISOString(),
        paid_at: completed ? at.toISOString() : null,
      })
      .execute();
    return {
      kind: 'transaction',
      provider: 'sandbox',
      eventId: `evt_sbx_${randomUUID().replace(/-/g, '')}`,
      occurredAt: at.toISOString(),
      orgId: input.orgId,
      ...(input.checkoutToken ? { checkoutToken: input.checkoutToken } : {}),
      providerCustomerId: SandboxPaymentProvider.customerIdOf(input.orgId),
      providerSubscriptionId:
        input.type === 'credit_pack' ? null : SandboxPaymentProvider.subscriptionIdOf(input.orgId),
      transactionId,
      type: input.type,
      status: input.status,
      amount: input.amount,
      currency: input.currency,
      priceId: input.priceId,
      invoiceId: completed ? `inv_sbx_${transactionId.slice(8)}` : null,
      invoiceNumber,
      invoiceUrl: completed ? await this.pageUrl('invoices', transactionId) : null,
      paidAt: completed ? at.toISOString() : null,
      createdAt: at.toISOString(),
    };
  }

  /** A snapshot of the workspace's sandbox subscription. */
  subscriptionNotice(
    input: Pick<
      SubscriptionNotice,
      'orgId' | 'status' | 'priceId' | 'currentPeriodStart' | 'currentPeriodEnd'
    > &
      Partial<Pick<SubscriptionNotice, 'cancelAtPeriodEnd' | 'pauseAtPeriodEnd' | 'checkoutToken'>>,
    at: Date = this.now(),
  ): SubscriptionNotice {
    return {
      kind: 'subscription',
      provider: 'sandbox',
      eventId: `evt_sbx_${randomUUID().replace(/-/g, '')}`,
      occurredAt: at.toISOString(),
      orgId: input.orgId,
      ...(input.checkoutToken ? { checkoutToken: input.checkoutToken } : {}),
      status: input.status,
      providerCustomerId: SandboxPaymentProvider.customerIdOf(input.orgId),
      providerSubscriptionId: SandboxPaymentProvider.subscriptionIdOf(input.orgId),
      priceId: input.priceId,
      currentPeriodStart: input.currentPeriodStart,
      currentPeriodEnd: input.currentPeriodEnd,
      cancelAtPeriodEnd: input.cancelAtPeriodEnd ?? false,
      pauseAtPeriodEnd: input.pauseAtPeriodEnd ?? false,
    };
  }

  /** A sandbox transaction, for its pages. */
  async transaction(transactionId: string) {
    return this.db
      .selectFrom('billing_sandbox_transactions')
      .selectAll()
      .where('transaction_id', '=', transactionId)
      .executeTakeFirst();
  }

  /** What was asked of the sandbox for a workspace, oldest first. */
  async requestsOf(orgId: string) {
    return this.db
      .selectFrom('billing_sandbox_requests')
      .select(['operation', 'provider_subscription_id', 'details', 'created_at'])
      .where('org_id', '=', orgId)
      .orderBy('id')
      .execute();
  }

  /** The token that makes a page URL unguessable: HMAC of the page and transaction with the sandbox secret. */
  async pageToken(page: string, transactionId: string): Promise<string> {
    return createHmac('sha256', await this.secret())
      .update(`${page}:${transactionId}`)
      .digest('base64url')
      .slice(0, 32);
  }

  async pageTokenValid(page: string, transactionId: string, token: string | undefined): Promise<boolean> {
    if (!token) return false;
    const expected = Buffer.from(await this.pageToken(page, transactionId));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private async pageUrl(page: 'invoices' | 'payment-method', transactionId: string): Promise<string> {
    const base = this.options.publicBaseUrl.replace(/\/$/, '');
    return `${base}${SANDBOX_PAGES_PATH}/${page}/${transactionId}?token=${await this.pageToken(page, transactionId)}`;
  }
}
