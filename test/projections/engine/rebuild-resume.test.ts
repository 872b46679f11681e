// A rebuild killed with SIGKILL resumes from its building generation's checkpoint (not from zero) and ends
// with exactly the tables a fresh rebuild produces.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sql } from 'kysely';
import { eventStoreMigrations } from '../../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../../infra/event-store/postgres/postgres-event-store.js';
import { projectionEngineMigrations } from '../../../projections/engine/migrations.js';
import {
  rebuildProjection,
  type RebuildProgress,
  type RebuildResult,
} from '../../../projections/engine/rebuild.js';
import { ProjectionRunner } from '../../../projections/engine/runner.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import {
  appendEvents,
  catalog,
  countingProjection,
  serving,
  silentLogger,
  waitUntil,
} from './fixtures/support.js';
import type { ReadModels } from '../../../projections/read-models.js';

const EVENTS = 3000;
const STREAMS = 7;
const child = fileURLToPath(new URL('./fixtures/rebuild-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));

let database: TestDatabase<ReadModels>;
let store: PostgresEventStore<ReadModels>;

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>({ ...eventStoreMigrations, ...projectionEngineMigrations });
  store = new PostgresEventStore({ db: database.db, url: database.url });
  const last = await appendEvents(store, EVENTS, { prefix: 'resume', streams: STREAMS, perAppend: 100 });
  // A serving generation 1 exists, as in production; the rebuild builds generation 2 beside it.
  const runner = new ProjectionRunner({
    db: database.db,
    eventStore: store,
    projections: [countingProjection({ name: 'resume' })],
    logger: silentLogger,
    owner: 'setup',
    batchSize: 1000,
  });
  await runner.start();
  await waitUntil(
    async () => store.compareCheckpoints((await serving(database.db, 'resume'))!.checkpoint, last) >= 0,
  );
  await runner.stop();
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

type Line = { progress?: RebuildProgress; result?: RebuildResult };

function startChild(env: Record<string, string>): { process: ChildProcess; lines: AsyncIterator<string> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', child], {
    cwd: root,
    env: { ...process.env, REBUILD_DATABASE_URL: database.url, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  return { process: proc, lines };
}

function exited(proc: ChildProcess): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
  return new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
}

async function dump(): Promise<string[]> {
  const rows = await sql<{ row: string }>`
    select row(t.*)::text as row from public.resume_by_stream t order by stream_name`.execute(database.db);
  return rows.rows.map((r) => r.row);
}

test('a rebuild killed mid-way resumes from its checkpoint and ends identical to a fresh rebuild', async () => {
  // First run: slow, killed with SIGKILL right after its first progress report.
  const first = startChild({ SLOW_MS: '1', OWNER: 'child-1' });
  const firstLine = await first.lines.next();
  const progress = (JSON.parse(firstLine.value as string) as Line).progress!;
  expect(progress.phase).toBe('building');
  first.process.kill('SIGKILL');
  await exited(first.process);

  const afterKill = (await catalog(database.db, 'resume')).find((r) => r.status === 'building')!;
  expect(afterKill.generation).toBe(2);
  const doneBeforeKill = Number(afterKill.events_processed);
  expect(doneBeforeKill).toBeGreaterThan(0);
  expect(doneBeforeKill).toBeLessThan(EVENTS);
  expect(afterKill.lease_owner).toBe('child-1');

  // Second run (another owner): waits for the dead owner's lease to expire, then resumes where it stopped.
  const second = startChild({ OWNER: 'child-2' });
  let result: RebuildResult | undefined;
  let firstBuilding: RebuildProgress | undefined;
  for (let line = await second.lines.next(); !line.done; line = await second.lines.next()) {
    const parsed = JSON.parse(line.value) as Line;
    if (parsed.progress?.phase === 'building') firstBuilding ??= parsed.progress;
    if (parsed.result) result = parsed.result;
  }
  expect(await exited(second.process)).toBe(0);
  expect(result).toMatchObject({
    generation: 2,
    resumedFrom: doneBeforeKill,
    eventsProcessed: EVENTS,
    retiredGeneration: 1,
  });
  // Its first batch continued after the committed checkpoint instead of starting again from zero.
  expect(firstBuilding!.eventsProcessed).toBe(doneBeforeKill + 100);
  const resumed = await dump();

  // A fresh rebuild of the same log produces the same rows (the counting projector is not idempotent, so any
  // event folded twice or skipped by the resumed run would show here).
  const fresh = await rebuildProjection(
    {
      db: database.db,
      eventStore: store,
      projections: [countingProjection({ name: 'resume' })],
      logger: silentLogger,
    },
    'resume',
    { batchSize: 500 },
  );
  expect(fresh).toMatchObject({ generation: 3, resumedFrom: 0, eventsProcessed: EVENTS });
  expect(await dump()).toEqual(resumed);
  const perStream = resumed.map((row) => Number(row.split(',')[1]));
  expect(perStream.reduce((a, b) => a + b, 0)).toBe(EVENTS);
  expect(resumed).toHaveLength(STREAMS);
}, 60_000);
