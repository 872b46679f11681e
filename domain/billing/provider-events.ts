// What a payment provider tells the service, in the service's terms: the provider adapters (infra/billing)
// turn their webhooks (Paddle Billing's `subscription.*` and `transaction.*` notifications, the sandbox's
// simulated ones) into these, and the subscription use cases apply them. A subscription notice is a snapshot
// of the provider's subscription at `occurredAt`; applying one moves the aggregate to match it (activated,
// renewed, past due, recovered, paused, canceled). Each notice carries the provider's event id: a notice applied
// once decides nothing the second time, and a snapshot older than the last one applied changes nothing.

export const providerNames = ['sandbox', 'paddle'] as const;
export type ProviderName = (typeof providerNames)[number];

export type ProviderSubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'paused' | 'canceled';

export interface ProviderNoticeBase {
  provider: ProviderName;
  /** The provider's event id (Paddle: `evt_…`); the key webhooks are deduplicated by. */
  eventId: string;
  /** When the provider says it happened (ISO 8601); orders snapshots. */
  occurredAt: string;
  /** The workspace, from the checkout's custom data (`{ orgId, checkoutToken }`). */
  orgId: string;
  /**
   * The token GET ORG/billing/checkout-data gave the web app for this checkout, from the same custom data: a
   * workspace not bound to a provider subscription yet takes a notice only with a valid one (webhook-routes.ts).
   */
  checkoutToken?: string | null;
}

export interface SubscriptionNotice extends ProviderNoticeBase {
  kind: 'subscription';
  status: ProviderSubscriptionStatus;
  providerCustomerId: string;
  providerSubscriptionId: string;
  /** The provider price id of the subscribed plan (a plan's providerPriceId or providerPriceIdAnnual). */
  priceId: string;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  /** The provider has a cancellation scheduled for the period end. */
  cancelAtPeriodEnd: boolean;
  /** The provider has a pause scheduled for the period end. */
  pauseAtPeriodEnd: boolean;
}

export const billingTransactionTypes = [
  'subscription',
  'renewal',
  'credit_pack',
  'payment_method_update',
] as const;
export type BillingTransactionType = (typeof billingTransactionTypes)[number];
export const billingTransactionStatuses = ['pending', 'completed', 'failed', 'canceled'] as const;
export type BillingTransactionStatus = (typeof billingTransactionStatuses)[number];

export interface TransactionNotice extends ProviderNoticeBase {
  kind: 'transaction';
  /** The provider's customer and subscription the transaction belongs to, when it names them. */
  providerCustomerId?: string | null;
  providerSubscriptionId?: string | null;
  transactionId: string;
  type: BillingTransactionType;
  status: BillingTransactionStatus;
  /** Minor units (cents for USD). */
  amount: number;
  /** ISO 4217. */
  currency: string;
  /** For a credit pack purchase: the pack's provider price id. */
  priceId: string | null;
  invoiceId: string | null;
  invoiceNumber: string | null;
  /** A link to the invoice PDF when the provider gives one with the notice; else asked for on demand. */
  invoiceUrl: string | null;
  paidAt: string | null;
  createdAt: string;
}

export type ProviderNotice = SubscriptionNotice | TransactionNotice;
