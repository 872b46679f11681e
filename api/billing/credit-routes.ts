// Credit usage route (owners and admins, permission billing:manage): GET ORG/billing/credits/usage, the
// workspace's debits newest first with the spec's filters, in the billing list envelope. The get_usage tool
// (api/billing/tools.ts) takes the same query.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { creditUsageOf } from '../../commands/billing/credits.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonResponse } from '../platform/responses.js';
import { billingListSchema } from './history-routes.js';
import { orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';

const instant = z.iso
  .datetime({ offset: true })
  .transform((v) => new Date(v).toISOString())
  .openapi({ type: 'string', format: 'date-time', example: '2026-11-01T00:00:00Z' });
const text = z.string().min(1).max(200);

export const creditUsageQuery = z
  .object({
    page: z.coerce
      .number()
      .int()
      .min(1)
      .default(1)
      .openapi({ type: 'integer', minimum: 1, default: 1, description: 'Page number, 1-based' }),
    limit: z.coerce.number().int().min(1).max(100).default(20).openapi({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
      description: 'Page size (default 20, maximum 100)',
    }),
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

const usageRoute = createRoute({
  ...secured({ permission: 'billing:manage' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/billing/credits/usage',
  operationId: 'listCreditUsage',
  tags: ['billing'],
  summary: "The workspace's credit debits, newest first (metric, feature, model and time filters)",
  request: { params: orgParams, query: creditUsageQuery },
  responses: {
    200: jsonResponse(dataOf(creditUsagePageSchema), 'A page of credit usage rows (billing list envelope)'),
    ...errorResponses(400, 401, 403),
  },
});

export function creditRoutes(services: RouteServices) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(usageRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      return c.json({ data: await creditUsageOf(services, callerOf(c), { orgId, ...query }) }, 200);
    });
  };
}
