// The contract every feature projector implements (`defineProjection`: the codecs it reads and folds of the events
// they decode), and how the engine names a projection's generations.
// A generation is one build of one projection version in its own PostgreSQL schema; readers query public views.
import type { Kysely, Transaction } from 'kysely';
import type { DomainEvent } from '../../domain/shared/decider.js';
import type { EventStore, RecordedEvent } from '../../infra/event-store/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { ReadModels } from '../read-models.js';
import { eventReader, type Decoded, type EventOf, type EventSource } from './event-sources.js';

/**
 * What the engine runs. Feature projections are declared with `defineProjection` (typed events, decoded once by
 * the codecs they read); this is the form it compiles to, and the form of engine-level projections that fold
 * stored events as they are (the engine tests' counting projection).
 */
export interface Projection {
  /** e.g. 'workspaces'; lower case letters, digits and underscores. */
  name: string;
  /** Bumped when tables or logic change; a higher version is rebuilt beside the serving one. */
  version: number;
  /** Logical table names; readers query the public views with these names. */
  tables: readonly string[];
  /** Only these event types reach `fold`; omitted = all events. */
  eventTypes?: readonly string[];
  /**
   * The event types whose writers wait for this read model before answering (read-your-writes); omitted = the
   * same as `eventTypes`. A read model that shows a write to other people rather than to its writer (the
   * notifications of the people it concerns) narrows it to what its own readers write.
   */
  awaitedFor?: readonly string[];
  /** Creates this generation's tables and indexes inside `schema`. */
  createTables(trx: ReadModelTransaction, schema: string): Promise<void>;
  /** Folds a page of stored events (in log order) into this generation's tables; must be idempotent. */
  fold(trx: ReadModelTransaction, events: readonly RecordedEvent[], schema: string): Promise<void>;
}

/**
 * The transaction a projection writes in. Its tables live in the generation's schema (`trx.withSchema(schema)`)
 * with the shapes of the public views; a projection with tables of its own adds them with `withTables`.
 */
export type ReadModelTransaction = Transaction<ReadModels>;

/** A projection as a feature declares it: the codecs it reads, and folds of events decoded by them. */
export interface ProjectionDeclaration<S extends EventSource<DomainEvent>> {
  name: string;
  version: number;
  tables: readonly string[];
  /** The event types it folds, by codec (`readsFrom(tagEventCodec)`); the store is asked for these types only. */
  reads: readonly S[];
  /** See Projection.awaitedFor; omitted = every type it reads. */
  awaitedFor?: ReadonlyArray<EventOf<S>['type']>;
  createTables(trx: ReadModelTransaction, schema: string): Promise<void>;
  /** Folds one event (use trx.withSchema(schema)); must be idempotent. */
  apply(trx: ReadModelTransaction, event: Decoded<EventOf<S>>, schema: string): Promise<void>;
  /**
   * Optional: folds a whole batch (in log order) in one go, e.g. to read and write each row once per batch
   * instead of once per event. Must have the same effect as `apply` on each event in turn.
   */
  applyBatch?(
    trx: ReadModelTransaction,
    events: readonly Decoded<EventOf<S>>[],
    schema: string,
  ): Promise<void>;
}

/** A declared projection: what the engine runs, with the declaration's typed folds (tests call them directly). */
export type DefinedProjection<S extends EventSource<DomainEvent>> = Projection & ProjectionDeclaration<S>;

/** The projection the engine runs: each page decoded once with the declared codecs, then folded. */
export function defineProjection<S extends EventSource<DomainEvent>>(
  declaration: ProjectionDeclaration<S>,
): DefinedProjection<S> {
  const reader = eventReader(declaration.reads);
  // An empty filter would mean "every event" to the engine.
  if (reader.types.length === 0) throw new Error(`Projection ${declaration.name}: reads no event types`);
  return {
    ...declaration,
    eventTypes: reader.types,
    async fold(trx, stored, schema) {
      const events = reader.decodeAll(stored);
      if (events.length === 0) return;
      if (declaration.applyBatch) return declaration.applyBatch(trx, events, schema);
      for (const event of events) await declaration.apply(trx, event, schema);
    },
  };
}

/** What the engine needs from the process; injected by main, the CLI and tests. */
export interface ProjectionEngineDeps {
  db: Kysely<ReadModels>;
  eventStore: EventStore<unknown>;
  projections: readonly Projection[];
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
}

export class UnknownProjection extends Error {
  constructor(
    readonly projection: string,
    readonly known: readonly string[],
  ) {
    super(`Unknown projection "${projection}"; known projections: ${known.join(', ') || '(none)'}`);
    this.name = 'UnknownProjection';
  }
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Names end up in schema and view names, so they are checked once instead of quoted everywhere. */
export function assertValidProjection(projection: Projection): void {
  if (!IDENTIFIER.test(projection.name) || projection.name.length > 40)
    throw new Error(
      `Projection name "${projection.name}" must match ${String(IDENTIFIER)} (at most 40 characters)`,
    );
  if (!Number.isInteger(projection.version) || projection.version < 1)
    throw new Error(`Projection ${projection.name}: version must be a positive integer`);
  if (projection.tables.length === 0) throw new Error(`Projection ${projection.name}: declares no tables`);
  for (const table of projection.tables)
    if (!IDENTIFIER.test(table)) throw new Error(`Projection ${projection.name}: bad table name "${table}"`);
}

export function findProjection(projections: readonly Projection[], name: string): Projection {
  const projection = projections.find((p) => p.name === name);
  if (!projection)
    throw new UnknownProjection(
      name,
      projections.map((p) => p.name),
    );
  return projection;
}

export function generationSchema(name: string, generation: number): string {
  return `rm_${name}_g${generation}`;
}
