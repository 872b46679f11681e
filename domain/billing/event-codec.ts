// The subscription's events as stored (domain/shared/event-codec.ts); the credit ledger has its own codec
// (credits-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { SubscriptionEvent } from './subscription.js';

const at = { orgId: z.string(), at: z.string() };
const interval = z.enum(['month', 'year']);

const schemas = {
  SubscriptionTrialStarted: z.object({
    ...at,
    planKey: z.string(),
    trialStart: z.string(),
    trialEndsAt: z.string(),
  }),
  SubscriptionActivated: z.object({
    ...at,
    providerCustomerId: z.string(),
    providerSubscriptionId: z.string(),
    planKey: z.string(),
    billingInterval: interval,
    periodStart: z.string(),
    periodEnd: z.string(),
    providerEventId: z.string(),
  }),
  SubscriptionRenewed: z.object({
    ...at,
    periodStart: z.string(),
    periodEnd: z.string(),
    providerEventId: z.string().nullable(),
  }),
  SubscriptionPaymentFailed: z.object({
    ...at,
    pastDueSince: z.string(),
    graceEndsAt: z.string(),
    providerEventId: z.string(),
  }),
  SubscriptionAccessRestricted: z.object(at),
  SubscriptionRecovered: z.object({
    ...at,
    periodStart: z.string().nullable(),
    periodEnd: z.string().nullable(),
    providerEventId: z.string(),
  }),
  SubscriptionCancelScheduled: z.object(at),
  SubscriptionCanceled: z.object({ ...at, immediately: z.boolean() }),
  SubscriptionPauseScheduled: z.object(at),
  SubscriptionPaused: z.object(at),
  SubscriptionResumed: z.object({
    ...at,
    from: z.enum(['pausing', 'paused', 'cancel_scheduled']),
    periodStart: z.string().nullable(),
    periodEnd: z.string().nullable(),
  }),
  SubscriptionPlanChanged: z.object({
    ...at,
    fromPlanKey: z.string().nullable(),
    toPlanKey: z.string(),
    billingInterval: interval,
    priceId: z.string(),
  }),
  BillingTransactionRecorded: z.object({
    ...at,
    provider: z.enum(['sandbox', 'paddle']),
    transactionId: z.string(),
    type: z.enum(['subscription', 'renewal', 'credit_pack', 'payment_method_update']),
    status: z.enum(['pending', 'completed', 'failed', 'canceled']),
    amount: z.number().int(),
    currency: z.string(),
    priceId: z.string().nullable(),
    invoiceId: z.string().nullable(),
    invoiceNumber: z.string().nullable(),
    invoiceUrl: z.string().nullable(),
    paidAt: z.string().nullable(),
    createdAt: z.string(),
    providerEventId: z.string(),
  }),
  SubscriptionNoticeApplied: z.object({
    ...at,
    provider: z.enum(['sandbox', 'paddle']),
    providerEventId: z.string(),
    kind: z.enum(['subscription', 'transaction']),
    occurredAt: z.string(),
  }),
};
const exact: SchemasMatch<SubscriptionEvent, typeof schemas> = true;
void exact;

export const subscriptionEventCodec = defineEventCodec<SubscriptionEvent>('billing', zodSpecs(schemas));
