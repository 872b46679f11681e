// The analytics slice, first part: published posts' engagement. A process manager puts every published post on
// the metrics fetch schedule (+1 h, +24 h, +72 h, +7 days), a worker reads the numbers through the platform
// connectors and records PostMetricsFetched, and the post_metrics read model answers the scheduler's history.
// X account analytics (issue 28): the daily read of the workspace's X account (its own timeline, posts made
// elsewhere included), switched on and off by PUT x-account, taken by the X account reader, read by GET x-account.
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
import { billingServices } from '../billing/services.js';
import { xAccountProjection } from '../../projections/analytics/x-account-projection.js';
import { xAccountReaderMigrations } from '../../processes/analytics/x-account-migrations.js';
import { XAccountReader } from '../../processes/analytics/x-account-reader.js';
import { xAccountDeps, xAccountOperations } from './x-account-operations.js';

/** The worker whose running instance is the MetricsFetcher. */
export const METRICS_FETCHER_WORKER = 'post-metrics';
/** The worker whose running instance is the XAccountReader. */
export const X_ACCOUNT_READER_WORKER = 'x-account-reader';

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
    migrations: migrationsOf(analyticsMigrations, xAccountReaderMigrations),
    projections: [postMetricsProjection, xAccountProjection],
    processManagers: [postMetricsScheduleProcess],
    requires: [billingServices],
    provides: [provide(audienceService, { build: (ctx) => createAudienceReader(ctx.services.readModels) })],
    operations: [xAccountOperations],
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
      {
        name: X_ACCOUNT_READER_WORKER,
        async start(ctx) {
          const reader = new XAccountReader({
            db: ctx.readModels,
            deps: xAccountDeps(ctx),
            logger: ctx.logger,
            owner: ctx.owner,
          });
          await reader.start();
          return reader;
        },
      },
    ],
  });
}

/** The service's analytics slice: the sandbox reads publication times in the workspace's effective time zone. */
export const analyticsSlice = createAnalyticsSlice({
  timezoneOf: (ctx) => (orgId) => effectiveTimezoneOf(ctx.readModels, orgId),
});
