// The subscription's events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them. The credit ledger has its own codec
// (credits-codec.ts).
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';
import { billingTransactionStatuses, billingTransactionTypes, providerNames } from './provider-events.js';

const at = { orgId: z.string(), at: z.string() };
const interval = z.enum(['month', 'year']);
export type BillingInterval = z.output<typeof interval>;
const resumedFrom = z.enum(['pausing', 'paused', 'cancel_scheduled']);
export type ResumedFrom = z.output<typeof resumedFrom>;
const provider = z.enum(providerNames);

const billingTransactionRecord = z.object({
  ...at,
  provider,
  transactionId: z.string(),
  type: z.enum(billingTransactionTypes),
  status: z.enum(billingTransactionStatuses),
  /** Minor units. */
  amount: z.number().int(),
  currency: z.string(),
  priceId: z.string().nullable(),
  invoiceId: z.string().nullable(),
  invoiceNumber: z.string().nullable(),
  invoiceUrl: z.string().nullable(),
  paidAt: z.string().nullable(),
  createdAt: z.string(),
  providerEventId: z.string(),
});
export type BillingTransactionRecord = z.output<typeof billingTransactionRecord>;

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
  /** `providerEventId` null for a renewal decided here (the sandbox's period end). */
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
  /** `immediately`: a trial (or a paused subscription) ends at once; a paid one at its period end. */
  SubscriptionCanceled: z.object({ ...at, immediately: z.boolean() }),
  SubscriptionPauseScheduled: z.object(at),
  SubscriptionPaused: z.object(at),
  /** A paused subscription resumes into a new period (given); the others keep theirs (null). */
  SubscriptionResumed: z.object({
    ...at,
    from: resumedFrom,
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
  BillingTransactionRecorded: billingTransactionRecord,
  /**
   * Every provider notice applied, after the events it caused (none when the snapshot matched the state): the
   * event ids remembered against repeats and, for subscription snapshots, the newest snapshot time (an older
   * snapshot arriving later decides nothing).
   */
  SubscriptionNoticeApplied: z.object({
    ...at,
    provider,
    providerEventId: z.string(),
    kind: z.enum(['subscription', 'transaction']),
    occurredAt: z.string(),
  }),
};
export type SubscriptionEvent = EventsOf<typeof schemas>;

export const subscriptionEventCodec = zodEventCodec('billing', schemas);
