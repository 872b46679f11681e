// The analytics slice, first part: published posts' engagement. A process manager puts every published post on
// the metrics fetch schedule (+1 h, +24 h, +72 h, +7 days), a worker reads the numbers through the platform
// connectors and records PostMetricsFetched, and the post_metrics read model answers the scheduler's history.
import { postMetricsProjection } from '../../projections/analytics/post-metrics-projection.js';
import { MetricsFetcher } from '../../processes/analytics/metrics-fetcher.js';
import { analyticsMigrations } from '../../processes/analytics/migrations.js';
import { postMetricsScheduleProcess } from '../../processes/analytics/post-metrics-schedule.js';
import { effectiveTimezoneOf } from '../../projections/scheduling/queries.js';
import { publishingSettings } from '../publishing/settings.js';
import { migrationsOf, type BackgroundContext, defineSlice } from '../shared/slice.js';
import { provide } from '../shared/provider.js';
import { createAudienceReader } from '../../projections/analytics/audience.js';
import { audienceService } from './services.js';

/** The worker whose running instance is the MetricsFetcher. */
export const METRICS_FETCHER_WORKER = 'post-metrics';

export interface AnalyticsSliceOptions {
  /**
   * The workspace's effective time zone, given what the runtime built (the sandbox's numbers depend on the
   * local time of publication); UTC for every workspace until it is given.
   */
  timezoneOf?: (ctx: BackgroundContext) => (orgId: string) => Promise<string>;
}

export function createAnalyticsSlice(options: AnalyticsSliceOptions = {}) {
  return defineSlice({
    name: 'analytics',
    // Metrics fetches time out like publishing calls (PUBLISH_CALL_TIMEOUT_MS).
    settings: [publishingSettings],
    migrations: migrationsOf(analyticsMigrations),
    projections: [postMetricsProjection],
    processManagers: [postMetricsScheduleProcess],
    provides: [provide(audienceService, { build: (ctx) => createAudienceReader(ctx.services.readModels) })],
    workers: [
      {
        name: METRICS_FETCHER_WORKER,
        async start(ctx) {
          const fetcher = new MetricsFetcher({
            db: ctx.readModels,
            commands: ctx.commands,
            connectors: ctx.connectors,
            accounts: ctx.accounts,
            logger: ctx.logger,
            owner: ctx.owner,
            callTimeoutMs: ctx.env.PUBLISH_CALL_TIMEOUT_MS,
            ...(options.timezoneOf ? { timezoneOf: options.timezoneOf(ctx) } : {}),
          });
          await fetcher.start();
          return fetcher;
        },
      },
    ],
  });
}

/** The service's analytics slice: the sandbox reads publication times in the workspace's effective time zone. */
export const analyticsSlice = createAnalyticsSlice({
  timezoneOf: (ctx) => (orgId) => effectiveTimezoneOf(ctx.readModels, orgId),
});
