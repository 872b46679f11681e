// A slice's events and reading them back from the store. Each slice declares its events once, as a zod schema of
// each type's data (`EventsOf` reads the union off them), with the current schema version of each type, and
// registers upcasters that bring data stored in an older version to the next one. Events are decoded once where they come in from the store (aggregate loading, projections, processes):
// an unknown type or data that does not hold is refused with an error naming the stream, revision and type, instead
// of being cast to the union and failing somewhere later. Writers stamp each event with its type's current version.
import type { z } from 'zod';

/** An event as deciders take and return it: its type and its data. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/** Each event type's zod schema of today's data: a slice's events, declared once. */
export type EventSchemas = { readonly [type: string]: z.ZodType };

/**
 * The event union a slice's schemas declare: `{ type: K; data: z.output<S[K]> }` for each type K.
 * `export type TagEvent = EventsOf<typeof schemas>;`
 */
export type EventsOf<S extends EventSchemas> = {
  [K in keyof S & string]: { type: K; data: z.output<S[K]> };
}[keyof S & string];

/** The data of one event type of a union: `DataOf<TagEvent, 'TagCreated'>`. */
export type DataOf<Event extends DomainEvent, T extends Event['type']> = Extract<Event, { type: T }>['data'];

/** What decoding needs of a stored event (the event store's RecordedEvent has it). */
export interface StoredEvent {
  streamName: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: { schemaVersion?: unknown };
}

/** Checks data against its type's current shape: undefined when it holds, else what is wrong with it. */
export type DataCheck = (data: unknown) => string | undefined;

export interface EventTypeSpec {
  /** The version writers stamp (`metadata.schemaVersion`); stored data of an older version is upcast to it. */
  version: number;
  check: DataCheck;
}

/**
 * Brings the data of `type` stored in `fromVersion` to `fromVersion + 1`. Returns new data: the stored data is
 * never changed (callers may hold the stored event).
 */
export interface Upcaster {
  type: string;
  fromVersion: number;
  upcast: (data: Record<string, unknown>) => Record<string, unknown>;
}

export class EventDecodingError extends Error {
  constructor(
    readonly streamName: string,
    readonly revision: number,
    readonly eventType: string,
    readonly problem: string,
  ) {
    super(`Cannot read event ${eventType} at revision ${revision} of stream ${streamName}: ${problem}`);
    this.name = 'EventDecodingError';
  }
}

export interface EventCodec<Event extends DomainEvent> {
  /** e.g. `post-groups`; named in errors. */
  readonly slice: string;
  readonly types: ReadonlyArray<Event['type']>;
  knows(type: string): type is Event['type'];
  /** The schema version writers stamp on an event of this type. */
  schemaVersion(type: Event['type']): number;
  /** The stored event in today's shape, or an EventDecodingError. */
  decode(stored: StoredEvent): Event;
  decodeAll(stored: readonly StoredEvent[]): Event[];
}

type Specs<Event extends DomainEvent> = { readonly [T in Event['type']]: EventTypeSpec };

/**
 * A slice's codec. Every version a type has had must be readable: a type at version n needs upcasters from 1 to
 * n - 1 (checked here, so a missing one fails at start, not on the first old event).
 */
export function defineEventCodec<Event extends DomainEvent>(
  slice: string,
  specs: Specs<Event>,
  upcasters: readonly Upcaster[] = [],
): EventCodec<Event> {
  const byType = new Map<string, EventTypeSpec>(Object.entries(specs));
  const ups = new Map<string, Upcaster['upcast']>();
  for (const u of upcasters) {
    const spec = byType.get(u.type);
    if (!spec) throw new Error(`${slice}: an upcaster for ${u.type}, which is not one of its event types`);
    if (!Number.isInteger(u.fromVersion) || u.fromVersion < 1 || u.fromVersion >= spec.version)
      throw new Error(`${slice}: ${u.type} is at version ${spec.version}; no upcaster from ${u.fromVersion}`);
    const key = `${u.type}@${u.fromVersion}`;
    if (ups.has(key)) throw new Error(`${slice}: two upcasters for ${key}`);
    ups.set(key, u.upcast);
  }
  for (const [type, spec] of byType) {
    if (!Number.isInteger(spec.version) || spec.version < 1)
      throw new Error(`${slice}: ${type} has version ${spec.version}`);
    for (let v = 1; v < spec.version; v++)
      if (!ups.has(`${type}@${v}`)) throw new Error(`${slice}: ${type} has no upcaster from version ${v}`);
  }

  const decode = (stored: StoredEvent): Event => {
    const refuse = (problem: string) =>
      new EventDecodingError(stored.streamName, stored.revision, stored.type, problem);
    const spec = byType.get(stored.type);
    if (!spec) throw refuse(`not an event type of ${slice}`);
    // Events written before versions were stamped are version 1.
    const stamped = stored.metadata.schemaVersion ?? 1;
    if (typeof stamped !== 'number' || !Number.isInteger(stamped) || stamped < 1)
      throw refuse(`schemaVersion ${JSON.stringify(stamped)} is not a version`);
    if (stamped > spec.version)
      throw refuse(`schemaVersion ${stamped} is newer than this code reads (${spec.version})`);
    let data = stored.data;
    for (let v = stamped; v < spec.version; v++) {
      if (typeof data !== 'object' || data === null || Array.isArray(data))
        throw refuse(`data of version ${v} is not an object`);
      data = ups.get(`${stored.type}@${v}`)!(data as Record<string, unknown>);
    }
    const problem = spec.check(data);
    if (problem !== undefined) throw refuse(problem);
    return { type: stored.type, data } as Event;
  };

  return {
    slice,
    types: [...byType.keys()] as Array<Event['type']>,
    knows: (type): type is Event['type'] => byType.has(type),
    schemaVersion(type) {
      const spec = byType.get(type);
      if (!spec) throw new Error(`${slice}: ${type} is not one of its event types`);
      return spec.version;
    },
    decode,
    decodeAll: (stored) => stored.map(decode),
  };
}

/** The data check of a zod schema; the data itself is kept as stored (nothing stripped, reordered or copied). */
export function zodCheck(schema: z.ZodType): DataCheck {
  return (data) => {
    const result = schema.safeParse(data);
    if (result.success) return undefined;
    return result.error.issues
      .slice(0, 3)
      .map((issue) => `${['data', ...issue.path.map(String)].join('.')}: ${issue.message}`)
      .join('; ');
  };
}

/**
 * Each type with its zod schema of today's data, at version 1 unless `versions` says otherwise, for a union
 * declared apart from its schemas (each schema's output must be assignable to its event's data). The slices
 * declare their events once, by the schemas: `zodEventCodec`.
 */
export function zodSpecs<Event extends DomainEvent>(
  schemas: { readonly [T in Event['type']]: z.ZodType<DataOf<Event, T>> },
  versions: { readonly [T in Event['type']]?: number } = {},
): Specs<Event> {
  return specsOf(schemas, versions) as Specs<Event>;
}

function specsOf(
  schemas: { readonly [type: string]: z.ZodType },
  versions: { readonly [type: string]: number | undefined },
): Record<string, EventTypeSpec> {
  const specs: Record<string, EventTypeSpec> = {};
  for (const [type, schema] of Object.entries(schemas))
    specs[type] = { version: versions[type] ?? 1, check: zodCheck(schema) };
  return specs;
}

/**
 * A slice's codec built from the schemas its events are declared by (`EventsOf<typeof schemas>`), each type at
 * version 1 unless `versions` says otherwise.
 */
export function zodEventCodec<S extends EventSchemas>(
  slice: string,
  schemas: S,
  options: { versions?: { readonly [T in keyof S]?: number }; upcasters?: readonly Upcaster[] } = {},
): EventCodec<EventsOf<S>> {
  const specs = specsOf(schemas, options.versions ?? {}) as Specs<EventsOf<S>>;
  return defineEventCodec<EventsOf<S>>(slice, specs, options.upcasters);
}
