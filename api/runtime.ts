// The composition root: builds every adapter from the validated configuration, then runs what the slices
// (api/slices.ts) declare: their migrations, projections, process managers, routes and background workers.
// main.ts, the CLI, the end-to-end tests and the benchmarks all use it.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Env } from './env.js';
import { platforms } from '../domain/shared/platforms.js';
import { createDatabase, migrateToLatest, type Database } from '../infra/db/database.js';
import {
  findRunningPostgres,
  runningEmbeddedUrl,
  startEmbeddedPostgres,
} from '../infra/db/embedded-postgres.js';
import type { Logger } from '../infra/logging/logger.js';
import type { EventStore } from '../infra/event-store/port.js';
import { PostgresEventStore } from '../infra/event-store/postgres/postgres-event-store.js';
import type { Bus } from '../infra/bus/port.js';
import { InProcessBus } from '../infra/bus/in-process-bus.js';
import { TokenCipher } from '../infra/crypto/token-cipher.js';
import type { ConnectorRegistry } from '../infra/connectors/port.js';
import { liveConnectorFactories } from '../infra/connectors/live.js';
import { createConnectorRegistry, sandboxPlatforms } from '../infra/connectors/registry.js';
import type { ObjectStorage } from '../infra/object-storage/port.js';
import { LocalObjectStorage } from '../infra/object-storage/local-object-storage.js';
import type { CommandDeps } from '../commands/shared/command-handler.js';
import { IdempotencyStore } from '../commands/shared/idempotency.js';
import type { Projection } from '../projections/engine/projection.js';
import { lagReport, ProjectionWaiter, projectionsToAwait } from '../projections/engine/read-your-writes.js';
import { ProjectionCommits } from '../projections/engine/commits.js';
import type { ReadModels } from '../projections/read-models.js';
import { requireMembershipRole } from '../projections/workspaces/queries.js';
import type { ProcessManager } from '../processes/runner/process-manager.js';
import { AccountAccess } from '../commands/social-accounts/account-access.js';
import { tokenStoreFor } from '../commands/social-accounts/social-account-commands.js';
import type { PublishingService } from '../processes/publishing/publishing-service.js';
import { Metrics } from '../infra/metrics/metrics.js';
import { projectionStatus } from '../projections/engine/status.js';
import { createApp } from './app.js';
import { billingAccessService, installBillingAccess } from './billing/access-middleware.js';
import type { BillingAccess } from '../commands/billing/access.js';
import type { AnyService, ServiceType } from './shared/service.js';
import { bindOperations } from './shared/operation-adapters.js';
import { authOptionsFromEnv, createAuthService, type AuthService } from './auth/auth-service.js';
import { MembershipDirectory } from './auth/memberships.js';
import { createRateLimiter, rateLimitsFromEnv } from './platform/rate-limits.js';
import type { RouteServices } from './shared/services.js';
import {
  composeSlices,
  contributionsOf,
  type RunningWorker,
  type RuntimeOptions as SliceRuntimeOptions,
  type Slice,
  type SliceContext,
} from './shared/slice.js';

/** What a runtime is built with: the whole environment (api/env.ts), a logger, the mode and the test seams. */
export type RuntimeOptions = SliceRuntimeOptions<Env>;
import { slices } from './slices.js';
import type { AnyTool } from './shared/tools.js';
import { PUBLISHING_WORKER } from './publishing/slice.js';

const composed = composeSlices(slices);

/** Every slice's migrations in number order (a repeated key or number stops the start, see composeSlices). */
export const allMigrations = composed.migrations;

/** Every read model the API serves; each is rebuilt with `npm run cli -- projections rebuild <name>`. */
export const projections: readonly Projection[] = composed.projections;

/** Process managers react to events. */
export const processManagers: readonly ProcessManager[] = composed.processManagers;

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
  /** Prometheus metrics of this process (`/metrics`). */
  metrics: Metrics;
  /** Starts the slices' background workers in slice order: projections, processes, outbox, … (server mode). */
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
    if (running) return { url: await runningEmbeddedUrl(dataDir, running, 'app') };
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
  // Only keys/ is private: DATA_DIR itself must stay traversable for the embedded PostgreSQL's own user.
  await mkdir(path.resolve(dataDir), { recursive: true });
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
    // The AWS SDK is loaded only when configured (as are NATS's client and EventStoreDB's): a start loads none.
    const { S3ObjectStorage } = await import('../infra/object-storage/s3-object-storage.js');
    return new S3ObjectStorage({
      ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
      ...(env.S3_PUBLIC_ENDPOINT ? { publicEndpoint: env.S3_PUBLIC_ENDPOINT } : {}),
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

export async function createRuntime(given: RuntimeOptions): Promise<Runtime> {
  const { env, logger, mode } = given;
  // The operator's own private origins the readers of user-supplied addresses may reach (OUTBOUND_ALLOW_ORIGINS).
  const allowOrigins = env.OUTBOUND_ALLOW_ORIGINS;
  const options: RuntimeOptions =
    given.outbound === undefined && allowOrigins.length > 0
      ? { ...given, outbound: { allowPrivate: allowOrigins } }
      : given;
  // Checked before anything starts: two slices claiming one migration number stop the start here.
  const sliceList = options.slices ?? slices;
  const parts = options.slices ? composeSlices(sliceList) : composed;
  // A bad RATE_LIMITS stops the start here, before anything is built.
  const rateLimits = rateLimitsFromEnv(env);
  const projectionList = options.projections ?? parts.projections;
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
    await migrateToLatest(database.db, parts.migrations);

    const eventStore = await createEventStore(env, database);
    stops.push(() => eventStore.close());
    const bus: Bus | null =
      mode === 'server'
        ? env.BUS === 'nats'
          ? await (
              await import('../infra/bus/nats-bus.js')
            ).NatsBus.connect({
              url: env.NATS_URL!,
              streamName: env.NATS_STREAM,
              subjectPrefix: env.NATS_SUBJECT_PREFIX,
              logger,
            })
          : new InProcessBus({ logger })
        : null;
    if (bus) stops.push(() => bus.close());
    const storage = await createStorage(env);
    // The role in a workspace is checked on every request, cached briefly (see api/auth/memberships.ts).
    const memberships = new MembershipDirectory({
      load: (userId, orgId) => requireMembershipRole(database.db, userId, orgId),
      ...(mode === 'server' ? { url: database.url } : {}),
    });
    stops.push(() => memberships.close());
    const auth = await createAuthService(authOptionsFromEnv(env, { currentRole: memberships.roleOf }));
    // Counters in PostgreSQL, so every instance of the service counts against the same limits.
    const rateLimiter =
      mode === 'server' && rateLimits ? await createRateLimiter(database.pool, rateLimits) : undefined;
    if (rateLimiter) stops.push(() => rateLimiter.stop());

    const metrics = new Metrics();
    metrics.readGaugesFrom({
      projectionLag: async () =>
        (
          await projectionStatus(
            { db: database.db, eventStore, projections: projectionList },
            { lagCap: 1000 },
          )
        )
          .filter((p) => p.status === 'serving')
          .map((p) => ({ projection: p.name, events: p.lagEvents, seconds: p.lagMs / 1000 })),
      outbox: async () => {
        const row = (
          await sql<{ depth: string; oldest: number | null }>`
            select count(*) as depth, extract(epoch from now() - min(created_at))::float8 as oldest
            from outbox where dispatched_at is null`.execute(database.db)
        ).rows[0];
        return { depth: Number(row?.depth ?? 0), oldestSeconds: row?.oldest ?? 0 };
      },
    });
    const waiter =
      mode === 'server' ? new ProjectionWaiter({ db: database.db, eventStore, url: database.url }) : null;
    if (waiter) stops.push(() => waiter.close());
    /** Wake-ups of the workers that sleep until a read model changes (one LISTEN connection, opened on use). */
    const projectionCommits = new ProjectionCommits(database.url);
    stops.push(() => projectionCommits.close());
    const commands: CommandDeps = {
      eventStore,
      readYourWritesTimeoutMs: env.READ_YOUR_WRITES_TIMEOUT_MS,
      metrics,
      // Named, so that a projection without a serving generation yet counts as not caught up.
      ...(waiter
        ? {
            waitForProjections: (position, { timeoutMs, eventTypes }) => {
              const awaited = projectionsToAwait(projectionList, eventTypes);
              if (awaited.length === 0) return Promise.resolve(true);
              const names = awaited.map((p) => p.name);
              return waiter
                .waitForProjections(position, {
                  timeoutMs,
                  projections: names,
                  versions: Object.fromEntries(awaited.map((p) => [p.name, p.version])),
                })
                .then((visible) => {
                  // Why the write waited in vain, for the operator (the client gets 503 read_models_lagging).
                  if (!visible && !waiter.isClosed)
                    void lagReport(database.db, eventStore, position, names).then(
                      (report) => logger.warn({ lag: report }, 'read models lagging behind a write'),
                      (error: unknown) => logger.warn({ err: error }, 'read models lagging behind a write'),
                    );
                  return visible;
                });
            },
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
              callTimeoutMs: env.PUBLISH_CALL_TIMEOUT_MS,
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
      connectors,
      tokenCipher,
      publicBaseUrl: publicBaseUrl(env),
      env,
      accounts,
    };
    const owner = `${os.hostname()}:${process.pid}`;
    let tools: readonly AnyTool[] | undefined;
    /** The services the slices provide (api/shared/provider.ts), once built. */
    const provided = new Map<AnyService, unknown>();
    const context: SliceContext<AnyService, Env> = {
      env,
      logger,
      mode,
      database,
      readModels,
      eventStore,
      bus,
      storage,
      auth,
      commands,
      idempotency,
      connectors,
      accounts,
      tokenCipher,
      metrics,
      services,
      publicBaseUrl: publicBaseUrl(env),
      options,
      roleOf: memberships.roleOf,
      tools: () => (tools ??= sliceList.flatMap((slice) => operationsOf(slice).tools)),
      use: (service) => {
        throw new Error(
          `The "${service.name}" service is reached through a slice's context, not the runtime's`,
        );
      },
      contributions: contributionsOf(sliceList),
    };
    /** A context whose `use` reaches only `allowed` (what a slice or a provider declared it requires). */
    const contextFor = (who: string, allowed: readonly AnyService[]): SliceContext<AnyService, Env> => ({
      ...context,
      use<S extends AnyService>(service: S): ServiceType<S> {
        if (!allowed.includes(service))
          throw new Error(`${who} uses the "${service.name}" service without requiring it`);
        if (!provided.has(service)) throw new Error(`The "${service.name}" service is not built yet`);
        return provided.get(service) as ServiceType<S>;
      },
    });
    for (const { slice, provider } of parts.providers) {
      const value = await provider.build(
        contextFor(`The "${provider.service.name}" provider of slice "${slice}"`, provider.requires),
      );
      provided.set(provider.service, value);
      const stop = provider.stop?.bind(provider);
      if (stop) stops.push(() => stop(value));
    }
    const sliceContexts = new Map(
      sliceList.map((slice) => [
        slice,
        contextFor(`Slice "${slice.name}"`, [
          ...(slice.requires ?? []),
          ...(slice.provides ?? []).map((p) => p.service),
        ]),
      ]),
    );
    const contextOf = (slice: Slice): SliceContext<AnyService, Env> => sliceContexts.get(slice)!;
    /** The billing policy (402), when the billing slice provides it (a service without it has none). */
    const billingPolicy = () => provided.get(billingAccessService) as BillingAccess | undefined;
    /** Each slice's operations bound to this runtime (their use cases' dependencies built once). */
    const bound = new Map<Slice, ReturnType<typeof bindOperations>>();
    const operationsOf = (slice: Slice) => {
      let found = bound.get(slice);
      if (!found) {
        found = bindOperations(slice.operations ?? [], contextOf(slice), billingPolicy);
        bound.set(slice, found);
      }
      return found;
    };
    /** Workers of the slices that run in this process, by name, once started. */
    const running = new Map<string, RunningWorker>();

    let background = { started: false };
    const app = createApp({
      logger,
      config: {
        bodyLimitBytes: env.BODY_LIMIT_BYTES,
        publicBaseUrl: publicBaseUrl(env),
        trustedProxies: env.TRUSTED_PROXIES,
      },
      auth,
      ...(rateLimiter ? { rateLimiter } : {}),
      metrics: { registry: metrics, ...(env.METRICS_TOKEN ? { token: env.METRICS_TOKEN } : {}) },
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
      // The billing policy goes on every request's context before any route (api/billing/access-middleware.ts).
      routes: [
        installBillingAccess(billingPolicy),
        ...sliceList.flatMap((slice) => [
          ...operationsOf(slice).routes,
          ...(slice.routes?.(contextOf(slice)) ?? []),
        ]),
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
      get publishing() {
        return (running.get(PUBLISHING_WORKER) as PublishingService | undefined) ?? null;
      },
      app,
      metrics,
      async startBackground() {
        if (background.started) return;
        for (const slice of sliceList) {
          const workerContext = {
            ...contextOf(slice),
            owner,
            projections: projectionList,
            processManagers: parts.processManagers,
            projectionCommits,
          };
          for (const worker of slice.workers ?? []) {
            const instance = await worker.start(workerContext);
            if (!instance) continue;
            running.set(worker.name, instance);
            stops.push(async () => {
              running.delete(worker.name);
              await instance.stop();
            });
          }
        }
        background = { started: true };
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
