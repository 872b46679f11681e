// The billing slice's assistant tool: get_usage (mcp:read), on the same use case as GET ORG/billing/credits/usage,
// with the workspace's credit balance and this period's usage beside the page of debits.
import type { Kysely } from 'kysely';
import { creditUsageOf, type CreditsService } from '../../commands/billing/credits.js';
import type { ReadModels } from '../../projections/read-models.js';
import { defineTool, type AnyTool } from '../shared/tools.js';
import { creditUsageQuery } from './credit-routes.js';

export function billingTools(deps: {
  readModels: Kysely<ReadModels>;
  credits: () => CreditsService;
}): readonly AnyTool[] {
  return [
    defineTool({
      name: 'get_usage',
      title: 'Get credit usage',
      description:
        "Shows the workspace's usage credits: the balance (monthly allowance left, purchased credits, total), this " +
        "period's usage (used, budget, remaining, percent) and a page of debits newest first, each with its " +
        'metric, feature, model, tokens and credits. Filter by metricKey, feature, model, createdAtFrom and ' +
        'createdAtTo (ISO 8601); page and limit (at most 100) page through them. Read-only: it charges, buys ' +
        'and changes nothing. Open to workspace owners and admins only.',
      scope: 'mcp:read',
      input: creditUsageQuery,
      hints: { readOnlyHint: true, openWorldHint: false },
      run: async ({ caller, orgId }, query) => {
        const usage = await creditUsageOf(deps, caller, { orgId, ...query });
        const { creditBalance, usageSummary } = await deps.credits().summaryOf(orgId);
        return { creditBalance, usageSummary, usage };
      },
      summary: (out) =>
        `${out.creditBalance.total} credits left (${out.creditBalance.monthly} monthly, ` +
        `${out.creditBalance.purchased} purchased); ${out.usageSummary.periodUsedCredits} of ` +
        `${out.usageSummary.periodBudgetCredits} used this period (${out.usageSummary.usagePercent}%). ` +
        `${out.usage.metadata.total} matching debits, page ${out.usage.metadata.page} of ` +
        `${Math.max(1, out.usage.metadata.totalPages)}.`,
    }),
  ];
}
