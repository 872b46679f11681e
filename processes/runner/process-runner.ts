// Runs process managers from the log: one active runner per process across instances (leases), and each
// batch's process state, outbox rows and checkpoint committed in one transaction.
import { sql, type Kysely } from 'kysely';
import type { Checkpoint, EventStore, ReadAllPage } from '../../infra/event-store/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import { enqueueOutbox } from '../outbox/enqueue-outbox.js';
import type { EnqueueOutbox, ProcessManager } from './process-manager.js';
import type { ReadModels } from '../../projections/read-models.js';
import { LeaseHeartbeat } from '../../infra/async/lease-heartbeat.js';
import { sleep } from '../../infra/async/sleep.js';
import { DEFAULT_IDLE_WAIT_MS } from '../../projections/engine/runner.js';

export interface ProcessRunnerOptions {
  db: Kysely<ReadModels>;
  eventStore: EventStore<unknown>;
  processes: readonly ProcessManager[];
  /** Unique per process, e.g. `<host>:<pid>`; it is the lease owner. */
  owner: string;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** The outbox writer; processes/outbox `enqueueOutbox` unless a test replaces it. */
  enqueue?: EnqueueOutbox;
  /**
   * Called after a batch that wrote outbox rows committed (the platform slice wakes the outbox dispatcher with
   * it); a failure is logged, never retried (the dispatcher's safety poll finds the rows).
   */
  onOutboxWritten?: () => Promise<void> | void;
  batchSize?: number;
  leaseTtlMs?: number;
  /** Longest sleep at the end of the log without an append notification (see DEFAULT_IDLE_WAIT_MS). */
  idleWaitMs?: number;
  standbyPollMs?: number;
  maxRetryDelayMs?: number;
}

/** The lease changed under us; the batch's writes are rolled back. */
export class ProcessLeaseLost extends Error {
  constructor(readonly process: string) {
    super(`Lost the lease of process ${process}`);
    this.name = 'ProcessLeaseLost';
  }
}

const NAME = /^[a-z0-9][a-z0-9_-]*$/;

export class ProcessRunner {
  private readonly options: Required<Omit<ProcessRunnerOptions, 'processes' | 'onOutboxWritten'>> & {
    processes: readonly ProcessManager[];
    onOutboxWritten?: () => Promise<void> | void;
  };
  private readonly heartbeat: LeaseHeartbeat;
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private started = false;

  constructor(options: ProcessRunnerOptions) {
    const leaseTtlMs = options.leaseTtlMs ?? 30_000;
    this.options = {
      ...options,
      batchSize: options.batchSize ?? 200,
      leaseTtlMs,
      idleWaitMs: options.idleWaitMs ?? DEFAULT_IDLE_WAIT_MS,
      standbyPollMs: options.standbyPollMs ?? Math.max(100, Math.floor(leaseTtlMs / 3)),
      maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
      enqueue: options.enqueue ?? enqueueOutbox,
    };
    this.heartbeat = new LeaseHeartbeat(
      (names) => this.renewLeases(names),
      Math.max(100, Math.floor(leaseTtlMs / 3)),
      (error) => this.options.logger.warn({ err: error }, 'could not renew process leases'),
    );
  }

  /** Renews, in one statement, the leases named; answers those still held. */
  private async renewLeases(names: readonly string[]): Promise<ReadonlySet<string>> {
    const result = await sql<{ name: string }>`
      update process_checkpoints
      set lease_expires_at = now() + ${this.options.leaseTtlMs} * interval '1 millisecond'
      where name = any(${names}::text[]) and lease_owner = ${this.options.owner}
      returning name`.execute(this.options.db);
    return new Set(result.rows.map((r) => r.name));
  }

  /** Creates state tables and checkpoint rows, then runs one loop per process in the background. */
  async start(): Promise<void> {
    if (this.started) throw new Error('ProcessRunner already started');
    this.started = true;
    const { db, eventStore, processes } = this.options;
    const names = new Set<string>();
    for (const process of processes) {
      if (!NAME.test(process.name))
        throw new Error(`Process name "${process.name}" must match ${String(NAME)}`);
      if (names.has(process.name)) throw new Error(`Process ${process.name} is registered twice`);
      names.add(process.name);
    }
    for (const process of processes) {
      if (process.createTables) {
        const create = process.createTables.bind(process);
        // Instances starting together would race on "create table if not exists"; one at a time.
        await db.connection().execute(async (conn) => {
          await sql`select pg_advisory_lock(hashtext(${`process:${process.name}`}))`.execute(conn);
          try {
            await create(conn);
          } finally {
            await sql`select pg_advisory_unlock(hashtext(${`process:${process.name}`}))`.execute(conn);
          }
        });
      }
      await sql`
        insert into process_checkpoints (name, checkpoint) values (${process.name}, ${eventStore.start})
        on conflict (name) do nothing`.execute(db);
    }
    this.heartbeat.start(this.abort.signal);
    this.loops = processes.map((process) => this.run(process));
  }

  /** Finishes the batches in flight, then releases this runner's leases. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    await this.heartbeat.stopped();
    this.loops = [];
    await sql`update process_checkpoints set lease_owner = null, lease_expires_at = null where lease_owner = ${this.options.owner}`
      .execute(this.options.db)
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'could not release process leases'),
      );
  }

  private async run(process: ProcessManager): Promise<void> {
    const { logger, standbyPollMs, maxRetryDelayMs } = this.options;
    const signal = this.abort.signal;
    let failures = 0;
    let standingBy = false;
    while (!signal.aborted) {
      try {
        const checkpoint = await this.acquire(process.name);
        if (checkpoint === null) {
          if (!standingBy)
            logger.info({ process: process.name }, 'process lease held elsewhere; standing by');
          standingBy = true;
          await sleep(standbyPollMs, signal);
          continue;
        }
        standingBy = false;
        await this.follow(process, checkpoint, () => (failures = 0));
      } catch (error) {
        if (error instanceof ProcessLeaseLost) {
          logger.info({ process: process.name }, 'process lease lost');
          continue;
        }
        failures += 1;
        logger.error(
          { err: error, process: process.name, attempt: failures },
          'process batch failed; retrying',
        );
        await sleep(Math.min(maxRetryDelayMs, 100 * 2 ** Math.min(failures, 12)), signal);
      }
    }
  }

  private async acquire(name: string): Promise<Checkpoint | null> {
    const result = await sql<{ checkpoint: string }>`
      update process_checkpoints
      set lease_owner = ${this.options.owner},
          lease_expires_at = now() + ${this.options.leaseTtlMs} * interval '1 millisecond'
      where name = ${name} and (lease_owner is null or lease_owner = ${this.options.owner} or lease_expires_at < now())
      returning checkpoint`.execute(this.options.db);
    return result.rows[0]?.checkpoint ?? null;
  }

  private async follow(process: ProcessManager, from: Checkpoint, onProgress: () => void): Promise<void> {
    const { eventStore, idleWaitMs } = this.options;
    const signal = this.abort.signal;
    let checkpoint = from;
    // While idle, the heartbeat renews the lease; a renewal that no longer finds it ends the wait.
    const leaseLost = new AbortController();
    this.heartbeat.hold(process.name, () => leaseLost.abort());
    try {
      while (!signal.aborted) {
        if (this.heartbeat.lost(process.name)) throw new ProcessLeaseLost(process.name);
        // Registered before reading, so an append committed after the read's snapshot still wakes us.
        const wakeEarly = new AbortController();
        const filter =
          process.eventTypes && process.eventTypes.length > 0
            ? { eventTypes: process.eventTypes }
            : undefined;
        const wake = eventStore.waitForAppend(
          idleWaitMs,
          AbortSignal.any([wakeEarly.signal, leaseLost.signal, signal]),
          filter,
        );
        try {
          this.heartbeat.busy(process.name, true);
          const page = await eventStore.readAll({ from: checkpoint, filter, limit: this.options.batchSize });
          if (page.events.length > 0 || (await this.emptyAdvanceMatters(process, checkpoint, page))) {
            const wroteOutbox = await this.commit(process, checkpoint, page);
            checkpoint = page.checkpoint;
            onProgress();
            if (wroteOutbox) await this.outboxWritten();
          }
          this.heartbeat.busy(process.name, false);
          if (!page.isEnd) continue;
          await wake;
        } finally {
          wakeEarly.abort();
        }
      }
    } finally {
      this.heartbeat.release(process.name);
    }
  }

  private async outboxWritten(): Promise<void> {
    try {
      await this.options.onOutboxWritten?.();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not wake the outbox dispatcher');
    }
  }

  /** See projections/engine/generation.ts: at the end of the log only a filtered reader's skip is worth a write. */
  private async emptyAdvanceMatters(
    process: ProcessManager,
    from: Checkpoint,
    page: ReadAllPage,
  ): Promise<boolean> {
    const { eventStore } = this.options;
    if (eventStore.compareCheckpoints(page.checkpoint, from) <= 0) return false;
    if (!page.isEnd) return true;
    if (!process.eventTypes || process.eventTypes.length === 0) return false;
    const probe = await eventStore.readAll({ from, limit: 1 });
    return probe.events.length > 0;
  }

  /** Commits the batch; answers whether it wrote to the outbox. */
  private async commit(process: ProcessManager, from: Checkpoint, page: ReadAllPage): Promise<boolean> {
    const { db, owner, leaseTtlMs, enqueue } = this.options;
    let wroteOutbox = false;
    await db.transaction().execute(async (trx) => {
      const locked = await sql<{ checkpoint: string }>`
        select checkpoint from process_checkpoints where name = ${process.name} and lease_owner = ${owner}
        for update`.execute(trx);
      if (locked.rows[0]?.checkpoint !== from) throw new ProcessLeaseLost(process.name);
      const ctx = {
        enqueue: (message: Parameters<EnqueueOutbox>[1]) => {
          wroteOutbox = true;
          return enqueue(trx, message);
        },
      };
      for (const event of page.events) await process.handle(trx, event, ctx);
      await sql`
        update process_checkpoints
        set checkpoint = ${page.checkpoint}, events_processed = events_processed + ${page.events.length},
            lease_expires_at = now() + ${leaseTtlMs} * interval '1 millisecond', updated_at = now()
        where name = ${process.name}`.execute(trx);
    });
    return wroteOutbox;
  }
}
