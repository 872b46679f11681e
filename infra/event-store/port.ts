// The event store port: what commands, projections and processes may ask of any event store.
// Semantics follow EventStoreDB (0-based revisions, four expected-revision states); both adapters pass one contract suite.

/** Who caused an event: a user id, `system`, or `assistant:<clientId>`. */
export type Actor = string;

export interface EventMetadata {
  orgId: string | null;
  actor: Actor;
  correlationId: string;
  causationId: string | null;
  occurredAt: string;
  schemaVersion: number;
  [key: string]: unknown;
}

/** An event to append. `id` makes appends idempotent downstream; generated when absent. */
export interface NewEvent<Type extends string = string, Data = unknown> {
  id?: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> {
  id: string;
  streamName: string;
  /** 0-based position of the event within its stream. */
  revision: number;
  type: Type;
  data: Data;
  metadata: EventMetadata;
  /** Opaque global position; compare only with the store's `compareCheckpoints`. */
  position: Checkpoint;
  recordedAt: string;
}

/** Opaque, adapter-specific global position (`pg:<txid>:<position>`, `esdb:<commit>:<prepare>`). */
export type Checkpoint = string;

/** The revision the caller last read, or one of EventStoreDB's three states. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface AppendResult {
  /** Revision of the last appended event; pass it as the next expectedRevision. */
  nextExpectedRevision: number;
  /** Global position of the last appended event. */
  position: Checkpoint;
}

/**
 * Work that must commit or fail together with the append. The PostgreSQL store runs it inside the
 * append's transaction (with the transaction's kysely handle); stores that cannot share a transaction
 * run it right after the append and say so with `transactionalSideWrites = false`.
 */
export type SideWrite<Trx = unknown> = (trx: Trx) => Promise<void>;

export interface AppendOptions<Trx = unknown> {
  expectedRevision: ExpectedRevision;
  sideWrite?: SideWrite<Trx>;
}

export interface ReadStreamOptions {
  fromRevision?: number;
  /** Inclusive upper bound, for auditors reading a stream as it stood. */
  toRevision?: number;
  maxCount?: number;
}

export interface EventFilter {
  /** Only these event types. */
  eventTypes?: readonly string[];
  /** Only streams starting with one of these prefixes (e.g. `postGroup-`). */
  streamPrefixes?: readonly string[];
}

export interface ReadAllOptions {
  /** Exclusive: events after this checkpoint. Absent or `start` reads from the beginning. */
  from?: Checkpoint;
  filter?: EventFilter;
  limit?: number;
}

export interface ReadAllPage {
  events: RecordedEvent[];
  /**
   * Where the next read continues. With a filter this may move past events that did not match, so a
   * filtered reader still advances; it never moves past an event that could still become visible.
   */
  checkpoint: Checkpoint;
  /** True when the read reached the current visible end of the log. */
  isEnd: boolean;
}

export interface SubscribeOptions {
  from?: Checkpoint;
  filter?: EventFilter;
  /** Called one event at a time, in order; the next is not delivered until this resolves. */
  onEvent: (event: RecordedEvent) => Promise<void>;
  /** Called when the subscription has caught up with the visible end (once per catch-up). */
  onCaughtUp?: (checkpoint: Checkpoint) => void;
  /** Called with the checkpoint after events that matched nothing, so filtered consumers can advance. */
  onCheckpoint?: (checkpoint: Checkpoint) => Promise<void>;
  onError?: (error: unknown) => void;
}

export interface Subscription {
  /** Stops delivery; resolves when no handler is running any more. */
  stop(): Promise<void>;
  /** Resolves when the subscription stopped on its own (error) or was stopped. */
  readonly done: Promise<void>;
}

export interface EventStore<Trx = unknown> {
  readonly name: 'postgres' | 'eventstoredb' | (string & {});
  readonly transactionalSideWrites: boolean;
  /** The checkpoint before the first event. */
  readonly start: Checkpoint;
  appendToStream(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions<Trx>,
  ): Promise<AppendResult>;
  /** Events of one stream in revision order; an absent stream reads as empty. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Current revision of a stream, or null when it does not exist. */
  streamRevision(stream: string): Promise<number | null>;
  readAll(options?: ReadAllOptions): Promise<ReadAllPage>;
  /** Catch-up then live: never skips an event, never delivers one twice within a run. */
  subscribeToAll(options: SubscribeOptions): Subscription;
  /**
   * Resolves on the next append anywhere (or after timeoutMs); lets pull-based readers sleep cheaply. With a
   * filter, a store that knows an append's event types (the PostgreSQL store, for this process's own appends)
   * may sleep through appends of other types; appends it cannot tell apart still wake the waiter.
   */
  waitForAppend(timeoutMs: number, signal?: AbortSignal, filter?: EventFilter): Promise<void>;
  /** Negative, zero or positive like a sort comparator. `start` sorts before every position. */
  compareCheckpoints(a: Checkpoint, b: Checkpoint): number;
  close(): Promise<void>;
}

export class WrongExpectedVersion extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Wrong expected version on ${stream}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedVersion';
  }
}

export class EmptyAppend extends Error {
  constructor(readonly stream: string) {
    super(`Refusing an empty append to ${stream}`);
    this.name = 'EmptyAppend';
  }
}

export class DuplicateEventId extends Error {
  constructor(readonly eventId: string) {
    super(`Event id ${eventId} is already in the store`);
    this.name = 'DuplicateEventId';
  }
}

export function streamName(category: string, id: string): string {
  return `${category}-${id}`;
}
