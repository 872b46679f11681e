// The payment provider port: what the billing use cases ask of a payment provider, and how its webhooks are
// read. Two adapters: the sandbox (infra/billing/sandbox-provider.ts, the embedded default, simulating payments
// locally) and Paddle Billing (infra/billing/paddle-provider.ts). Amounts are integers in minor units.
import type { ProviderName, ProviderNotice } from '../../domain/billing/provider-events.js';

export interface ProviderSubscriptionRef {
  orgId: string;
  providerCustomerId: string | null;
  providerSubscriptionId: string | null;
}

export interface CustomerCreditBalance {
  currencyCode: string;
  availableCents: number;
}

/** A webhook as it arrived: the raw body (signatures are over the exact bytes) and the headers, lower-cased. */
export interface IncomingWebhook {
  rawBody: string;
  headers: Record<string, string | undefined>;
  receivedAt: Date;
}

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

export interface PaymentProvider {
  readonly name: ProviderName;
  /** Switches the subscription to another price (prorated as the provider decides). */
  changePlan(subscription: ProviderSubscriptionRef, priceId: string): Promise<void>;
  /** Schedules cancellation at the period end. */
  cancelAtPeriodEnd(subscription: ProviderSubscriptionRef): Promise<void>;
  /** Schedules a pause at the period end. */
  pauseAtPeriodEnd(subscription: ProviderSubscriptionRef): Promise<void>;
  /** Removes a scheduled pause or cancellation, or resumes a paused subscription. */
  resume(subscription: ProviderSubscriptionRef): Promise<void>;
  /** A transaction to update the payment method, and the URL where the customer does it. */
  updatePaymentMethod(
    subscription: ProviderSubscriptionRef,
    returnUrl: string | undefined,
  ): Promise<{ transactionId: string; checkoutUrl: string | null }>;
  /** A (short-lived) link to a transaction's invoice PDF; null when the transaction has no invoice yet. */
  invoiceUrl(orgId: string, transactionId: string): Promise<string | null>;
  /** The customer's credit balances with the provider (Paddle customer credit balances); [] when none. */
  customerCreditBalances(providerCustomerId: string): Promise<CustomerCreditBalance[]>;
  /**
   * Verifies the webhook's signature and reads its notices; throws WebhookSignatureError when the signature is
   * missing, wrong or too old. Returns [] for event types the service does not act on.
   */
  readWebhook(
    webhook: IncomingWebhook,
  ): Promise<{ eventId: string; eventType: string; notices: ProviderNotice[] }>;
}
