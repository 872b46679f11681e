// The analytics slice's operations (issue 28, post metrics): POST ORG/marketing/analytics/refresh reads the
// workspace's recent published posts' numbers now. No assistant tool (the spec lists none for it).
import os from 'node:os';
import { z } from '@hono/zod-openapi';
import { refreshAnalytics, refreshPermission } from '../../commands/analytics/refresh-analytics.js';
import { RefreshFairUse } from '../../commands/analytics/refresh-fair-use.js';
import { MetricsFetcher } from '../../processes/analytics/metrics-fetcher.js';
import { effectiveTimezoneOf } from '../../projections/scheduling/queries.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import type { SliceContext } from '../shared/slice-context.js';
import type { AnyService } from '../shared/service.js';
import type { PublishingEnv } from '../publishing/settings.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { MetricsEnv } from './metrics-settings.js';

export const analyticsRefreshSchema = z
  .object({
    processed: z
      .number()
      .int()
      .min(0)
      .openapi({ description: 'Posts whose platform was asked for their numbers' }),
    updated: z.number().int().min(0).openapi({ description: 'Of those, posts with new numbers recorded' }),
    failed: z
      .number()
      .int()
      .min(0)
      .openapi({ description: 'Of those, posts not read: a failure, or the post or its account gone' }),
    skippedFairUse: z.number().int().min(0).optional().openapi({
      description:
        "Posts left out by fair use: read in the last 10 minutes, or beyond the hour's allowance; they are read on their usual schedule",
    }),
    errors: z
      .array(z.object({ platform: z.string(), message: z.string() }))
      .optional()
      .openapi({
        description:
          'One entry per platform: why its posts failed (with their number), and posts waiting for its rate limit',
      }),
  })
  .openapi('AnalyticsRefresh');

type AnalyticsEnv = PlatformEnv & PublishingEnv & MetricsEnv;

/** What the refresh needs: a fetcher of its own (no loop: only refreshes) and the fair-use counters. */
export function analyticsDeps(ctx: SliceContext<AnyService, AnalyticsEnv>) {
  const readModels = ctx.readModels;
  return {
    fetcher: new MetricsFetcher({
      db: readModels,
      commands: ctx.commands,
      connectors: ctx.connectors,
      accounts: ctx.accounts,
      logger: ctx.logger,
      owner: `${os.hostname()}:${process.pid}`,
      callTimeoutMs: ctx.env.PUBLISH_CALL_TIMEOUT_MS,
      timezoneOf: (orgId) => effectiveTimezoneOf(readModels, orgId),
    }),
    fairUse: new RefreshFairUse(readModels, {
      callsPerHour: ctx.env.ANALYTICS_REFRESH_CALLS_PER_HOUR,
      postsPerHour: ctx.env.ANALYTICS_REFRESH_POSTS_PER_HOUR,
    }),
    idempotency: ctx.idempotency,
  };
}

const operation = operationsWith<ReturnType<typeof analyticsDeps>>();

export const analyticsRefreshOperations = operationGroup(analyticsDeps, [
  operation({
    name: 'refreshAnalytics',
    kind: 'write',
    method: 'post',
    path: '/v1/orgs/{orgId}/marketing/analytics/refresh',
    tags: ['marketing'],
    summary: "Read the numbers of the workspace's recent posts now",
    description:
      'Reads now the likes, reposts, replies, quotes, bookmarks and impressions of the published posts still on ' +
      'the metrics schedule (the last 30 days), due ones first, then the newest. Fair use per workspace and hour: ' +
      'a number of calls (more answer 429) and of posts (the rest count in `skippedFairUse`); a post read in the ' +
      "last 10 minutes is not read again. Posts over a platform's rate limit wait for it (named in `errors`).",
    params: orgParams,
    output: analyticsRefreshSchema,
    outputDescription: 'What the refresh read',
    errors: [400, 401, 402, 403, 409, 422, 429, 503],
    access: { permission: refreshPermission },
    run: (deps, { caller, request }, input) =>
      refreshAnalytics(deps, caller, { orgId: input.orgId }, request),
  }),
]);
