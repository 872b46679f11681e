// KurrentDB (formerly EventStoreDB) event store: the port over @kurrent/kurrentdb-client, with one $all catch-up
// subscription per instance fanned out in-process to subscribers and waitForAppend, resubscribed with backoff from
// its last position. Connection strings: kurrentdb:// (also kurrent://, kdb://) or the older esdb://, each with
// +discover for a cluster; esdb is rewritten to kurrentdb before the client sees it (the client warns on stderr).
//
// Side writes are not transactional here (transactionalSideWrites = false): EventStoreDB cannot join a PostgreSQL
// transaction, so the side write runs right after a successful append with the kysely handle given to the constructor.
// A crash between the two loses only the side write; the command layer's retry appends the same deterministic event
// ids again, which EventStoreDB de-duplicates (an idempotent append), and then writes the side record.
import type { Kysely } from 'kysely';
import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  KurrentDBClient,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendStreamState,
  type Filter,
  type JSONType,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import {
  WrongExpectedVersion,
  EmptyAppend,
  type AppendOptions,
  type AppendResult,
  type Checkpoint,
  type EventFilter,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadAllPage,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../port.js';
import { assertExpectedRevision, eventIds, streamWindow } from '../validation.js';
import { OrderedFeed } from './ordered-feed.js';
import { Wakeups } from '../../async/wakeups.js';
import { kurrentConnectionString } from './connection-string.js';

const START_CHECKPOINT = 'esdb:start';
const CATCH_UP_PAGE = 500;

/** Positions come from the client as bigint (or, from some paths, numeric strings); BigInt() accepts both. */
export function formatEsdbCheckpoint(position: {
  commit: bigint | string;
  prepare: bigint | string;
}): Checkpoint {
  return `esdb:${BigInt(position.commit)}:${BigInt(position.prepare)}`;
}

export function parseEsdbCheckpoint(checkpoint: Checkpoint): Position | 'start' {
  if (checkpoint === START_CHECKPOINT) return 'start';
  const match = /^esdb:(\d+):(\d+)$/.exec(checkpoint);
  if (!match) throw new Error(`Not an EventStoreDB checkpoint: ${checkpoint}`);
  return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
}

export function compareEsdbCheckpoints(a: Checkpoint, b: Checkpoint): number {
  const x = parseEsdbCheckpoint(a);
  const y = parseEsdbCheckpoint(b);
  if (x === 'start' || y === 'start') return x === y ? 0 : x === 'start' ? -1 : 1;
  if (x.commit !== y.commit) return x.commit < y.commit ? -1 : 1;
  if (x.prepare !== y.prepare) return x.prepare < y.prepare ? -1 : 1;
  return 0;
}

function toReadPosition(checkpoint: Checkpoint): ReadPosition {
  const position = parseEsdbCheckpoint(checkpoint);
  return position === 'start' ? START : position;
}

function toStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      return BigInt(expected);
  }
}

function isSystem(type: string, stream: string): boolean {
  return type.startsWith('$') || stream.startsWith('$');
}

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event || isSystem(event.type, event.streamId)) return null;
  if (!event.position) {
    throw new Error(
      'EventStoreDB returned an event without its position; the adapter needs server 22.6 or later',
    );
  }
  return {
    id: event.id,
    streamName: event.streamId,
    revision: Number(BigInt(event.revision)),
    type: event.type,
    data: event.data,
    metadata: event.metadata as EventMetadata,
    position: formatEsdbCheckpoint(event.position),
    recordedAt: event.created.toISOString(),
  };
}

function matches(event: RecordedEvent, filter: EventFilter | undefined): boolean {
  if (filter?.eventTypes && filter.eventTypes.length > 0 && !filter.eventTypes.includes(event.type))
    return false;
  if (filter?.streamPrefixes && filter.streamPrefixes.length > 0) {
    return filter.streamPrefixes.some((prefix) => event.streamName.startsWith(prefix));
  }
  return true;
}

/**
 * The server takes one filter per read: stream prefixes when given (usually the narrower), else event types as
 * prefixes; `matches` then checks the exact rule client-side. Without a filter, system events stay on the server.
 */
function serverFilter(filter: EventFilter | undefined): Filter {
  if (filter?.streamPrefixes && filter.streamPrefixes.length > 0) {
    return streamNameFilter({ prefixes: [...filter.streamPrefixes] });
  }
  if (filter?.eventTypes && filter.eventTypes.length > 0) {
    return eventTypeFilter({ prefixes: [...filter.eventTypes] });
  }
  return excludeSystemEvents();
}

interface Listener {
  /** Called in log order for every user event the shared subscription sees. */
  push(event: RecordedEvent): void;
  caughtUp(): void;
}

export interface EventStoreDbEventStoreOptions<DB> {
  /** A client to use (not disposed on close), or a connection string to create one from (disposed on close). */
  client?: KurrentDBClient;
  connectionString?: string;
  /** Handed to side writes, which run after the append (see the header). */
  db: Kysely<DB>;
  /** Backoff of the shared $all subscription after it drops. */
  resubscribeDelayMs?: { initial: number; max: number };
  /** Told about drops of the shared subscription; it keeps retrying regardless. */
  onFeedError?: (error: unknown) => void;
}

export class EventStoreDbEventStore<DB> implements EventStore<Kysely<DB>> {
  readonly name = 'eventstoredb';
  readonly transactionalSideWrites = false;
  readonly start: Checkpoint = START_CHECKPOINT;

  private readonly client: KurrentDBClient;
  private readonly ownsClient: boolean;
  private readonly db: Kysely<DB>;
  private readonly backoff: { initial: number; max: number };
  private readonly onFeedError: (error: unknown) => void;
  private readonly listeners = new Set<Listener>();
  private readonly appended = new Wakeups();
  private readonly subscriptions = new Set<Subscription>();
  private feedRunning: Promise<void> | null = null;
  private feed: OrderedFeed | null = null;
  private feedStarted: Promise<void> | null = null;
  /** Last position the shared subscription examined; where it resumes after a drop. */
  private feedPosition: Checkpoint | null = null;
  private retryTimer: { cancel(): void } | null = null;
  private closed = false;

  constructor(options: EventStoreDbEventStoreOptions<DB>) {
    if (options.client) {
      this.client = options.client;
      this.ownsClient = false;
    } else if (options.connectionString) {
      this.client = KurrentDBClient.connectionString(kurrentConnectionString(options.connectionString));
      this.ownsClient = true;
    } else {
      throw new Error('EventStoreDbEventStore needs a client or a connection string');
    }
    this.db = options.db;
    this.backoff = options.resubscribeDelayMs ?? { initial: 100, max: 5_000 };
    this.onFeedError = options.onFeedError ?? (() => undefined);
  }

  async appendToStream(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions<Kysely<DB>>,
  ): Promise<AppendResult> {
    if (events.length === 0) throw new EmptyAppend(stream);
    const expected = options.expectedRevision;
    assertExpectedRevision(expected);
    const ids = eventIds(events);
    const data = events.map((event, i) =>
      jsonEvent({
        id: ids[i]!,
        type: event.type,
        data: (event.data ?? null) as JSONType,
        metadata: event.metadata,
      }),
    );
    let result;
    try {
      result = await this.client.appendToStream(stream, data, { streamState: toStreamState(expected) });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        // Older servers leave the actual revision out; then ask for it.
        const actual = error.actualState as bigint | string | undefined;
        throw new WrongExpectedVersion(
          stream,
          expected,
          actual === undefined
            ? ((await this.streamRevision(stream)) ?? 'no_stream')
            : actual === NO_STREAM
              ? 'no_stream'
              : Number(BigInt(actual)),
        );
      }
      throw error;
    }
    const nextExpectedRevision = Number(BigInt(result.nextExpectedRevision));
    // The append reports the write's position, not necessarily its last event's; read that event back to be exact.
    const [last] = await this.readStream(stream, { fromRevision: nextExpectedRevision, maxCount: 1 });
    let position: Checkpoint;
    if (last) position = last.position;
    else if (result.position) position = formatEsdbCheckpoint(result.position);
    else throw new Error(`EventStoreDB returned no position for the append to ${stream}`);
    if (options.sideWrite) await options.sideWrite(this.db);
    return { nextExpectedRevision, position };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const window = streamWindow(options);
    if (!window) return [];
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(stream, {
        fromRevision: BigInt(window.from),
        maxCount: BigInt(window.count),
        direction: FORWARDS,
      });
      for await (const resolved of read) {
        const event = toRecorded(resolved);
        if (event) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async streamRevision(stream: string): Promise<number | null> {
    try {
      const read = this.client.readStream(stream, { fromRevision: END, direction: BACKWARDS, maxCount: 1n });
      for await (const resolved of read) {
        if (resolved.event) return Number(BigInt(resolved.event.revision));
      }
      return null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }

  /**
   * A bounded, server-side filtered read: the client's readAll takes no filter, so this runs a filtered catch-up
   * subscription until `limit` matches or the server says it caught up. At the end the checkpoint moves to the
   * head of $all as read before the subscription started, so a filtered reader advances past what did not match.
   */
  async readAll(options: ReadAllOptions = {}): Promise<ReadAllPage> {
    const from = options.from ?? this.start;
    const limit = Math.max(1, Math.min(options.limit ?? 1000, 10_000));
    const head = await this.headPosition();
    const events: RecordedEvent[] = [];
    let checkpoint = from;
    let isEnd = false;
    const feed = new OrderedFeed(this.client, toReadPosition(from), serverFilter(options.filter));
    try {
      for (;;) {
        const item = await feed.next();
        if (!item) throw new Error('The EventStoreDB subscription ended before it caught up');
        if (item.kind === 'caughtUp') {
          isEnd = true;
          break;
        }
        if (item.kind === 'checkpoint') continue;
        const position = item.resolved.event?.position;
        if (!position) continue;
        const at = formatEsdbCheckpoint(position);
        // A subscription resumes after its position; the guard keeps a read that includes it from repeating it.
        if (compareEsdbCheckpoints(at, from) <= 0) continue;
        checkpoint = at;
        const event = toRecorded(item.resolved);
        if (event && matches(event, options.filter)) {
          events.push(event);
          if (events.length >= limit) break;
        }
      }
    } finally {
      await feed.close();
    }
    if (isEnd && head && compareEsdbCheckpoints(head, checkpoint) > 0) checkpoint = head;
    return { events, checkpoint, isEnd };
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    if (this.closed) throw new Error('The event store is closed');
    let stopped = false;
    let checkpoint = options.from ?? this.start;
    const live: RecordedEvent[] = [];
    let liveCaughtUp = false;
    let wake: (() => void) | null = null;
    const notify = () => {
      const w = wake;
      wake = null;
      w?.();
    };
    let stopResolve!: () => void;
    const stopSignal = new Promise<void>((resolve) => {
      stopResolve = resolve;
    });
    const listener: Listener = {
      push(event) {
        live.push(event);
        notify();
      },
      caughtUp() {
        liveCaughtUp = true;
        notify();
      },
    };
    const deliver = async (event: RecordedEvent) => {
      // Never twice within a run: the catch-up and the shared subscription overlap at the hand-over.
      if (compareEsdbCheckpoints(event.position, checkpoint) <= 0) return false;
      checkpoint = event.position;
      if (!matches(event, options.filter)) return false;
      await options.onEvent(event);
      return true;
    };
    const catchUp = async () => {
      for (;;) {
        const page = await this.readAll({ from: checkpoint, filter: options.filter, limit: CATCH_UP_PAGE });
        for (const event of page.events) {
          if (stopped) return;
          await deliver(event);
        }
        if (stopped) return;
        if (compareEsdbCheckpoints(page.checkpoint, checkpoint) > 0) {
          checkpoint = page.checkpoint;
          if (page.events.length === 0) await options.onCheckpoint?.(checkpoint);
        }
        if (page.isEnd) return;
      }
    };
    const run = async () => {
      // Catch up by reading, join the shared subscription, catch up once more: whatever the shared subscription
      // delivered before we joined is at or below the second catch-up's end, and everything after it is queued.
      await catchUp();
      if (stopped) return;
      this.listeners.add(listener);
      await this.ensureFeed();
      await catchUp();
      if (stopped) return;
      options.onCaughtUp?.(checkpoint);
      for (;;) {
        while (live.length > 0 && !stopped) {
          let skipped = false;
          while (live.length > 0 && !stopped) skipped = !(await deliver(live.shift()!)) || skipped;
          if (skipped && options.onCheckpoint) await options.onCheckpoint(checkpoint);
        }
        if (stopped) return;
        if (liveCaughtUp) {
          liveCaughtUp = false;
          options.onCaughtUp?.(checkpoint);
        }
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), stopSignal]);
        if (stopped) return;
      }
    };
    const done = run()
      .catch((error: unknown) => {
        if (!stopped) options.onError?.(error);
      })
      .finally(() => {
        this.listeners.delete(listener);
        this.subscriptions.delete(subscription);
      });
    const subscription: Subscription = {
      done,
      async stop() {
        stopped = true;
        stopResolve();
        notify();
        await done;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async waitForAppend(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || signal?.aborted) return;
    await this.ensureFeed().catch(() => undefined);
    if (this.closed || signal?.aborted) return;
    await this.appended.wait(timeoutMs, signal);
  }

  compareCheckpoints(a: Checkpoint, b: Checkpoint): number {
    return compareEsdbCheckpoints(a, b);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.appended.wakeAll();
    this.retryTimer?.cancel();
    await this.feed?.close();
    await this.feedRunning?.catch(() => undefined);
    if (this.ownsClient) await this.client.dispose();
  }

  /** Position of the last record in $all (system records included), or null for an empty log. */
  private async headPosition(): Promise<Checkpoint | null> {
    const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1n });
    for await (const resolved of read) {
      const position = resolved.event?.position;
      if (position) return formatEsdbCheckpoint(position);
    }
    return null;
  }

  /** Starts the one shared $all subscription; resolves once its starting position is fixed. */
  private ensureFeed(): Promise<void> {
    this.feedStarted ??= (async () => {
      // Starting after the current head rather than at END gives a resumable position from the first moment.
      this.feedPosition = (await this.headPosition()) ?? this.start;
      this.feedRunning = this.runFeed();
    })().catch((error: unknown) => {
      this.feedStarted = null;
      throw error;
    });
    return this.feedStarted;
  }

  private async runFeed(): Promise<void> {
    let delay = this.backoff.initial;
    while (!this.closed) {
      const feed = new OrderedFeed(this.client, toReadPosition(this.feedPosition!), excludeSystemEvents());
      this.feed = feed;
      try {
        for (;;) {
          const item = await feed.next();
          if (!item) break;
          delay = this.backoff.initial;
          if (item.kind === 'caughtUp') {
            for (const listener of this.listeners) listener.caughtUp();
            continue;
          }
          if (item.kind === 'checkpoint') {
            const at = formatEsdbCheckpoint(item.position);
            if (compareEsdbCheckpoints(at, this.feedPosition!) > 0) this.feedPosition = at;
            continue;
          }
          const position = item.resolved.event?.position;
          if (!position) continue;
          const at = formatEsdbCheckpoint(position);
          if (compareEsdbCheckpoints(at, this.feedPosition!) <= 0) continue;
          this.feedPosition = at;
          const event = toRecorded(item.resolved);
          if (!event) continue;
          for (const listener of this.listeners) listener.push(event);
          this.appended.wakeAll();
        }
      } catch (error) {
        if (!this.closed) this.onFeedError(error);
      } finally {
        await feed.close();
      }
      if (this.closed) return;
      // Dropped: come back from the last position seen, waiting longer after each failure in a row.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.retryTimer = {
          cancel: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
      this.retryTimer = null;
      delay = Math.min(delay * 2, this.backoff.max);
    }
  }
}
