// The composition root: builds every adapter from the validated configuration and wires commands,
// projections, processes and routes. main.ts, the CLI, the end-to-end tests and the benchmarks all use it.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Env } from '../infra/config/env.js';
import { platforms } from '../domain/post-groups/post-content.js';
import { createDatabase, migrateToLatest, type Database } from '../infra/db/database.js';
import { embeddedUrl, findRunningPostgres, startEmbeddedPostgres } from '../infra/db/embedded-postgres.js';
import type { Logger } from '../infra/logging/logger.js';
import type { EventStore } from '../infra/event-store/port.js';
import { eventStoreMigrations } from '../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../infra/event-store/postgres/postgres-event-store.js';
import type { Bus } from '../infra/bus/port.js';
import { InProcessBus } from '../infra/bus/in-process-bus.js';
import { NatsBus } from '../infra/bus/nats-bus.js';
import { TokenCipher } from '../infra/crypto/token-cipher.js';
import type { ConnectorRegistry } from '../infra/connectors/port.js';
import { liveConnectorFactories } from '../infra/connectors/live.js';
import { blueskyOAuthMigrations } from '../infra/connectors/bluesky/oauth-stores.js';
import { createConnectorRegistry, sandboxPlatforms } from '../infra/connectors/registry.js';
import { sandboxMigrations } from '../infra/connectors/sandbox/migrations.js';
import type { ObjectStorage } from '../infra/object-storage/port.js';
import { LocalObjectStorage } from '../infra/object-storage/local-object-storage.js';
import { S3ObjectStorage } from '../infra/object-storage/s3-object-storage.js';
import type { CommandDeps } from '../commands/shared/command-handler.js';
import { IdempotencyStore, idempotencyMigrations } from '../commands/shared/idempotency.js';
import { isRole } from '../domain/workspaces/roles.js';
import type { Projection } from '../projections/engine/projection.js';
import { projectionEngineMigrations } from '../projections/engine/migrations.js';
import { ProjectionRunner } from '../projections/engine/runner.js';
import { ProjectionWaiter } from '../projections/engine/read-your-writes.js';
import type { ReadModels } from '../projections/read-models.js';
import { workspacesProjection } from '../projections/workspaces/workspaces-projection.js';
import { usersProjection } from '../projections/users/users-projection.js';
import { tagsProjection } from '../projections/tags/tags-projection.js';
import { postGroupsProjection } from '../projections/post-groups/post-groups-projection.js';
import { socialAccountsProjection } from '../projections/social-accounts/social-accounts-projection.js';
import { socialAccountTokenMigrations } from '../infra/social-accounts/token-store.js';
import { oauthStateMigrations } from '../infra/social-accounts/oauth-state-store.js';
import { EarliestFreeSlotFinder } from '../projections/scheduler/earliest-free-slot.js';
import { slotClaimMigrations } from '../projections/scheduler/migrations.js';
import { findMembershipRole } from '../projections/workspaces/queries.js';
import { outboxMigrations } from '../processes/outbox/migrations.js';
import { OutboxDispatcher } from '../processes/outbox/outbox-dispatcher.js';
import { processRunnerMigrations } from '../processes/runner/migrations.js';
import type { ProcessManager } from '../processes/runner/process-manager.js';
import { ProcessRunner } from '../processes/runner/process-runner.js';
import { AccountAccess } from '../commands/social-accounts/account-access.js';
import { tokenStoreFor } from '../commands/social-accounts/social-account-commands.js';
import { publishingMigrations } from '../processes/publishing/migrations.js';
import { Publisher, type PublisherOptions } from '../processes/publishing/publisher.js';
import {
  PublishingService,
  type PublishingServiceOptions,
} from '../processes/publishing/publishing-service.js';
import { createMediaFetcher } from '../processes/publishing/media-fetcher.js';
import { accountRemovalProcess, consumeAccountRemovals } from '../processes/publishing/account-removal.js';
import { createApp } from './app.js';
import { authOptionsFromEnv, createAuthService, type AuthService } from './auth/auth-service.js';
import { createAuthRoutes } from './auth/routes.js';
import { createStorageRoutes } from './storage/routes.js';
import { createSandboxRoutes } from './sandbox/routes.js';
import type { RouteServices } from './shared/services.js';
import { userRoutes } from './users/routes.js';
import { tagRoutes } from './tags/routes.js';
import { postGroupRoutes } from './post-groups/routes.js';
import { postRoutes } from './posts/routes.js';
import { xPostRoutes } from './x-posts/routes.js';
import { socialAccountRoutes } from './social-accounts/routes.js';
import { TokenRefresher } from '../processes/social-accounts/token-refresher.js';
import { oauthRoutes } from './social-accounts/oauth-routes.js';
import { workspaceRoutes } from './workspaces/routes.js';

export const allMigrations = {
  ...eventStoreMigrations,
  ...projectionEngineMigrations,
  ...outboxMigrations,
  ...processRunnerMigrations,
  ...idempotencyMigrations,
  ...slotClaimMigrations,
  ...socialAccountTokenMigrations,
  ...oauthStateMigrations,
  ...sandboxMigrations,
  ...publishingMigrations,
  ...blueskyOAuthMigrations,
};

/** Every read model the API serves; each is rebuilt with `npm run cli -- projections rebuild <name>`. */
export const projections: readonly Projection[] = [
  workspacesProjection,
  usersProjection,
  tagsProjection,
  postGroupsProjection,
  socialAccountsProjection,
];

/** Process managers react to events; the publishing pipeline and notifications join here. */
export const processManagers: readonly ProcessManager[] = [accountRemovalProcess];

export interface RuntimeOptions {
  env: Env;
  logger: Logger;
  /** `server` runs projections, processes and the outbox; `cli` only writes and reads. */
  mode: 'server' | 'cli';
  /** Replaces the registered projections (tests slow them down to prove read-your-writes). */
  projections?: readonly Projection[];
  /**
   * Seams of the publishing pipeline: a clock, randomness and hooks around the platform call (tests), and each
   * job's result (the worker counts them).
   */
  publishing?: Pick<PublisherOptions, 'now' | 'random' | 'hooks'> &
    Pick<PublishingServiceOptions, 'onJobDone'> & { sweep?: boolean; work?: boolean };
}

export interface Runtime {
  env: Env;
  logger: Logger;
  database: Database<ReadModels>;
  readModels: Kysely<ReadModels>;
  eventStore: EventStore<unknown>;
  bus: Bus | null;
  storage: ObjectStorage;
  auth: AuthService;
  commands: CommandDeps;
  idempotency: IdempotencyStore;
  projections: readonly Projection[];
  /** Platform connectors (sandbox or live per platform), as the routes and processes get them. */
  connectors: ConnectorRegistry;
  /** The social accounts platform calls act for, and their tokens. */
  accounts: AccountAccess;
  tokenCipher: TokenCipher;
  /** The publishing clock and workers (server mode, once started). */
  publishing: PublishingService | null;
  app: ReturnType<typeof createApp>;
  /** Starts projections, processes and the outbox dispatcher (server mode). */
  startBackground(): Promise<void>;
  stop(): Promise<void>;
}

interface ResolvedDatabase {
  url: string;
  stop?: () => Promise<void>;
}

export async function resolveDatabase(
  env: Env,
  logger: Logger,
  mode: RuntimeOptions['mode'],
): Promise<ResolvedDatabase> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL };
  const dataDir = path.resolve(env.DATA_DIR, 'postgres');
  if (mode === 'cli') {
    // A running server's database is shared rather than started twice on one data directory.
    const running = await findRunningPostgres(dataDir);
    if (running) return { url: embeddedUrl(running.port, 'app') };
  }
  logger.info({ dataDir }, 'starting embedded PostgreSQL');
  const embedded = await startEmbeddedPostgres({
    dataDir,
    database: 'app',
    onLog: (m) => logger.debug({ postgres: m.trim() }),
  });
  logger.info({ port: embedded.port }, 'embedded PostgreSQL ready');
  return { url: embedded.url, stop: () => embedded.stop() };
}

/** A secret kept under DATA_DIR/keys, generated on first use (for signing local storage URLs). */
async function dataDirSecret(dataDir: string, name: string): Promise<string> {
  const dir = path.resolve(dataDir, 'keys');
  const file = path.join(dir, name);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async () => undefined);
  await chmod(file, 0o600).catch(() => undefined);
  return (await readFile(file, 'utf8')).trim();
}

/** The token cipher: TOKEN_ENCRYPTION_KEY (plus old keys during a rotation), else a key kept under DATA_DIR/keys. */
export async function createTokenCipher(env: Env, logger: Logger): Promise<TokenCipher> {
  const old = (env.TOKEN_ENCRYPTION_OLD_KEYS ?? '')
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const [version, key] = entry.split(':');
      return { version: Number(version), key: Buffer.from(key!, 'base64') };
    });
  if (env.TOKEN_ENCRYPTION_KEY) {
    return new TokenCipher([
      { version: env.TOKEN_ENCRYPTION_KEY_VERSION, key: Buffer.from(env.TOKEN_ENCRYPTION_KEY, 'base64') },
      ...old,
    ]);
  }
  if (env.NODE_ENV === 'production')
    logger.warn('TOKEN_ENCRYPTION_KEY is not set; using a key generated under DATA_DIR/keys');
  const generated = await dataDirSecret(env.DATA_DIR, 'token-encryption-key');
  return new TokenCipher([
    { version: env.TOKEN_ENCRYPTION_KEY_VERSION, key: Buffer.from(generated, 'base64url') },
    ...old,
  ]);
}

export function publicBaseUrl(env: Env): string {
  return (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '');
}

async function createEventStore(env: Env, database: Database<ReadModels>): Promise<EventStore<unknown>> {
  if (env.EVENT_STORE === 'eventstoredb') {
    const { EventStoreDbEventStore } =
      await import('../infra/event-store/eventstoredb/eventstoredb-event-store.js');
    return new EventStoreDbEventStore({ connectionString: env.EVENTSTOREDB_URL!, db: database.db });
  }
  return new PostgresEventStore({ db: database.db, url: database.url });
}

async function createStorage(env: Env): Promise<ObjectStorage> {
  if (env.OBJECT_STORAGE === 's3') {
    return new S3ObjectStorage({
      ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
      region: env.S3_REGION,
      bucket: env.S3_BUCKET!,
      credentials: {
        accessKeyId: env.S3_ACCESS_KEY_ID ?? '',
        secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? '',
      },
      forcePathStyle: env.S3_FORCE_PATH_STYLE,
    });
  }
  return new LocalObjectStorage({
    rootDir: path.resolve(env.DATA_DIR, 'objects'),
    publicBaseUrl: publicBaseUrl(env),
    signingSecret: await dataDirSecret(env.DATA_DIR, 'storage-signing-secret'),
  });
}

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { env, logger, mode } = options;
  const projectionList = options.projections ?? projections;
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse())
      await stop().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
    stops.length = 0;
  };
  try {
    const resolved = await resolveDatabase(env, logger, mode);
    if (resolved.stop) stops.push(resolved.stop);
    const database = createDatabase<ReadModels>(resolved.url, {
      max: env.DATABASE_POOL_MAX,
      applicationName: `social-publishing-${mode}`,
    });
    stops.push(() => database.close());
    await migrateToLatest(database.db, allMigrations);

    const eventStore = await createEventStore(env, database);
    stops.push(() => eventStore.close());
    const bus: Bus | null =
      mode === 'server'
        ? env.BUS === 'nats'
          ? await NatsBus.connect({
              url: env.NATS_URL!,
              streamName: env.NATS_STREAM,
              subjectPrefix: env.NATS_SUBJECT_PREFIX,
              logger,
            })
          : new InProcessBus({ logger })
        : null;
    if (bus) stops.push(() => bus.close());
    const storage = await createStorage(env);
    const auth = await createAuthService(authOptionsFromEnv(env));

    const waiter =
      mode === 'server' ? new ProjectionWaiter({ db: database.db, eventStore, url: database.url }) : null;
    if (waiter) stops.push(() => waiter.close());
    const commands: CommandDeps = {
      eventStore,
      readYourWritesTimeoutMs: env.READ_YOUR_WRITES_TIMEOUT_MS,
      // Named, so that a projection without a serving generation yet counts as not caught up.
      ...(waiter
        ? {
            waitForProjections: (position, o) =>
              waiter.waitForProjections(position, {
                ...o,
                projections: projectionList.map((p) => p.name),
                versions: Object.fromEntries(projectionList.map((p) => [p.name, p.version])),
              }),
          }
        : {}),
    };
    const idempotency = new IdempotencyStore(database.db);
    const tokenCipher = await createTokenCipher(env, logger);
    const connectors: ConnectorRegistry = createConnectorRegistry({
      env,
      db: database.db,
      publicBaseUrl: publicBaseUrl(env),
      cipher: tokenCipher,
      ...(sandboxPlatforms(env).size < platforms.length
        ? {
            live: await liveConnectorFactories({
              env,
              db: database.db,
              cipher: tokenCipher,
              publicBaseUrl: publicBaseUrl(env),
            }),
          }
        : {}),
    });
    const readModels = database.db;
    const accounts = new AccountAccess({
      db: readModels,
      commands,
      tokens: tokenStoreFor(readModels, tokenCipher),
      connectors,
      logger,
    });
    const services: RouteServices = {
      commands,
      idempotency,
      readModels,
      slotFinder: new EarliestFreeSlotFinder(readModels),
      connectors,
      tokenCipher,
      publicBaseUrl: publicBaseUrl(env),
      env,
      accounts,
    };
    const owner = `${os.hostname()}:${process.pid}`;

    let background: { started: boolean; runner?: ProjectionRunner } = { started: false };
    const app = createApp({
      logger,
      config: { bodyLimitBytes: env.BODY_LIMIT_BYTES, publicBaseUrl: publicBaseUrl(env) },
      auth,
      readiness: async () => {
        const checks: Record<string, { ok: boolean; detail?: string }> = {};
        try {
          await sql`select 1`.execute(database.db);
          checks.database = { ok: true };
        } catch (error) {
          checks.database = { ok: false, detail: error instanceof Error ? error.message : String(error) };
        }
        checks.projections = background.started
          ? { ok: true }
          : { ok: false, detail: 'projection runner not running' };
        return { ok: Object.values(checks).every((c) => c.ok), checks };
      },
      routes: [
        workspaceRoutes(services),
        userRoutes(services),
        tagRoutes(services),
        postGroupRoutes(services),
        postRoutes(services),
        xPostRoutes(services),
        socialAccountRoutes(services),
        oauthRoutes(services),
        createAuthRoutes({
          auth,
          lookupMembership: async (userId, orgId) => {
            const role = await findMembershipRole(readModels, userId, orgId);
            return role && isRole(role) ? role : null;
          },
        }),
        ...(storage instanceof LocalObjectStorage
          ? [
              (a: ReturnType<typeof createApp>) =>
                void a.route('/', createStorageRoutes(storage, { maxUploadBytes: 512 * 1024 * 1024 })),
            ]
          : []),
        (a: ReturnType<typeof createApp>) =>
          void a.route(
            '/',
            createSandboxRoutes({
              db: database.db,
              publicBaseUrl: publicBaseUrl(env),
              sandboxPlatforms: sandboxPlatforms(env),
            }),
          ),
      ],
    });

    const runtime: Runtime = {
      env,
      logger,
      database,
      readModels,
      eventStore,
      bus,
      storage,
      auth,
      commands,
      idempotency,
      projections: projectionList,
      connectors,
      accounts,
      tokenCipher,
      publishing: null,
      app,
      async startBackground() {
        if (background.started) return;
        const runner = new ProjectionRunner({
          db: database.db,
          eventStore,
          projections: projectionList,
          logger,
          owner,
        });
        await runner.start();
        stops.push(() => runner.stop());
        const processes = new ProcessRunner({
          db: database.db,
          eventStore,
          processes: processManagers,
          owner,
          logger,
        });
        await processes.start();
        stops.push(() => processes.stop());
        if (bus) {
          const dispatcher = new OutboxDispatcher({ db: database.db, bus, logger });
          await dispatcher.start();
          stops.push(() => dispatcher.stop());
          const removals = await consumeAccountRemovals(bus, commands);
          stops.push(() => removals.stop());
          const seams = options.publishing ?? {};
          const publishing = new PublishingService({
            db: readModels,
            bus,
            logger,
            owner,
            publisher: new Publisher({
              commands,
              connectors,
              accounts,
              fetchMedia: createMediaFetcher({ storage, publicBaseUrl: publicBaseUrl(env) }),
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
              ...(seams.now ? { now: seams.now } : {}),
              ...(seams.random ? { random: seams.random } : {}),
              ...(seams.hooks ? { hooks: seams.hooks } : {}),
            }),
            sweepIntervalMs: env.PUBLISH_SWEEP_INTERVAL_MS,
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
          stops.push(() => publishing.stop());
          runtime.publishing = publishing;
        }
        const tokenRefresher = new TokenRefresher({
          db: readModels,
          tokenCipher,
          commands,
          connectors,
          logger,
        });
        await tokenRefresher.start();
        stops.push(() => tokenRefresher.stop());
        const sweep = setInterval(() => {
          idempotency
            .purgeOlderThan(24)
            .catch((error: unknown) => logger.warn({ err: error }, 'idempotency purge failed'));
        }, 3_600_000);
        sweep.unref();
        stops.push(async () => clearInterval(sweep));
        background = { started: true, runner };
      },
      async stop() {
        background = { started: false };
        await stopAll();
      },
    };
    return runtime;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
