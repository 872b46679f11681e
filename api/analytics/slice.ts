// The analytics slice: published posts' engagement and the accounts' audience. A process manager puts every
// published post on the metrics cadence (+1 h, +6 h, +24 h, then weekly to 30 days), a worker reads the numbers
// through the platform connectors within each platform's request budget and records PostMetricsFetched, and the
// post_metrics read model answers the scheduler's history; `POST ORG/marketing/analytics/refresh` reads a
// workspace's posts now. Each connected account's follower counts are read daily (AccountStatsRead on its own
// stream), folded into the account_audience read model, and served as the 'audience' service.
// X account analytics (issue 28): the daily read of the workspace's X account (its own timeline, posts made
// elsewhere included), switched on and off by PUT x-account, taken by the X account reader, read by GET x-account.
import { audienceProjection } from '../../projections/analytics/audience-projection.js';
import { postMetricsProjection } from '../../projections/analytics/post-metrics-projection.js';
import { AccountStatsReader } from '../../processes/analytics/account-stats-reader.js';
import { accountStatsScheduleProcess } from '../../processes/analytics/account-stats-schedule.js';
import { MetricsFetcher } from '../../processes/analytics/metrics-fetcher.js';
import { analyticsMigrations } from '../../processes/analytics/migrations.js';
import { postMetricsScheduleProcess } from '../../processes/analytics/post-metrics-schedule.js';
import { effectiveTimezoneOf } from '../../projections/scheduling/queries.js';
import { publishingSettings } from '../publishing/settings.js';
import { migrationsOf, type BackgroundContext, defineSlice } from '../shared/slice.js';
import { provide } from '../shared/provider.js';
import { createAudienceReader } from '../../projections/analytics/audience.js';
import { metricsSettings } from './metrics-settings.js';
import { analyticsRefreshOperations } from './operations.js';
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

/** The worker whose running instance is the AccountStatsReader. */
export const ACCOUNT_STATS_WORKER = 'account-stats';

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
    settings: [publishingSettings, metricsSettings],
    migrations: migrationsOf(analyticsMigrations, xAccountReaderMigrations),
    projections: [postMetricsProjection, audienceProjection, xAccountProjection],
    processManagers: [postMetricsScheduleProcess, accountStatsScheduleProcess],
    requires: [billingServices],
    provides: [provide(audienceService, { build: (ctx) => createAudienceReader(ctx.services.readModels) })],
    operations: [analyticsRefreshOperations, xAccountOperations],
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
        name: ACCOUNT_STATS_WORKER,
        async start(ctx) {
          const reader = new AccountStatsReader({
            db: ctx.readModels,
            commands: ctx.commands,
            connectors: ctx.connectors,
            accounts: ctx.accounts,
            logger: ctx.logger,
            owner: ctx.owner,
            callTimeoutMs: ctx.env.PUBLISH_CALL_TIMEOUT_MS,
          });
          await reader.start();
          return reader;
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
