// The projection runner against a real PostgreSQL store: first start, checkpoint atomic with rows,
// filtered projectors advancing, one active runner per projection, and the automatic rebuild on a version bump.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'kysely';
import { eventStoreMigrations } from '../../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../../infra/event-store/postgres/postgres-event-store.js';
import { projectionEngineMigrations } from '../../../projections/engine/migrations.js';
import { ProjectionRunner, type ProjectionRunnerOptions } from '../../../projections/engine/runner.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import {
  appendEvents,
  capturingLogger,
  catalog,
  countingProjection,
  countsView,
  logSize,
  schemaExists,
  serving,
  silentLogger,
  waitUntil,
} from './fixtures/support.js';
import type { ReadModels } from '../../../projections/read-models.js';

let database: TestDatabase<ReadModels>;
let store: PostgresEventStore<ReadModels>;
const runners: ProjectionRunner[] = [];

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>({ ...eventStoreMigrations, ...projectionEngineMigrations });
  store = new PostgresEventStore({ db: database.db, url: database.url });
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop()));
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

function runner(options: Partial<ProjectionRunnerOptions> & Pick<ProjectionRunnerOptions, 'projections'>) {
  const r = new ProjectionRunner({
    db: database.db,
    eventStore: store,
    logger: silentLogger,
    owner: 'runner-a',
    batchSize: 50,
    leaseTtlMs: 1500,
    idleWaitMs: 200,
    maxRetryDelayMs: 200,
    ...options,
  });
  runners.push(r);
  return r;
}

async function reached(name: string, position: string): Promise<boolean> {
  const row = await serving(database.db, name);
  return !!row && store.compareCheckpoints(row.checkpoint, position) >= 0;
}

describe('projection runner', () => {
  test('first start creates generation 1 as serving with public views, then folds the log', async () => {
    const last = await appendEvents(store, 30, { prefix: 'first', streams: 3 });
    const projection = countingProjection({ name: 'first' });
    await runner({ projections: [projection] }).start();

    const rows = await catalog(database.db, 'first');
    expect(rows.map((r) => [r.generation, r.status, r.schema_name])).toEqual([[1, 'serving', 'rm_first_g1']]);
    // The view exists as soon as start() returns, even before the first batch.
    await expect(countsView(database.db, 'first')).resolves.toBeTypeOf('object');

    await waitUntil(() => reached('first', last), { what: 'catch-up' });
    expect(await countsView(database.db, 'first')).toEqual({ 'first-0': 10, 'first-1': 10, 'first-2': 10 });
    expect(Number((await serving(database.db, 'first'))!.events_processed)).toBe(30);
  });

  test('a projector that throws mid-batch leaves neither rows nor checkpoint; the retry folds each event once', async () => {
    const last = await appendEvents(store, 12, { prefix: 'boom', streams: 2 });
    let failing = true;
    let failures = 0;
    const projection = countingProjection({
      name: 'boom',
      beforeApply: (e) => {
        if (failing && e.streamName.startsWith('boom-') && (e.data as { i: number }).i === 7) {
          failures += 1;
          throw new Error('projector bug');
        }
      },
    });
    // The whole log must be visible before the runner starts, so that its first batch holds all of it.
    await waitUntil(
      async () => (await store.readAll({ limit: 1000 })).events.some((e) => e.position === last),
      {
        what: 'the events to become visible',
      },
    );
    await runner({ projections: [projection], batchSize: 1000 }).start();
    await waitUntil(() => failures >= 2, { what: 'the projector to fail twice' });

    // Events 0..6 were applied inside the failed transactions, but nothing of them is visible.
    expect(projection.applied).toBeGreaterThan(0);
    expect(await countsView(database.db, 'boom')).toEqual({});
    const row = await serving(database.db, 'boom');
    expect(row!.checkpoint).toBe(store.start);
    expect(Number(row!.events_processed)).toBe(0);

    failing = false;
    await waitUntil(() => reached('boom', last), { what: 'catch-up after the fix' });
    expect(await countsView(database.db, 'boom')).toEqual({ 'boom-0': 6, 'boom-1': 6 });
    // events_processed counts every event folded (the log is shared by the tests of this file).
    expect(Number((await serving(database.db, 'boom'))!.events_processed)).toBe(await logSize(database.db));
  });

  test('a filtered projector advances its checkpoint past events it does not handle', async () => {
    const projection = countingProjection({ name: 'only_b', eventTypes: ['B'] });
    await runner({ projections: [projection] }).start();
    const lastA = await appendEvents(store, 5, { type: 'A', prefix: 'only_b' });

    await waitUntil(() => reached('only_b', lastA), { what: 'the filtered projector to pass the A events' });
    expect(projection.applied).toBe(0);
    expect(await countsView(database.db, 'only_b')).toEqual({});

    const lastB = await appendEvents(store, 2, { type: 'B', prefix: 'only_b', streams: 1 });
    await waitUntil(() => reached('only_b', lastB), { what: 'the B events' });
    expect(await countsView(database.db, 'only_b')).toEqual({ 'only_b-0': 2 });
    expect(Number((await serving(database.db, 'only_b'))!.events_processed)).toBe(2);
    expect(projection.applied).toBe(2);
  });

  test('two runners on one projection: only the lease holder applies; the other takes over when it stops', async () => {
    const a = countingProjection({ name: 'shared' });
    const b = countingProjection({ name: 'shared' });
    // A long lease keeps the holder stable under load; a graceful stop releases it explicitly.
    const runnerA = runner({ projections: [a], owner: 'runner-a', leaseTtlMs: 10_000, standbyPollMs: 100 });
    const runnerB = runner({ projections: [b], owner: 'runner-b', leaseTtlMs: 10_000, standbyPollMs: 100 });
    await Promise.all([runnerA.start(), runnerB.start()]);
    const first = await appendEvents(store, 60, { prefix: 'shared', streams: 4, perAppend: 3 });
    await waitUntil(() => reached('shared', first), { what: 'first catch-up' });

    const holder = (await serving(database.db, 'shared'))!.lease_owner;
    expect(['runner-a', 'runner-b']).toContain(holder);
    const [active, idle, activeRunner] = holder === 'runner-a' ? [a, b, runnerA] : [b, a, runnerB];
    expect(active.applied).toBe(60);
    expect(idle.applied).toBe(0);
    expect(await countsView(database.db, 'shared')).toEqual({
      'shared-0': 15,
      'shared-1': 15,
      'shared-2': 15,
      'shared-3': 15,
    });

    // Graceful stop releases the lease; the standby takes over from the committed checkpoint.
    await activeRunner.stop();
    const second = await appendEvents(store, 20, { prefix: 'shared', streams: 4 });
    await waitUntil(() => reached('shared', second), { what: 'takeover catch-up' });
    expect((await serving(database.db, 'shared'))!.lease_owner).toBe(
      holder === 'runner-a' ? 'runner-b' : 'runner-a',
    );
    expect(idle.applied).toBe(20);
    expect(await countsView(database.db, 'shared')).toEqual({
      'shared-0': 20,
      'shared-1': 20,
      'shared-2': 20,
      'shared-3': 20,
    });
  });

  test('a runner whose lease was taken over is fenced off: it writes nothing until it holds the lease again', async () => {
    const projection = countingProjection({ name: 'fenced' });
    const { messages, logger } = capturingLogger();
    await runner({
      projections: [projection],
      owner: 'runner-a',
      leaseTtlMs: 60_000,
      standbyPollMs: 100,
      logger,
    }).start();
    const first = await appendEvents(store, 5, { prefix: 'fenced', streams: 1 });
    await waitUntil(() => reached('fenced', first), { what: 'first catch-up' });

    // Another process takes the lease (as after an expiry while this runner was paused).
    await sql`update projections set lease_owner = 'intruder', lease_expires_at = now() + interval '1 hour'
              where name = 'fenced' and status = 'serving'`.execute(database.db);
    const second = await appendEvents(store, 5, { prefix: 'fenced', streams: 1 });
    await waitUntil(() => messages.some((m) => m.includes('lease held by intruder')), {
      what: 'the runner to notice the lost lease',
    });
    expect(await countsView(database.db, 'fenced')).toEqual({ 'fenced-0': 5 });
    expect(store.compareCheckpoints((await serving(database.db, 'fenced'))!.checkpoint, second)).toBeLessThan(
      0,
    );

    // Once the intruder lets go, the runner re-acquires and folds the five events exactly once.
    await sql`update projections set lease_owner = null where name = 'fenced'`.execute(database.db);
    await waitUntil(() => reached('fenced', second), { what: 'catch-up after the intruder left' });
    expect(await countsView(database.db, 'fenced')).toEqual({ 'fenced-0': 10 });
  });

  test('a version bump builds the new version beside the old one and switches reads when caught up', async () => {
    const last = await appendEvents(store, 40, { prefix: 'bump', streams: 4 });
    const v1 = runner({
      projections: [countingProjection({ name: 'bump', version: 1 })],
      owner: 'old-deploy',
    });
    await v1.start();
    await waitUntil(() => reached('bump', last), { what: 'v1 catch-up' });
    await v1.stop();

    const v2 = runner({
      projections: [countingProjection({ name: 'bump', version: 2 })],
      owner: 'new-deploy',
    });
    await v2.start();
    await waitUntil(async () => (await serving(database.db, 'bump'))?.version === 2, {
      what: 'the v2 switch',
    });

    const rows = await catalog(database.db, 'bump');
    expect(rows.map((r) => [r.generation, r.version, r.status])).toEqual([
      [1, 1, 'retired'],
      [2, 2, 'serving'],
    ]);
    // The old schema is dropped right after the switch commits.
    await waitUntil(async () => !(await schemaExists(database.db, 'rm_bump_g1')), {
      what: 'the old schema to go',
    });
    const view = await sql<{ stream_name: string; events: number; version_seen: number }>`
      select stream_name, events, version_seen from public.bump_by_stream order by stream_name`.execute(
      database.db,
    );
    expect(view.rows).toEqual(
      [0, 1, 2, 3].map((i) => ({ stream_name: `bump-${i}`, events: 10, version_seen: 2 })),
    );

    // The runner that built v2 keeps serving it.
    expect(rows[1]!.lease_owner).toBe('new-deploy');
    const more = await appendEvents(store, 4, { prefix: 'bump', streams: 4 });
    await waitUntil(() => reached('bump', more), { what: 'v2 live folding' });
    expect(Object.values(await countsView(database.db, 'bump'))).toEqual([11, 11, 11, 11]);
  });
});
