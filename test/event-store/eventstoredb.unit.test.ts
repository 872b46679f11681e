// Unit tests of the KurrentDB (EventStoreDB) adapter's own logic, against the client's real Subscription class fed by a fake
// gRPC stream: checkpoints, expectation and error mapping, marker ordering, and where a filtered read ends up.
import { PassThrough, Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type KurrentDBClient,
  type Filter,
  type SubscribeToAllOptions,
} from '@kurrent/kurrentdb-client';
import { Subscription as ClientSubscription } from '@kurrent/kurrentdb-client/dist/streams/utils/Subscription.js';
import type { Kysely } from 'kysely';
import { describe, expect, test } from 'vitest';
import {
  compareEsdbCheckpoints,
  EventStoreDbEventStore,
  formatEsdbCheckpoint,
  parseEsdbCheckpoint,
} from '../../infra/event-store/eventstoredb/eventstoredb-event-store.js';
import {
  isKurrentConnectionString,
  kurrentConnectionString,
} from '../../infra/event-store/eventstoredb/connection-string.js';
import { OrderedFeed, type FeedItem } from '../../infra/event-store/eventstoredb/ordered-feed.js';
import { EmptyAppend, WrongExpectedVersion, type ExpectedRevision } from '../../infra/event-store/port.js';
import { collector, newEvent } from './contract.js';

type Message = { event: AllStreamResolvedEvent } | { checkpoint: bigint } | { caughtUp: true };

/** A gRPC read response as the client's Subscription inspects it. */
function response(message: Message) {
  return {
    hasConfirmation: () => false,
    hasFellBehind: () => false,
    hasCaughtUp: () => 'caughtUp' in message,
    // Servers before 25.1 send the marker without its position and time; the adapter needs neither.
    getCaughtUp: () => ({ hasTimestamp: () => false }),
    hasCheckpoint: () => 'checkpoint' in message,
    getCheckpoint: () => ({
      getCommitPosition: () => ('checkpoint' in message ? message.checkpoint.toString() : '0'),
      getPreparePosition: () => ('checkpoint' in message ? message.checkpoint.toString() : '0'),
    }),
    hasEvent: () => 'event' in message,
    getEvent: () => ('event' in message ? message.event : undefined),
  };
}

function resolved(position: bigint, streamId = 's-1', type = 'E', revision = 0n): AllStreamResolvedEvent {
  return {
    event: {
      streamId,
      id: randomUUID(),
      isJson: true,
      revision,
      type,
      created: new Date('2026-01-01T00:00:00Z'),
      data: { position: Number(position) },
      metadata: newEvent(type).metadata,
      position: { commit: position, prepare: position },
    },
    commitPosition: position,
  };
}

/** A client whose subscribeToAll is the real client Subscription over the given messages. */
function fakeClient(
  messages: (options: SubscribeToAllOptions) => Message[],
  extra: Record<string, unknown> = {},
) {
  const subscriptions: SubscribeToAllOptions[] = [];
  const client = {
    subscribeToAll(options: SubscribeToAllOptions = {}) {
      subscriptions.push(options);
      const source = Object.assign(Readable.from(messages(options).map(response), { objectMode: true }), {
        cancel() {
          source.destroy();
        },
      });
      return new ClientSubscription(
        async () => source as never,
        (event: unknown) => event as AllStreamResolvedEvent,
        {},
        options.filter?.checkpointReached,
      );
    },
    ...extra,
  };
  return { client: client as unknown as KurrentDBClient, subscriptions };
}

function label(item: FeedItem): string {
  if (item.kind === 'event') return `e${String(item.resolved.event!.position.commit)}`;
  if (item.kind === 'checkpoint') return `c${String(item.position.commit)}`;
  return 'caughtUp';
}

describe('checkpoints', () => {
  test('format BigInt positions, parse them back and compare commit then prepare', () => {
    const a = formatEsdbCheckpoint({ commit: 10n, prepare: 7n });
    expect(a).toBe('esdb:10:7');
    expect(formatEsdbCheckpoint({ commit: '18446744073709551615', prepare: '1' })).toBe(
      'esdb:18446744073709551615:1',
    );
    expect(parseEsdbCheckpoint(a)).toEqual({ commit: 10n, prepare: 7n });
    expect(compareEsdbCheckpoints('esdb:10:7', 'esdb:10:8')).toBeLessThan(0);
    expect(compareEsdbCheckpoints('esdb:11:0', 'esdb:10:8')).toBeGreaterThan(0);
    expect(compareEsdbCheckpoints('esdb:9007199254740993:0', 'esdb:9007199254740992:0')).toBeGreaterThan(0);
    expect(compareEsdbCheckpoints('esdb:10:7', 'esdb:10:7')).toBe(0);
    expect(compareEsdbCheckpoints('esdb:start', 'esdb:0:0')).toBeLessThan(0);
    expect(compareEsdbCheckpoints('esdb:0:0', 'esdb:start')).toBeGreaterThan(0);
    expect(compareEsdbCheckpoints('esdb:start', 'esdb:start')).toBe(0);
    expect(() => parseEsdbCheckpoint('pg:1:2')).toThrow(/Not an EventStoreDB checkpoint/);
  });
});

describe('connection strings', () => {
  test('kurrentdb:// and its aliases pass unchanged; esdb:// is accepted and handed to the client as kurrentdb://', () => {
    for (const value of [
      'kurrentdb://localhost:2113?tls=false',
      'kurrentdb+discover://admin:changeit@cluster.example:2113',
      'kurrent://localhost:2113',
      'kdb://localhost:2113',
    ]) {
      expect(isKurrentConnectionString(value)).toBe(true);
      expect(kurrentConnectionString(value)).toBe(value);
    }
    expect(isKurrentConnectionString('esdb://localhost:2113?tls=false')).toBe(true);
    expect(kurrentConnectionString('esdb://localhost:2113?tls=false')).toBe(
      'kurrentdb://localhost:2113?tls=false',
    );
    expect(kurrentConnectionString(' esdb+discover://a:2113,b:2113 ')).toBe(
      'kurrentdb+discover://a:2113,b:2113',
    );
    for (const value of [
      'http://localhost:2113',
      'localhost:2113',
      'tcp://localhost:1113',
      'esdbx://localhost:2113',
    ]) {
      expect(isKurrentConnectionString(value)).toBe(false);
    }
  });

  test('the client opens both schemes without a deprecation warning', async () => {
    const warnings: unknown[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args);
    try {
      for (const connectionString of ['esdb://127.0.0.1:1?tls=false', 'kurrentdb://127.0.0.1:1?tls=false']) {
        const store = new EventStoreDbEventStore({ connectionString, db: {} as Kysely<unknown> });
        await store.close();
      }
    } finally {
      console.warn = warn;
    }
    expect(warnings).toEqual([]);
  });
});

describe('OrderedFeed', () => {
  test('yields events and markers in the order the server sent them, even with a slow reader', async () => {
    const messages: Message[] = [];
    for (let i = 1n; i <= 2000n; i++) {
      messages.push({ event: resolved(i) });
      if (i % 7n === 0n) messages.push({ checkpoint: i });
      if (i === 1200n) messages.push({ caughtUp: true });
    }
    const expected = messages.map((m) =>
      'event' in m
        ? `e${String(m.event.event!.position.commit)}`
        : 'checkpoint' in m
          ? `c${m.checkpoint}`
          : 'caughtUp',
    );
    const { client } = fakeClient(() => messages);
    const feed = new OrderedFeed(client, 'start', {
      filterOn: 'eventType',
      checkpointInterval: 1,
      regex: '^[^$]',
    });
    const seen: string[] = [];
    for (let item = await feed.next(); item; item = await feed.next()) {
      seen.push(label(item));
      // A slow consumer lets the client's buffer fill, which is where markers overtake events.
      if (seen.length % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await feed.close();
    expect(seen).toEqual(expected);
  });
});

describe('EventStoreDbEventStore with a fake client', () => {
  const db = {} as Kysely<unknown>;

  test('maps the four expectations and the client conflict to WrongExpectedVersion', async () => {
    const calls: unknown[] = [];
    let current: bigint | typeof NO_STREAM = NO_STREAM;
    const { client } = fakeClient(() => [], {
      async appendToStream(streamName: string, _events: unknown, options: { streamState: unknown }) {
        calls.push(options.streamState);
        throw new WrongExpectedVersionError(undefined, {
          streamName,
          expected: options.streamState as bigint,
          current,
        });
      },
    });
    const store = new EventStoreDbEventStore({ client, db });
    const attempts: [ExpectedRevision, unknown][] = [
      ['no_stream', NO_STREAM],
      ['stream_exists', STREAM_EXISTS],
      ['any', ANY],
      [3, 3n],
    ];
    for (const [expected, mapped] of attempts) {
      calls.length = 0;
      current = expected === 'no_stream' ? 4n : NO_STREAM;
      const error = await store
        .appendToStream('s-1', [newEvent('A')], { expectedRevision: expected })
        .catch((e: unknown) => e);
      expect(calls).toEqual([mapped]);
      expect(error).toBeInstanceOf(WrongExpectedVersion);
      expect(error).toMatchObject({
        stream: 's-1',
        expected,
        actual: current === NO_STREAM ? 'no_stream' : 4,
      });
    }
    await expect(store.appendToStream('s-1', [], { expectedRevision: 'any' })).rejects.toBeInstanceOf(
      EmptyAppend,
    );
    await store.close();
  });

  test('returns the appended event position and runs the side write after the append with the db handle', async () => {
    const order: string[] = [];
    const last = resolved(42n, 's-1', 'A', 1n);
    const { client } = fakeClient(() => [], {
      async appendToStream() {
        order.push('append');
        return { success: true, nextExpectedRevision: 1n, position: { commit: 40n, prepare: 40n } };
      },
      readStream(_stream: string, options: { fromRevision: bigint }) {
        order.push(`read ${options.fromRevision}`);
        return Readable.from([last]);
      },
    });
    const store = new EventStoreDbEventStore({ client, db });
    let handed: unknown = null;
    const result = await store.appendToStream('s-1', [newEvent('A'), newEvent('A')], {
      expectedRevision: 'any',
      sideWrite: async (trx) => {
        order.push('side write');
        handed = trx;
      },
    });
    expect(result).toEqual({ nextExpectedRevision: 1, position: 'esdb:42:42' });
    expect(order).toEqual(['append', 'read 1', 'side write']);
    expect(handed).toBe(db);
    expect(store.transactionalSideWrites).toBe(false);
    await store.close();
  });

  test('a filtered read uses a server-side filter, skips system events and advances to the head when caught up', async () => {
    const { client, subscriptions } = fakeClient(
      () => [
        { event: resolved(5n, 'other-1', 'Wanted') },
        { event: resolved(6n, 'post-1', 'Unwanted') },
        { event: resolved(7n, '$stats-1', 'Wanted') },
        { event: resolved(8n, 'post-2', 'Wanted') },
        { checkpoint: 8n },
        { caughtUp: true },
        { event: resolved(10n, 'post-3', 'Wanted') },
      ],
      {
        readAll: () => Readable.from([resolved(9n, '$system', '$epoch')]),
      },
    );
    const store = new EventStoreDbEventStore({ client, db });
    const page = await store.readAll({
      from: 'esdb:4:4',
      filter: { streamPrefixes: ['post-'], eventTypes: ['Wanted'] },
    });
    expect(subscriptions[0]).toMatchObject({
      fromPosition: { commit: 4n, prepare: 4n },
      filter: { filterOn: 'streamName', prefixes: ['post-'] },
    });
    // The fake server ignores the filter, so the adapter's exact check is what drops other-1 and Unwanted.
    expect(page.events.map((e) => `${e.streamName}:${e.type}`)).toEqual(['post-2:Wanted']);
    expect(page.isEnd).toBe(true);
    expect(page.checkpoint).toBe('esdb:9:9');
    await store.close();
  });

  test('a read stops at the limit without passing the last event it returned', async () => {
    const { client } = fakeClient(
      () => [
        { event: resolved(4n) },
        { event: resolved(5n) },
        { event: resolved(6n) },
        { event: resolved(7n) },
      ],
      { readAll: () => Readable.from([resolved(7n)]) },
    );
    const store = new EventStoreDbEventStore({ client, db });
    // The event at the starting checkpoint is never returned again, whether or not the server includes it.
    const page = await store.readAll({ from: 'esdb:4:4', limit: 2 });
    expect(page.events.map((e) => e.position)).toEqual(['esdb:5:5', 'esdb:6:6']);
    expect(page.checkpoint).toBe('esdb:6:6');
    expect(page.isEnd).toBe(false);
    await store.close();
  });
});

/** An in-memory stand-in for the server's $all: catch-up subscriptions replay the log, then stay live until dropped. */
class FakeServer {
  readonly log: AllStreamResolvedEvent[] = [];
  readonly calls: SubscribeToAllOptions[] = [];
  private readonly live = new Set<{ source: PassThrough; filter: Filter | undefined }>();
  private nextPosition = 1n;

  append(streamId: string, type = 'E'): AllStreamResolvedEvent {
    const event = resolved(this.nextPosition++, streamId, type);
    this.log.push(event);
    for (const l of this.live) if (FakeServer.passes(l.filter, event)) l.source.write(response({ event }));
    return event;
  }

  /** Every open subscription fails, as when the connection is lost. */
  drop(): void {
    for (const l of [...this.live]) l.source.destroy(new Error('connection lost'));
    this.live.clear();
  }

  client(): KurrentDBClient {
    return {
      subscribeToAll: (options: SubscribeToAllOptions = {}) => {
        this.calls.push(options);
        const filter = options.filter;
        const source = new PassThrough({ objectMode: true });
        const entry = { source, filter };
        const from = options.fromPosition;
        const after =
          from === undefined || from === 'start' ? 0n : from === 'end' ? this.nextPosition : from.commit;
        for (const event of this.log) {
          if (event.event!.position.commit > after && FakeServer.passes(filter, event)) {
            source.write(response({ event }));
          }
        }
        source.write(response({ caughtUp: true }));
        this.live.add(entry);
        Object.assign(source, {
          cancel: () => {
            this.live.delete(entry);
            source.end();
          },
        });
        return new ClientSubscription(
          async () => source as never,
          (event: unknown) => event as AllStreamResolvedEvent,
          {},
          filter?.checkpointReached,
        );
      },
      readAll: () => Readable.from(this.log.slice(-1)),
    } as unknown as KurrentDBClient;
  }

  private static passes(filter: Filter | undefined, resolvedEvent: AllStreamResolvedEvent): boolean {
    const event = resolvedEvent.event!;
    if (!filter) return true;
    const value = filter.filterOn === 'streamName' ? event.streamId : event.type;
    return 'prefixes' in filter
      ? filter.prefixes.some((p) => value.startsWith(p))
      : new RegExp(filter.regex).test(value);
  }
}

describe('EventStoreDbEventStore subscriptions over a fake server', () => {
  const db = {} as Kysely<unknown>;
  const isFeed = (o: SubscribeToAllOptions) =>
    (o.filter as { regex?: string } | undefined)?.regex === '^[^$].*';

  test('catch-up hands over to one shared $all subscription that survives a drop without gaps or repeats', async () => {
    const server = new FakeServer();
    server.append('post-1');
    server.append('post-2');
    const feedErrors: unknown[] = [];
    const store = new EventStoreDbEventStore({
      client: server.client(),
      db,
      resubscribeDelayMs: { initial: 1, max: 4 },
      onFeedError: (error) => feedErrors.push(error),
    });
    const posts = collector();
    const others = collector();
    let live!: () => void;
    const bothLive = new Promise<void>((resolve) => (live = resolve));
    let liveCount = 0;
    const onCaughtUp = () => {
      liveCount += 1;
      if (liveCount === 2) live();
    };
    const a = store.subscribeToAll({
      filter: { streamPrefixes: ['post-'] },
      onEvent: posts.onEvent,
      onCaughtUp,
    });
    const b = store.subscribeToAll({
      filter: { streamPrefixes: ['other-'] },
      onEvent: others.onEvent,
      onCaughtUp,
    });
    await bothLive;

    server.append('post-3');
    server.append('other-1');
    await posts.until(() => posts.events.length >= 3);
    await others.until(() => others.events.length >= 1);
    const woken = store.waitForAppend(600_000);
    server.drop();
    server.append('post-4');
    server.append('$stats-1', '$statsCollected');
    server.append('other-2');
    server.append('post-5', 'End');
    await posts.until(() => posts.events.some((e) => e.type === 'End'));
    await others.until(() => others.events.length >= 2);
    await woken;
    await a.stop();
    await b.stop();
    await store.close();

    const positionsOf = (prefix: string) =>
      server.log
        .filter((e) => e.event!.streamId.startsWith(prefix))
        .map((e) => formatEsdbCheckpoint(e.event!.position));
    expect(posts.events.map((e) => e.position)).toEqual(positionsOf('post-'));
    expect(others.events.map((e) => e.position)).toEqual(positionsOf('other-'));
    expect(feedErrors).toHaveLength(1);
    const feedCalls = server.calls.filter(isFeed);
    expect(feedCalls).toHaveLength(2);
    // Started after the head it saw, resumed after the last event it had examined before the drop.
    expect(feedCalls[0]!.fromPosition).toEqual({ commit: 2n, prepare: 2n });
    expect(feedCalls[1]!.fromPosition).toEqual({ commit: 4n, prepare: 4n });
  });
});
