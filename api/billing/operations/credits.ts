// The billing slice's credit usage operation (every member, permission workspace:read; docs/decisions.md,
// "Usage reads for every member"): GET
// ORG/billing/credits/usage, the workspace's debits newest first with the spec's filters, in the billing list
// envelope; its tool get_usage (mcp:read) answers the workspace's credit balance and this period's usage beside
// the page of debits.
import { z } from '@hono/zod-openapi';
import { pageParams } from '../../platform/paging.js';
import { creditUsageOf } from '../../../commands/billing/credits.js';
import { orgParams } from '../../shared/params.js';
import { billingListSchema } from '../schemas.js';
import { billingOperation } from './deps.js';

const instant = z.iso
  .datetime({ offset: true })
  .transform((v) => new Date(v).toISOString())
  .openapi({ type: 'string', format: 'date-time', example: '2026-11-01T00:00:00Z' });
const text = z.string().min(1).max(200);

export const creditUsageQuery = z
  .object({
    ...pageParams(20, 100),
    metricKey: text.optional().openapi({ description: 'Only debits of this metric', example: 'ai_draft' }),
    feature: text.optional().openapi({ description: 'Only debits of this feature' }),
    model: text.optional().openapi({ description: 'Only debits made with this model' }),
    createdAtFrom: instant.optional().openapi({ description: 'Debits at or after this instant' }),
    createdAtTo: instant.optional().openapi({ description: 'Debits at or before this instant' }),
  })
  .strict();

export const creditUsageRowSchema = z
  .object({
    id: z.uuid(),
    metricKey: z.string(),
    quantity: z.number().int(),
    type: z.string().nullable().openapi({ description: 'The creditActionCosts key it was priced by' }),
    feature: z.string().nullable(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    inputTokens: z.number().int().nullable(),
    outputTokens: z.number().int().nullable(),
    totalTokens: z.number().int().nullable(),
    amountUsed: z.number().int().openapi({ description: 'Credits this debit took' }),
    creditsUsedMilli: z.number().int().nullable(),
    pricingVersion: z.string().nullable(),
    usedFallbackEstimate: z.boolean(),
    monthlyCreditsAfter: z.number().int().nullable(),
    purchasedCreditsAfter: z.number().int().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    createdAt: z.string(),
  })
  .openapi('CreditUsageRow');

export const creditUsagePageSchema = billingListSchema(
  creditUsageRowSchema,
  'CreditUsagePage',
  'CreditUsageListMetadata',
);

export const creditOperations = [
  billingOperation({
    name: 'get_usage',
    kind: 'read',
    method: 'get',
    path: '/v1/orgs/{orgId}/billing/credits/usage',
    tags: ['billing'],
    summary: "The workspace's credit debits, newest first (metric, feature, model and time filters)",
    params: orgParams,
    query: creditUsageQuery,
    output: creditUsagePageSchema,
    outputDescription: 'A page of credit usage rows (billing list envelope)',
    errors: [400, 401, 403],
    access: { permission: 'workspace:read', billing: null, scope: 'mcp:read' },
    run: ({ services }, { caller }, { orgId, ...query }) =>
      creditUsageOf(services, caller, { orgId, ...query }),
    tool: {
      title: 'Get credit usage',
      description:
        "Shows the workspace's usage credits: the balance (monthly allowance left, purchased credits, total), this " +
        "period's usage (used, budget, remaining, percent) and a page of debits newest first, each with its " +
        'metric, feature, model, tokens and credits. Filter by metricKey, feature, model, createdAtFrom and ' +
        'createdAtTo (ISO 8601); page and limit (at most 100) page through them. Read-only: it charges, buys ' +
        'and changes nothing. Open to every member of the workspace.',
      hints: { readOnlyHint: true, openWorldHint: false },
      // The tool tells a model the balance and the period beside the page the route answers.
      answer: async ({ billing }, _call, { orgId }, usage) => {
        const { creditBalance, usageSummary } = await billing.credits.summaryOf(orgId);
        return { creditBalance, usageSummary, usage };
      },
      summary: (out) =>
        `${out.creditBalance.total} credits left (${out.creditBalance.monthly} monthly, ` +
        `${out.creditBalance.purchased} purchased); ${out.usageSummary.periodUsedCredits} of ` +
        `${out.usageSummary.periodBudgetCredits} used this period (${out.usageSummary.usagePercent}%). ` +
        `${out.usage.metadata.total} matching debits, page ${out.usage.metadata.page} of ` +
        `${Math.max(1, out.usage.metadata.totalPages)}.`,
    },
  }),
];
