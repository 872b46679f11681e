// What a projection or a process manager reads, declared with the slices' event codecs: the event types it is
// handed come from the codecs (all of a codec's types, or some of them), and each stored event is decoded once,
// on the way in, by the codec that knows its type. Events of other types are skipped.
import type { DomainEvent } from '../../domain/shared/decider.js';
import type { EventCodec } from '../../domain/shared/event-codec.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';

/** A stored event as decoded: the envelope as recorded (id, stream, position, metadata), today's type and data. */
export type Decoded<E extends DomainEvent> = E extends DomainEvent
  ? RecordedEvent<E['type'], E['data']>
  : never;

/** Some event types of one codec, and how to decode a stored event of one of them. */
export interface EventSource<E extends DomainEvent> {
  readonly slice: string;
  readonly types: ReadonlyArray<E['type']>;
  decode(stored: RecordedEvent): Decoded<E>;
}

/** The event union of a list of sources (`EventOf<typeof reads[number]>`). */
export type EventOf<S> = S extends EventSource<infer E> ? E : never;

/** Every type of `codec`, or only `types` (which the codec must know: checked by the compiler and at start). */
export function readsFrom<E extends DomainEvent, T extends E['type'] = E['type']>(
  codec: EventCodec<E>,
  types?: readonly T[],
): EventSource<Extract<E, { type: T }>> {
  const chosen: readonly T[] = types ?? (codec.types as readonly T[]);
  for (const type of chosen)
    if (!codec.knows(type)) throw new Error(`${codec.slice}: ${String(type)} is not one of its event types`);
  return {
    slice: codec.slice,
    types: chosen,
    decode(stored) {
      const event = codec.decode(stored);
      // The envelope stays as recorded; only type and data are the codec's (upcast and checked).
      return { ...stored, type: event.type, data: event.data } as Decoded<Extract<E, { type: T }>>;
    },
  };
}

/** Decodes stored events with the first source that reads their type; the rest are dropped. */
export interface EventReader<E extends DomainEvent> {
  /** Every type some source reads, in declaration order: the read filter handed to the event store. */
  readonly types: readonly string[];
  /** The decoded event, or undefined when no source reads its type. */
  decode(stored: RecordedEvent): Decoded<E> | undefined;
  decodeAll(stored: readonly RecordedEvent[]): Decoded<E>[];
}

export function eventReader<S extends EventSource<DomainEvent>>(
  sources: readonly S[],
): EventReader<EventOf<S>> {
  const byType = new Map<string, S>();
  for (const source of sources)
    for (const type of source.types) if (!byType.has(type)) byType.set(type, source);
  // Each source decodes to its own events, one member of the union EventOf<S>.
  const decode = (stored: RecordedEvent) =>
    byType.get(stored.type)?.decode(stored) as Decoded<EventOf<S>> | undefined;
  return {
    types: [...byType.keys()],
    decode,
    decodeAll(stored) {
      const decoded: Decoded<EventOf<S>>[] = [];
      for (const event of stored) {
        const one = decode(event);
        if (one !== undefined) decoded.push(one);
      }
      return decoded;
    },
  };
}

/** Whether a decoded event is one of `codec`'s (narrows a union of several slices' events to that slice's). */
export function isEventOf<E extends DomainEvent>(
  codec: EventCodec<E>,
  event: RecordedEvent,
): event is Decoded<E> {
  return codec.knows(event.type);
}
