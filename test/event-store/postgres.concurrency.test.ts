// Concurrency of the PostgreSQL event store: optimistic concurrency under racing writers, and the read horizon
// that keeps a subscriber from skipping a transaction which took a lower position but commits after a higher one.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { eventStoreMigrations } from '../../infra/event-store/postgres/migrations.js';
import {
  parsePgCheckpoint,
  PostgresEventStore,
} from '../../infra/event-store/postgres/postgres-event-store.js';
import {
  WrongExpectedVersion,
  type AppendResult,
  type ExpectedRevision,
  type ReadAllOptions,
} from '../../infra/event-store/port.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { collector, newEvent, readAllToEnd } from './contract.js';

let database: TestDatabase<unknown>;
const stores: PostgresEventStore<unknown>[] = [];

beforeAll(async () => {
  database = await createTestDatabase(eventStoreMigrations, { max: 55 });
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await database.drop();
});

function openStore() {
  const store = new PostgresEventStore({ db: database.db, url: database.url, pollIntervalMs: 20 });
  stores.push(store);
  return store;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Counts readAll calls so a test can wait until the subscriber has looked at the log after some moment. */
function countReads(store: PostgresEventStore<unknown>) {
  const original = store.readAll.bind(store);
  const counts = { started: 0, finished: 0 };
  const waiting: { target: number; resolve: () => void }[] = [];
  store.readAll = async (options?: ReadAllOptions) => {
    counts.started += 1;
    try {
      return await original(options);
    } finally {
      counts.finished += 1;
      for (const w of waiting.filter((x) => counts.finished >= x.target)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  return {
    counts,
    /** Resolves once a read that started after this call has finished. */
    nextRead(): Promise<void> {
      const target = counts.started + 1;
      return new Promise((resolve) => waiting.push({ target, resolve }));
    },
  };
}

describe('optimistic concurrency', () => {
  test('50 writers race on one expected revision for 20 rounds: one wins each round, revisions stay dense', async () => {
    const store = openStore();
    const stream = `race-${randomUUID()}`;
    let expected: ExpectedRevision = 'no_stream';
    for (let round = 0; round < 20; round++) {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, (_, writer) =>
          store.appendToStream(stream, [newEvent('Claimed', { round, writer })], {
            expectedRevision: expected,
          }),
        ),
      );
      const won = outcomes.filter((o): o is PromiseFulfilledResult<AppendResult> => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(won[0]!.value.nextExpectedRevision).toBe(round);
      for (const loss of lost) {
        expect(loss.reason).toBeInstanceOf(WrongExpectedVersion);
        expect(loss.reason).toMatchObject({ stream, expected, actual: round });
      }
      expected = won[0]!.value.nextExpectedRevision;
    }
    const events = await store.readStream(stream);
    expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(events.map((e) => (e.data as { round: number }).round)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    expect(await store.streamRevision(stream)).toBe(19);
  });

  test('50 writers appending two events with `any` all land, contiguous and dense', async () => {
    const store = openStore();
    const stream = `any-${randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, writer) =>
        store.appendToStream(stream, [newEvent('First', { writer }), newEvent('Second', { writer })], {
          expectedRevision: 'any',
        }),
      ),
    );
    const events = await store.readStream(stream);
    expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (let i = 0; i < 100; i += 2) {
      expect(events[i]!.type).toBe('First');
      expect(events[i + 1]!.type).toBe('Second');
      expect(events[i + 1]!.data).toEqual(events[i]!.data);
    }
    expect(new Set(results.map((r) => r.nextExpectedRevision))).toEqual(
      new Set(Array.from({ length: 50 }, (_, i) => i * 2 + 1)),
    );
  });
});

describe('read horizon', () => {
  test('a transaction that took a lower position but commits later is delivered, in (tx, position) order', async () => {
    const store = openStore();
    const prefix = `late-${randomUUID()}-`;
    const filter = { streamPrefixes: [prefix] };
    const reads = countReads(store);
    const got = collector();
    const subscription = store.subscribeToAll({
      from: store.start,
      filter,
      onEvent: got.onEvent,
      onError: got.onError,
    });
    await reads.nextRead();

    // A takes its transaction id and position, then holds its transaction open inside the side write.
    const inSideWrite = deferred();
    const release = deferred();
    // Even a failed or timed-out run must not leave the transaction open: it would hold every reader on the server.
    onTestFinished(() => release.resolve());
    const early = store.appendToStream(`${prefix}a`, [newEvent('Early')], {
      expectedRevision: 'no_stream',
      sideWrite: async () => {
        inSideWrite.resolve();
        await release.promise;
      },
    });
    await inSideWrite.promise;
    const late = await store.appendToStream(`${prefix}b`, [newEvent('Late')], {
      expectedRevision: 'no_stream',
    });

    // The later transaction is committed, yet neither a reader nor the running subscriber may pass the open one.
    const page = await store.readAll({ filter });
    expect(page.events).toEqual([]);
    expect(store.compareCheckpoints(page.checkpoint, late.position)).toBeLessThan(0);
    // Two reads: the second starts only after the subscriber delivered whatever the first returned.
    await reads.nextRead();
    await reads.nextRead();
    expect(got.events).toEqual([]);

    release.resolve();
    const earlyResult = await early;
    await got.until(() => got.events.length >= 2);
    const marker = await store.appendToStream(`${prefix}c`, [newEvent('Marker')], {
      expectedRevision: 'no_stream',
    });
    await got.until(() => got.events.some((e) => e.type === 'Marker'));
    await subscription.stop();

    expect(got.events.map((e) => e.position)).toEqual([earlyResult.position, late.position, marker.position]);
    const a = parsePgCheckpoint(earlyResult.position);
    const b = parsePgCheckpoint(late.position);
    expect(a.pos).toBeLessThan(b.pos);
    expect(a.tx).toBeLessThan(b.tx);
  });

  test('an open transaction anywhere on the server holds delivery back until it ends: delayed, never lost', async () => {
    const store = openStore();
    const prefix = `order-${randomUUID()}-`;
    const filter = { streamPrefixes: [prefix] };
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // Closing the connection ends the transaction, also when the test fails or times out half-way.
    onTestFinished(() => client.end());
    // A bare transaction with an id, holding the horizon the way any writer on the server would.
    await client.query('begin');
    await client.query('select pg_current_xact_id()');
    const got = collector();
    const reads = countReads(store);
    const subscription = store.subscribeToAll({
      from: store.start,
      filter,
      onEvent: got.onEvent,
      onError: got.onError,
    });
    const appended = await store.appendToStream(`${prefix}1`, [newEvent('A')], {
      expectedRevision: 'no_stream',
    });
    // Two reads: the second starts only after the subscriber delivered whatever the first returned.
    await reads.nextRead();
    await reads.nextRead();
    expect(got.events).toEqual([]);
    await client.query('commit');
    await got.until(() => got.events.length >= 1);
    await subscription.stop();
    expect(got.events.map((e) => e.position)).toEqual([appended.position]);
  });

  test('many writers committing in random order: the subscriber sees every event once, in log order', async () => {
    const store = openStore();
    const prefix = `storm-${randomUUID()}-`;
    const filter = { streamPrefixes: [prefix] };
    const got = collector();
    const subscription = store.subscribeToAll({
      from: store.start,
      filter,
      onEvent: got.onEvent,
      onError: got.onError,
    });
    const ids: string[] = [];
    let lastPosition = store.start;
    await Promise.all(
      Array.from({ length: 20 }, async (_, writer) => {
        let expected: ExpectedRevision = 'no_stream';
        for (let i = 0; i < 10; i++) {
          const id = randomUUID();
          ids.push(id);
          const result = await store.appendToStream(
            `${prefix}${writer}`,
            [newEvent('E', { writer, i }, id)],
            {
              expectedRevision: expected,
              // Stretch some transactions so commits land out of position order.
              sideWrite: async () => {
                const ticks = Math.floor(Math.random() * 4);
                for (let t = 0; t < ticks; t++) await new Promise((resolve) => setTimeout(resolve, 1));
              },
            },
          );
          expected = result.nextExpectedRevision;
          if (store.compareCheckpoints(result.position, lastPosition) > 0) lastPosition = result.position;
        }
      }),
    );
    await got.until(() => got.events.length >= ids.length);
    const log = await readAllToEnd(store, store.start, filter, { through: lastPosition });
    const marker = await store.appendToStream(`${prefix}end`, [newEvent('End')], {
      expectedRevision: 'no_stream',
    });
    await got.until(() => got.events.some((e) => e.position === marker.position));
    await subscription.stop();

    const delivered = got.events.slice(0, -1);
    expect(delivered.map((e) => e.id)).toEqual(log.events.map((e) => e.id));
    expect(new Set(delivered.map((e) => e.id))).toEqual(new Set(ids));
    expect(delivered).toHaveLength(ids.length);
    for (let i = 1; i < got.events.length; i++) {
      expect(store.compareCheckpoints(got.events[i - 1]!.position, got.events[i]!.position)).toBeLessThan(0);
    }
  });
});
