// Runs process managers from the log: one active runner per process across instances (leases), and each
// batch's process state, outbox rows and checkpoint committed in one transaction.
import { sql, type Kysely } from 'kysely';
import type { Checkpoint, EventStore, ReadAllPage } from '../../infra/event-store/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import { enqueueOutbox } from '../outbox/enqueue-outbox.js';
import type { EnqueueOutbox, ProcessManager } from './process-manager.js';
import type { ReadModels } from '../../projections/read-models.js';
import { sleep } from '../../infra/async/sleep.js';

export interface ProcessRunnerOptions {
  db: Kysely<ReadModels>;
  eventStore: EventStore<unknown>;
  processes: readonly ProcessManager[];
  /** Unique per process, e.g. `<host>:<pid>`; it is the lease owner. */
  owner: string;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** The outbox writer; processes/outbox `enqueueOutbox` unless a test replaces it. */
  enqueue?: EnqueueOutbox;
  batchSize?: number;
  leaseTtlMs?: number;
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
  private readonly options: Required<Omit<ProcessRunnerOptions, 'processes'>> & {
    processes: readonly ProcessManager[];
  };
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private started = false;

  constructor(options: ProcessRunnerOptions) {
    const leaseTtlMs = options.leaseTtlMs ?? 30_000;
    this.options = {
      ...options,
      batchSize: options.batchSize ?? 200,
      leaseTtlMs,
      idleWaitMs: options.idleWaitMs ?? 1000,
      standbyPollMs: options.standbyPollMs ?? Math.max(100, Math.floor(leaseTtlMs / 3)),
      maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
      enqueue: options.enqueue ?? enqueueOutbox,
    };
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
    this.loops = processes.map((process) => this.run(process));
  }

  /** Finishes the batches in flight, then releases this runner's leases. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
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

  private async renew(name: string): Promise<boolean> {
    const result = await sql`
      update process_checkpoints set lease_expires_at = now() + ${this.options.leaseTtlMs} * interval '1 millisecond'
      where name = ${name} and lease_owner = ${this.options.owner}`.execute(this.options.db);
    return (result.numAffectedRows ?? 0n) > 0n;
  }

  private async follow(process: ProcessManager, from: Checkpoint, onProgress: () => void): Promise<void> {
    const { eventStore, idleWaitMs, leaseTtlMs } = this.options;
    const signal = this.abort.signal;
    let checkpoint = from;
    let lastRenewal = Date.now();
    while (!signal.aborted) {
      // Registered before reading, so an append committed after the read's snapshot still wakes us.
      const wakeEarly = new AbortController();
      const filter =
        process.eventTypes && process.eventTypes.length > 0 ? { eventTypes: process.eventTypes } : undefined;
      const wake = eventStore.waitForAppend(idleWaitMs, AbortSignal.any([wakeEarly.signal, signal]), filter);
      try {
        const page = await eventStore.readAll({ from: checkpoint, filter, limit: this.options.batchSize });
        if (page.events.length > 0 || (await this.emptyAdvanceMatters(process, checkpoint, page))) {
          await this.commit(process, checkpoint, page);
          checkpoint = page.checkpoint;
          lastRenewal = Date.now();
          onProgress();
        }
        if (!page.isEnd) continue;
        if (Date.now() - lastRenewal > leaseTtlMs / 3) {
          if (!(await this.renew(process.name))) throw new ProcessLeaseLost(process.name);
          lastRenewal = Date.now();
        }
        await wake;
      } finally {
        wakeEarly.abort();
      }
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

  private async commit(process: ProcessManager, from: Checkpoint, page: ReadAllPage): Promise<void> {
    const { db, owner, leaseTtlMs, enqueue } = this.options;
    await db.transaction().execute(async (trx) => {
      const locked = await sql<{ checkpoint: string }>`
        select checkpoint from process_checkpoints where name = ${process.name} and lease_owner = ${owner}
        for update`.execute(trx);
      if (locked.rows[0]?.checkpoint !== from) throw new ProcessLeaseLost(process.name);
      const ctx = { enqueue: (message: Parameters<EnqueueOutbox>[1]) => enqueue(trx, message) };
      for (const event of page.events) await process.handle(trx, event, ctx);
      await sql`
        update process_checkpoints
        set checkpoint = ${page.checkpoint}, events_processed = events_processed + ${page.events.length},
            lease_expires_at = now() + ${leaseTtlMs} * interval '1 millisecond', updated_at = now()
        where name = ${process.name}`.execute(trx);
    });
  }
}
