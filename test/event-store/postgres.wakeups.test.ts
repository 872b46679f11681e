// A caught-up reader with an event-type filter reads again only for appends that may concern it: this process's
// appends of other types are slept through (each append used to cost a read per projection and process
// manager), while its own types, another process's notification (types unknown) and the poll interval still
// make it read.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventStoreMigrations } from '../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { testMetadata } from '../support/events.js';
import { waitUntil } from '../support/wait.js';

let database: TestDatabase<unknown>;
let store: PostgresEventStore<unknown>;
/** Another process on the same database: its appends reach `store` only by notification. */
let other: PostgresEventStore<unknown>;
const meta = testMetadata();

beforeAll(async () => {
  database = await createTestDatabase(eventStoreMigrations);
  // A poll interval far beyond the test: only wake-ups make the reader read.
  store = new PostgresEventStore({ db: database.db, url: database.url, pollIntervalMs: 120_000 });
  other = new PostgresEventStore({ db: database.db, url: database.url, pollIntervalMs: 120_000 });
});
afterAll(async () => {
  await other.close();
  await store.close();
  await database.drop();
});

const append = (s: PostgresEventStore<unknown>, stream: string, type: string) =>
  s.appendToStream(stream, [{ type, data: {}, metadata: meta }], { expectedRevision: 'any' });

test('appends of other types do not make a filtered reader read; its own types and other processes do', async () => {
  const reads = { count: 0 };
  const readAll = store.readAll.bind(store);
  store.readAll = async (options) => {
    reads.count += 1;
    return readAll(options);
  };
  const seen: RecordedEvent[] = [];
  let caughtUp = 0;
  const subscription = store.subscribeToAll({
    filter: { eventTypes: ['Wanted'] },
    onEvent: async (event) => {
      seen.push(event);
    },
    onCaughtUp: () => {
      caughtUp += 1;
    },
  });
  await waitUntil(() => caughtUp > 0, { what: 'the first catch-up', timeoutMs: 10_000 });
  // Its own listener's notification of the first catch-up's environment settles.
  await new Promise((r) => setTimeout(r, 200));
  const before = reads.count;

  for (let i = 0; i < 20; i++) await append(store, `other-${i}`, 'Unwanted');
  // This process's own coalesced notification arrives too, and is known to be its own.
  await new Promise((r) => setTimeout(r, 300));
  expect(reads.count).toBe(before);

  await append(store, 'wanted-1', 'Wanted');
  await waitUntil(() => seen.length === 1, { what: 'the wanted event', timeoutMs: 10_000 });
  expect(seen[0]!.streamName).toBe('wanted-1');
  expect(reads.count).toBeGreaterThan(before);

  // Another process's append of any type: the notification does not say which, so the reader reads.
  const beforeOther = reads.count;
  await append(other, 'other-process', 'Unwanted');
  await waitUntil(() => reads.count > beforeOther, {
    what: 'a read after the other process',
    timeoutMs: 10_000,
  });
  await append(other, 'wanted-2', 'Wanted');
  await waitUntil(() => seen.length === 2, { what: "the other process's wanted event", timeoutMs: 10_000 });
  await subscription.stop();
});

test('a reader without a type filter reads after every append', async () => {
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
  const count = seen.length;
  await append(store, 'any-1', 'Anything');
  await waitUntil(() => seen.length === count + 1, { what: 'the next event', timeoutMs: 10_000 });
  await subscription.stop();
});
