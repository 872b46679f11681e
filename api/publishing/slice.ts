// The publishing slice: the sweep and the publishing jobs (processes/publishing), and the account-removal
// process manager with the consumer of its jobs. Its routes are the post groups' (post-now, scheduling).
import { publishingSettings } from './settings.js';
import { postGroupsProjection } from '../../projections/post-groups/post-groups-projection.js';
import { workspacesProjection } from '../../projections/workspaces/workspaces-projection.js';
import { billingSubscriptionsProjection } from '../../projections/billing/subscriptions-projection.js';
import { accountRemovalProcess, consumeAccountRemovals } from '../../processes/publishing/account-removal.js';
import { createMediaFetcher } from '../../processes/publishing/media-fetcher.js';
import { publishingMigrations } from '../../processes/publishing/migrations.js';
import { Publisher } from '../../processes/publishing/publisher.js';
import { PublishingService } from '../../processes/publishing/publishing-service.js';
import { migrationsOf, defineSlice } from '../shared/slice.js';

/** The worker whose running instance is the PublishingService (`Runtime.publishing`). */
export const PUBLISHING_WORKER = 'publishing';

export const publishingSlice = defineSlice({
  name: 'publishing',
  migrations: migrationsOf(publishingMigrations),
  processManagers: [accountRemovalProcess],
  settings: [publishingSettings],
  workers: [
    {
      name: 'account-removals',
      async start({ bus, commands }) {
        return bus ? consumeAccountRemovals(bus, commands) : undefined;
      },
    },
    {
      name: PUBLISHING_WORKER,
      async start(ctx) {
        const { bus, env, logger, metrics, readModels, owner } = ctx;
        if (!bus) return undefined;
        const seams = ctx.options.publishing ?? {};
        const publishing = new PublishingService({
          db: readModels,
          bus,
          logger,
          owner,
          publisher: new Publisher({
            commands: ctx.commands,
            connectors: ctx.connectors,
            accounts: ctx.accounts,
            fetchMedia: createMediaFetcher({ storage: ctx.storage, publicBaseUrl: ctx.publicBaseUrl }),
            settings: {
              maxAttempts: env.PUBLISH_MAX_ATTEMPTS,
              retryBaseMs: env.PUBLISH_RETRY_BASE_MS,
              retryMaxMs: env.PUBLISH_RETRY_MAX_MS,
              callTimeoutMs: env.PUBLISH_CALL_TIMEOUT_MS,
              staleAttemptMs: env.PUBLISH_STALE_ATTEMPT_MS,
              pollIntervalMs: env.PUBLISH_POLL_INTERVAL_MS,
              pendingTimeoutMs: env.PUBLISH_PENDING_TIMEOUT_MS,
            },
            logger,
            metrics,
            ...(seams.now ? { now: seams.now } : {}),
            ...(seams.random ? { random: seams.random } : {}),
            ...(seams.hooks ? { hooks: seams.hooks } : {}),
          }),
          sweepIntervalMs: env.PUBLISH_SWEEP_INTERVAL_MS,
          // The sweep reads posts (post_groups), deleted workspaces and billing holds: their commits wake it.
          commits: ctx.projectionCommits,
          wakeOn: [postGroupsProjection.name, workspacesProjection.name, billingSubscriptionsProjection.name],
          leaseTtlMs: env.PUBLISH_LEASE_TTL_MS,
          staleAttemptMs: env.PUBLISH_STALE_ATTEMPT_MS,
          redispatchMs: env.PUBLISH_REDISPATCH_MS,
          concurrency: env.PUBLISH_CONCURRENCY,
          ackWaitMs: env.PUBLISH_CALL_TIMEOUT_MS * 2 + 10_000,
          ...(seams.sweep !== undefined ? { sweep: seams.sweep } : {}),
          ...(seams.work !== undefined ? { work: seams.work } : {}),
          ...(seams.onJobDone ? { onJobDone: seams.onJobDone } : {}),
          ...(seams.now ? { now: seams.now } : {}),
        });
        await publishing.start();
        return publishing;
      },
    },
  ],
});
