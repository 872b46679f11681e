// The event store contract: one vitest suite every adapter must pass (ARCHITECTURE.md, "Event store contract").
// Tests scope themselves by a unique stream prefix, so they hold on a shared log such as one EventStoreDB server.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import {
  DuplicateEventId,
  EmptyAppend,
  WrongExpectedVersion,
  type Checkpoint,
  type EventFilter,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
} from '../../infra/event-store/port.js';

export interface EventStoreContractHarness {
  /** A store ready to use; closed by the suite after each test. */
  open(): Promise<EventStore>;
  /**
   * What a second append of an already stored event id does. `rejected`: DuplicateEventId, nothing written.
   * `idempotent-retry`: repeating the same append (same ids, same expectation) succeeds without writing twice,
   * which is how EventStoreDB de-duplicates.
   */
  duplicateIds: 'rejected' | 'idempotent-retry';
}

export function newEvent(type: string, data: unknown = {}, id?: string): NewEvent {
  return {
    ...(id ? { id } : {}),
    type,
    data,
    metadata: {
      orgId: 'org-1',
      actor: 'system',
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: '2026-01-01T00:00:00.000Z',
      schemaVersion: 1,
    },
  };
}

/**
 * Reads every page from `from` to the visible end, and on past `through` when given: a store may show an append
 * to readers a little later (PostgreSQL waits for older transactions anywhere on the server to finish).
 */
export async function readAllToEnd(
  store: EventStore,
  from: Checkpoint,
  filter?: EventFilter,
  options: { limit?: number; through?: Checkpoint } = {},
): Promise<{ events: RecordedEvent[]; checkpoint: Checkpoint }> {
  const events: RecordedEvent[] = [];
  let checkpoint = from;
  for (;;) {
    const page = await store.readAll({ from: checkpoint, filter, limit: options.limit ?? 1000 });
    events.push(...page.events);
    checkpoint = page.checkpoint;
    if (!page.isEnd) continue;
    if (!options.through || store.compareCheckpoints(checkpoint, options.through) >= 0) {
      return { events, checkpoint };
    }
    await store.waitForAppend(50);
  }
}

/**
 * Collects a subscription's deliveries; `until` settles when a predicate holds after a delivery (no clock involved)
 * and rejects if the subscription reports an error, so a dead subscription fails the test instead of hanging it.
 */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export function collector() {
  const events: RecordedEvent[] = [];
  const waiting: { predicate: () => boolean; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let failure: { error: unknown } | null = null;
  const check = () => {
    for (const w of [...waiting]) {
      if (w.predicate()) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  return {
    events,
    onEvent: async (event: RecordedEvent) => {
      events.push(event);
      check();
    },
    onError: (error: unknown) => {
      failure = { error };
      for (const w of waiting.splice(0)) w.reject(asError(error));
    },
    until(predicate: () => boolean): Promise<void> {
      if (predicate()) return Promise.resolve();
      if (failure) return Promise.reject(asError(failure.error));
      return new Promise((resolve, reject) => waiting.push({ predicate, resolve, reject }));
    },
  };
}

export function eventStoreContract(adapter: string, harness: EventStoreContractHarness): void {
  describe(`event store contract: ${adapter}`, () => {
    const opened: EventStore[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });
    const open = async () => {
      const store = await harness.open();
      opened.push(store);
      return store;
    };
    /** A category unique to one test, so reads of $all can be scoped to what the test wrote. */
    const category = () => `c${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const headOf = async (store: EventStore) => (await readAllToEnd(store, store.start)).checkpoint;

    describe('expected revision', () => {
      const onAbsent: [ExpectedRevision, boolean][] = [
        ['no_stream', true],
        ['any', true],
        ['stream_exists', false],
        [0, false],
        [3, false],
      ];
      test.each(onAbsent)('absent stream, expected %s: accepted=%s', async (expected, accepted) => {
        const store = await open();
        const stream = `${category()}-1`;
        const append = store.appendToStream(stream, [newEvent('A')], { expectedRevision: expected });
        if (accepted) {
          await expect(append).resolves.toMatchObject({ nextExpectedRevision: 0 });
          expect(await store.streamRevision(stream)).toBe(0);
        } else {
          const error = await append.then(
            () => null,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(WrongExpectedVersion);
          expect(error).toMatchObject({ stream, expected, actual: 'no_stream' });
          expect(await store.streamRevision(stream)).toBeNull();
          expect(await store.readStream(stream)).toEqual([]);
        }
      });

      const onExisting: [ExpectedRevision, boolean][] = [
        ['no_stream', false],
        ['any', true],
        ['stream_exists', true],
        [1, true],
        [0, false],
        [2, false],
      ];
      test.each(onExisting)('stream at revision 1, expected %s: accepted=%s', async (expected, accepted) => {
        const store = await open();
        const stream = `${category()}-1`;
        await store.appendToStream(stream, [newEvent('A'), newEvent('B')], { expectedRevision: 'no_stream' });
        const append = store.appendToStream(stream, [newEvent('C')], { expectedRevision: expected });
        if (accepted) {
          await expect(append).resolves.toMatchObject({ nextExpectedRevision: 2 });
          expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
        } else {
          const error = await append.then(
            () => null,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(WrongExpectedVersion);
          expect(error).toMatchObject({ stream, expected, actual: 1 });
          expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B']);
        }
      });

      test('the returned revision is the next expectation', async () => {
        const store = await open();
        const stream = `${category()}-1`;
        let expected: ExpectedRevision = 'no_stream';
        for (let i = 0; i < 3; i++) {
          const result = await store.appendToStream(stream, [newEvent('A'), newEvent('B')], {
            expectedRevision: expected,
          });
          expect(result.nextExpectedRevision).toBe(i * 2 + 1);
          expected = result.nextExpectedRevision;
        }
        expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5]);
      });

      test('a malformed expectation is refused before anything is written', async () => {
        const store = await open();
        const stream = `${category()}-1`;
        for (const bad of [-1, 1.5, Number.NaN]) {
          await expect(
            store.appendToStream(stream, [newEvent('A')], { expectedRevision: bad }),
          ).rejects.toBeInstanceOf(RangeError);
        }
        expect(await store.streamRevision(stream)).toBeNull();
      });
    });

    describe('appends', () => {
      test('an empty append is refused and creates nothing', async () => {
        const store = await open();
        const stream = `${category()}-1`;
        for (const expectedRevision of ['no_stream', 'any'] as const) {
          await expect(store.appendToStream(stream, [], { expectedRevision })).rejects.toBeInstanceOf(
            EmptyAppend,
          );
        }
        expect(await store.streamRevision(stream)).toBeNull();
      });

      test('an id repeated within one append is refused and nothing is written', async () => {
        const store = await open();
        const stream = `${category()}-1`;
        const id = randomUUID();
        const error = await store
          .appendToStream(stream, [newEvent('A', {}, id), newEvent('B', {}, id)], { expectedRevision: 'any' })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(error).toBeInstanceOf(DuplicateEventId);
        expect(error).toMatchObject({ eventId: id });
        expect(await store.readStream(stream)).toEqual([]);
      });

      test('an id already in the store is never recorded twice', async () => {
        const store = await open();
        const prefix = `${category()}-`;
        const stream = `${prefix}1`;
        const id = randomUUID();
        const first = await store.appendToStream(stream, [newEvent('A', { n: 1 }, id)], {
          expectedRevision: 'no_stream',
        });
        if (harness.duplicateIds === 'rejected') {
          const again = await store
            .appendToStream(stream, [newEvent('A', { n: 2 }, id)], { expectedRevision: 0 })
            .then(
              () => null,
              (e: unknown) => e,
            );
          expect(again).toBeInstanceOf(DuplicateEventId);
          expect(again).toMatchObject({ eventId: id });
          await expect(
            store.appendToStream(`${prefix}2`, [newEvent('A', {}, id)], { expectedRevision: 'any' }),
          ).rejects.toBeInstanceOf(DuplicateEventId);
        } else {
          await store.appendToStream(stream, [newEvent('A', { n: 1 }, id)], {
            expectedRevision: 'no_stream',
          });
        }
        const all = await readAllToEnd(
          store,
          store.start,
          { streamPrefixes: [prefix] },
          { through: first.position },
        );
        expect(all.events.map((e) => e.id)).toEqual([id]);
        expect(await store.streamRevision(stream)).toBe(0);
      });

      test('an id that is not a UUID is refused', async () => {
        const store = await open();
        const stream = `${category()}-1`;
        await expect(
          store.appendToStream(stream, [newEvent('A', {}, 'not-a-uuid')], { expectedRevision: 'any' }),
        ).rejects.toBeInstanceOf(TypeError);
        expect(await store.streamRevision(stream)).toBeNull();
      });

      test('an event keeps its id, type, data and metadata', async () => {
        const store = await open();
        const stream = `${category()}-1`;
        const event = newEvent('PostGroupCreated', { title: 'Hello', tags: ['a', 'b'], nested: { n: 1 } });
        const id = randomUUID();
        const result = await store.appendToStream(stream, [{ ...event, id }], {
          expectedRevision: 'no_stream',
        });
        const [recorded] = await store.readStream(stream);
        expect(recorded).toMatchObject({
          id,
          streamName: stream,
          revision: 0,
          type: 'PostGroupCreated',
          data: event.data,
          metadata: event.metadata,
          position: result.position,
        });
        expect(new Date(recorded!.recordedAt).toISOString()).toBe(recorded!.recordedAt);
      });

      test('later appends have later positions', async () => {
        const store = await open();
        const stream = `${category()}-1`;
        const first = await store.appendToStream(stream, [newEvent('A')], { expectedRevision: 'no_stream' });
        const second = await store.appendToStream(`${category()}-2`, [newEvent('B')], {
          expectedRevision: 'no_stream',
        });
        expect(store.compareCheckpoints(store.start, first.position)).toBeLessThan(0);
        expect(store.compareCheckpoints(first.position, second.position)).toBeLessThan(0);
        expect(store.compareCheckpoints(second.position, first.position)).toBeGreaterThan(0);
        expect(store.compareCheckpoints(second.position, second.position)).toBe(0);
        expect(store.compareCheckpoints(store.start, store.start)).toBe(0);
      });
    });

    describe('readStream', () => {
      const seed = async (store: EventStore, stream: string, n: number) => {
        const events = Array.from({ length: n }, (_, i) => newEvent(`E${i}`, { i }));
        await store.appendToStream(stream, events, { expectedRevision: 'no_stream' });
      };

      test('an absent stream reads as empty and has no revision', async () => {
        const store = await open();
        const stream = `${category()}-1`;
        expect(await store.readStream(stream)).toEqual([]);
        expect(await store.streamRevision(stream)).toBeNull();
      });

      test('reads in revision order, from a revision, up to a revision, at most maxCount', async () => {
        const store = await open();
        const stream = `${category()}-1`;
        await seed(store, stream, 10);
        await store.appendToStream(`${category()}-other`, [newEvent('X')], { expectedRevision: 'any' });
        const revisions = async (options: Parameters<EventStore['readStream']>[1]) =>
          (await store.readStream(stream, options)).map((e) => e.revision);
        expect(await revisions({})).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(await revisions({ fromRevision: 7 })).toEqual([7, 8, 9]);
        expect(await revisions({ toRevision: 3 })).toEqual([0, 1, 2, 3]);
        expect(await revisions({ fromRevision: 2, toRevision: 4 })).toEqual([2, 3, 4]);
        expect(await revisions({ maxCount: 2 })).toEqual([0, 1]);
        expect(await revisions({ fromRevision: 5, maxCount: 2 })).toEqual([5, 6]);
        expect(await revisions({ fromRevision: 5, toRevision: 6, maxCount: 10 })).toEqual([5, 6]);
        expect(await revisions({ fromRevision: 10 })).toEqual([]);
        expect(await revisions({ fromRevision: 4, toRevision: 3 })).toEqual([]);
        expect(await revisions({ maxCount: 0 })).toEqual([]);
        expect((await store.readStream(stream, { toRevision: 1 })).map((e) => e.data)).toEqual([
          { i: 0 },
          { i: 1 },
        ]);
        expect(await store.streamRevision(stream)).toBe(9);
      });
    });

    describe('readAll', () => {
      test('pages through the log in append order without repeating or missing an event', async () => {
        const store = await open();
        const prefix = `${category()}-`;
        const from = await headOf(store);
        const ids: string[] = [];
        let last = from;
        for (let i = 0; i < 7; i++) {
          const event = { ...newEvent('A', { i }), id: randomUUID() };
          ids.push(event.id);
          last = (await store.appendToStream(`${prefix}${i % 3}`, [event], { expectedRevision: 'any' }))
            .position;
        }
        await readAllToEnd(store, from, { streamPrefixes: [prefix] }, { through: last });
        const seen: RecordedEvent[] = [];
        let checkpoint = from;
        let pages = 0;
        for (;;) {
          const page = await store.readAll({
            from: checkpoint,
            filter: { streamPrefixes: [prefix] },
            limit: 2,
          });
          pages += 1;
          for (const event of page.events) {
            expect(store.compareCheckpoints(event.position, checkpoint)).toBeGreaterThan(0);
            checkpoint = event.position;
          }
          seen.push(...page.events);
          expect(store.compareCheckpoints(page.checkpoint, checkpoint)).toBeGreaterThanOrEqual(0);
          checkpoint = page.checkpoint;
          if (page.isEnd) break;
          expect(page.events).toHaveLength(2);
        }
        expect(seen.map((e) => e.id)).toEqual(ids);
        expect(pages).toBeGreaterThanOrEqual(4);
        const rest = await store.readAll({ from: checkpoint, filter: { streamPrefixes: [prefix] } });
        expect(rest.events).toEqual([]);
        expect(rest.isEnd).toBe(true);
      });

      test('filters by event type and by stream prefix', async () => {
        const store = await open();
        const a = `${category()}-`;
        const b = `${category()}-`;
        const from = await headOf(store);
        await store.appendToStream(`${a}1`, [newEvent('Kept'), newEvent('Dropped')], {
          expectedRevision: 'any',
        });
        await store.appendToStream(`${b}1`, [newEvent('Kept'), newEvent('Other')], {
          expectedRevision: 'any',
        });
        const last = await store.appendToStream(`${a}2`, [newEvent('Other')], { expectedRevision: 'any' });
        const pick = async (filter: EventFilter) =>
          (await readAllToEnd(store, from, filter, { through: last.position })).events.map(
            (e) => `${e.streamName}:${e.type}`,
          );
        expect(await pick({ streamPrefixes: [a] })).toEqual([`${a}1:Kept`, `${a}1:Dropped`, `${a}2:Other`]);
        expect(await pick({ streamPrefixes: [a, b] })).toHaveLength(5);
        expect(await pick({ streamPrefixes: [a], eventTypes: ['Kept', 'Other'] })).toEqual([
          `${a}1:Kept`,
          `${a}2:Other`,
        ]);
        expect(await pick({ streamPrefixes: [a, b], eventTypes: ['Kept'] })).toEqual([
          `${a}1:Kept`,
          `${b}1:Kept`,
        ]);
      });

      test('a prefix is a prefix, not a pattern', async () => {
        const store = await open();
        const base = category();
        const from = await headOf(store);
        await store.appendToStream(`${base}_x-1`, [newEvent('A')], { expectedRevision: 'any' });
        const last = await store.appendToStream(`${base}ax-1`, [newEvent('A')], { expectedRevision: 'any' });
        const filter = { streamPrefixes: [`${base}_`] };
        const names = (await readAllToEnd(store, from, filter, { through: last.position })).events.map(
          (e) => e.streamName,
        );
        expect(names).toEqual([`${base}_x-1`]);
      });

      test('a filtered reader advances past events that do not match', async () => {
        const store = await open();
        const prefix = `${category()}-`;
        const filter = { streamPrefixes: [prefix], eventTypes: ['Wanted'] };
        const before = await readAllToEnd(store, store.start, filter);
        await store.appendToStream(`${prefix}1`, [newEvent('Unwanted'), newEvent('Unwanted')], {
          expectedRevision: 'any',
        });
        const last = await store.appendToStream(`${category()}-1`, [newEvent('Wanted')], {
          expectedRevision: 'any',
        });
        // Terminates only if empty filtered pages move the checkpoint past the unmatched events.
        const page = await readAllToEnd(store, before.checkpoint, filter, { through: last.position });
        expect(page.events).toEqual([]);
        expect(store.compareCheckpoints(page.checkpoint, last.position)).toBeGreaterThanOrEqual(0);
        const wanted = await store.appendToStream(`${prefix}1`, [newEvent('Wanted')], {
          expectedRevision: 1,
        });
        const next = await readAllToEnd(store, page.checkpoint, filter, { through: wanted.position });
        expect(next.events.map((e) => e.position)).toEqual([wanted.position]);
      });
    });

    describe('subscribeToAll', () => {
      test('catches up, goes live, delivers in order, never twice', async () => {
        const store = await open();
        const prefix = `${category()}-`;
        const from = await headOf(store);
        const ids: string[] = [];
        const append = async (stream: string, type = 'A') => {
          const id = randomUUID();
          ids.push(id);
          await store.appendToStream(stream, [newEvent(type, {}, id)], { expectedRevision: 'any' });
        };
        for (let i = 0; i < 5; i++) await append(`${prefix}${i % 2}`);
        const got = collector();
        let caughtUp = 0;
        const subscription = store.subscribeToAll({
          from,
          filter: { streamPrefixes: [prefix] },
          onEvent: got.onEvent,
          onError: got.onError,
          onCaughtUp: () => {
            caughtUp += 1;
          },
        });
        await got.until(() => got.events.length >= 5);
        for (let i = 0; i < 5; i++) await append(`${prefix}${i % 2}`);
        await append(`${prefix}end`, 'End');
        await got.until(() => got.events.some((e) => e.type === 'End'));
        await subscription.stop();
        expect(got.events.map((e) => e.id)).toEqual(ids);
        for (let i = 1; i < got.events.length; i++) {
          expect(store.compareCheckpoints(got.events[i - 1]!.position, got.events[i]!.position)).toBeLessThan(
            0,
          );
        }
        expect(caughtUp).toBeGreaterThanOrEqual(1);
      });

      test('resumes from a stored checkpoint with the next event', async () => {
        const store = await open();
        const prefix = `${category()}-`;
        const results = [];
        for (let i = 0; i < 6; i++) {
          results.push(
            await store.appendToStream(`${prefix}1`, [newEvent('A', { i })], { expectedRevision: 'any' }),
          );
        }
        const stored = results[2]!.position;
        const got = collector();
        const subscription = store.subscribeToAll({
          from: stored,
          filter: { streamPrefixes: [prefix] },
          onEvent: got.onEvent,
          onError: got.onError,
        });
        await store.appendToStream(`${prefix}1`, [newEvent('End')], { expectedRevision: 5 });
        await got.until(() => got.events.some((e) => e.type === 'End'));
        await subscription.stop();
        expect(got.events.map((e) => e.revision)).toEqual([3, 4, 5, 6]);
      });

      test('a filtered subscription delivers only matches and reports progress past the rest', async () => {
        const store = await open();
        const prefix = `${category()}-`;
        const from = await headOf(store);
        const got = collector();
        const checkpoints: Checkpoint[] = [];
        const subscription = store.subscribeToAll({
          from,
          filter: { streamPrefixes: [prefix], eventTypes: ['Wanted', 'End'] },
          onEvent: got.onEvent,
          onError: got.onError,
          onCheckpoint: async (checkpoint) => {
            checkpoints.push(checkpoint);
          },
        });
        await store.appendToStream(`${prefix}1`, [newEvent('Unwanted'), newEvent('Wanted')], {
          expectedRevision: 'any',
        });
        await store.appendToStream(`${category()}-1`, [newEvent('Wanted')], { expectedRevision: 'any' });
        await store.appendToStream(`${prefix}1`, [newEvent('End')], { expectedRevision: 'any' });
        await got.until(() => got.events.some((e) => e.type === 'End'));
        await subscription.stop();
        expect(got.events.map((e) => `${e.streamName}:${e.type}`)).toEqual([
          `${prefix}1:Wanted`,
          `${prefix}1:End`,
        ]);
        for (const checkpoint of checkpoints)
          expect(store.compareCheckpoints(checkpoint, from)).toBeGreaterThan(0);
      });

      test('delivers one event at a time and nothing after stop', async () => {
        const store = await open();
        const prefix = `${category()}-`;
        const from = await headOf(store);
        let running = 0;
        let overlapped = false;
        const got = collector();
        const subscription = store.subscribeToAll({
          from,
          filter: { streamPrefixes: [prefix] },
          onEvent: async (event) => {
            running += 1;
            if (running > 1) overlapped = true;
            await new Promise((resolve) => setImmediate(resolve));
            running -= 1;
            await got.onEvent(event);
          },
        });
        await store.appendToStream(`${prefix}1`, [newEvent('A'), newEvent('B'), newEvent('C')], {
          expectedRevision: 'no_stream',
        });
        await got.until(() => got.events.length >= 3);
        await subscription.stop();
        await subscription.done;
        await store.appendToStream(`${prefix}1`, [newEvent('D')], { expectedRevision: 2 });
        // The next subscription seeing D proves the append is visible, so the stopped one had its chance.
        const after = collector();
        const probe = store.subscribeToAll({
          from,
          filter: { streamPrefixes: [prefix] },
          onEvent: after.onEvent,
        });
        await after.until(() => after.events.length >= 4);
        await probe.stop();
        expect(overlapped).toBe(false);
        expect(got.events.map((e) => e.type)).toEqual(['A', 'B', 'C']);
      });

      test('a failing handler ends the subscription and reports the error', async () => {
        const store = await open();
        const prefix = `${category()}-`;
        const from = await headOf(store);
        const errors: unknown[] = [];
        const boom = new Error('handler failed');
        const subscription = store.subscribeToAll({
          from,
          filter: { streamPrefixes: [prefix] },
          onEvent: async () => {
            throw boom;
          },
          onError: (error) => errors.push(error),
        });
        await store.appendToStream(`${prefix}1`, [newEvent('A')], { expectedRevision: 'no_stream' });
        await subscription.done;
        expect(errors).toEqual([boom]);
      });
    });

    test('waitForAppend wakes on an append', async () => {
      const store = await open();
      const controller = new AbortController();
      let woke = false;
      const waiting = store.waitForAppend(600_000, controller.signal).then(() => {
        woke = true;
      });
      const stream = `${category()}-1`;
      await store.streamRevision(stream);
      expect(woke).toBe(false);
      // Keep appending until the wait ends: the first append may land before the waiter is registered.
      let expected: ExpectedRevision = 'no_stream';
      while (!woke) {
        expected = (await store.appendToStream(stream, [newEvent('A')], { expectedRevision: expected }))
          .nextExpectedRevision;
        await Promise.race([waiting, new Promise((resolve) => setImmediate(resolve))]);
      }
      await waiting;
      expect(woke).toBe(true);
    });

    test('waitForAppend returns when aborted', async () => {
      const store = await open();
      const controller = new AbortController();
      const waiting = store.waitForAppend(600_000, controller.signal);
      controller.abort();
      await expect(waiting).resolves.toBeUndefined();
    });
  });
}
