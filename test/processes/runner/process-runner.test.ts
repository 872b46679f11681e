// The process runner against a real PostgreSQL store and the real outbox: state, outbox rows and checkpoint
// commit in one transaction; filtered processes advance; one active runner; deterministic ids on reprocess.
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { sql } from 'kysely';
import { eventStoreMigrations } from '../../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../../infra/event-store/postgres/postgres-event-store.js';
import type { RecordedEvent } from '../../../infra/event-store/port.js';
import { outboxMigrations } from '../../../processes/outbox/migrations.js';
import { processRunnerMigrations } from '../../../processes/runner/migrations.js';
import { outboxMessageId, type ProcessManager } from '../../../processes/runner/process-manager.js';
import type { ReadModels } from '../../../projections/read-models.js';
import { ProcessRunner } from '../../../processes/runner/process-runner.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { appendEvents, silentLogger, waitUntil } from '../../projections/engine/fixtures/support.js';

let database: TestDatabase<ReadModels>;
let store: PostgresEventStore<ReadModels>;
const runners: ProcessRunner[] = [];

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>({
    ...eventStoreMigrations,
    ...outboxMigrations,
    ...processRunnerMigrations,
  });
  store = new PostgresEventStore({ db: database.db, url: database.url });
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop()));
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

/** Remembers each handled event in its state table and asks for one notification per event. */
function notifier(
  name: string,
  options: { eventTypes?: string[]; failOn?: (e: RecordedEvent) => boolean } = {},
) {
  const manager: ProcessManager & { handled: number } = {
    name,
    eventTypes: options.eventTypes,
    handled: 0,
    async createTables(db) {
      await sql`create table if not exists ${sql.id(`${name}_seen`)} (event_id uuid primary key, stream_name text not null)`.execute(
        db,
      );
    },
    async handle(trx, event, ctx) {
      if (!event.streamName.startsWith(`${name}-`)) return;
      await sql`insert into ${sql.id(`${name}_seen`)} (event_id, stream_name) values (${event.id}, ${event.streamName})`.execute(
        trx,
      );
      await ctx.enqueue({
        id: outboxMessageId(name, event.id),
        destination: 'notifications.email',
        payload: { stream: event.streamName, revision: event.revision },
      });
      if (options.failOn?.(event)) throw new Error('process bug');
      manager.handled += 1;
    },
  };
  return manager;
}

// A long lease keeps the holder stable under load; a graceful stop releases it explicitly.
function runner(processes: ProcessManager[], owner = 'runner-a', leaseTtlMs = 10_000) {
  const r = new ProcessRunner({
    db: database.db,
    eventStore: store,
    processes,
    owner,
    logger: silentLogger,
    batchSize: 20,
    leaseTtlMs,
    standbyPollMs: 100,
    idleWaitMs: 200,
    maxRetryDelayMs: 200,
  });
  runners.push(r);
  return r;
}

async function checkpointOf(name: string) {
  const rows = await sql<{ checkpoint: string; events_processed: string; lease_owner: string | null }>`
    select checkpoint, events_processed, lease_owner from process_checkpoints where name = ${name}`.execute(
    database.db,
  );
  return rows.rows[0]!;
}

async function reached(name: string, position: string) {
  return store.compareCheckpoints((await checkpointOf(name)).checkpoint, position) >= 0;
}

async function count(table: string, where = sql``): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*)::int as n from ${sql.id(table)} ${where}`.execute(
    database.db,
  );
  return rows.rows[0]!.n;
}

async function outboxIds(): Promise<string[]> {
  const rows = await sql<{ id: string }>`select id from outbox order by id`.execute(database.db);
  return rows.rows.map((r) => r.id);
}

test('state, outbox rows and checkpoint commit together: a throwing handler rolls all three back', async () => {
  const last = await appendEvents(store, 10, { prefix: 'atomic', streams: 2 });
  let failing = true;
  let failures = 0;
  const manager = notifier('atomic', {
    failOn: (e) => {
      const fail = failing && (e.data as { i: number }).i === 6;
      if (fail) failures += 1;
      return fail;
    },
  });
  // The whole log must be visible before the runner starts, so that its first batch holds all of it.
  await waitUntil(
    async () => (await store.readAll({ limit: 1000 })).events.some((e) => e.position === last),
    {
      what: 'the events to become visible',
    },
  );
  await runner([manager]).start();
  await waitUntil(() => failures >= 2, { what: 'the handler to fail twice' });

  // Events 0..5 were handled and enqueued inside the failed transactions; none of it is visible.
  expect(await count('atomic_seen')).toBe(0);
  expect(await count('outbox')).toBe(0);
  expect((await checkpointOf('atomic')).checkpoint).toBe(store.start);

  failing = false;
  await waitUntil(() => reached('atomic', last), { what: 'catch-up after the fix' });
  expect(await count('atomic_seen')).toBe(10);
  expect(await count('outbox')).toBe(10);
  const seen = await sql<{ event_id: string }>`select event_id from atomic_seen`.execute(database.db);
  expect(await outboxIds()).toEqual(seen.rows.map((r) => outboxMessageId('atomic', r.event_id)).sort());
});

test('a filtered process advances its checkpoint past events it does not handle', async () => {
  const manager = notifier('picky', { eventTypes: ['Wanted'] });
  await runner([manager]).start();
  const last = await appendEvents(store, 6, { type: 'Unwanted', prefix: 'picky' });
  await waitUntil(() => reached('picky', last), { what: 'the filtered process to pass the events' });
  expect(manager.handled).toBe(0);
  expect(await count('picky_seen')).toBe(0);
});

test('two runners: only the lease holder handles events; the other takes over after a graceful stop', async () => {
  const a = notifier('duo');
  const b = notifier('duo');
  const runnerA = runner([a], 'runner-a');
  const runnerB = runner([b], 'runner-b');
  await Promise.all([runnerA.start(), runnerB.start()]);
  const first = await appendEvents(store, 30, { prefix: 'duo', streams: 3, perAppend: 3 });
  await waitUntil(() => reached('duo', first), { what: 'first catch-up' });
  const holder = (await checkpointOf('duo')).lease_owner;
  const [active, idle, activeRunner] = holder === 'runner-a' ? [a, b, runnerA] : [b, a, runnerB];
  expect(active.handled).toBe(30);
  expect(idle.handled).toBe(0);

  await activeRunner.stop();
  const second = await appendEvents(store, 9, { prefix: 'duo', streams: 3 });
  await waitUntil(() => reached('duo', second), { what: 'takeover' });
  expect(idle.handled).toBe(9);
  expect(await count('duo_seen')).toBe(39);
  expect(await count('outbox', sql`where payload->>'stream' like 'duo-%'`)).toBe(39);
});

test('reprocessing after a lost checkpoint enqueues the same ids: no duplicate side effects', async () => {
  const last = await appendEvents(store, 12, { prefix: 'again', streams: 3 });
  const first = runner([notifier('again')]);
  await first.start();
  await waitUntil(() => reached('again', last), { what: 'first pass' });
  await first.stop();
  const where = sql`where payload->>'stream' like 'again-%'`;
  const before = await sql<{ id: string }>`select id from outbox ${where} order by id`.execute(database.db);
  expect(before.rows).toHaveLength(12);

  // As after restoring an older backup of the process state: checkpoint and state lost, outbox kept.
  await sql`update process_checkpoints set checkpoint = ${store.start} where name = 'again'`.execute(
    database.db,
  );
  await sql`truncate again_seen`.execute(database.db);
  const second = notifier('again');
  await runner([second]).start();
  await waitUntil(() => reached('again', last), { what: 'second pass' });
  expect(second.handled).toBe(12);
  expect(await count('again_seen')).toBe(12);
  const after = await sql<{ id: string }>`select id from outbox ${where} order by id`.execute(database.db);
  expect(after.rows).toEqual(before.rows);
});

test('outbox ids are name-based UUIDs of process, event and discriminator', () => {
  const id = outboxMessageId('publishing', '0b7f1f9e-6a43-4c7e-9d0b-111111111111');
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(outboxMessageId('publishing', '0b7f1f9e-6a43-4c7e-9d0b-111111111111')).toBe(id);
  expect(outboxMessageId('publishing', '0b7f1f9e-6a43-4c7e-9d0b-111111111111', 'retry')).not.toBe(id);
  expect(outboxMessageId('metrics', '0b7f1f9e-6a43-4c7e-9d0b-111111111111')).not.toBe(id);
});
