// Read-your-writes: waitForProjections resolves only once the serving projections committed past the
// appended position, observed from another connection pool (as another API instance would).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Kysely, PostgresDialect } from 'kysely';
import { createDatabase, type Database } from '../../../infra/db/database.js';
import { eventStoreMigrations } from '../../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../../infra/event-store/postgres/postgres-event-store.js';
import { projectionEngineMigrations } from '../../../projections/engine/migrations.js';
import {
  lagReport,
  ProjectionWaiter,
  projectionsToAwait,
} from '../../../projections/engine/read-your-writes.js';
import { ProjectionRunner } from '../../../projections/engine/runner.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { countingProjection, countsView, event, gate, silentLogger, waitUntil } from './fixtures/support.js';
import type { ReadModels } from '../../../projections/read-models.js';

let database: TestDatabase<ReadModels>;
let otherInstance: Database<ReadModels>;
let store: PostgresEventStore<ReadModels>;
let runner: ProjectionRunner;
let waiter: ProjectionWaiter;
const slow = gate();
let blocked = false;
const projection = countingProjection({
  name: 'ryw',
  beforeApply: async (e) => {
    if ((e.data as { slow?: boolean }).slow && !slow.isOpen()) {
      blocked = true;
      await slow.wait();
    }
  },
});
const other = countingProjection({ name: 'other', eventTypes: ['OtherThing'] });

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>({ ...eventStoreMigrations, ...projectionEngineMigrations });
  store = new PostgresEventStore({ db: database.db, url: database.url });
  runner = new ProjectionRunner({
    db: database.db,
    eventStore: store,
    projections: [projection, other],
    logger: silentLogger,
    owner: 'runner',
    idleWaitMs: 200,
  });
  await runner.start();
  // The waiter runs on its own pool: it only shares the database with the runner, like another instance.
  otherInstance = createDatabase<ReadModels>(database.url, { max: 3 });
  waiter = new ProjectionWaiter({ db: otherInstance.db, eventStore: store, url: database.url });
});
afterAll(async () => {
  slow.open();
  await runner.stop();
  await waiter.close();
  await otherInstance.close();
  await store.close();
  await database.drop();
});

test('resolves only after the projection committed the event, and the change is then visible', async () => {
  const { position } = await store.appendToStream('ryw-1', [event('Counted', { slow: true })], {
    expectedRevision: 'any',
  });
  const answer = waiter.waitForProjections(position, { timeoutMs: 20_000 });
  await waitUntil(() => blocked, { what: 'the projector to hold the event' });

  // The event is being folded in an open transaction: a bounded wait must say "not yet".
  await expect(waiter.waitForProjections(position, { timeoutMs: 300 })).resolves.toBe(false);
  expect(await countsView(otherInstance.db, 'ryw')).toEqual({});
  // What the timed-out write logs for the operator: the projection behind it, and who holds its lease.
  const report = await lagReport(otherInstance.db, store, position, ['ryw']);
  expect(report.behind).toEqual([
    expect.objectContaining({ name: 'ryw', leaseOwner: 'runner', checkpoint: expect.any(String) }),
  ]);
  expect(store.compareCheckpoints(report.behind[0]!.checkpoint, position)).toBeLessThan(0);
  expect(report.horizon).toMatch(/^\d+$/);

  slow.open();
  await expect(answer).resolves.toBe(true);
  expect(await countsView(otherInstance.db, 'ryw')).toEqual({ 'ryw-1': 1 });
  expect((await lagReport(otherInstance.db, store, position, ['ryw'])).behind).toEqual([]);
});

test('every write is visible on the other instance as soon as the wait answers', async () => {
  for (let i = 1; i <= 10; i++) {
    const { position } = await store.appendToStream('ryw-2', [event('Counted', { i })], {
      expectedRevision: 'any',
    });
    await expect(waiter.waitForProjections(position, { timeoutMs: 10_000 })).resolves.toBe(true);
    expect((await countsView(otherInstance.db, 'ryw'))['ryw-2']).toBe(i);
  }
});

test('concurrent waits share one picture of the catalog: checkpoints come with the notifications', async () => {
  let catalogReads = 0;
  const counted = new Kysely<ReadModels>({
    dialect: new PostgresDialect({ pool: otherInstance.pool }),
    log: (e) => {
      if (e.level === 'query' && /from projections/.test(e.query.sql)) catalogReads += 1;
    },
  });
  const shared = new ProjectionWaiter({ db: counted, eventStore: store, url: database.url });
  try {
    // The first wait reads the catalog (a new LISTEN connection); the rest learn from notifications.
    const first = await store.appendToStream('ryw-5', [event('Counted')], { expectedRevision: 'any' });
    await expect(shared.waitForProjections(first.position, { timeoutMs: 10_000 })).resolves.toBe(true);
    const before = catalogReads;
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const { position } = await store.appendToStream(`ryw-5-${i}`, [event('Counted')], {
          expectedRevision: 'any',
        });
        return shared.waitForProjections(position, { timeoutMs: 10_000 });
      }),
    );
    expect(answers.every(Boolean)).toBe(true);
    // At most the 250 ms fallback's reads while they waited, never one per wait or per notification.
    expect(catalogReads - before).toBeLessThan(5);
  } finally {
    await shared.close();
  }
});

test('a filtered projection that skips the event does not hold the wait back', async () => {
  const { position } = await store.appendToStream('ryw-3', [event('Counted')], { expectedRevision: 'any' });
  await expect(
    waiter.waitForProjections(position, { timeoutMs: 10_000, projections: ['other'] }),
  ).resolves.toBe(true);
  expect(await countsView(otherInstance.db, 'other')).toEqual({});
});

test('a projection that is not serving, or not running, makes the wait answer false at its bound', async () => {
  const { position } = await store.appendToStream('ryw-4', [event('Counted')], { expectedRevision: 'any' });
  await expect(
    waiter.waitForProjections(position, { timeoutMs: 200, projections: ['missing'] }),
  ).resolves.toBe(false);
  await runner.stop();
  const { position: later } = await store.appendToStream('ryw-4', [event('Counted')], {
    expectedRevision: 'any',
  });
  await expect(waiter.waitForProjections(later, { timeoutMs: 300 })).resolves.toBe(false);
});

test('a serving generation older than the code (being rebuilt) does not hold writes back; a current one does', async () => {
  slow.open();
  // Stopping the runner freezes both projections, as a rebuild to a new version freezes the old generation.
  await runner.stop();
  const { position } = await store.appendToStream('ryw-3', [event('Counted', {})], {
    expectedRevision: 'any',
  });
  await expect(
    waiter.waitForProjections(position, { timeoutMs: 300, projections: ['ryw'], versions: { ryw: 1 } }),
  ).resolves.toBe(false);
  await expect(
    waiter.waitForProjections(position, { timeoutMs: 5_000, projections: ['ryw'], versions: { ryw: 2 } }),
  ).resolves.toBe(true);
});

test('a waiter that cannot read the catalog knows of no serving projection and never answers "caught up"', async () => {
  const unreachable = createDatabase<ReadModels>(database.url, { max: 1 });
  await unreachable.close();
  const blind = new ProjectionWaiter({ db: unreachable.db, eventStore: store });
  try {
    const { position } = await store.appendToStream('ryw-6', [event('Counted')], { expectedRevision: 'any' });
    await expect(blind.waitForProjections(position, { timeoutMs: 300 })).resolves.toBe(false);
  } finally {
    await blind.close();
  }
});

test('a write waits for the read models that fold one of its event types, or fold everything', () => {
  const tags = { name: 'tags', eventTypes: ['TagCreated', 'TagDeleted'] };
  const groups = { name: 'post_groups', eventTypes: ['PostGroupCreated', 'TagDeleted'] };
  const everything: { name: string; eventTypes?: readonly string[] } = { name: 'audit' };
  const all = [tags, groups, everything];
  expect(projectionsToAwait(all, ['TagCreated'])).toEqual([tags, everything]);
  expect(projectionsToAwait(all, ['TagDeleted'])).toEqual(all);
  expect(projectionsToAwait([tags, groups], ['SlugReserved'])).toEqual([]);
  expect(projectionsToAwait(all, undefined)).toEqual(all);
  // A read model its writers need not wait for, except for the types it names.
  const inbox = {
    name: 'notifications',
    eventTypes: ['TagCreated', 'NotificationRead'],
    awaitedFor: ['NotificationRead'],
  };
  expect(projectionsToAwait([inbox], ['TagCreated'])).toEqual([]);
  expect(projectionsToAwait([inbox], ['NotificationRead'])).toEqual([inbox]);
});
