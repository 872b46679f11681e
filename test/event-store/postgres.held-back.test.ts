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
