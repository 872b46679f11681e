// The home summary (GET ORG/home, get_home_summary): what the app's home screen and assistants show first — the
// posts waiting for approval, what is scheduled next, the last days' results against the days before, and the
// credits left. Read from the post read models, the performance slice's 'performance' service and the credit
// ledger (billing's 'billing' service); nothing is written.
import type { Kysely } from 'kysely';
import type { Totals } from '../../domain/performance/performance.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { PaymentRequired } from '../../domain/shared/errors.js';
import {
  nextScheduledPosts,
  pendingApprovals,
  scheduleCounts,
  type NextScheduledPost,
  type PendingApprovals,
} from '../../projections/home/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { CreditSummary } from '../billing/credits.js';
import type { PerformanceReads, TopPost } from '../performance/performance-use-cases.js';

/** The recent results' window: the last week, today included, in the workspace's time zone. */
export const homeResultsDays = 7;
/** How many groups waiting for approval, and next posts, the summary lists. */
export const homeListLimit = 5;

export interface HomeDeps {
  readModels: Kysely<ReadModels>;
  performance: PerformanceReads;
  credits: { summaryOf(orgId: string, options: { recentLimit?: number }): Promise<CreditSummary> };
  now: () => Date;
}

export interface HomeSummary {
  generatedAt: string;
  /** The workspace's effective time zone, the results' days are its. */
  timezone: string;
  approvals: PendingApprovals;
  scheduled: { postsUpcoming: number; postsFailed: number; next: NextScheduledPost[] };
  results: Totals & {
    windowDays: number;
    engagementRate: number | null;
    previousWindow: Totals;
    topPost: TopPost | null;
  };
  credits: {
    total: number;
    monthly: number;
    purchased: number;
    periodUsedCredits: number;
    periodBudgetCredits: number;
    usagePercent: number;
    periodEnd: string;
  } | null;
}

/** The balance and this period's use; null without a subscription (nothing to spend from). */
async function creditsOf(deps: HomeDeps, orgId: string): Promise<HomeSummary['credits']> {
  try {
    const { creditBalance, usageSummary } = await deps.credits.summaryOf(orgId, { recentLimit: 0 });
    return {
      total: creditBalance.total,
      monthly: creditBalance.monthly,
      purchased: creditBalance.purchased,
      periodUsedCredits: usageSummary.periodUsedCredits,
      periodBudgetCredits: usageSummary.periodBudgetCredits,
      usagePercent: usageSummary.usagePercent,
      periodEnd: usageSummary.periodEnd,
    };
  } catch (error) {
    if (error instanceof PaymentRequired) return null;
    throw error;
  }
}

/** Every member (workspace:read), assistants with mcp:read. */
export async function getHomeSummary(
  deps: HomeDeps,
  caller: Caller,
  input: { orgId: string },
): Promise<HomeSummary> {
  const { orgId } = input;
  authorize(caller, { orgId, permission: 'workspace:read', scope: 'mcp:read' });
  const now = deps.now().toISOString();
  const [approvals, next, counts, recent, credits] = await Promise.all([
    pendingApprovals(deps.readModels, orgId, homeListLimit),
    nextScheduledPosts(deps.readModels, orgId, now, homeListLimit),
    scheduleCounts(deps.readModels, orgId, now),
    deps.performance.recentResults(orgId, homeResultsDays),
    creditsOf(deps, orgId),
  ]);
  const { summary, previousWindow } = recent.activity;
  return {
    generatedAt: now,
    timezone: recent.window.timezone,
    approvals,
    scheduled: { ...counts, next },
    results: {
      windowDays: homeResultsDays,
      postsPublished: summary.postsPublished,
      impressions: summary.impressions,
      engagements: summary.engagements,
      engagementRate: summary.engagementRate,
      previousWindow,
      topPost: recent.topPost,
    },
    credits,
  };
}
