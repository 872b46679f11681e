// The bus contract: one suite every Bus adapter passes (wake-ups, durable queues, de-duplication,
// redelivery, ackWait, maxDeliver, competing consumers, stop). Adapters call busContract inside a describe.
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { Bus, BusMessage, Consumer } from '../../infra/bus/port.js';
import { gate, sleep, uniqueName, waitFor } from './polling.js';

/**
 * One deployment: every open() is a bus as one process sees it, sharing queues with the others
 * (a new connection on NATS, the same instance in-process). Handlers retried after a throw must come
 * back quickly (tests configure a short redelivery delay, ~50 ms).
 */
export interface BusWorld {
  open(): Promise<Bus>;
}

export function busContract(createWorld: () => BusWorld | Promise<BusWorld>): void {
  let world: BusWorld;
  let opened: Bus[];
  let consumers: Consumer[];

  async function open(): Promise<Bus> {
    const bus = await world.open();
    opened.push(bus);
    return bus;
  }

  async function consume(
    bus: Bus,
    queue: string,
    handler: (message: BusMessage) => Promise<void>,
    options?: Parameters<Bus['consume']>[2],
  ): Promise<Consumer> {
    const consumer = await bus.consume(queue, handler, options);
    consumers.push(consumer);
    return consumer;
  }

  beforeEach(async () => {
    world = await createWorld();
    opened = [];
    consumers = [];
  });

  afterEach(async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await Promise.all(opened.map((b) => b.close()));
  });

  test('notify reaches every current listener, wildcards included, and is lost when nobody listens', async () => {
    const listening = await open();
    const notifier = await open();
    const subject = uniqueName('wake');
    await notifier.notify(`${subject}.a`, { n: 0 });

    const exact: unknown[] = [];
    const wildcard: unknown[] = [];
    const unsubscribed: unknown[] = [];
    await listening.onNotify(`${subject}.a`, (data) => exact.push(data));
    await listening.onNotify(`${subject}.*`, (data) => wildcard.push(data));
    const off = await listening.onNotify(`${subject}.a`, (data) => unsubscribed.push(data));
    await off();

    await notifier.notify(`${subject}.a`, { n: 1, at: new Date(0) });
    await notifier.notify(`${subject}.b`);
    await waitFor(() => exact.length >= 1 && wildcard.length >= 2, 'both listeners');

    // Payloads cross the bus as JSON, in-process too, so no adapter leaks object identity or Dates.
    expect(exact).toEqual([{ n: 1, at: '1970-01-01T00:00:00.000Z' }]);
    expect(wildcard).toEqual([{ n: 1, at: '1970-01-01T00:00:00.000Z' }, undefined]);
    expect(unsubscribed).toEqual([]);
  });

  test('enqueue then consume delivers each message once, including work enqueued before any consumer', async () => {
    const bus = await open();
    const queue = uniqueName('q');
    const early = { id: uniqueName('m'), data: { step: 'early', tags: ['a'] } };
    const late = { id: uniqueName('m'), data: { step: 'late' } };
    await bus.enqueue(queue, early);

    const seen: BusMessage[] = [];
    await consume(
      bus,
      queue,
      async (m) => {
        seen.push(m);
      },
      { ackWaitMs: 500 },
    );
    await bus.enqueue(queue, late);
    await waitFor(() => seen.length >= 2, 'two deliveries');
    // Past ackWait: a message the adapter failed to ack would be back by now.
    await sleep(1500);

    expect(seen).toEqual([
      { id: early.id, queue, data: early.data, deliveryCount: 1 },
      { id: late.id, queue, data: late.data, deliveryCount: 1 },
    ]);
  });

  test('a second enqueue with the same id is dropped, from any bus instance', async () => {
    const first = await open();
    const second = await open();
    const queue = uniqueName('q');
    const duplicated = uniqueName('m');
    const after = uniqueName('m');
    await first.enqueue(queue, { id: duplicated, data: 'first' });
    await second.enqueue(queue, { id: duplicated, data: 'second' });
    await first.enqueue(queue, { id: after, data: 'after' });

    const seen: BusMessage[] = [];
    await consume(first, queue, async (m) => {
      seen.push(m);
    });
    // One consumer at concurrency 1 gets queue order, so a stored duplicate would arrive before `after`.
    await waitFor(() => seen.some((m) => m.id === after), 'the message after the duplicate');

    expect(seen.map((m) => [m.id, m.data])).toEqual([
      [duplicated, 'first'],
      [after, 'after'],
    ]);
  });

  test('a handler that throws gets the message again with deliveryCount 2', async () => {
    const bus = await open();
    const queue = uniqueName('q');
    const id = uniqueName('m');
    const seen: BusMessage[] = [];
    await consume(bus, queue, async (m) => {
      seen.push(m);
      if (m.deliveryCount === 1) throw new Error('transient failure');
    });
    await bus.enqueue(queue, { id, data: { attempt: 'x' } });
    await waitFor(() => seen.length >= 2, 'the redelivery');

    expect(seen.map((m) => [m.id, m.deliveryCount, m.data])).toEqual([
      [id, 1, { attempt: 'x' }],
      [id, 2, { attempt: 'x' }],
    ]);
  });

  test('a handler still running when ackWait passes does not hold the message: it is redelivered', async () => {
    const bus = await open();
    const queue = uniqueName('q');
    const id = uniqueName('m');
    const stuck = gate();
    const seen: BusMessage[] = [];
    await consume(
      bus,
      queue,
      async (m) => {
        seen.push(m);
        if (m.deliveryCount === 1) await stuck.promise;
      },
      // Two slots: the stuck first delivery keeps one busy, as a hung handler would.
      { ackWaitMs: 1000, concurrency: 2 },
    );
    await bus.enqueue(queue, { id, data: null });
    try {
      await waitFor(() => seen.length >= 2, 'the redelivery after ackWait');
    } finally {
      stuck.open();
    }

    expect(seen.map((m) => [m.id, m.deliveryCount])).toEqual([
      [id, 1],
      [id, 2],
    ]);
  });

  test('maxDeliver bounds the deliveries of a message that always fails, and the queue moves on', async () => {
    const bus = await open();
    const queue = uniqueName('q');
    const poison = uniqueName('m');
    const next = uniqueName('m');
    const seen: BusMessage[] = [];
    await consume(
      bus,
      queue,
      async (m) => {
        seen.push(m);
        if (m.id === poison) throw new Error('always fails');
      },
      { maxDeliver: 3 },
    );
    await bus.enqueue(queue, { id: poison, data: 1 });
    await waitFor(() => seen.length >= 3, 'three deliveries');
    // Many redelivery delays long: a fourth delivery would have come by now.
    await sleep(1000);
    await bus.enqueue(queue, { id: next, data: 2 });
    await waitFor(() => seen.some((m) => m.id === next), 'the next message');

    expect(seen.map((m) => [m.id, m.deliveryCount])).toEqual([
      [poison, 1],
      [poison, 2],
      [poison, 3],
      [next, 1],
    ]);
  });

  test('competing consumers split the work and each message is handled once when all succeed', async () => {
    const one = await open();
    const two = await open();
    const queue = uniqueName('q');
    const handledBy = new Map<string, string[]>();
    const handler = (name: string) => async (m: BusMessage) => {
      handledBy.set(m.id, [...(handledBy.get(m.id) ?? []), name]);
      // Slow enough that the other consumer is asked for the next message.
      await sleep(20);
    };
    const consumerOne = await consume(one, queue, handler('one'));
    const consumerTwo = await consume(two, queue, handler('two'));
    const ids = Array.from({ length: 20 }, (_, i) => `${uniqueName('m')}-${i}`);
    for (const id of ids) await one.enqueue(queue, { id, data: { id } });
    await waitFor(() => handledBy.size >= ids.length, 'all messages handled');
    await consumerOne.stop();
    await consumerTwo.stop();

    expect([...handledBy.keys()].sort()).toEqual([...ids].sort());
    const deliveries = [...handledBy.values()];
    expect(deliveries.every((names) => names.length === 1)).toBe(true);
    expect(deliveries.filter(([name]) => name === 'one').length).toBeGreaterThan(0);
    expect(deliveries.filter(([name]) => name === 'two').length).toBeGreaterThan(0);
  });

  test('stop() lets the in-flight handler finish and ack, then delivers nothing more to that consumer', async () => {
    const stopping = await open();
    const other = await open();
    const queue = uniqueName('q');
    const first = uniqueName('m');
    const release = gate();
    const seenByStopped: string[] = [];
    let finished = false;
    const consumer = await consume(
      stopping,
      queue,
      async (m) => {
        seenByStopped.push(m.id);
        await release.promise;
        finished = true;
      },
      { ackWaitMs: 1000 },
    );
    await stopping.enqueue(queue, { id: first, data: null });
    await waitFor(() => seenByStopped.length === 1, 'the first delivery');

    let stopped = false;
    const stop = consumer.stop().then(() => (stopped = true));
    await sleep(100);
    expect(stopped).toBe(false);
    release.open();
    await stop;
    expect(finished).toBe(true);

    const later = Array.from({ length: 10 }, (_, i) => `${uniqueName('m')}-${i}`);
    for (const id of later) await other.enqueue(queue, { id, data: null });
    const seenByOther: BusMessage[] = [];
    await consume(
      other,
      queue,
      async (m) => {
        seenByOther.push(m);
      },
      { ackWaitMs: 1000, concurrency: 4 },
    );
    await waitFor(() => seenByOther.length >= later.length, 'the later messages at the other consumer');
    // Past ackWait: had the drained handler's ack been lost, `first` would be back by now.
    await sleep(1500);

    expect(seenByStopped).toEqual([first]);
    expect(seenByOther.map((m) => m.id).sort()).toEqual([...later].sort());
  });
}
