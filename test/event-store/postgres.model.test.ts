// Model-based test of the PostgreSQL event store: random appends (with conflicting expectations, duplicate ids and
// empty batches), stream reads and paged $all reads are checked against an in-memory model of streams and one log.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventStoreMigrations } from '../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.js';
import {
  DuplicateEventId,
  EmptyAppend,
  WrongExpectedVersion,
  type Checkpoint,
  type EventFilter,
  type ExpectedRevision,
} from '../../infra/event-store/port.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { collector, newEvent, readAllToEnd } from './contract.js';
import { propertyRuns } from '../support/property-runs.js';

interface LoggedEvent {
  id: string;
  stream: string;
  revision: number;
  type: string;
}

interface Model {
  log: LoggedEvent[];
  revisions: Map<string, number>;
}

interface Real {
  store: PostgresEventStore<unknown>;
  prefix: string;
  filter: EventFilter;
  /** A paging reader that continues from its checkpoint across commands. */
  cursor: Checkpoint;
  paged: string[];
  lastPosition: Checkpoint;
}

const STREAMS = 3;
type Expectation = 'no_stream' | 'stream_exists' | 'any' | 'current' | 'stale' | 'ahead';

function expectationFor(kind: Expectation, current: number | undefined): ExpectedRevision {
  switch (kind) {
    case 'no_stream':
    case 'stream_exists':
    case 'any':
      return kind;
    case 'current':
      return current ?? 0;
    case 'stale':
      return Math.max(0, (current ?? 0) - 1);
    case 'ahead':
      return (current ?? -1) + 1;
    default: {
      const never: never = kind;
      return never;
    }
  }
}

function accepts(expected: ExpectedRevision, current: number | undefined): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === undefined;
  if (expected === 'stream_exists') return current !== undefined;
  return expected === current;
}

class Append implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly streamIndex: number,
    readonly types: string[],
    readonly expectation: Expectation,
    /** When set, the first event reuses the id of the logged event at this index (modulo the log length). */
    readonly reuseId: number | null,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const stream = `${real.prefix}${this.streamIndex}`;
    const current = model.revisions.get(stream);
    const expected = expectationFor(this.expectation, current);
    const reused =
      this.reuseId !== null && model.log.length > 0 ? model.log[this.reuseId % model.log.length] : null;
    const events = this.types.map((type, i) => ({
      ...newEvent(type),
      id: i === 0 && reused ? reused.id : randomUUID(),
    }));
    const outcome = await real.store.appendToStream(stream, events, { expectedRevision: expected }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    if (events.length === 0) {
      expect(outcome).toMatchObject({ error: expect.any(EmptyAppend) });
    } else if (!accepts(expected, current)) {
      expect(outcome).toMatchObject({ error: expect.any(WrongExpectedVersion) });
      expect((outcome as { error: WrongExpectedVersion }).error.actual).toBe(current ?? 'no_stream');
    } else if (reused) {
      expect(outcome).toMatchObject({ error: expect.any(DuplicateEventId) });
    } else {
      if (!('result' in outcome)) throw outcome.error;
      const first = (current ?? -1) + 1;
      expect(outcome.result.nextExpectedRevision).toBe(first + events.length - 1);
      events.forEach((e, i) => model.log.push({ id: e.id, stream, revision: first + i, type: e.type }));
      model.revisions.set(stream, first + events.length - 1);
      real.lastPosition = outcome.result.position;
    }
  }
  toString = () =>
    `append(${this.streamIndex}, [${this.types.join(',')}], ${this.expectation}${this.reuseId === null ? '' : `, reuse ${this.reuseId}`})`;
}

class ReadStream implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly streamIndex: number,
    readonly fromRevision: number | undefined,
    readonly toRevision: number | undefined,
    readonly maxCount: number | undefined,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const stream = `${real.prefix}${this.streamIndex}`;
    const options = {
      ...(this.fromRevision === undefined ? {} : { fromRevision: this.fromRevision }),
      ...(this.toRevision === undefined ? {} : { toRevision: this.toRevision }),
      ...(this.maxCount === undefined ? {} : { maxCount: this.maxCount }),
    };
    const actual = await real.store.readStream(stream, options);
    const expected = model.log
      .filter((e) => e.stream === stream)
      .filter((e) => e.revision >= (this.fromRevision ?? 0) && e.revision <= (this.toRevision ?? Infinity))
      .slice(0, this.maxCount ?? Infinity);
    expect(actual.map((e) => [e.id, e.revision, e.type])).toEqual(
      expected.map((e) => [e.id, e.revision, e.type]),
    );
    expect(await real.store.streamRevision(stream)).toBe(model.revisions.get(stream) ?? null);
  }
  toString = () =>
    `readStream(${this.streamIndex}, ${this.fromRevision}..${this.toRevision}, max ${this.maxCount})`;
}

class ReadAllPage implements fc.AsyncCommand<Model, Real> {
  constructor(readonly limit: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const page = await real.store.readAll({ from: real.cursor, filter: real.filter, limit: this.limit });
    expect(page.events.length).toBeLessThanOrEqual(this.limit);
    expect(real.store.compareCheckpoints(page.checkpoint, real.cursor)).toBeGreaterThanOrEqual(0);
    real.cursor = page.checkpoint;
    real.paged.push(...page.events.map((e) => e.id));
    // Visibility may trail the appends (older transactions elsewhere on the server), never reorder them.
    expect(real.paged).toEqual(model.log.slice(0, real.paged.length).map((e) => e.id));
  }
  toString = () => `readAll(limit ${this.limit})`;
}

const commandArbitraries = [
  fc
    .record({
      stream: fc.nat({ max: STREAMS - 1 }),
      types: fc.array(fc.constantFrom('Drafted', 'Approved', 'Scheduled'), { minLength: 0, maxLength: 3 }),
      expectation: fc.constantFrom<Expectation>(
        'no_stream',
        'stream_exists',
        'any',
        'current',
        'stale',
        'ahead',
      ),
      reuseId: fc.option(fc.nat(), { freq: 8 }),
    })
    .map(({ stream, types, expectation, reuseId }) => new Append(stream, types, expectation, reuseId)),
  fc
    .record({
      stream: fc.nat({ max: STREAMS - 1 }),
      from: fc.option(fc.nat({ max: 6 })),
      to: fc.option(fc.nat({ max: 8 })),
      max: fc.option(fc.nat({ max: 4 })),
    })
    .map(
      ({ stream, from, to, max }) =>
        new ReadStream(stream, from ?? undefined, to ?? undefined, max ?? undefined),
    ),
  fc.integer({ min: 1, max: 4 }).map((limit) => new ReadAllPage(limit)),
];

let database: TestDatabase<unknown>;

beforeAll(async () => {
  database = await createTestDatabase(eventStoreMigrations);
});
afterAll(async () => {
  await database.drop();
});

test('the PostgreSQL store behaves like the model, and a subscription delivers exactly the model log', async () => {
  await fc.assert(
    fc.asyncProperty(fc.commands(commandArbitraries, { maxCommands: 30 }), async (commands) => {
      const store = new PostgresEventStore({ db: database.db, url: database.url, pollIntervalMs: 20 });
      try {
        const prefix = `m${randomUUID().replaceAll('-', '')}-`;
        const filter = { streamPrefixes: [prefix] };
        const got = collector();
        const subscription = store.subscribeToAll({
          from: store.start,
          filter,
          onEvent: got.onEvent,
          onError: got.onError,
        });
        const model: Model = { log: [], revisions: new Map() };
        const real: Real = {
          store,
          prefix,
          filter,
          cursor: store.start,
          paged: [],
          lastPosition: store.start,
        };
        await fc.asyncModelRun(() => ({ model, real }), commands);

        const rest = await readAllToEnd(store, real.cursor, filter, { through: real.lastPosition });
        expect([...real.paged, ...rest.events.map((e) => e.id)]).toEqual(model.log.map((e) => e.id));
        // A marker after the last append: once it arrives, everything before it has been delivered.
        const marker = await store.appendToStream(`${prefix}end`, [newEvent('End')], {
          expectedRevision: 'no_stream',
        });
        await got.until(() => got.events.some((e) => e.position === marker.position));
        await subscription.stop();
        expect(got.events.slice(0, -1).map((e) => e.id)).toEqual(model.log.map((e) => e.id));
      } finally {
        await store.close();
      }
    }),
    { numRuns: propertyRuns(25) },
  );
});
