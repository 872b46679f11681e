// The projection runner: keeps every projection's serving generation folded from the log, one active runner
// per projection across processes (leases), and builds a newer code version beside the old one automatically.
import { acquireLease, type Generation } from './catalog.js';
import { dropRetiredSchemas, ensureServing, eventFilter, foldNextBatch, LeaseLost } from './generation.js';
import { assertValidProjection, type Projection, type ProjectionEngineDeps } from './projection.js';
import { buildGeneration, BuildStopped, DEFAULT_BATCH_SIZE, DEFAULT_LEASE_TTL_MS } from './rebuild.js';
import { sql } from 'kysely';
import { LeaseHeartbeat } from '../../infra/async/lease-heartbeat.js';
import { sleep } from '../../infra/async/sleep.js';

/**
 * The longest sleep at the end of the log: appends wake the runner (this process's at once, other processes' by
 * NOTIFY), so this only bounds the delay after a notification the database lost.
 */
export const DEFAULT_IDLE_WAIT_MS = 30_000;

export interface ProjectionRunnerOptions extends ProjectionEngineDeps {
  /** Unique per process, e.g. `<host>:<pid>`; it is the lease owner in the catalog. */
  owner: string;
  batchSize?: number;
  leaseTtlMs?: number;
  /**
   * Longest sleep at the end of the log without an append notification (the store wakes us earlier; see
   * DEFAULT_IDLE_WAIT_MS). Leases are renewed meanwhile by one statement for all projections (LeaseHeartbeat).
   */
  idleWaitMs?: number;
  /** How often a runner without the lease checks whether it can take over. */
  standbyPollMs?: number;
  /** Upper bound of the retry backoff after a failing batch. */
  maxRetryDelayMs?: number;
}

export class ProjectionRunner {
  private readonly deps: ProjectionEngineDeps;
  private readonly owner: string;
  private readonly batchSize: number;
  private readonly leaseTtlMs: number;
  private readonly idleWaitMs: number;
  private readonly standbyPollMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private started = false;
  /** The serving generations this runner follows, by projection name, for the lease heartbeat. */
  private readonly following = new Map<string, { generation: number }>();
  private readonly heartbeat: LeaseHeartbeat;

  constructor(options: ProjectionRunnerOptions) {
    this.deps = {
      db: options.db,
      eventStore: options.eventStore,
      projections: options.projections,
      logger: options.logger,
    };
    this.owner = options.owner;
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    this.idleWaitMs = options.idleWaitMs ?? DEFAULT_IDLE_WAIT_MS;
    this.standbyPollMs = options.standbyPollMs ?? Math.max(100, Math.floor(this.leaseTtlMs / 3));
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.heartbeat = new LeaseHeartbeat(
      (names) => this.renewLeases(names),
      Math.max(100, Math.floor(this.leaseTtlMs / 3)),
      (error) => this.deps.logger.warn({ err: error }, 'could not renew projection leases'),
    );
  }

  /** Renews, in one statement, the leases of the serving generations named; answers those still held. */
  private async renewLeases(names: readonly string[]): Promise<ReadonlySet<string>> {
    const generations = names.map((name) => this.following.get(name)?.generation ?? -1);
    const result = await sql<{ name: string }>`
      update projections p set lease_expires_at = now() + ${this.leaseTtlMs} * interval '1 millisecond'
      from unnest(${names}::text[], ${generations}::int[]) as f(name, generation)
      where p.name = f.name and p.generation = f.generation and p.status = 'serving'
        and p.lease_owner = ${this.owner}
      returning p.name`.execute(this.deps.db);
    return new Set(result.rows.map((r) => r.name));
  }

  /**
   * Makes sure every projection has a serving generation with its public views (so readers can start), then
   * runs one loop per projection in the background.
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('ProjectionRunner already started');
    this.started = true;
    const names = new Set<string>();
    for (const projection of this.deps.projections) {
      assertValidProjection(projection);
      if (names.has(projection.name)) throw new Error(`Projection ${projection.name} is registered twice`);
      names.add(projection.name);
    }
    for (const projection of this.deps.projections) {
      await ensureServing(this.deps, projection);
      await dropRetiredSchemas(this.deps.db, projection.name);
    }
    this.heartbeat.start(this.signal);
    this.loops = this.deps.projections.map((projection) => this.run(projection));
  }

  /** Finishes the batches in flight, then releases this runner's leases. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    await this.heartbeat.stopped();
    this.loops = [];
    await sql`
      update projections set lease_owner = null, lease_expires_at = null
      where lease_owner = ${this.owner}`
      .execute(this.deps.db)
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error }, 'could not release projection leases'),
      );
  }

  private get signal(): AbortSignal {
    return this.abort.signal;
  }

  private async run(projection: Projection): Promise<void> {
    const log = this.deps.logger;
    let failures = 0;
    let standbyReason = '';
    const standby = async (reason: string) => {
      if (reason !== standbyReason) log.info({ projection: projection.name, owner: this.owner }, reason);
      standbyReason = reason;
      await sleep(this.standbyPollMs, this.signal);
    };
    while (!this.signal.aborted) {
      try {
        const serving = await ensureServing(this.deps, projection);
        if (serving && serving.version > projection.version) {
          // Older code during a rolling deploy: the newer generation is not ours to fold.
          await standby(
            `serving version ${serving.version} is newer than this code (v${projection.version}); standing by`,
          );
          continue;
        }
        if (!serving || serving.version < projection.version) {
          const outcome = await buildGeneration(this.deps, projection, {
            owner: this.owner,
            batchSize: this.batchSize,
            leaseTtlMs: this.leaseTtlMs,
            keepLease: true,
            waitForLease: false,
            upgradeOnly: true,
            signal: this.signal,
            onProgress: (p) => {
              if (p.phase === 'switched')
                log.info(
                  { projection: p.projection, generation: p.generation, version: p.version },
                  'projection rebuilt and switched',
                );
            },
          });
          if (outcome.kind === 'busy')
            await standby(`another process (${outcome.leaseOwner}) is building this projection`);
          if (outcome.kind === 'newer-build')
            await standby(`a build of newer version ${outcome.version} is under way; standing by`);
          failures = 0;
          continue;
        }
        const leased = await acquireLease(this.deps.db, serving, this.owner, this.leaseTtlMs);
        if (!leased) {
          await standby(`lease held by ${serving.leaseOwner}; standing by`);
          continue;
        }
        standbyReason = '';
        log.info(
          { projection: projection.name, generation: leased.generation, owner: this.owner },
          'projection lease acquired',
        );
        await this.follow(projection, leased, () => (failures = 0));
      } catch (error) {
        if (error instanceof BuildStopped) break;
        if (error instanceof LeaseLost) {
          log.info(
            { projection: projection.name, generation: error.generation },
            'projection lease lost or generation switched',
          );
          continue;
        }
        failures += 1;
        const delay = Math.min(this.maxRetryDelayMs, 100 * 2 ** Math.min(failures, 12));
        log.error(
          { err: error, projection: projection.name, attempt: failures },
          'projection batch failed; retrying',
        );
        await sleep(delay, this.signal);
      }
    }
  }

  /** Folds the serving generation while the lease is ours; returns on stop, throws LeaseLost when fenced off. */
  private async follow(
    projection: Projection,
    generation: Generation,
    onProgress: () => void,
  ): Promise<void> {
    const target = {
      name: generation.name,
      generation: generation.generation,
      status: 'serving' as const,
      schemaName: generation.schemaName,
      checkpoint: generation.checkpoint,
    };
    // While idle, the heartbeat renews the lease; a renewal that no longer finds it ends the wait.
    const leaseLost = new AbortController();
    this.following.set(projection.name, { generation: target.generation });
    this.heartbeat.hold(projection.name, () => leaseLost.abort());
    try {
      while (!this.signal.aborted) {
        if (this.heartbeat.lost(projection.name)) throw new LeaseLost(target.name, target.generation);
        // Registered before reading, so an append committed after the read's snapshot still wakes us.
        const wakeEarly = new AbortController();
        const wake = this.deps.eventStore.waitForAppend(
          this.idleWaitMs,
          AbortSignal.any([wakeEarly.signal, leaseLost.signal, this.signal]),
          eventFilter(projection),
        );
        try {
          this.heartbeat.busy(projection.name, true);
          const batch = await foldNextBatch(this.deps, projection, target, this.owner, {
            batchSize: this.batchSize,
            leaseTtlMs: this.leaseTtlMs,
          });
          this.heartbeat.busy(projection.name, false);
          target.checkpoint = batch.checkpoint;
          if (batch.committed) onProgress();
          if (!batch.isEnd) continue;
          await wake;
        } finally {
          wakeEarly.abort();
        }
      }
    } finally {
      this.heartbeat.release(projection.name);
      this.following.delete(projection.name);
    }
  }
}
