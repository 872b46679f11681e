// Rebuild without downtime: the new generation is built beside the serving one while reads and live folding
// go on, reads switch atomically, the live runner follows the switch; and the operator CLI around it.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sql } from 'kysely';
import { projectionsCommand } from '../../../api/cli/projections.js';
import { eventStoreMigrations } from '../../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../../infra/event-store/postgres/postgres-event-store.js';
import { projectionEngineMigrations } from '../../../projections/engine/migrations.js';
import { rebuildProjection, type RebuildProgress } from '../../../projections/engine/rebuild.js';
import { ProjectionRunner } from '../../../projections/engine/runner.js';
import { projectionStatus } from '../../../projections/engine/status.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import {
  appendEvents,
  catalog,
  countingProjection,
  countsView,
  gate,
  logSize,
  schemaExists,
  serving,
  silentLogger,
  waitUntil,
} from './fixtures/support.js';
import type { ReadModels } from '../../../projections/read-models.js';

let database: TestDatabase<ReadModels>;
let store: PostgresEventStore<ReadModels>;
const live = countingProjection({ name: 'rb' });
let runner: ProjectionRunner;

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>({ ...eventStoreMigrations, ...projectionEngineMigrations });
  store = new PostgresEventStore({ db: database.db, url: database.url });
  runner = new ProjectionRunner({
    db: database.db,
    eventStore: store,
    projections: [live],
    logger: silentLogger,
    owner: 'live-runner',
    batchSize: 50,
    leaseTtlMs: 1500,
    idleWaitMs: 200,
  });
  await runner.start();
});
afterAll(async () => {
  await runner.stop();
  await store.close();
  await database.drop();
});

async function reached(position: string): Promise<boolean> {
  const row = await serving(database.db, 'rb');
  return !!row && store.compareCheckpoints(row.checkpoint, position) >= 0;
}

async function total(): Promise<number> {
  const rows = await sql<{
    n: number;
  }>`select coalesce(sum(events), 0)::int as n from public.rb_by_stream`.execute(database.db);
  return rows.rows[0]!.n;
}

test('rebuild builds beside the serving generation, reads keep working, the switch is atomic and the runner follows', async () => {
  const first = await appendEvents(store, 300, { prefix: 'rb', streams: 5, perAppend: 10 });
  await waitUntil(() => reached(first), { what: 'live catch-up' });

  // The rebuild pauses between two batches (outside any transaction: an open one would hold back the
  // store's read horizon and with it the live runner).
  const resume = gate();
  let paused = false;
  const rebuilding = countingProjection({ name: 'rb' });
  const pausingStore = new Proxy(store, {
    get(target, property) {
      if (property === 'readAll')
        return async (options: Parameters<typeof store.readAll>[0]) => {
          if (rebuilding.applied >= 120 && !resume.isOpen()) {
            paused = true;
            await resume.wait();
          }
          return target.readAll(options);
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const progress: RebuildProgress[] = [];
  const rebuild = rebuildProjection(
    { db: database.db, eventStore: pausingStore, projections: [rebuilding], logger: silentLogger },
    'rb',
    { batchSize: 50, owner: 'operator', onProgress: (p) => progress.push(p) },
  );
  await waitUntil(() => paused, { what: 'the rebuild to pause mid-way' });

  // Mid-build: generation 2 is building beside the serving generation 1, which readers still see, complete.
  expect((await catalog(database.db, 'rb')).map((r) => [r.generation, r.status, r.lease_owner])).toEqual([
    [1, 'serving', 'live-runner'],
    [2, 'building', 'operator'],
  ]);
  expect(await total()).toBe(300);
  // Live writes keep being folded into the serving generation meanwhile.
  const second = await appendEvents(store, 10, { prefix: 'rb', streams: 5 });
  await waitUntil(() => reached(second), { what: 'live folding during the rebuild' });
  expect(await total()).toBe(310);

  // Readers hammer the view across the switch: never an error, never a partially built generation.
  let reading = true;
  const seen: number[] = [];
  const errors: unknown[] = [];
  const reader = (async () => {
    while (reading) {
      try {
        seen.push(await total());
      } catch (error) {
        errors.push(error);
      }
    }
  })();
  resume.open();
  const result = await rebuild;
  await waitUntil(() => seen.length > 20, { what: 'reads after the switch' });
  reading = false;
  await reader;
  expect(errors).toEqual([]);
  expect(seen.every((n) => n >= 310)).toBe(true);

  expect(result).toMatchObject({ projection: 'rb', generation: 2, retiredGeneration: 1, switchedBy: 'self' });
  expect(result.eventsProcessed).toBe(310);
  expect((await catalog(database.db, 'rb')).map((r) => [r.generation, r.status])).toEqual([
    [1, 'retired'],
    [2, 'serving'],
  ]);
  expect(await schemaExists(database.db, 'rm_rb_g1')).toBe(false);
  const views = await sql<{ definition: string }>`
    select definition from pg_views where schemaname = 'public' and viewname = 'rb_by_stream'`.execute(
    database.db,
  );
  expect(views.rows[0]!.definition).toContain('rm_rb_g2.');
  expect(await countsView(database.db, 'rb')).toEqual({
    'rb-0': 62,
    'rb-1': 62,
    'rb-2': 62,
    'rb-3': 62,
    'rb-4': 62,
  });

  const building = progress.filter((p) => p.phase === 'building');
  expect(building.length).toBeGreaterThan(2);
  expect(building[0]!.totalEvents).toBe(300);
  expect(building.map((p) => p.eventsProcessed)).toEqual(
    [...building.map((p) => p.eventsProcessed)].sort((a, b) => a - b),
  );
  expect(progress.at(-1)!.phase).toBe('switched');

  // The live runner was fenced off generation 1 and now folds generation 2, each event once.
  const third = await appendEvents(store, 5, { prefix: 'rb', streams: 5 });
  await waitUntil(() => reached(third), { what: 'the live runner on generation 2' });
  expect((await serving(database.db, 'rb'))!.lease_owner).toBe('live-runner');
  expect(await countsView(database.db, 'rb')).toEqual({
    'rb-0': 63,
    'rb-1': 63,
    'rb-2': 63,
    'rb-3': 63,
    'rb-4': 63,
  });
});

test('status reports version, generation, lag in events and time, and the lease owner', async () => {
  await runner.stop();
  await appendEvents(store, 7, { prefix: 'rb', streams: 1 });
  // Polled: the store shows an event once every older transaction of the server has finished.
  const lagging = await waitUntil(
    async () => {
      const rows = await projectionStatus({ db: database.db, eventStore: store, projections: [live] });
      return rows[0]?.lagEvents === 7 ? rows : undefined;
    },
    { what: 'the seven events to show as lag' },
  );
  expect(lagging!).toHaveLength(1);
  expect(lagging![0]).toMatchObject({
    name: 'rb',
    version: 1,
    codeVersion: 1,
    generation: 2,
    status: 'serving',
    lagEvents: 7,
    lagCapped: false,
    leaseOwner: null,
  });
  expect(lagging![0]!.lagMs).toBeGreaterThanOrEqual(0);
  const capped = await projectionStatus(
    { db: database.db, eventStore: store, projections: [live] },
    { lagCap: 3 },
  );
  expect(capped[0]).toMatchObject({ lagEvents: 3, lagCapped: true });

  const lines: string[] = [];
  const deps = {
    db: database.db,
    eventStore: store,
    projections: [live],
    logger: silentLogger,
    out: (l: string) => lines.push(l),
  };
  expect(await projectionsCommand(['status'], deps)).toBe(0);
  expect(lines[0]).toMatch(
    /^projection\s+version\s+gen\s+status\s+processed\s+lag\s+lag time\s+lease owner\s+checkpoint$/,
  );
  expect(lines[1]).toMatch(/^rb\s+1\s+2\s+serving\s+[\d,]+\s+7\s+/);

  runner = new ProjectionRunner({
    db: database.db,
    eventStore: store,
    projections: [live],
    logger: silentLogger,
    owner: 'live-runner',
    idleWaitMs: 200,
  });
  await runner.start();
  await waitUntil(
    async () =>
      (await projectionStatus({ db: database.db, eventStore: store, projections: [live] }))[0]!.lagEvents ===
      0,
    { what: 'lag to drop to zero' },
  );
  const current = await projectionStatus({ db: database.db, eventStore: store, projections: [live] });
  expect(current[0]).toMatchObject({ lagEvents: 0, lagMs: 0, leaseOwner: 'live-runner' });
});

test('the CLI rebuild prints progress and a final line; an unknown name is refused with a clear message', async () => {
  const lines: string[] = [];
  const deps = {
    db: database.db,
    eventStore: store,
    projections: [countingProjection({ name: 'rb' })],
    logger: silentLogger,
    out: (l: string) => lines.push(l),
    progressIntervalMs: 0,
  };
  expect(await projectionsCommand(['rebuild', 'rb'], deps)).toBe(0);
  const size = (await logSize(database.db)).toLocaleString('en-US');
  expect(lines[0]).toMatch(
    new RegExp(
      `^rebuild rb: [\\d,]+/${size} events, [\\d,]+ ev/s, position pg:\\d+:\\d+, ETA (\\d+s|unknown)$`,
    ),
  );
  expect(lines.at(-1)).toMatch(
    new RegExp(
      `^rebuild rb: done: generation 3 \\(v1\\) serving, ${size} events, position pg:\\d+:\\d+, generation 2 dropped, took \\d+s$`,
    ),
  );

  lines.length = 0;
  expect(await projectionsCommand(['rebuild', 'nope'], deps)).not.toBe(0);
  expect(lines).toEqual(['Unknown projection "nope"; known projections: rb']);

  lines.length = 0;
  expect(await projectionsCommand(['frobnicate'], deps)).not.toBe(0);
  expect(lines[0]).toMatch(/^usage: /);
});
