// Read-your-writes for the API: wait until the serving projections have folded past an appended position.
// Works on any instance: one picture of the shared catalog per process, moved forward by LISTEN/NOTIFY, with a
// short poll fallback.
import type { Projection } from './projection.js';
import type { ReadModels } from '../read-models.js';
import { PgListener } from '../../infra/db/pg-listener.js';
import { sql, type Kysely } from 'kysely';
import type { Checkpoint, EventStore } from '../../infra/event-store/port.js';
import { CHECKPOINT_CHANNEL, parseCheckpointChange } from './catalog.js';

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
  db: Kysely<ReadModels>;
  eventStore: EventStore<unknown>;
  /** Connection string for the LISTEN connection; without it the waiter only polls. */
  url?: string;
  /** Fallback poll interval: a lost notification delays the answer by at most this much. */
  pollIntervalMs?: number;
}

/** A serving generation as this process last learned it. */
interface Serving {
  generation: number;
  version: number;
  checkpoint: Checkpoint;
}

interface Waiter {
  position: Checkpoint;
  names: readonly string[] | undefined;
  versions: Readonly<Record<string, number>> | undefined;
  done: (caughtUp: boolean) => void;
}

/**
 * Read-your-writes mechanism. A command handler appends, gets the appended position, and calls
 * `waitForProjections(position, { timeoutMs, projections })` before answering 2xx. The projection runner
 * commits each batch's rows and checkpoint in one transaction and sends `pg_notify('projection_checkpoints')`
 * in that transaction, so the notification arrives only once the rows are visible; its payload names the
 * generation and the checkpoint it committed. The waiter keeps one picture of the serving generations'
 * checkpoints for the whole process: read from the `projections` catalog (shared by every instance, whichever
 * one runs the projector) once the LISTEN connection is up, then moved forward by each notification. A wait
 * resolves true as soon as each named projection is at or past the position (the store's comparator), false
 * at the timeout. Checkpoints only move forward (a rebuild switch too), so a picture that says "caught up" is
 * never wrong; one that says "not yet" is corrected by the notification that follows every commit. The catalog
 * is read again, once for all waiters, when a notification names a generation the picture does not know (a
 * switch), when a named projection is missing, after the LISTEN connection was re-opened, and at least every
 * `pollIntervalMs` while anyone waits (a lost notification delays an answer by at most that much).
 * A filtered projector advances its checkpoint past events it skips, so it never holds a waiter back.
 */
export class ProjectionWaiter {
  private readonly db: Kysely<ReadModels>;
  private readonly eventStore: EventStore<unknown>;
  private readonly pollIntervalMs: number;
  private readonly listener: PgListener | null;
  private readonly serving = new Map<string, Serving>();
  private readonly waiters = new Set<Waiter>();
  /** The LISTEN connection the picture has followed since it was last read in full. */
  private followed: Promise<void> | null = null;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private poll: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(options: ProjectionWaiterOptions) {
    this.db = options.db;
    this.eventStore = options.eventStore;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.listener = options.url
      ? new PgListener(
          options.url,
          CHECKPOINT_CHANNEL,
          (payload) => this.onNotification(payload),
          'projection-waiter',
        )
      : null;
  }

  /** True once every requested serving projection's checkpoint is at or past `position`; false at the timeout. */
  async waitForProjections(position: Checkpoint, options: WaitForProjectionsOptions): Promise<boolean> {
    if (this.closed) return false;
    const names = options.projections;
    const versions = options.versions;
    let listening = false;
    if (this.listener) {
      const ready = this.listener.ensure();
      listening = await ready.then(
        () => true,
        () => false,
      );
      if (listening && ready !== this.followed) {
        // A new connection: notifications sent before it are lost, so the picture is read again after it.
        this.followed = ready;
        await this.refresh();
      }
    }
    // Without notifications only reading the catalog can tell (once for all who ask meanwhile).
    if (!listening) await this.refresh();
    if (this.caughtUp(position, names, versions)) return true;
    if (this.closed || options.timeoutMs <= 0) return false;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        position,
        names,
        versions,
        done: (caughtUp) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(caughtUp);
        },
      };
      const timer = setTimeout(() => waiter.done(false), options.timeoutMs);
      this.waiters.add(waiter);
      this.schedulePoll();
      // A projection the picture lacks (not serving yet when it was read): only the catalog can tell.
      if ((names ?? []).some((name) => !this.serving.has(name))) void this.refresh();
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter.done(false);
    if (this.poll) clearTimeout(this.poll);
    await this.refreshing;
    await this.listener?.close();
  }

  private onNotification(payload: string | undefined): void {
    const change = parseCheckpointChange(payload);
    if (change === null) return void this.refresh();
    if (change.status !== 'serving') return;
    const known = this.serving.get(change.name);
    if (known?.generation !== change.generation) return void this.refresh();
    if (this.eventStore.compareCheckpoints(change.checkpoint, known.checkpoint) > 0)
      known.checkpoint = change.checkpoint;
    this.settle();
  }

  /** Reads the serving generations once for everyone; a request during a read makes one more read after it. */
  private refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        try {
          const result = await sql<{ name: string; generation: number; checkpoint: string; version: number }>`
            select name, generation, checkpoint, version from projections where status = 'serving'`.execute(
            this.db,
          );
          for (const row of result.rows) {
            const known = this.serving.get(row.name);
            if (!known || row.generation > known.generation)
              this.serving.set(row.name, {
                generation: row.generation,
                version: row.version,
                checkpoint: row.checkpoint,
              });
            else if (row.generation === known.generation) {
              known.version = row.version;
              if (this.eventStore.compareCheckpoints(row.checkpoint, known.checkpoint) > 0)
                known.checkpoint = row.checkpoint;
            }
          }
        } catch {
          // The next notification or poll tries again; waiters are bounded by their timeouts.
        }
        this.settle();
      } while (this.refreshAgain && !this.closed);
      this.refreshing = null;
    })();
    return this.refreshing;
  }

  private settle(): void {
    for (const waiter of [...this.waiters])
      if (this.caughtUp(waiter.position, waiter.names, waiter.versions)) waiter.done(true);
  }

  /** The fallback: while anyone waits, the catalog is read at least every pollIntervalMs. */
  private schedulePoll(): void {
    if (this.poll || this.closed) return;
    this.poll = setTimeout(() => {
      this.poll = null;
      if (this.waiters.size === 0) return;
      void this.refresh().then(() => {
        if (this.waiters.size > 0) this.schedulePoll();
      });
    }, this.pollIntervalMs);
  }

  private caughtUp(
    position: Checkpoint,
    names: readonly string[] | undefined,
    versions: Readonly<Record<string, number>> | undefined,
  ): boolean {
    const wanted = names ?? [...this.serving.keys()];
    // An empty picture (the catalog not read yet, or its read failed) knows nothing: never "caught up".
    if (wanted.length === 0) return false;
    return wanted.every((name) => {
      const serving = this.serving.get(name);
      if (!serving) return false;
      const required = versions?.[name];
      if (required !== undefined && serving.version < required) return true;
      return this.eventStore.compareCheckpoints(serving.checkpoint, position) >= 0;
    });
  }
}

/**
 * The read models a write waits for: those whose event-type filter (or `awaitedFor`) includes a type it appended,
 * or that fold every event; the others have nothing of the write to show its writer. Without the types, all.
 */
export function projectionsToAwait<P extends Pick<Projection, 'eventTypes' | 'awaitedFor'>>(
  projections: readonly P[],
  eventTypes: readonly string[] | undefined,
): P[] {
  if (eventTypes === undefined) return [...projections];
  return projections.filter((p) => {
    const awaited = p.awaitedFor ?? p.eventTypes;
    return awaited === undefined || awaited.some((t) => eventTypes.includes(t));
  });
}

/** What an operator needs when a write waited past the read-your-writes timeout (logged as a warning). */
export interface LagReport {
  position: Checkpoint;
  /** The awaited serving generations still behind the write, with their lease holders. */
  behind: {
    name: string;
    generation: number;
    checkpoint: string;
    leaseOwner: string | null;
    leaseExpiresAt: string | null;
    updatedAt: string;
  }[];
  /**
   * The server's oldest running transaction id: the PostgreSQL log's readers hold back events of later
   * transactions while one of this database's transactions at or above it is still running.
   */
  horizon: string;
  /** The oldest open transactions holding back the horizon, in any database of the server. */
  oldestTransactions: {
    database: string | null;
    application: string | null;
    ageSeconds: number;
    state: string | null;
  }[];
}

/** Reads why the named projections are behind `position`; for the warning a timed-out write logs. */
export async function lagReport(
  db: Kysely<ReadModels>,
  eventStore: EventStore<unknown>,
  position: Checkpoint,
  names: readonly string[],
): Promise<LagReport> {
  const rows = (
    await sql<{
      name: string;
      generation: number;
      checkpoint: string;
      lease_owner: string | null;
      lease_expires_at: string | null;
      updated_at: string;
    }>`select name, generation, checkpoint, lease_owner, lease_expires_at::text, updated_at::text
       from projections where status = 'serving' and name = any(${[...names]})`.execute(db)
  ).rows;
  const horizon = (
    await sql<{ horizon: string }>`select pg_snapshot_xmin(pg_current_snapshot())::text as horizon`.execute(
      db,
    )
  ).rows[0]!.horizon;
  const oldest = (
    await sql<{ database: string | null; application: string | null; age: number; state: string | null }>`
      select datname as database, application_name as application, state,
        extract(epoch from now() - xact_start)::float8 as age
      from pg_stat_activity where backend_xid is not null
      order by age(backend_xid) desc limit 3`.execute(db)
  ).rows;
  return {
    position,
    behind: rows
      .filter((r) => eventStore.compareCheckpoints(r.checkpoint, position) < 0)
      .map((r) => ({
        name: r.name,
        generation: r.generation,
        checkpoint: r.checkpoint,
        leaseOwner: r.lease_owner,
        leaseExpiresAt: r.lease_expires_at,
        updatedAt: r.updated_at,
      })),
    horizon,
    oldestTransactions: oldest.map((o) => ({
      database: o.database,
      application: o.application,
      ageSeconds: Math.round(o.age * 10) / 10,
      state: o.state,
    })),
  };
}
