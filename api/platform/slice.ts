// The platform slice: the event store, the projection engine, the outbox, the process runner and idempotency
// records. Its workers run every slice's projections and process managers (api/shared/slice.ts gathers them).
import { idempotencyMigrations } from '../../commands/shared/idempotency.js';
import { platformSettings, rateLimitSettings } from './settings.js';
import { eventStoreMigrations } from '../../infra/event-store/postgres/migrations.js';
import { projectionEngineMigrations } from '../../projections/engine/migrations.js';
import { ProjectionRunner } from '../../projections/engine/runner.js';
import { outboxMigrations } from '../../processes/outbox/migrations.js';
import { notifyOutboxWritten, OutboxDispatcher } from '../../processes/outbox/outbox-dispatcher.js';
import { processRunnerMigrations } from '../../processes/runner/migrations.js';
import { ProcessRunner } from '../../processes/runner/process-runner.js';
import { migrationsOf, defineSlice } from '../shared/slice.js';
import { rateLimitMigrations } from './rate-limits.js';

export const platformSlice = defineSlice({
  name: 'platform',
  migrations: migrationsOf(
    eventStoreMigrations,
    projectionEngineMigrations,
    outboxMigrations,
    processRunnerMigrations,
    idempotencyMigrations,
    rateLimitMigrations,
  ),
  settings: [platformSettings, rateLimitSettings],
  workers: [
    {
      name: 'projections',
      async start({ database, eventStore, projections, logger, owner }) {
        const runner = new ProjectionRunner({ db: database.db, eventStore, projections, logger, owner });
        await runner.start();
        return runner;
      },
    },
    {
      name: 'processes',
      async start({ database, eventStore, processManagers, logger, owner, bus }) {
        const runner = new ProcessRunner({
          db: database.db,
          eventStore,
          processes: processManagers,
          owner,
          logger,
          // The dispatchers (this process's, and every other's on NATS) send the new rows now, not at their poll.
          ...(bus ? { onOutboxWritten: () => notifyOutboxWritten(bus) } : {}),
        });
        await runner.start();
        return runner;
      },
    },
    {
      name: 'outbox',
      async start({ database, bus, logger }) {
        if (!bus) return undefined;
        const dispatcher = new OutboxDispatcher({ db: database.db, bus, logger });
        await dispatcher.start();
        return dispatcher;
      },
    },
    {
      name: 'idempotency-purge',
      async start({ idempotency, logger }) {
        const sweep = setInterval(() => {
          idempotency
            .purgeOlderThan(24)
            .catch((error: unknown) => logger.warn({ err: error }, 'idempotency purge failed'));
        }, 3_600_000);
        sweep.unref();
        return { stop: async () => clearInterval(sweep) };
      },
    },
  ],
});
