// Read-your-writes for the API: wait until the serving projections have folded past an appended position.
// Works on any instance because it reads the shared catalog, woken by LISTEN/NOTIFY with a short poll fallback.
import type { AnyDatabase } from './projection.js';
import { PgListener } from '../../infra/db/pg-listener.js';
import { sql, type Kysely } from 'kysely';
import type { Checkpoint, EventStore } from '../../infra/event-store/port.js';
import { CHECKPOINT_CHANNEL } from './catalog.js';

export interface WaitForProjectionsOptions {
  /** Bound of the wait; the answer is false when it passes. */
  timeoutMs: number;
  /** Serving projections to wait for (the ones the endpoint's readers use); all serving ones when absent. */
  projections?: readonly string[];
  /**
   * The code's version of each projection. A serving generation of a lower version is being replaced by a
   * rebuild and is no longer fed by this code, so writes do not wait for it (it catches up at the switch);
   * otherwise every write would time out for the length of the rebuild.
   */
  versions?: Readonly<Record<string, number>>;
}

export interface ProjectionWaiterOptions {
  db: Kysely<AnyDatabase>;
  eventStore: EventStore<unknown>;
  /** Connection string for the LISTEN connection; without it the waiter only polls. */
  url?: string;
  /** Fallback poll interval: a lost notification delays the answer by at most this much. */
  pollIntervalMs?: number;
}

/**
 * Read-your-writes mechanism. A command handler appends, gets the appended position, and calls
 * `waitForProjections(position, { timeoutMs, projections })` before answering 2xx. The projection runner
 * commits each batch's rows and checkpoint in one transaction and sends `pg_notify('projection_checkpoints')`
 * in that transaction, so the notification arrives only once the rows are visible. The waiter reads the
 * serving generations' checkpoints from the `projections` catalog (shared by every instance, whichever one
 * runs the projector) and resolves true once each is at or past the position (the store's comparator); it
 * re-checks on every notification and at least every `pollIntervalMs`, and resolves false at the timeout.
 * A filtered projector advances its checkpoint past events it skips, so it never holds a waiter back; a
 * rebuild switch only ever moves the serving checkpoint forward.
 */
export class ProjectionWaiter {
  private readonly db: Kysely<AnyDatabase>;
  private readonly eventStore: EventStore<unknown>;
  private readonly pollIntervalMs: number;
  private readonly listener: PgListener | null;
  private readonly wakers = new Set<() => void>();
  private closed = false;

  constructor(options: ProjectionWaiterOptions) {
    this.db = options.db;
    this.eventStore = options.eventStore;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.listener = options.url
      ? new PgListener(
          options.url,
          CHECKPOINT_CHANNEL,
          () => {
            for (const wake of [...this.wakers]) wake();
          },
          'projection-waiter',
        )
      : null;
  }

  /** True once every requested serving projection's checkpoint is at or past `position`; false at the timeout. */
  async waitForProjections(position: Checkpoint, options: WaitForProjectionsOptions): Promise<boolean> {
    const deadline = Date.now() + options.timeoutMs;
    await this.ensureListener().catch(() => undefined);
    for (;;) {
      // Armed before the check, so a checkpoint committed between the check and the sleep still wakes us.
      const wake = this.nextWake(Math.max(0, Math.min(this.pollIntervalMs, deadline - Date.now())));
      try {
        if (await this.caughtUp(position, options.projections, options.versions)) return true;
        if (this.closed || Date.now() >= deadline) return false;
        await wake.promise;
      } finally {
        wake.cancel();
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const wake of [...this.wakers]) wake();
    await this.listener?.close();
  }

  private async caughtUp(
    position: Checkpoint,
    names: readonly string[] | undefined,
    versions: Readonly<Record<string, number>> | undefined,
  ): Promise<boolean> {
    const filter = names ? sql`and name = any(${[...names]}::text[])` : sql``;
    const result = await sql<{ name: string; checkpoint: string; version: number }>`
      select name, checkpoint, version from projections where status = 'serving' ${filter}`.execute(this.db);
    if (names && names.some((name) => !result.rows.some((row) => row.name === name))) return false;
    return result.rows.every(
      (row) =>
        (versions?.[row.name] !== undefined && row.version < versions[row.name]!) ||
        this.eventStore.compareCheckpoints(row.checkpoint, position) >= 0,
    );
  }

  private nextWake(ms: number): { promise: Promise<void>; cancel: () => void } {
    let cancel = () => undefined as void;
    const promise = new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wakers.delete(finish);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.wakers.add(finish);
      cancel = finish;
    });
    return { promise, cancel };
  }

  private ensureListener(): Promise<void> {
    return this.listener?.ensure() ?? Promise.resolve();
  }
}
