// Outbox behaviour against one bus adapter: transactional writes, delivery, retry after a bus failure,
// concurrent dispatchers and notify wake-ups. Run by one test file per adapter, each on its own database.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest';
import type { Bus, BusMessage, Consumer } from '../../../infra/bus/port.js';
import { enqueueOutbox } from '../../../processes/outbox/enqueue-outbox.js';
import { outboxMigrations, type OutboxTables } from '../../../processes/outbox/migrations.js';
import {
  OutboxDispatcher,
  notifyOutboxWritten,
  type OutboxDispatcherOptions,
} from '../../../processes/outbox/outbox-dispatcher.js';
import { gate, uniqueName, waitFor } from '../../bus/polling.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import type { BusWorld } from '../../bus/contract.js';

/** Delegates to a real bus; `failEnqueue` decides per call whether the bus "is down". */
class ScriptedBus implements Bus {
  readonly name: Bus['name'];
  enqueued: string[] = [];
  constructor(
    private readonly inner: Bus,
    private readonly before: (id: string) => Promise<void> = async () => undefined,
  ) {
    this.name = inner.name;
  }
  notify(subject: string, data?: unknown) {
    return this.inner.notify(subject, data);
  }
  onNotify(subject: string, handler: (data: unknown) => void) {
    return this.inner.onNotify(subject, handler);
  }
  async enqueue(queue: string, message: { id: string; data: unknown }) {
    await this.before(message.id);
    await this.inner.enqueue(queue, message);
    this.enqueued.push(message.id);
  }
  consume(...args: Parameters<Bus['consume']>) {
    return this.inner.consume(...args);
  }
  close() {
    return this.inner.close();
  }
}

export function outboxSuite(createWorld: () => BusWorld | Promise<BusWorld>): void {
  let database: TestDatabase<OutboxTables>;
  let world: BusWorld;
  let buses: Bus[];
  let consumers: Consumer[];
  let dispatchers: OutboxDispatcher[];

  beforeAll(async () => {
    database = await createTestDatabase<OutboxTables>(outboxMigrations);
  });
  afterAll(async () => {
    await database.drop();
  });
  beforeEach(async () => {
    await sql`truncate outbox`.execute(database.db);
    world = await createWorld();
    buses = [];
    consumers = [];
    dispatchers = [];
  });
  afterEach(async () => {
    await Promise.all(dispatchers.map((d) => d.stop()));
    await Promise.all(consumers.map((c) => c.stop()));
    await Promise.all(buses.map((b) => b.close()));
  });

  async function open(): Promise<Bus> {
    const bus = await world.open();
    buses.push(bus);
    return bus;
  }

  function dispatcher(options: Omit<OutboxDispatcherOptions, 'db'>): OutboxDispatcher {
    const d = new OutboxDispatcher({
      db: database.db,
      pollIntervalMs: 100,
      retryDelay: () => 100,
      // Per test, so a leftover dispatcher of another test or run is never woken by this one.
      notifySubject: uniqueName('outbox-written'),
      ...options,
    });
    dispatchers.push(d);
    return d;
  }

  async function collect(bus: Bus, queue: string): Promise<BusMessage[]> {
    const received: BusMessage[] = [];
    consumers.push(
      await bus.consume(
        queue,
        async (m) => {
          received.push(m);
        },
        { concurrency: 8 },
      ),
    );
    return received;
  }

  async function rows() {
    return database.db.selectFrom('outbox').selectAll().orderBy('id').execute();
  }

  test('rows of a rolled-back transaction are never dispatched; committed ones reach the consumer', async () => {
    const bus = await open();
    const queue = uniqueName('q');
    const rolledBack = uniqueName('rolled-back');
    const committed = uniqueName('committed');
    await expect(
      database.db.transaction().execute(async (trx) => {
        await enqueueOutbox(trx, { id: rolledBack, destination: queue, payload: { n: 0 } });
        throw new Error('decision abandoned');
      }),
    ).rejects.toThrow('decision abandoned');
    await database.db.transaction().execute(async (trx) => {
      await enqueueOutbox(trx, { id: committed, destination: queue, payload: { n: 1, list: [1, 2] } });
    });

    const received = await collect(bus, queue);
    await dispatcher({ bus }).start();
    await waitFor(() => received.length >= 1, 'the committed message');
    await dispatchers[0]!.stop();

    expect(received.map((m) => [m.id, m.data])).toEqual([[committed, { n: 1, list: [1, 2] }]]);
    const [row, ...others] = await rows();
    expect(others).toEqual([]);
    expect(row).toMatchObject({ id: committed, attempts: 0, last_error: null });
    expect(row?.dispatched_at).not.toBeNull();
  });

  test('enqueueOutbox with an id already written keeps the first message', async () => {
    const id = uniqueName('same');
    await enqueueOutbox(database.db, { id, destination: 'first.queue', payload: 'first' });
    await database.db.transaction().execute(async (trx) => {
      await enqueueOutbox(trx, { id, destination: 'second.queue', payload: 'second' });
    });
    expect((await rows()).map((r) => [r.id, r.destination, r.payload])).toEqual([
      [id, 'first.queue', 'first'],
    ]);
  });

  test('a message the bus refused is retried later and delivered; its neighbours are not held up', async () => {
    const real = await open();
    const queue = uniqueName('q');
    const refusedOnce = uniqueName('refused-once');
    const fine = uniqueName('fine');
    const failed = new Set<string>();
    const bus = new ScriptedBus(real, async (id) => {
      if (id === refusedOnce && !failed.has(id)) {
        failed.add(id);
        throw new Error('bus unavailable');
      }
    });
    await database.db.transaction().execute(async (trx) => {
      await enqueueOutbox(trx, { id: refusedOnce, destination: queue, payload: 1 });
      await enqueueOutbox(trx, { id: fine, destination: queue, payload: 2 });
    });

    const received = await collect(real, queue);
    await dispatcher({ bus }).start();
    await waitFor(() => received.some((m) => m.id === refusedOnce), 'the refused message, later');
    // Stopping finishes the round, so its transaction (marking the row dispatched) has committed.
    await dispatchers[0]!.stop();

    expect(failed.has(refusedOnce)).toBe(true);
    expect(received.map((m) => m.id).sort()).toEqual([fine, refusedOnce].sort());
    const byId = new Map((await rows()).map((r) => [r.id, r]));
    expect(byId.get(refusedOnce)).toMatchObject({ attempts: 1, last_error: 'bus unavailable' });
    expect(byId.get(refusedOnce)?.dispatched_at).not.toBeNull();
    expect(byId.get(fine)).toMatchObject({ attempts: 0, last_error: null });
  });

  test('two dispatchers at once skip each other’s claimed rows and lose none', async () => {
    const queue = uniqueName('q');
    const ids = Array.from({ length: 200 }, (_, i) => `${uniqueName('row')}-${String(i).padStart(3, '0')}`);
    await database.db.transaction().execute(async (trx) => {
      for (const id of ids) await enqueueOutbox(trx, { id, destination: queue, payload: { id } });
    });

    // The first dispatcher stalls inside its first round, holding its rows' locks, until the second has
    // sent something: with a plain `for update` the second would wait on those locks and never send.
    const secondSent = gate();
    let stalled = false;
    const first = new ScriptedBus(await open(), async () => {
      if (stalled) return;
      stalled = true;
      await secondSent.promise;
    });
    const second = new ScriptedBus(await open(), async () => secondSent.open());
    const received = await collect(await open(), queue);

    const startingFirst = dispatcher({ bus: first, batchSize: 10 }).start();
    const startingSecond = (async () => {
      await waitFor(() => stalled, 'the first dispatcher to hold its batch');
      await dispatcher({ bus: second, batchSize: 10 }).start();
    })();
    try {
      await waitFor(() => second.enqueued.length > 0, 'the second dispatcher to send past the held rows');
      await waitFor(
        () => new Set(received.map((m) => m.id)).size >= ids.length,
        'every row at the consumer',
        {
          timeoutMs: 30_000,
        },
      );
    } finally {
      secondSent.open();
      await Promise.all([startingFirst, startingSecond]);
    }
    await Promise.all(dispatchers.map((d) => d.stop()));

    // At least once: every id arrives (a duplicate would be allowed, a missing id never).
    expect([...new Set(received.map((m) => m.id))].sort()).toEqual([...ids].sort());
    expect(first.enqueued.length).toBeGreaterThan(0);
    expect(second.enqueued.length).toBeGreaterThan(0);
    expect(new Set([...first.enqueued, ...second.enqueued]).size).toBe(ids.length);
    const undispatched = await database.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('dispatched_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(undispatched.n)).toBe(0);
  });

  test('a notify after commit wakes a dispatcher long before its next poll', async () => {
    const bus = await open();
    const queue = uniqueName('q');
    const id = uniqueName('woken');
    const received = await collect(bus, queue);
    const notifySubject = uniqueName('outbox-written');
    // start() returns after its first round, which finds nothing; the next poll is an hour away.
    await dispatcher({ bus, notifySubject, pollIntervalMs: 3_600_000 }).start();

    await enqueueOutbox(database.db, { id, destination: queue, payload: null });
    await notifyOutboxWritten(bus, notifySubject);
    await waitFor(() => received.length >= 1, 'the woken dispatch');

    expect(received.map((m) => [m.id, m.data])).toEqual([[id, null]]);
  });
}
