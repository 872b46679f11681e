// The credit ledger's events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { CreditEvent } from './credits.js';

const count = z.number().int().min(0);
const base = { orgId: z.string(), periodKey: z.string(), at: z.string() };

const schemas = {
  CreditPeriodOpened: z.object({
    ...base,
    periodStart: z.string(),
    periodEnd: z.string(),
    planKey: z.string(),
    allowance: count,
    rolledOver: count,
    purchasedCarried: count,
    previousPeriodKey: z.string().nullable(),
  }),
  CreditsSpent: z.object({
    ...base,
    spendKey: z.string(),
    credits: count,
    fromMonthly: count,
    fromPurchased: count,
    monthlyAfter: count,
    purchasedAfter: count,
    metricKey: z.string(),
    quantity: count,
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
  }),
  CreditPackPurchased: z.object({
    ...base,
    transactionId: z.string(),
    packKey: z.string(),
    credits: count,
    monthlyAfter: count,
    purchasedAfter: count,
  }),
  CreditsReserved: z.object({
    ...base,
    reservationKey: z.string(),
    credits: count,
    expiresAt: z.string(),
  }),
  CreditReservationReleased: z.object({
    ...base,
    reservationKey: z.string(),
    credits: count,
    reason: z.enum(['failed', 'expired']),
  }),
  CreditPeriodClosed: z.object({
    ...base,
    monthlyLeft: count,
    purchasedLeft: count,
    nextPeriodKey: z.string(),
  }),
};
const exact: SchemasMatch<CreditEvent, typeof schemas> = true;
void exact;

export const creditEventCodec = defineEventCodec<CreditEvent>('credits', zodSpecs(schemas));
