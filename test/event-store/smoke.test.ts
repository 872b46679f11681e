// Smoke test of the PostgreSQL event store wiring: migrations, one append, one conflict, one read of each kind.
// The full rules live in contract.ts; this file fails first and loudest when the basic wiring breaks.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.js';
import { eventStoreMigrations } from '../../infra/event-store/postgres/migrations.js';
import { WrongExpectedVersion } from '../../infra/event-store/port.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { readAllToEnd } from './contract.js';
import { testMetadata } from '../support/events.js';

let database: TestDatabase<unknown>;
let store: PostgresEventStore<unknown>;
const meta = testMetadata();

beforeAll(async () => {
  database = await createTestDatabase(eventStoreMigrations);
  store = new PostgresEventStore({ db: database.db, url: database.url });
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

test('append, read and conflict', async () => {
  const r = await store.appendToStream('a-1', [{ type: 'A', data: { n: 1 }, metadata: meta }], {
    expectedRevision: 'no_stream',
  });
  expect(r.nextExpectedRevision).toBe(0);
  await expect(
    store.appendToStream('a-1', [{ type: 'A', data: {}, metadata: meta }], { expectedRevision: 'no_stream' }),
  ).rejects.toBeInstanceOf(WrongExpectedVersion);
  const events = await store.readStream('a-1');
  expect(events.map((e) => e.data)).toEqual([{ n: 1 }]);
  // Visibility waits for older transactions anywhere on the server, so read on until past our append.
  const page = await readAllToEnd(store, store.start, undefined, { through: r.position });
  expect(page.events.map((e) => e.position)).toEqual([r.position]);
});
