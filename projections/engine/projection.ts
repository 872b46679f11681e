// The contract every feature projector implements, and how the engine names a projection's generations.
// A generation is one build of one projection version in its own PostgreSQL schema; readers query public views.
import type { Kysely, Transaction } from 'kysely';
import type { EventStore, RecordedEvent } from '../../infra/event-store/port.js';
import type { Logger } from '../../infra/logging/logger.js';

/**
 * Projectors write tables whose schema is only known at run time (one per generation), so the engine and the
 * projectors use an untyped kysely handle; readers get typed access through the public views instead.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDatabase = any;

export interface Projection {
  /** e.g. 'workspaces'; lower case letters, digits and underscores. */
  name: string;
  /** Bumped when tables or logic change; a higher version is rebuilt beside the serving one. */
  version: number;
  /** Logical table names; readers query the public views with these names. */
  tables: readonly string[];
  /** Only these event types reach `apply`; omitted = all events. */
  eventTypes?: readonly string[];
  /**
   * The event types whose writers wait for this read model before answering (read-your-writes); omitted = the
   * same as `eventTypes`. A read model that shows a write to other people rather than to its writer (the
   * notifications of the people it concerns) narrows it to what its own readers write.
   */
  awaitedFor?: readonly string[];
  /** Creates this generation's tables and indexes inside `schema`. */
  createTables(trx: Transaction<AnyDatabase>, schema: string): Promise<void>;
  /** Folds one event into this generation's tables (use trx.withSchema(schema)); must be idempotent. */
  apply(trx: Transaction<AnyDatabase>, event: RecordedEvent, schema: string): Promise<void>;
  /**
   * Optional: folds a whole batch (in log order) in one go, e.g. to read and write each row once per batch
   * instead of once per event. Must have the same effect as `apply` on each event in turn.
   */
  applyBatch?(trx: Transaction<AnyDatabase>, events: readonly RecordedEvent[], schema: string): Promise<void>;
}

/** Folds a page of events with the projection's batch fold when it has one. */
export async function applyAll(
  projection: Projection,
  trx: Transaction<AnyDatabase>,
  events: readonly RecordedEvent[],
  schema: string,
): Promise<void> {
  if (events.length === 0) return;
  if (projection.applyBatch) return projection.applyBatch(trx, events, schema);
  for (const event of events) await projection.apply(trx, event, schema);
}

/** What the engine needs from the process; injected by main, the CLI and tests. */
export interface ProjectionEngineDeps {
  db: Kysely<AnyDatabase>;
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
