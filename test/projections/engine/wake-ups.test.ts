// Idle is idle (issue 26): runners at the end of the log sleep until an append wakes them, not on a short timer.
// Every runner here has a safety poll of ten minutes, so only a wake-up can make it catch up within the bounds
// below (generous, so a slow machine delays the test rather than fails it; only a poll-wait would exceed them).
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'kysely';
import { eventStoreMigrations } from '../../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../../infra/event-store/postgres/postgres-event-store.js';
import { projectionEngineMigrations } from '../../../projections/engine/migrations.js';
import { ProjectionRunner, type ProjectionRunnerOptions } from '../../../projections/engine/runner.js';
import { ProjectionCommits } from '../../../projections/engine/commits.js';
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

const SAFETY_POLL_MS = 600_000;
/** Far below the safety poll, far above a wake-up's delay on a loaded machine. */
const BOUND_MS = 10_000;

let database: TestDatabase<ReadModels>;
let store: PostgresEventStore<ReadModels>;
/** Another process's store: its appends reach `store`'s readers only by NOTIFY. */
let other: PostgresEventStore<ReadModels>;
const runners: ProjectionRunner[] = [];

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>({ ...eventStoreMigrations, ...projectionEngineMigrations });
  store = new PostgresEventStore({ db: database.db, url: database.url, pollIntervalMs: SAFETY_POLL_MS });
  other = new PostgresEventStore({ db: database.db, url: database.url, pollIntervalMs: SAFETY_POLL_MS });
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop()));
});
afterAll(async () => {
  await other.close();
  await store.close();
  await database.drop();
});

function runner(options: Partial<ProjectionRunnerOptions> & Pick<ProjectionRunnerOptions, 'projections'>) {
  const r = new ProjectionRunner({
    db: database.db,
    eventStore: store,
    logger: silentLogger,
    owner: 'runner-a',
    leaseTtlMs: 1500,
    idleWaitMs: SAFETY_POLL_MS,
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

/** Whether the runner caught up with `position` within BOUND_MS (a safety-poll wait would take ten minutes). */
async function catchesUp(name: string, position: string, what: string): Promise<void> {
  await waitUntil(() => reached(name, position), { timeoutMs: BOUND_MS, what });
}

describe('wake-ups instead of timers', () => {
  test('an idle runner catches up at once after an append in this process and in another', async () => {
    const first = await appendEvents(store, 5, { prefix: 'wake' });
    await runner({ projections: [countingProjection({ name: 'wake' })] }).start();
    await catchesUp('wake', first, 'the first catch-up');
    // Idle at the end of the log now: only a wake-up (or a ten-minute poll) folds what follows.
    await new Promise((r) => setTimeout(r, 300));
    const own = await appendEvents(store, 3, { prefix: 'wake' });
    await catchesUp('wake', own, "this process's append");
    await new Promise((r) => setTimeout(r, 300));
    const others = await appendEvents(other, 3, { prefix: 'wake' });
    await catchesUp('wake', others, "another process's append (NOTIFY)");
  });

  test('a lost LISTEN connection: readers read again and listen again, so no append waits for the poll', async () => {
    const first = await appendEvents(store, 2, { prefix: 'relisten' });
    await runner({ projections: [countingProjection({ name: 'relisten' })] }).start();
    await catchesUp('relisten', first, 'the first catch-up');
    // Cut every LISTEN connection of this database's stores (as a restart of PostgreSQL or a proxy would).
    const cut = await sql<{ done: boolean }>`
      select pg_terminate_backend(pid) as done from pg_stat_activity
      where application_name = 'event-store-listener' and datname = current_database()`.execute(database.db);
    expect(cut.rows.length).toBeGreaterThan(0);
    // Appended by another process: its NOTIFY reaches only a listener that is back.
    await new Promise((r) => setTimeout(r, 300));
    const later = await appendEvents(other, 3, { prefix: 'relisten' });
    await catchesUp('relisten', later, 'the append after the connection was cut');
    // And the listener is back for the next one.
    await new Promise((r) => setTimeout(r, 300));
    const next = await appendEvents(other, 1, { prefix: 'relisten' });
    await catchesUp('relisten', next, 'the next append');
  });

  test('an idle runner keeps its lease (one heartbeat renews it) though it sleeps longer than the lease', async () => {
    const first = await appendEvents(store, 2, { prefix: 'keep' });
    const projection = countingProjection({ name: 'keep' });
    await runner({ projections: [projection] }).start();
    await catchesUp('keep', first, 'the first catch-up');
    const standby = runner({ projections: [projection], owner: 'runner-b', standbyPollMs: 100 });
    await standby.start();
    // Three lease lifetimes of idleness: without renewals runner-b would take over.
    await new Promise((r) => setTimeout(r, 4500));
    const rows = await catalog(database.db, 'keep');
    expect(rows.find((r) => r.status === 'serving')?.lease_owner).toBe('runner-a');
  });
});

describe('projection commit wake-ups', () => {
  test('a wait ends when a named projection commits, not when another one does', async () => {
    const commits = new ProjectionCommits(database.url);
    try {
      const notify = (name: string) =>
        sql`select pg_notify('projection_checkpoints', ${JSON.stringify({
          name,
          generation: 1,
          status: 'serving',
          checkpoint: 'pg:1:1',
        })})`.execute(database.db);
      // Open the connection first (a new connection wakes every waiter: it cannot know what it missed).
      await commits.wait([], 1);
      let ended = false;
      const waiting = commits.wait(['mine'], SAFETY_POLL_MS).then(() => (ended = true));
      await new Promise((r) => setTimeout(r, 200));
      await notify('theirs');
      await new Promise((r) => setTimeout(r, 500));
      expect(ended).toBe(false);
      await notify('mine');
      await waitUntil(() => ended, { timeoutMs: BOUND_MS, what: 'the wake-up' });
      await waiting;
    } finally {
      await commits.close();
    }
  });
});
