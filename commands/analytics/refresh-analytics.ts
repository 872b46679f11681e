// The analytics refresh (`POST ORG/marketing/analytics/refresh`): reads the workspace's published posts still on
// the metrics cadence now, through the metrics fetcher and its leases, within the workspace's fair use (calls and
// posts per hour, commands/analytics/refresh-fair-use.ts) and each platform's request budget.
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { TooManyRequests } from '../../domain/shared/errors.js';
import type { RefreshOptions, RefreshResult } from '../../processes/analytics/metrics-fetcher.js';
import type { IdempotencyStore } from '../shared/idempotency.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { RefreshFairUse } from './refresh-fair-use.js';

/** The spec's answer: posts read, updated and failed; those fair use left out; errors per platform. */
export interface AnalyticsRefresh {
  processed: number;
  updated: number;
  failed: number;
  skippedFairUse: number;
  errors: Array<{ platform: string; message: string }>;
}

export interface RefreshAnalyticsDeps {
  fetcher: { refreshWorkspace(orgId: string, options: RefreshOptions): Promise<RefreshResult> };
  fairUse: RefreshFairUse;
  idempotency: IdempotencyStore;
}

/** Owners and admins (the "Settings" row of the role matrix): a refresh spends the platforms' request budgets. */
export const refreshPermission = 'settings:manage' as const;

export async function refreshAnalytics(
  deps: RefreshAnalyticsDeps,
  caller: Caller,
  input: { orgId: string },
  request: WriteRequest,
): Promise<Written<AnalyticsRefresh>> {
  authorize(caller, { orgId: input.orgId, permission: refreshPermission, scope: null });
  return runWrite(deps.idempotency, caller, request, async () => {
    const now = new Date(request.now);
    const call = await deps.fairUse.beginCall(input.orgId, now);
    if (!call.allowed)
      throw new TooManyRequests(
        'This workspace has refreshed its analytics as often as fair use allows this hour; its posts are still read on their usual schedule',
        call.retryAfterSeconds,
      );
    let reserved = 0;
    let result: RefreshResult | undefined;
    try {
      result = await deps.fetcher.refreshWorkspace(input.orgId, {
        now,
        allowance: async (wanted) => {
          reserved = await deps.fairUse.reserve(input.orgId, now, wanted);
          return reserved;
        },
      });
    } finally {
      // Posts reserved but not read (held by another reader, over a platform's budget, gone) are given back.
      await deps.fairUse.giveBack(input.orgId, now, reserved - (result?.processed ?? 0));
    }
    return {
      processed: result.processed,
      updated: result.updated,
      failed: result.failed,
      skippedFairUse: result.skippedFairUse,
      errors: result.errors,
    };
  });
}
