// Declared reads: a projection's event types come from the codecs it names, each stored event is decoded once
// (upcast and checked) with its envelope kept, and events of types no declared codec reads never reach the fold.
import { expect, test } from 'vitest';
import type { DomainEvent } from '../../../domain/shared/decider.js';
import { defineEventCodec, EventDecodingError } from '../../../domain/shared/event-codec.js';
import type { RecordedEvent } from '../../../infra/event-store/port.js';
import { eventReader, readsFrom } from '../../../projections/engine/event-sources.js';
import { defineProjection, type ReadModelTransaction } from '../../../projections/engine/projection.js';
import { testMetadata } from '../../support/events.js';

type ThingEvent =
  DomainEvent<'ThingMade', { id: string; size: number }> | DomainEvent<'ThingDropped', { id: string }>;
type OtherEvent = DomainEvent<'OtherHappened', { n: number }>;

let checks = 0;
const hasId = (data: unknown) => {
  checks += 1;
  return typeof (data as { id?: unknown }).id === 'string' ? undefined : 'data.id: not a string';
};
const thingCodec = defineEventCodec<ThingEvent>(
  'things',
  { ThingMade: { version: 2, check: hasId }, ThingDropped: { version: 1, check: hasId } },
  // Version 1 of ThingMade had no size.
  [{ type: 'ThingMade', fromVersion: 1, upcast: (data) => ({ ...data, size: 0 }) }],
);
const otherCodec = defineEventCodec<OtherEvent>('others', {
  OtherHappened: { version: 1, check: () => undefined },
});

function stored(type: string, data: unknown, revision = 0, schemaVersion = 1): RecordedEvent {
  return {
    id: `00000000-0000-4000-8000-00000000000${revision}`,
    streamName: `thing-${revision}`,
    revision,
    type,
    data,
    metadata: { ...testMetadata(), schemaVersion },
    position: `pg:1:${revision}`,
    recordedAt: '2026-01-01T00:00:00.000Z',
  };
}

// Folds nothing into a database: the fold only records what it was handed.
const noTransaction = undefined as unknown as ReadModelTransaction;

test('the types come from the codecs; a subset names only what it lists', () => {
  expect(eventReader([readsFrom(thingCodec), readsFrom(otherCodec)]).types).toEqual([
    'ThingMade',
    'ThingDropped',
    'OtherHappened',
  ]);
  expect(eventReader([readsFrom(thingCodec, ['ThingDropped'])]).types).toEqual(['ThingDropped']);
});

test('each stored event is decoded once, upcast, with its envelope; other types are skipped', async () => {
  const seen: unknown[] = [];
  const projection = defineProjection({
    name: 'things',
    version: 1,
    tables: ['things'],
    reads: [readsFrom(thingCodec, ['ThingMade'])],
    createTables: async () => undefined,
    async apply(_trx, event) {
      seen.push({ type: event.type, size: event.data.size, revision: event.revision, id: event.id });
    },
  });
  expect(projection.eventTypes).toEqual(['ThingMade']);
  checks = 0;
  await projection.fold(
    noTransaction,
    [
      stored('ThingMade', { id: 'a' }, 1, 1),
      stored('ThingDropped', { id: 'a' }, 2),
      stored('Unrelated', { whatever: true }, 3),
      stored('ThingMade', { id: 'b', size: 7 }, 4, 2),
    ],
    'schema',
  );
  expect(checks).toBe(2);
  expect(seen).toEqual([
    { type: 'ThingMade', size: 0, revision: 1, id: stored('x', null, 1).id },
    { type: 'ThingMade', size: 7, revision: 4, id: stored('x', null, 4).id },
  ]);
});

test('a batch fold gets the whole decoded page; malformed data is refused, not cast', async () => {
  const batches: string[][] = [];
  const projection = defineProjection({
    name: 'things',
    version: 1,
    tables: ['things'],
    reads: [readsFrom(thingCodec), readsFrom(otherCodec)],
    createTables: async () => undefined,
    apply: async () => undefined,
    async applyBatch(_trx, events) {
      batches.push(events.map((e) => e.type));
    },
  });
  await projection.fold(
    noTransaction,
    [
      stored('OtherHappened', { n: 1 }, 1),
      stored('Unrelated', {}, 2),
      stored('ThingDropped', { id: 'a' }, 3),
    ],
    'schema',
  );
  expect(batches).toEqual([['OtherHappened', 'ThingDropped']]);
  await expect(
    projection.fold(noTransaction, [stored('ThingDropped', { id: 1 }, 5)], 'schema'),
  ).rejects.toThrow(EventDecodingError);
});

test('a projection reading no event type is refused (an empty filter would mean every event)', () => {
  expect(() =>
    defineProjection({
      name: 'nothing',
      version: 1,
      tables: ['nothing'],
      reads: [readsFrom(thingCodec, [])],
      createTables: async () => undefined,
      apply: async () => undefined,
    }),
  ).toThrow(/reads no event types/);
});
