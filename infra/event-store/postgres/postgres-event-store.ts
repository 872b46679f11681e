// PostgreSQL event store: streams with optimistic concurrency, and a global log read below the transaction horizon.
// Readers only see events whose tx_id is below the horizon (the oldest running transaction that may write to this
// database's log), so a transaction that took a lower position but
// commits late is never skipped (no timing heuristics), and events are ordered by (tx_id, position).
// The horizon is the database's own: a long transaction in another database on the server does not delay delivery
// (see OWN_HORIZON); one in this database delays it (never loses it).
import { randomUUID } from 'node:crypto';
import { escapeLike } from '../../db/like.js';
import { PgListener } from '../../db/pg-listener.js';
import { Wakeups } from '../../async/wakeups.js';
import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import {
  DuplicateEventId,
  EmptyAppend,
  WrongExpectedVersion,
  type AppendOptions,
  type AppendResult,
  type Checkpoint,
  type EventFilter,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type ReadAllOptions,
  type ReadAllPage,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../port.js';
import { assertExpectedRevision, eventIds, streamWindow } from '../validation.js';

const NOTIFY_CHANNEL = 'es_appended';
const MAX_POSITION = 9223372036854775807n;
/**
 * How soon a reader looks again while committed events are held back behind the transaction horizon: at once
 * for the usual short overlap, slower the longer it lasts (one long transaction must not make every reader
 * poll flat out).
 */
const HELD_BACK_POLL_MIN_MS = 5;
const HELD_BACK_POLL_MAX_MS = 200;
/** A live subscription's longest sleep without a notification (one lost by the database is found this late). */
const DEFAULT_SAFETY_POLL_MS = 30_000;
/** How soon a filtered reader reads after appends of other types only (to move its checkpoint past them). */
const OTHER_TYPES_READ_MS = 1_000;
/** How soon a waiter looks again while the LISTEN connection is down: no other process's append can wake it. */
const UNLISTENED_POLL_MS = 1_000;

/**
 * The horizon of a read: every event below it is committed and visible, or was never written. The plain horizon
 * is the snapshot's xmin, the oldest running transaction. Transaction ids are server-wide, so that lets a long
 * transaction in another database (a migration, a bulk load, a client holding a transaction open) delay every
 * reader here. `OWN_HORIZON` is the oldest running transaction that may write to this database's log: a running
 * transaction is set aside only when pg_stat_activity shows it belongs to another database; one it cannot place
 * (ended since the snapshot was taken, a prepared transaction, another role's session that a role without
 * pg_read_all_stats cannot see) still counts, so it can only make a reader see less than it may, never skip an
 * event. A horizon once known stays true (no transaction below it can start later), so reads use the greater of
 * their snapshot's xmin and the highest horizon known (`knownHorizon`): one placement serves every later read.
 * Building pg_stat_activity costs about 0.17 ms of the server's CPU, so transactions are placed only while events
 * are held back behind an oldest transaction that has stayed the oldest for `OWN_HORIZON_AFTER_MS` (under load the
 * oldest changes with every short transaction; a long one stays) and was not found to be this database's already;
 * one placement at a time for all readers of the process.
 */
const OWN_HORIZON = `select case when pg_snapshot_xmin(s.snap) = pg_snapshot_xmax(s.snap) then pg_snapshot_xmin(s.snap)
  else coalesce(
    (select min(x) from pg_snapshot_xip(s.snap) as x
      where x::xid not in (
        select backend_xid from pg_stat_activity
        where backend_xid is not null and datid <> (select oid from pg_database where datname = current_database()))),
    pg_snapshot_xmax(s.snap))
  end::text as horizon, pg_snapshot_xmin(s.snap)::text as server_xmin
  from (select pg_current_snapshot() as snap) as s`;
/** How long one oldest transaction holds events back before the running transactions are placed. */
const OWN_HORIZON_AFTER_MS = 100;

interface Position {
  tx: bigint;
  pos: bigint;
}

export function parsePgCheckpoint(checkpoint: Checkpoint): Position {
  const match = /^pg:(\d+):(\d+)$/.exec(checkpoint);
  if (!match) throw new Error(`Not a PostgreSQL checkpoint: ${checkpoint}`);
  return { tx: BigInt(match[1]!), pos: BigInt(match[2]!) };
}

export function formatPgCheckpoint(p: Position): Checkpoint {
  return `pg:${p.tx}:${p.pos}`;
}

interface EventRow {
  position: string;
  tx_id: string;
  event_id: string;
  stream_name: string;
  revision: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: string;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamName: row.stream_name,
    revision: Number(row.revision),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    position: formatPgCheckpoint({ tx: BigInt(row.tx_id), pos: BigInt(row.position) }),
    recordedAt: row.recorded_at,
  };
}

/** The append statement matched no stream row in the expected state, so it inserted nothing. */
class NothingAppended extends Error {}

/**
 * The whole append as one statement (one round trip, and no transaction of its own): the first CTE takes the
 * stream row's lock and moves its revision only when the stream is as expected (returning the revision before
 * the append, -1 for a new stream), and the events are inserted after that revision. No row from the first CTE
 * (the stream was elsewhere, or a racing creator committed first) means nothing is inserted: the caller's
 * WrongExpectedVersion. A failing insert (a duplicate event id) undoes the move with the statement.
 */
/** How long appends are gathered before the one NOTIFY that tells other processes' readers about them. */
const NOTIFY_COALESCE_MS = 5;

function appendStatement(
  stream: string,
  ids: readonly string[],
  events: readonly NewEvent[],
  expected: AppendOptions<unknown>['expectedRevision'],
): CompiledQuery<{ position: string; tx_id: string; revision: string }> {
  // $1 the stream, $2 the number of events, $3 the events (one JSON array: no array literal to escape element
  // by element), $4 the expected revision. Written out: kysely's sql template costs more to compile than this.
  const move =
    expected === 'no_stream'
      ? `insert into es_streams (stream_name, revision) values ($1, $2::bigint - 1)
          on conflict (stream_name) do nothing returning revision - $2::bigint as prev`
      : expected === 'any'
        ? `insert into es_streams (stream_name, revision) values ($1, $2::bigint - 1)
            on conflict (stream_name) do update set revision = es_streams.revision + $2::bigint
            returning revision - $2::bigint as prev`
        : expected === 'stream_exists'
          ? `update es_streams set revision = revision + $2::bigint where stream_name = $1
              returning revision - $2::bigint as prev`
          : `update es_streams set revision = revision + $2::bigint where stream_name = $1 and revision = $4
              returning revision - $2::bigint as prev`;
  const rows = JSON.stringify(
    events.map((e, i) => ({ id: ids[i], type: e.type, data: e.data ?? null, metadata: e.metadata })),
  );
  return CompiledQuery.raw(
    `with moved as (${move})
    insert into es_events (event_id, stream_name, revision, type, data, metadata)
    select e.id, $1, moved.prev + e.ord, e.type, coalesce(e.data, 'null'::jsonb), e.metadata
    from moved cross join rows from (
      jsonb_to_recordset($3::jsonb) as (id uuid, type text, data jsonb, metadata jsonb)
    ) with ordinality as e(id, type, data, metadata, ord)
    order by e.ord
    returning position, tx_id, revision`,
    typeof expected === 'number' ? [stream, events.length, rows, expected] : [stream, events.length, rows],
  );
}

function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

export interface PostgresEventStoreOptions<DB> {
  db: Kysely<DB>;
  /** Connection string for the LISTEN connection that wakes readers on append. */
  url: string;
  /**
   * How long a live subscription sleeps between polls when no notification arrives: a safety net for a lost
   * notification, since appends (this process's at once, others' by NOTIFY) wake it.
   */
  pollIntervalMs?: number;
}

export class PostgresEventStore<DB> implements EventStore<Transaction<DB>> {
  readonly name = 'postgres';
  readonly transactionalSideWrites = true;
  readonly start: Checkpoint = 'pg:0:0';

  private readonly db: Kysely<DB>;
  private readonly pollIntervalMs: number;
  private readonly listener: PgListener;
  private readonly appended = new Wakeups();
  /** Counts notifications, so a reader that saw one arrive during its read does not go to sleep. */
  private appendSeq = 0;
  /**
   * The `appendSeq` of the last wake-up whose event types are unknown (another process's notification, events
   * held back behind the horizon): every reader reads after one.
   */
  private unknownWakeSeq = 0;
  /** Per event type, the `appendSeq` of this process's last append of it. */
  private readonly typeSeq = new Map<string, number>();
  /** This process's notifications carry this id, so its own listener can tell them from other processes'. */
  private readonly instanceId = randomUUID();
  private subscriptions = new Set<Subscription>();
  private closed = false;
  /** The last read that reached the end saw committed events beyond the horizon. */
  private heldBackSince: number | null = null;
  /** The highest horizon known (see OWN_HORIZON): true for every later snapshot. */
  private knownHorizon = 0n;
  private placing: Promise<void> | null = null;
  private placedAt = 0;
  /** The server's oldest running transaction at the last read, and since when it has been the oldest. */
  private oldest: { xmin: string; since: number } | null = null;
  /** An oldest transaction found to be this database's: placing it again would change nothing. */
  private ownOldest: string | null = null;
  /** The notification in flight, and whether another append asked for one after it was sent. */
  private notifying: Promise<void> | null = null;
  private notifyAgain = false;

  constructor(options: PostgresEventStoreOptions<DB>) {
    this.db = options.db;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_SAFETY_POLL_MS;
    this.listener = new PgListener(
      options.url,
      NOTIFY_CHANNEL,
      (payload) => {
        // This process's own appends woke its readers when they committed (announceAppend).
        if (payload === this.instanceId) return;
        this.appendSeq += 1;
        this.unknownWakeSeq = this.appendSeq;
        this.appended.wakeAll();
      },
      'event-store-listener',
      // A new LISTEN connection (or a lost one): notifications sent while none listened are lost, so every
      // reader reads again; a reader that finds the connection down reconnects (see waitForAppend).
      () => {
        this.unknownWakeSeq = ++this.appendSeq;
        this.appended.wakeAll();
      },
    );
  }

  async appendToStream(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions<Transaction<DB>>,
  ): Promise<AppendResult> {
    if (events.length === 0) throw new EmptyAppend(stream);
    const expected = options.expectedRevision;
    assertExpectedRevision(expected);
    const ids = eventIds(events);
    const statement = appendStatement(stream, ids, events, expected);
    try {
      // One statement moves the stream and inserts the events; a side write shares its transaction.
      const sideWrite = options.sideWrite;
      const rows = sideWrite
        ? await this.db.transaction().execute(async (trx) => {
            const inserted = (await trx.executeQuery(statement)).rows;
            // Nothing appended: leave the transaction (and the side write) for the error below.
            if (inserted.length === 0) throw new NothingAppended();
            await sideWrite(trx);
            return inserted;
          })
        : (await this.db.executeQuery(statement)).rows;
      if (rows.length === 0) throw new NothingAppended();
      const last = rows.reduce((a, b) => (BigInt(b.position) > BigInt(a.position) ? b : a));
      this.announceAppend(events);
      return {
        nextExpectedRevision: Number(last.revision),
        position: formatPgCheckpoint({ tx: BigInt(last.tx_id), pos: BigInt(last.position) }),
      };
    } catch (error) {
      // The stream was not where the caller expected it (the statement matched no stream row to move).
      if (error instanceof NothingAppended)
        throw new WrongExpectedVersion(stream, expected, (await this.streamRevision(stream)) ?? 'no_stream');
      if (isUniqueViolation(error, 'es_events_event_id_key')) {
        const id = /\(event_id\)=\(([^)]+)\)/.exec((error as { detail?: string }).detail ?? '')?.[1];
        throw new DuplicateEventId(id ?? 'unknown');
      }
      if (isUniqueViolation(error, 'es_events_stream_name_revision_key')) {
        // Unreachable while es_streams is locked first; kept so a broken invariant still reads as a conflict.
        throw new WrongExpectedVersion(stream, expected, (await this.streamRevision(stream)) ?? 'no_stream');
      }
      throw error;
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const window = streamWindow(options);
    if (!window) return [];
    const result = await this.db.executeQuery<EventRow>(
      CompiledQuery.raw(
        `select position, tx_id, event_id, stream_name, revision, type, data, metadata, recorded_at
        from es_events where stream_name = $1 and revision >= $2 order by revision limit $3`,
        [stream, window.from, Math.min(window.count, 2_147_483_647)],
      ),
    );
    return result.rows.map(toRecorded);
  }

  async streamRevision(stream: string): Promise<number | null> {
    const result = await sql<{ revision: string }>`
      select revision from es_streams where stream_name = ${stream}`.execute(this.db);
    return result.rows[0] ? Number(result.rows[0].revision) : null;
  }

  async readAll(options: ReadAllOptions = {}): Promise<ReadAllPage> {
    const from = parsePgCheckpoint(options.from ?? this.start);
    const limit = Math.max(1, Math.min(options.limit ?? 1000, 10_000));
    const values: unknown[] = [from.tx.toString(), from.pos.toString(), limit];
    const filter = filterSql(options.filter, values);
    if (this.shouldPlaceTransactions()) await this.placeTransactions();
    values.push(this.knownHorizon.toString());
    const known = `$${values.length}::xid8`;
    // One statement, one snapshot: the horizon and the rows agree. Whether anything waits at or beyond the
    // horizon is asked of the newest tx_id (one step backwards in es_events_global_order): as `exists (… where
    // tx_id >= xmin)`, the planner cannot know xmin, expects a third of the log to match and scans all of it,
    // which at the end of the log (where every reader polls) matches nothing: a whole scan per read.
    const result = await this.db.executeQuery<
      EventRow & { horizon: string; server_xmin: string; held_back: boolean }
    >(
      CompiledQuery.raw(
        `with s as (select pg_current_snapshot() as snap),
        h as (select greatest(pg_snapshot_xmin(s.snap), ${known}) as xmin, pg_snapshot_xmin(s.snap) as server_xmin from s)
        select h.xmin::text as horizon, h.server_xmin::text as server_xmin,
          coalesce((select tx_id from es_events order by tx_id desc limit 1) >= h.xmin, false) as held_back,
          e.*
        from h left join lateral (
          select position, tx_id, event_id, stream_name, revision, type, data, metadata, recorded_at
          from es_events
          where (tx_id, position) > ($1::xid8, $2::bigint) and tx_id < h.xmin ${filter}
          order by tx_id, position
          limit $3
        ) e on true`,
        values,
      ),
    );
    const horizon = BigInt(result.rows[0]!.horizon);
    if (horizon > this.knownHorizon) this.knownHorizon = horizon;
    const serverXmin = result.rows[0]!.server_xmin;
    if (this.oldest?.xmin !== serverXmin) this.oldest = { xmin: serverXmin, since: Date.now() };
    const rows = result.rows.filter((r) => r.event_id !== null);
    const events = rows.map(toRecorded);
    const isEnd = rows.length < limit;
    // Committed events wait behind an older open transaction; no append notification will announce when
    // that transaction ends, so readers waiting for appends poll briefly instead (see waitForAppend).
    if (isEnd) {
      if (!result.rows[0]!.held_back) this.heldBackSince = null;
      else if (this.heldBackSince === null) {
        this.heldBackSince = Date.now();
        // Waiters armed before this read chose their timeout without knowing; wake them to re-arm with the
        // short held-back poll (a projection batch holding the horizon sends no append notification).
        this.unknownWakeSeq = ++this.appendSeq;
        this.appended.wakeAll();
      }
    }
    let checkpoint = options.from ?? this.start;
    if (events.length > 0) checkpoint = events[events.length - 1]!.position;
    if (isEnd) {
      // Everything below the horizon has been seen (or filtered out): continue from there.
      const end = formatPgCheckpoint({ tx: horizon - 1n, pos: MAX_POSITION });
      if (this.compareCheckpoints(end, checkpoint) > 0) checkpoint = end;
    }
    return { events, checkpoint, isEnd };
  }

  /** Events are held back behind one oldest transaction long enough, not known to be this database's. */
  private shouldPlaceTransactions(): boolean {
    const now = Date.now();
    return (
      this.heldBackSince !== null &&
      this.oldest !== null &&
      this.oldest.xmin !== this.ownOldest &&
      now - this.oldest.since >= OWN_HORIZON_AFTER_MS &&
      now - this.placedAt >= HELD_BACK_POLL_MIN_MS
    );
  }

  /** Places the running transactions (OWN_HORIZON) once for every reader asking meanwhile. */
  private placeTransactions(): Promise<void> {
    this.placing ??= (async () => {
      try {
        const row = (
          await this.db.executeQuery<{ horizon: string; server_xmin: string }>(CompiledQuery.raw(OWN_HORIZON))
        ).rows[0]!;
        const horizon = BigInt(row.horizon);
        if (horizon > this.knownHorizon) this.knownHorizon = horizon;
        // Placed, and still the horizon: the oldest transaction is this database's (its database never changes).
        if (horizon === BigInt(row.server_xmin)) this.ownOldest = row.server_xmin;
      } catch {
        // The plain horizon stays in force; the next held-back read tries again.
      } finally {
        this.placedAt = Date.now();
        this.placing = null;
      }
    })();
    return this.placing;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    if (this.closed) throw new Error('The event store is closed');
    let stopped = false;
    const abort = new AbortController();
    let checkpoint = options.from ?? this.start;
    const run = async () => {
      let wasCaughtUp = false;
      await this.ensureListener().catch(() => undefined);
      while (!stopped) {
        const seq = this.appendSeq;
        const page = await this.readAll({ from: checkpoint, filter: options.filter, limit: 500 });
        for (const event of page.events) {
          if (stopped) return;
          await options.onEvent(event);
          checkpoint = event.position;
        }
        if (stopped) return;
        if (this.compareCheckpoints(page.checkpoint, checkpoint) > 0) {
          checkpoint = page.checkpoint;
          if (page.events.length === 0 && options.onCheckpoint) await options.onCheckpoint(checkpoint);
        }
        if (page.isEnd) {
          if (!wasCaughtUp || page.events.length > 0) options.onCaughtUp?.(checkpoint);
          wasCaughtUp = true;
          if (seq === this.appendSeq)
            await this.waitForAppend(this.pollIntervalMs, abort.signal, options.filter);
        }
      }
    };
    // A failed read or handler ends the subscription; the consumer resubscribes from its own checkpoint.
    const done = run()
      .catch((error: unknown) => {
        if (!stopped) options.onError?.(error);
      })
      .finally(() => this.subscriptions.delete(subscription));
    const subscription: Subscription = {
      done,
      async stop() {
        stopped = true;
        abort.abort();
        await done;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * With a filter of event types, wake-ups for this process's own appends of other types are slept through, so
   * an append costs a read only to the readers of its types (a read per reader per append grew with every
   * projection and process manager). Another process's notification (its types are not known), events held
   * back behind the horizon and the timeout still wake the waiter. Appends from the call on count, so a reader
   * that waits while it reads (the runners) misses none.
   */
  async waitForAppend(timeoutMs: number, signal?: AbortSignal, filter?: EventFilter): Promise<void> {
    const types = filter?.eventTypes && filter.eventTypes.length > 0 ? filter.eventTypes : null;
    let seen = this.appendSeq;
    let deadline = Date.now() + timeoutMs;
    /** Set once an append of other types was slept through: the reader reads by then all the same. */
    let lazyDeadline: number | null = null;
    if (this.closed || signal?.aborted) return;
    const listening = await this.ensureListener().then(
      () => true,
      () => false,
    );
    // Without a LISTEN connection only this process's appends would wake us: poll until it is back.
    const pollMs = listening ? null : UNLISTENED_POLL_MS;
    for (;;) {
      // Aborted or closed while the listener connected: the abort event has already fired and will not again.
      if (this.closed || signal?.aborted) return;
      if (seen === this.appendSeq) {
        const left = deadline - Date.now();
        if (left <= 0) return;
        await this.appended.wait(Math.min(left, this.heldBackPollMs() ?? left, pollMs ?? left), signal);
      }
      const now = this.appendSeq;
      // The timeout (or the held-back poll) ran out, or the waiter was stopped.
      if (now === seen || signal?.aborted || this.closed) return;
      if (types === null || this.unknownWakeSeq > seen) return;
      if (types.some((type) => (this.typeSeq.get(type) ?? 0) > seen)) return;
      // Only other types: nothing to fold, but the reader's checkpoint should still pass them soon (a wait for
      // every read model is held back by it otherwise), so it reads within OTHER_TYPES_READ_MS. Without appends
      // there is nothing to pass, and no read.
      lazyDeadline ??= Date.now() + OTHER_TYPES_READ_MS;
      deadline = Math.min(deadline, lazyDeadline);
      seen = now;
    }
  }

  private heldBackPollMs(): number | null {
    if (this.heldBackSince === null) return null;
    const heldFor = Date.now() - this.heldBackSince;
    return Math.max(HELD_BACK_POLL_MIN_MS, Math.min(HELD_BACK_POLL_MAX_MS, heldFor / 10));
  }

  compareCheckpoints(a: Checkpoint, b: Checkpoint): number {
    const x = parsePgCheckpoint(a);
    const y = parsePgCheckpoint(b);
    if (x.tx !== y.tx) return x.tx < y.tx ? -1 : 1;
    if (x.pos !== y.pos) return x.pos < y.pos ? -1 : 1;
    return 0;
  }

  /**
   * After a commit, tells readers in every process that the log grew. Concurrent appends share notifications:
   * one in flight and at most one more, sent after it, so every commit is followed by a notification sent after
   * the commit. (A NOTIFY inside each append takes PostgreSQL's global notification lock at every commit and
   * serialises concurrent appends.) Readers in this process are woken at once.
   */
  private announceAppend(events: readonly NewEvent[]): void {
    this.appendSeq += 1;
    for (const event of events) this.typeSeq.set(event.type, this.appendSeq);
    this.appended.wakeAll();
    if (this.notifying) {
      this.notifyAgain = true;
      return;
    }
    this.notifying = (async () => {
      do {
        // One NOTIFY for the appends of a few milliseconds: each is a transaction that takes PostgreSQL's global
        // notification lock at commit, and one per append cost a fifth of the append rate at 16 writers.
        // Readers in this process were woken at once above; other processes learn of it at most this much later.
        await new Promise((resolve) => setTimeout(resolve, NOTIFY_COALESCE_MS));
        this.notifyAgain = false;
        // A lost notification only delays readers until their poll; it never loses an event.
        await sql`select pg_notify(${NOTIFY_CHANNEL}, ${this.instanceId})`
          .execute(this.db)
          .catch(() => undefined);
      } while (this.notifyAgain && !this.closed);
      this.notifying = null;
    })();
  }

  async close(): Promise<void> {
    await this.notifying;
    this.closed = true;
    // Stopped before the pool goes away, so no loop keeps reading from a closed database.
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.appended.wakeAll();
    await this.listener.close();
  }

  private ensureListener(): Promise<void> {
    return this.listener.ensure();
  }
}

/** The filter's conditions, its values appended to `values` (their placeholders follow them). */
function filterSql(filter: EventFilter | undefined, values: unknown[]): string {
  const parts: string[] = [];
  if (filter?.eventTypes && filter.eventTypes.length > 0)
    parts.push(`and type = any($${values.push([...filter.eventTypes])}::text[])`);
  if (filter?.streamPrefixes && filter.streamPrefixes.length > 0) {
    const patterns = filter.streamPrefixes.map((p) => `${escapeLike(p)}%`);
    parts.push(`and stream_name like any($${values.push(patterns)}::text[])`);
  }
  return parts.join(' ');
}
