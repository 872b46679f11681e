// An event held back behind an unrelated open transaction reaches a waiting reader once that transaction ends,
// although no further append announces it (the reader would otherwise sleep its whole poll interval).
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventStoreMigrations } from '../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { testMetadata } from '../support/events.js';
import { waitUntil } from '../support/wait.js';

let database: TestDatabase<unknown>;
let store: PostgresEventStore<unknown>;
const meta = testMetadata();

beforeAll(async () => {
  database = await createTestDatabase(eventStoreMigrations);
  // A poll interval far beyond the test's bounded wait: only the held-back handling can deliver in time.
  store = new PostgresEventStore({ db: database.db, url: database.url, pollIntervalMs: 120_000 });
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

test('a subscriber gets the held-back event when the older transaction ends', async () => {
  const seen: RecordedEvent[] = [];
  let caughtUp = 0;
  const subscription = store.subscribeToAll({
    onEvent: async (event) => {
      seen.push(event);
    },
    onCaughtUp: () => {
      caughtUp += 1;
    },
  });
  await waitUntil(() => caughtUp > 0, { what: 'the first catch-up', timeoutMs: 10_000 });

  // An unrelated transaction holding an xid: it holds the horizon below everything appended after it.
  const blocker = new pg.Client({ connectionString: database.url });
  await blocker.connect();
  await blocker.query('begin');
  await blocker.query('select pg_current_xact_id()');
  try {
    await store.appendToStream('held-1', [{ type: 'Held', data: {}, metadata: meta }], {
      expectedRevision: 'no_stream',
    });
    // The append's notification wakes the subscriber, which finds the event still behind the horizon.
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(0);
  } finally {
    await blocker.query('commit');
    await blocker.end();
  }
  await waitUntil(() => seen.length === 1, {
    what: 'the held-back event after the blocker committed',
    timeoutMs: 10_000,
  });
  expect(seen[0]!.streamName).toBe('held-1');
  await subscription.stop();
});

test('a wait armed before the read that finds events held back is re-armed with the short poll', async () => {
  // The projection runner arms its wait before reading, so no append committed meanwhile is missed.
  const blocker = new pg.Client({ connectionString: database.url });
  await blocker.connect();
  await blocker.query('begin');
  await blocker.query('select pg_current_xact_id()');
  let woke = false;
  try {
    // Read up to the horizon before the append, so nothing is held back yet.
    const start = (await store.readAll({})).checkpoint;
    // Let the append's own notification arrive first: it must not be what ends the wait under test.
    const notified = store.waitForAppend(10_000);
    await store.appendToStream('held-2', [{ type: 'Held', data: {}, metadata: meta }], {
      expectedRevision: 'no_stream',
    });
    await notified;
    const wait = store.waitForAppend(120_000).then(() => {
      woke = true;
    });
    const page = await store.readAll({ from: start });
    expect(page.events.map((e) => e.streamName)).not.toContain('held-2');
    await waitUntil(() => woke, { what: 'the armed wait to end early', timeoutMs: 10_000 });
    await wait;
  } finally {
    await blocker.query('commit');
    await blocker.end();
  }
});

test('a filtered reader woken by other types while its own type is in flight does not pass it', async () => {
  // The suspicion an earlier stop of the idle work was reverted on: a filtered reader that reads after appends
  // of other types (within OTHER_TYPES_READ_MS) moving its checkpoint past an event of its own type whose
  // transaction took a lower position and commits later. The horizon keeps the checkpoint below it.
  const seen: RecordedEvent[] = [];
  const checkpoints: string[] = [];
  let caughtUp = 0;
  const subscription = store.subscribeToAll({
    filter: { eventTypes: ['Late'] },
    onEvent: async (event) => {
      seen.push(event);
    },
    onCheckpoint: async (checkpoint) => {
      checkpoints.push(checkpoint);
    },
    onCaughtUp: () => {
      caughtUp += 1;
    },
  });
  await waitUntil(() => caughtUp > 0, { what: 'the first catch-up', timeoutMs: 10_000 });
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let inserted!: () => void;
  const insertedYet = new Promise<void>((r) => (inserted = r));
  // The late event: inserted (its position taken) in a transaction that stays open until released.
  const late = store.appendToStream('late-1', [{ type: 'Late', data: {}, metadata: meta }], {
    expectedRevision: 'no_stream',
    sideWrite: async () => {
      inserted();
      await gate;
    },
  });
  try {
    await insertedYet;
    // Appends of other types after it commit first: the reader reads within OTHER_TYPES_READ_MS of them.
    const before = checkpoints.length;
    for (let i = 0; i < 3; i++)
      await store.appendToStream(`early-${i}`, [{ type: 'Early', data: {}, metadata: meta }], {
        expectedRevision: 'no_stream',
      });
    // (Held back, the reader's checkpoint does not move: this wait usually runs out, briefly.)
    await waitUntil(() => checkpoints.length > before || caughtUp > 1, {
      what: 'a read after the other types',
      timeoutMs: 2_000,
    }).catch(() => undefined);
    // Time for the reader to read after them (the held-back poll, OTHER_TYPES_READ_MS), had it anything to read.
    await new Promise((r) => setTimeout(r, 500));
    expect(seen).toHaveLength(0);
  } finally {
    release();
  }
  const whileInFlight = [...checkpoints];
  const { position } = await late;
  await waitUntil(() => seen.length === 1, { what: 'the late event after its commit', timeoutMs: 10_000 });
  expect(seen[0]!.position).toBe(position);
  for (const checkpoint of whileInFlight)
    expect(store.compareCheckpoints(checkpoint, position)).toBeLessThan(0);
  await subscription.stop();
});

test("an open transaction in another database on the server does not hold back this database's readers", async () => {
  // Transaction ids are server-wide: with the snapshot's own xmin as the horizon, a migration or a client holding a
  // transaction open in any other database delayed every reader here (in the test suite, other files' services).
  const other = await createTestDatabase();
  const blocker = new pg.Client({ connectionString: other.url });
  await blocker.connect();
  /** Reads on from `from` for up to a second (events other files' transactions hold back included), as a reader. */
  const readOn = async (from: string, until: (events: RecordedEvent[]) => boolean) => {
    const events: RecordedEvent[] = [];
    let checkpoint = from;
    for (let i = 0; i < 50 && !until(events); i++) {
      const page = await store.readAll({ from: checkpoint });
      events.push(...page.events);
      checkpoint = page.checkpoint;
      if (page.isEnd && !until(events)) await new Promise((r) => setTimeout(r, 20));
    }
    return { events, checkpoint };
  };
  try {
    await blocker.query('begin');
    await blocker.query('select pg_current_xact_id()');
    const start = (await store.readAll({})).checkpoint;
    const { position } = await store.appendToStream(
      'elsewhere-1',
      [{ type: 'Held', data: {}, metadata: meta }],
      {
        expectedRevision: 'no_stream',
      },
    );
    const seen = await readOn(start, (events) => events.some((e) => e.position === position));
    // Read while the other database's transaction is still open.
    expect(seen.events.map((e) => e.position)).toContain(position);

    // A transaction open in this database holds the event back (it may still append below it), however long.
    const local = new pg.Client({ connectionString: database.url });
    await local.connect();
    try {
      await local.query('begin');
      await local.query('select pg_current_xact_id()');
      const { position: later } = await store.appendToStream(
        'here-1',
        [{ type: 'Held', data: {}, metadata: meta }],
        {
          expectedRevision: 'no_stream',
        },
      );
      const held = await readOn(seen.checkpoint, (events) => events.length > 0);
      expect(held.events).toHaveLength(0);
      expect(store.compareCheckpoints(held.checkpoint, later)).toBeLessThan(0);
      await local.query('commit');
      const after = await readOn(held.checkpoint, (events) => events.length > 0);
      expect(after.events.map((e) => e.position)).toEqual([later]);
    } finally {
      await local.end();
    }
  } finally {
    await blocker.query('rollback').catch(() => undefined);
    await blocker.end();
    await other.drop();
  }
});
