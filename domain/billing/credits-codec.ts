// The credit ledger's events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const count = z.number().int().min(0);
const base = { orgId: z.string(), periodKey: z.string(), at: z.string() };

/** What one debit records, beside the credits (the spec's credit usage row). */
const spendDetails = z.object({
  metricKey: z.string(),
  quantity: count,
  /** The creditActionCosts key it was priced by, if any. */
  actionKey: z.string().nullable(),
  feature: z.string().nullable(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  inputTokens: count.nullable(),
  outputTokens: count.nullable(),
  totalTokens: count.nullable(),
  creditsUsedMilli: count.nullable(),
  pricingVersion: z.string().nullable(),
  usedFallbackEstimate: z.boolean(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
});
export type SpendDetails = z.output<typeof spendDetails>;

const schemas = {
  CreditPeriodOpened: z.object({
    ...base,
    periodStart: z.string(),
    periodEnd: z.string(),
    planKey: z.string(),
    /** The plan's monthly credits (the trial plan's during a trial). */
    allowance: count,
    /** Unused monthly credits of the previous period carried in (capped by the rollover rule). */
    rolledOver: count,
    /** Purchased credits left in the previous period; they never expire. */
    purchasedCarried: count,
    previousPeriodKey: z.string().nullable(),
  }),
  CreditsSpent: z.object({
    ...base,
    /** The caller's idempotency key: the same key again answers this debit and records nothing. */
    spendKey: z.string(),
    credits: count,
    fromMonthly: count,
    fromPurchased: count,
    monthlyAfter: count,
    purchasedAfter: count,
    ...spendDetails.shape,
  }),
  CreditPackPurchased: z.object({
    ...base,
    /** The provider's transaction: a pack is added once per transaction. */
    transactionId: z.string(),
    packKey: z.string(),
    credits: count,
    monthlyAfter: count,
    purchasedAfter: count,
  }),
  /** Credits held for a paid call in flight: they count against the balance at once, until settled or released. */
  CreditsReserved: z.object({
    ...base,
    /** The debit's key: settling is the SpendCredits of this key. */
    reservationKey: z.string(),
    credits: count,
    /** A hold not settled or released by then (its caller crashed) no longer counts and is released. */
    expiresAt: z.string(),
  }),
  CreditReservationReleased: z.object({
    ...base,
    reservationKey: z.string(),
    credits: count,
    /** `failed`: the paid call failed, nothing is charged; `expired`: its holder never came back. */
    reason: z.enum(['failed', 'expired']),
  }),
  CreditPeriodClosed: z.object({
    ...base,
    monthlyLeft: count,
    purchasedLeft: count,
    nextPeriodKey: z.string(),
  }),
};

export type CreditEvent = EventsOf<typeof schemas>;

export const creditEventCodec = zodEventCodec('credits', schemas);
