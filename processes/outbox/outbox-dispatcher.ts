// The outbox dispatcher: hands committed outbox rows to the bus, at least once, with the row id as the
// bus message id so the bus (and handlers) de-duplicate. Several dispatchers may run at once.
import { sql, type Kysely } from 'kysely';
import type { Logger } from '../../infra/logging/logger.js';
import type { Bus } from '../../infra/bus/port.js';
import type { OutboxTables } from './migrations.js';

/** Core subject a writer may notify after commit to skip the dispatcher's poll wait. */
export const OUTBOX_NOTIFY_SUBJECT = 'outbox.written';

/** Wake every dispatcher now; optional (a poll finds the rows anyway), so only call it after commit. */
export async function notifyOutboxWritten(bus: Bus, subject = OUTBOX_NOTIFY_SUBJECT): Promise<void> {
  await bus.notify(subject);
}

export interface OutboxDispatcherOptions {
  // The dispatcher only touches the outbox table of whatever database it is given.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  bus: Bus;
  logger?: Pick<Logger, 'warn' | 'error'>;
  /** Rows claimed per transaction; small, because their locks are held while the bus answers. */
  batchSize?: number;
  /**
   * Longest wait between rounds when nobody notifies: a safety net, since writers notify after commit (the
   * process runner does) and a retry this dispatcher scheduled wakes it when it falls due.
   */
  pollIntervalMs?: number;
  /** Delay before retrying a row whose enqueue failed, by the attempts made so far (1, 2, …). */
  retryDelay?: (attempts: number) => number;
  notifySubject?: string;
}

export interface DispatchRound {
  claimed: number;
  dispatched: number;
  failed: number;
}

const noopLogger = { warn: () => undefined, error: () => undefined };

/** From 1 s doubling to 5 min: the outbox never gives up, because the side effect was already decided. */
export const defaultOutboxRetryDelay = (attempts: number): number =>
  Math.min(300_000, 1000 * 2 ** Math.max(0, attempts - 1));

export class OutboxDispatcher {
  private readonly db: Kysely<OutboxTables>;
  private readonly bus: Bus;
  private readonly logger: Pick<Logger, 'warn' | 'error'>;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly retryDelay: (attempts: number) => number;
  private readonly notifySubject: string;
  private running = false;
  private loop: Promise<void> | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private wakeRequested = false;
  private wakeUp: (() => void) | undefined;
  /** When the retries this dispatcher pushed back fall due (epoch ms), so it wakes for them. */
  private retriesAt: number[] = [];

  constructor(options: OutboxDispatcherOptions) {
    this.db = options.db as Kysely<OutboxTables>;
    this.bus = options.bus;
    this.logger = options.logger ?? noopLogger;
    this.batchSize = options.batchSize ?? 20;
    this.pollIntervalMs = options.pollIntervalMs ?? 30_000;
    this.retryDelay = options.retryDelay ?? defaultOutboxRetryDelay;
    this.notifySubject = options.notifySubject ?? OUTBOX_NOTIFY_SUBJECT;
  }

  /** Subscribes to wake-ups and resolves once the first round is over (rows committed before start are sent). */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = await this.bus.onNotify(this.notifySubject, () => this.wake());
    let firstRoundOver!: () => void;
    const firstRound = new Promise<void>((resolve) => (firstRoundOver = resolve));
    this.loop = this.run(firstRoundOver);
    await firstRound;
  }

  /** Finishes the round in progress (its rows are either marked or unlocked), then stops. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loop;
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /**
   * One round: claims due rows (skipping rows another dispatcher holds), enqueues each to the bus,
   * marks the sent ones dispatched and pushes the failed ones back, all in one transaction.
   * A crash after enqueue and before commit sends those rows again: at least once, de-duplicated by id.
   */
  async dispatchOnce(): Promise<DispatchRound> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('outbox')
        .select(['id', 'destination', 'payload', 'attempts'])
        .where('dispatched_at', 'is', null)
        .where('available_at', '<=', sql<string>`now()`)
        .orderBy('available_at')
        .orderBy('id')
        .limit(this.batchSize)
        .forUpdate()
        .skipLocked()
        .execute();
      if (rows.length === 0) return { claimed: 0, dispatched: 0, failed: 0 };

      const results = await Promise.allSettled(
        rows.map((row) => this.bus.enqueue(row.destination, { id: row.id, data: row.payload })),
      );
      const sent: string[] = [];
      for (const [index, result] of results.entries()) {
        const row = rows[index];
        if (!row) continue;
        if (result.status === 'fulfilled') {
          sent.push(row.id);
          continue;
        }
        const attempts = row.attempts + 1;
        this.retriesAt.push(Date.now() + this.retryDelay(attempts));
        const error = result.reason instanceof Error ? result.reason.message : String(result.reason);
        this.logger.warn(
          { err: result.reason, outboxId: row.id, destination: row.destination, attempts },
          'outbox enqueue failed; will retry',
        );
        await trx
          .updateTable('outbox')
          .set({
            attempts,
            last_error: error,
            available_at: sql<string>`now() + make_interval(secs => ${this.retryDelay(attempts) / 1000})`,
          })
          .where('id', '=', row.id)
          .execute();
      }
      if (sent.length > 0) {
        await trx
          .updateTable('outbox')
          .set({ dispatched_at: sql<string>`now()` })
          .where('id', 'in', sent)
          .execute();
      }
      return { claimed: rows.length, dispatched: sent.length, failed: rows.length - sent.length };
    });
  }

  private wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  private async run(firstRoundOver: () => void): Promise<void> {
    let failures = 0;
    while (this.running) {
      // Cleared before the round reads, so a notify that arrives during the round triggers another one.
      this.wakeRequested = false;
      let round: DispatchRound | undefined;
      try {
        round = await this.dispatchOnce();
        failures = 0;
      } catch (err) {
        failures += 1;
        this.logger.error({ err, failures }, 'outbox dispatch round failed');
      }
      firstRoundOver();
      if (!this.running) break;
      // A full batch with progress means more rows are probably waiting.
      if (round && round.claimed === this.batchSize && round.dispatched > 0) continue;
      let wait = failures > 0 ? Math.min(this.pollIntervalMs, 1000 * 2 ** failures) : this.pollIntervalMs;
      // Retries already due were claimed by this round (or another dispatcher's); wake for the next one.
      const now = Date.now();
      this.retriesAt = this.retriesAt.filter((at) => at > now);
      if (this.retriesAt.length > 0) wait = Math.min(wait, Math.min(...this.retriesAt) - now + 5);
      await this.idle(wait);
    }
  }

  private async idle(ms: number): Promise<void> {
    if (this.wakeRequested || !this.running) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const wakeUp = done;
      this.wakeUp = wakeUp;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
    this.wakeUp = undefined;
  }
}
