// The billing overview's and the subscription endpoints' request and response shapes (the spec's Plan,
// Subscription, creditBalance, usageSummary, creditActionCosts, Credit transaction, Subscription event), named
// for the OpenAPI document, with the history lists' rows (BillingTransaction, Invoice) and the billing list
// envelope. Amounts and prices are integers in minor units of the configured currency.
import { z } from '@hono/zod-openapi';
import { invoiceStatuses } from '../../projections/billing/history-projection.js';

export const transactionTypes = ['subscription', 'renewal', 'credit_pack', 'payment_method_update'] as const;
export const transactionStatuses = ['pending', 'completed', 'failed', 'canceled'] as const;

export const billingTransactionSchema = z
  .object({
    id: z.string().openapi({ example: 'txn_01hv8x' }),
    type: z.string().openapi({ description: transactionTypes.join(', ') }),
    amount: z.number().int().openapi({ description: 'Minor units of `currency` (cents for USD)' }),
    currency: z.string().openapi({ example: 'USD' }),
    status: z.string().openapi({ description: transactionStatuses.join(', ') }),
    invoiceUrl: z.string().nullable(),
    paidAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('BillingTransaction');

export const invoiceSchema = z
  .object({
    id: z.string().openapi({ description: "The provider's invoice id" }),
    transactionId: z
      .string()
      .openapi({ description: 'The transaction it invoices (…/transactions/{transactionId}/invoice)' }),
    invoiceNumber: z.string().nullable(),
    status: z.string().openapi({ description: invoiceStatuses.join(', ') }),
    total: z.number().int().openapi({ description: 'Minor units of `currency`' }),
    currency: z.string(),
    invoiceUrl: z.string().nullable(),
    paidAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('Invoice');

/** The spec's billing list envelope: `data` = { data: rows[], metadata }, its metadata named for the document. */
export function billingListSchema<T extends z.ZodType>(
  row: T,
  name: string,
  metadataName = 'BillingListMetadata',
) {
  const metadata = z
    .object({
      page: z.number().int().min(1),
      limit: z.number().int().min(1),
      total: z.number().int().min(0),
      totalPages: z.number().int().min(0),
      hasNext: z.boolean(),
      hasPrev: z.boolean(),
    })
    .openapi(metadataName);
  return z.object({ data: z.array(row), metadata }).openapi(name);
}

const minor = (description: string) =>
  z
    .number()
    .int()
    .openapi({ description: `${description}; minor units of the currency (cents for USD)` });

export const planSchema = z
  .object({
    id: z.uuid(),
    key: z.string().openapi({ example: 'pro' }),
    name: z.string().openapi({ example: 'Pro' }),
    monthlyPrice: minor('Price per month').nullable(),
    monthlyCredits: z.number().int(),
    teamsEnabled: z.boolean(),
    maxMembers: z.number().int(),
  })
  .openapi('Plan');

export const subscriptionSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['active', 'pausing', 'paused', 'past_due', 'canceled', 'trialing']),
    accessState: z.enum(['full', 'read_only']),
    trialEndsAt: z.string().nullable(),
    trialDaysRemaining: z.number().int().nullable(),
    isTrialExpired: z.boolean(),
    canChangePlan: z.boolean(),
    canPause: z.boolean(),
    pastDueSince: z.string().nullable(),
    graceEndsAt: z
      .string()
      .nullable()
      .openapi({ description: 'While past due: full access until then, read-only from then on' }),
    billingInterval: z.string().openapi({ description: 'month or year' }),
    currentPeriodStart: z
      .string()
      .nullable()
      .openapi({ description: 'The paid period; while trialing, the trial' }),
    currentPeriodEnd: z.string().nullable(),
    cancelAtPeriodEnd: z.boolean().nullable(),
    providerCustomerId: z.string().nullable(),
    hasProviderSubscription: z.boolean(),
  })
  .openapi('Subscription');

export const creditBalanceSchema = z
  .object({
    monthly: z.number(),
    purchased: z.number(),
    allowance: z.number(),
    total: z.number(),
    rollover: z.number().optional(),
  })
  .openapi('CreditBalance');

export const usageSummarySchema = z
  .object({
    periodStart: z.string(),
    periodEnd: z.string(),
    periodUsedCredits: z.number(),
    periodAllowanceCredits: z.number(),
    periodPurchasedCredits: z.number(),
    periodBudgetCredits: z.number(),
    periodRemainingCredits: z.number(),
    usagePercent: z.number(),
  })
  .openapi('UsageSummary');

export const creditActionCostSchema = z
  .object({
    key: z.string().openapi({ example: 'ai_draft' }),
    label: z.string(),
    description: z.string(),
    credits: z.number().int(),
  })
  .openapi('CreditActionCost');

export const creditTransactionSchema = z
  .object({
    id: z.string(),
    type: z.string().openapi({ description: 'grant, rollover, purchase or spend' }),
    amount: z.number().openapi({ description: 'Credits; negative for spends' }),
    monthlyCreditsAfter: z.number(),
    purchasedCreditsAfter: z.number(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    createdAt: z.string(),
  })
  .openapi('CreditTransaction');

export const subscriptionEventSchema = z
  .object({
    id: z.string(),
    type: z.enum(['pausing', 'paused', 'resumed']),
    createdAt: z.string(),
  })
  .openapi('SubscriptionEvent');

export const providerCreditBalanceSchema = z
  .object({ currencyCode: z.string(), availableCents: z.number().int() })
  .openapi('ProviderCreditBalance');

export const billingOverviewSchema = z
  .object({
    plan: planSchema.nullable(),
    subscription: subscriptionSchema.nullable(),
    trialDurationDays: z.number().int(),
    creditBalance: creditBalanceSchema,
    usageSummary: usageSummarySchema,
    creditActionCosts: z.array(creditActionCostSchema),
    recentCreditTransactions: z.array(creditTransactionSchema),
    recentBillingTransactions: z.array(billingTransactionSchema),
    recentSubscriptionEvents: z.array(subscriptionEventSchema),
    recentInvoices: z.array(invoiceSchema),
    providerCreditBalance: z
      .array(providerCreditBalanceSchema)
      .optional()
      .openapi({ description: "The customer's credit with the payment provider; absent when there is none" }),
  })
  .openapi('BillingOverview');

export const checkoutPlanSchema = z
  .object({
    key: z.string(),
    name: z.string(),
    providerPriceId: z.string().nullable(),
    providerPriceIdAnnual: z.string().nullable(),
    monthlyPrice: minor('Price per month').nullable(),
    annualPrice: minor('Price per year').nullable(),
    monthlyCredits: z.number().int(),
    teamsEnabled: z.boolean(),
    maxMembers: z.number().int(),
    localizedCurrencyCode: z.string().optional(),
    localizedMonthlyPrice: z.number().int().optional(),
    localizedMonthlyPriceFormatted: z.string().optional(),
    localizedAnnualPrice: z.number().int().optional(),
    localizedAnnualPriceFormatted: z.string().optional(),
  })
  .openapi('CheckoutPlan');

export const checkoutCreditPackSchema = z
  .object({
    key: z.string(),
    name: z.string(),
    providerPriceId: z.string().nullable(),
    credits: z.number().int(),
    price: minor('Price'),
    localizedCurrencyCode: z.string().optional(),
    localizedPrice: z.number().int().optional(),
    localizedPriceFormatted: z.string().optional(),
  })
  .openapi('CheckoutCreditPack');

export const checkoutDataSchema = z
  .object({
    providerCustomerId: z.string().nullable(),
    checkoutToken: z.string().openapi({
      description:
        "Opaque; pass it in the checkout's custom data with the workspace id (`{ orgId, checkoutToken }`). " +
        'A payment binds a workspace not subscribed yet only with a valid one.',
    }),
    checkoutTokenExpiresAt: z
      .string()
      .datetime()
      .openapi({ description: 'When checkoutToken stops binding (24 h)' }),
    trialDurationDays: z.number().int(),
    plans: z.array(checkoutPlanSchema),
    creditPacks: z.array(checkoutCreditPackSchema),
  })
  .openapi('CheckoutData');

export const changePlanBody = z
  .object({
    priceId: z
      .string()
      .min(1)
      .max(200)
      .openapi({ example: 'pri_pro_annual', description: "A plan's monthly or annual provider price id" }),
  })
  .strict()
  .openapi('ChangePlan');

export const changePlanAnswerSchema = z
  .object({ updated: z.boolean(), message: z.string() })
  .openapi('ChangePlanResult');

export const cancelAnswerSchema = z
  .object({ cancelAtPeriodEnd: z.boolean(), message: z.string() })
  .openapi('CancelSubscriptionResult');

export const statusAnswerSchema = z
  .object({ status: subscriptionSchema.shape.status, message: z.string() })
  .openapi('SubscriptionStatusResult');

export const updatePaymentBody = z
  .object({
    checkoutUrl: z.url().optional().openapi({
      description: 'Where the provider sends the customer back after updating the payment method',
    }),
  })
  .strict()
  .openapi('UpdatePayment');

export const updatePaymentAnswerSchema = z
  .object({ transactionId: z.string(), checkoutUrl: z.url().nullable().optional() })
  .openapi('UpdatePaymentResult');
