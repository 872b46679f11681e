// The Paddle Billing adapter of the payment provider port, through Paddle's own SDK (@paddle/paddle-node-sdk):
// subscription changes scheduled at the next billing period, the payment-method update transaction, invoice PDFs,
// customer credit balances, and webhooks verified (webhook-signature.ts) and read as ProviderNotices.
import {
  ApiError,
  Paddle,
  type Environment,
  type EventEntity,
  type SubscriptionNotification,
  type TransactionNotification,
  Webhooks,
} from '@paddle/paddle-node-sdk';
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
import { webhookSignatureValid } from './webhook-signature.js';

export const PADDLE_SIGNATURE_HEADER = 'paddle-signature';

export interface PaddleProviderOptions {
  apiKey: string;
  webhookSecret: string;
  /** Paddle's environment (`sandbox` → sandbox-api.paddle.com, `production` → api.paddle.com). */
  environment: 'sandbox' | 'production';
  /**
   * Another API base URL (tests serve Paddle's documented responses locally). The SDK has no base URL option;
   * it reads an environment it does not know as the base URL itself, so the URL is passed as the environment.
   */
  apiUrl?: string;
  /** The credit packs' price ids: a transaction for one of them is a `credit_pack` purchase. */
  creditPackPriceIds?: readonly string[];
}

/** A Paddle API call failed; carries Paddle's error code (e.g. `subscription_locked_pending_changes`). */
export class PaddleApiError extends Error {
  constructor(
    readonly operation: string,
    readonly code: string | null,
    message: string,
  ) {
    super(`Paddle ${operation} failed${code ? ` (${code})` : ''}: ${message}`);
    this.name = 'PaddleApiError';
  }
}

const subscriptionEvents = new Set([
  'subscription.created',
  'subscription.activated',
  'subscription.updated',
  'subscription.past_due',
  'subscription.paused',
  'subscription.resumed',
  'subscription.canceled',
]);
const transactionStatuses: Record<string, BillingTransactionStatus> = {
  'transaction.completed': 'completed',
  'transaction.paid': 'completed',
  'transaction.payment_failed': 'failed',
  'transaction.canceled': 'canceled',
};

function requireSubscription(ref: ProviderSubscriptionRef, operation: string): string {
  if (!ref.providerSubscriptionId)
    throw new PaddleApiError(operation, null, 'the workspace has no Paddle subscription');
  return ref.providerSubscriptionId;
}

function orgIdOf(customData: unknown): string | null {
  if (customData === null || typeof customData !== 'object') return null;
  const orgId = (customData as Record<string, unknown>).orgId;
  return typeof orgId === 'string' && orgId.length > 0 ? orgId : null;
}

/** The service's checkout token in the custom data (checked by the receiving path), when it carries one. */
function checkoutTokenOf(customData: unknown): { checkoutToken?: string } {
  if (customData === null || typeof customData !== 'object') return {};
  const token = (customData as Record<string, unknown>).checkoutToken;
  return typeof token === 'string' && token.length > 0 ? { checkoutToken: token } : {};
}

/**
 * Paddle's timestamps carry microseconds (`…09:00:07.268117Z`); the service's are ISO 8601 in milliseconds, and
 * snapshots are ordered by comparing them, so every time is read as the service writes it.
 */
function instant(value: string): string;
function instant(value: string | null | undefined): string | null;
function instant(value: string | null | undefined): string | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

/** Paddle amounts are strings of minor units ("4900"). */
function minorUnits(value: string | null | undefined): number {
  const n = Number(value ?? 0);
  return Number.isSafeInteger(n) ? n : 0;
}

export class PaddlePaymentProvider implements PaymentProvider {
  readonly name = 'paddle' as const;
  private readonly paddle: Paddle;
  private readonly creditPackPriceIds: ReadonlySet<string>;

  constructor(private readonly options: PaddleProviderOptions) {
    this.paddle = new Paddle(options.apiKey, {
      environment: (options.apiUrl?.replace(/\/$/, '') ?? options.environment) as Environment,
    });
    this.creditPackPriceIds = new Set(options.creditPackPriceIds ?? []);
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ApiError) throw new PaddleApiError(operation, error.code, error.detail);
      throw error;
    }
  }

  async changePlan(subscription: ProviderSubscriptionRef, priceId: string): Promise<void> {
    const id = requireSubscription(subscription, 'change plan');
    await this.call('change plan', () =>
      this.paddle.subscriptions.update(id, {
        items: [{ priceId, quantity: 1 }],
        prorationBillingMode: 'prorated_immediately',
      }),
    );
  }

  async cancelAtPeriodEnd(subscription: ProviderSubscriptionRef): Promise<void> {
    const id = requireSubscription(subscription, 'cancel');
    await this.call('cancel', () =>
      this.paddle.subscriptions.cancel(id, { effectiveFrom: 'next_billing_period' }),
    );
  }

  async pauseAtPeriodEnd(subscription: ProviderSubscriptionRef): Promise<void> {
    const id = requireSubscription(subscription, 'pause');
    await this.call('pause', () =>
      this.paddle.subscriptions.pause(id, { effectiveFrom: 'next_billing_period' }),
    );
  }

  /**
   * A paused subscription is resumed now; a scheduled pause or cancellation is removed (`scheduled_change: null`,
   * Paddle's way to keep a subscription that was to end or pause).
   */
  async resume(subscription: ProviderSubscriptionRef): Promise<void> {
    const id = requireSubscription(subscription, 'resume');
    const current = await this.call('resume', () => this.paddle.subscriptions.get(id));
    if (current.status === 'paused') {
      await this.call('resume', () => this.paddle.subscriptions.resume(id, { effectiveFrom: 'immediately' }));
      return;
    }
    if (current.scheduledChange !== null)
      await this.call('resume', () => this.paddle.subscriptions.update(id, { scheduledChange: null }));
  }

  async updatePaymentMethod(
    subscription: ProviderSubscriptionRef,
    returnUrl: string | undefined,
  ): Promise<{ transactionId: string; checkoutUrl: string | null }> {
    // Paddle's checkout for the transaction is its default payment link; where it returns to is set there.
    void returnUrl;
    const id = requireSubscription(subscription, 'update payment method');
    const transaction = await this.call('update payment method', () =>
      this.paddle.subscriptions.getPaymentMethodChangeTransaction(id),
    );
    return { transactionId: transaction.id, checkoutUrl: transaction.checkout?.url ?? null };
  }

  /** Paddle's short-lived invoice PDF link; null when Paddle has no invoice for it (not billed or completed). */
  async invoiceUrl(orgId: string, transactionId: string): Promise<string | null> {
    void orgId; // the caller checks the transaction is the workspace's (its transactions read model)
    try {
      const pdf = await this.paddle.transactions.getInvoicePDF(transactionId, { disposition: 'inline' });
      return pdf.url;
    } catch (error) {
      // Not found, or a transaction without an invoice (not completed, zero value): Paddle's `transaction_…` codes.
      if (error instanceof ApiError && (error.code === 'not_found' || error.code.startsWith('transaction_')))
        return null;
      if (error instanceof ApiError) throw new PaddleApiError('invoice', error.code, error.detail);
      throw error;
    }
  }

  /** A customer portal session's overview link (Paddle's hosted page to manage payment and subscriptions). */
  async customerPortalUrl(ref: ProviderSubscriptionRef): Promise<string | null> {
    if (!ref.providerCustomerId) return null;
    const customerId = ref.providerCustomerId;
    const session = await this.call('customer portal', () =>
      this.paddle.customerPortalSessions.create(
        customerId,
        ref.providerSubscriptionId ? [ref.providerSubscriptionId] : [],
      ),
    );
    return session.urls.general.overview;
  }

  async customerCreditBalances(providerCustomerId: string): Promise<CustomerCreditBalance[]> {
    const balances = await this.call('credit balances', () =>
      this.paddle.customers.getCreditBalance(providerCustomerId),
    );
    return balances
      .filter((b) => b.currencyCode !== null)
      .map((b) => ({ currencyCode: b.currencyCode!, availableCents: minorUnits(b.balance?.available) }));
  }

  async readWebhook(
    webhook: IncomingWebhook,
  ): Promise<{ eventId: string; eventType: string; notices: ProviderNotice[] }> {
    const signature = webhook.headers[PADDLE_SIGNATURE_HEADER];
    if (!signature) throw new WebhookSignatureError(`Missing ${PADDLE_SIGNATURE_HEADER} header`);
    if (!webhookSignatureValid(webhook.rawBody, this.options.webhookSecret, signature, webhook.receivedAt))
      throw new WebhookSignatureError('Webhook signature is wrong, too old or from the future');
    let event: EventEntity;
    try {
      event = Webhooks.fromJson(JSON.parse(webhook.rawBody) as Parameters<typeof Webhooks.fromJson>[0]);
    } catch {
      throw new ValidationError('Webhook body is not JSON');
    }
    return { eventId: event.eventId, eventType: event.eventType, notices: this.noticesOf(event) };
  }

  /** The notices of one Paddle notification; [] for the types the service does not act on. */
  noticesOf(event: EventEntity): ProviderNotice[] {
    const occurredAt = instant(event.occurredAt);
    const base = { provider: 'paddle' as const, eventId: event.eventId, occurredAt };
    if (subscriptionEvents.has(event.eventType)) {
      const data = event.data as SubscriptionNotification;
      const orgId = orgIdOf(data.customData);
      const priceId = data.items.find((item) => item.price !== null)?.price?.id;
      if (!orgId || !priceId) return [];
      const notice: SubscriptionNotice = {
        ...base,
        kind: 'subscription',
        orgId,
        ...checkoutTokenOf(data.customData),
        status: data.status,
        providerCustomerId: data.customerId,
        providerSubscriptionId: data.id,
        priceId,
        currentPeriodStart: instant(data.currentBillingPeriod?.startsAt),
        currentPeriodEnd: instant(data.currentBillingPeriod?.endsAt),
        cancelAtPeriodEnd: data.scheduledChange?.action === 'cancel',
        pauseAtPeriodEnd: data.scheduledChange?.action === 'pause',
      };
      return [notice];
    }
    const status = transactionStatuses[event.eventType];
    if (status !== undefined) {
      const data = event.data as TransactionNotification;
      const orgId = orgIdOf(data.customData);
      if (!orgId) return [];
      const priceId = data.items.find((item) => item.price !== null)?.price?.id ?? null;
      const captured = data.payments.find((p) => p.capturedAt !== null)?.capturedAt ?? null;
      const notice: TransactionNotice = {
        ...base,
        kind: 'transaction',
        orgId,
        ...checkoutTokenOf(data.customData),
        providerCustomerId: data.customerId,
        providerSubscriptionId: data.subscriptionId,
        transactionId: data.id,
        type: this.transactionTypeOf(data, priceId),
        status,
        amount: minorUnits(data.details?.totals?.grandTotal ?? data.details?.totals?.total),
        currency: data.currencyCode,
        priceId,
        invoiceId: data.invoiceId,
        invoiceNumber: data.invoiceNumber,
        invoiceUrl: null,
        paidAt: status === 'completed' ? instant(captured ?? data.billedAt ?? event.occurredAt) : null,
        createdAt: instant(data.createdAt),
      };
      return [notice];
    }
    return [];
  }

  private transactionTypeOf(data: TransactionNotification, priceId: string | null): BillingTransactionType {
    if (data.items.some((item) => item.price !== null && this.creditPackPriceIds.has(item.price.id)))
      return 'credit_pack';
    if (data.origin === 'subscription_payment_method_change') return 'payment_method_update';
    if (data.origin === 'subscription_recurring') return 'renewal';
    if (priceId !== null && this.creditPackPriceIds.has(priceId)) return 'credit_pack';
    return 'subscription';
  }
}
