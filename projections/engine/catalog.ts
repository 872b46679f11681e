// Repository of the projection catalog: reading generations, leases with expiry, and the change channel.
// Every function takes the database or the transaction first; leases are guarded updates, never read-then-write.
import type { ReadModels } from '../read-models.js';
import type { ProjectionsTable } from './migrations.js';
import { sql, type Kysely, type Transaction } from 'kysely';

/** Channel notified when a generation's checkpoint or status commits; read-your-writes listens on it. */
export const CHECKPOINT_CHANNEL = 'projection_checkpoints';

export type GenerationStatus = 'building' | 'serving' | 'retired';

export interface Generation {
  name: string;
  generation: number;
  version: number;
  schemaName: string;
  status: GenerationStatus;
  tables: string[];
  checkpoint: string;
  eventsProcessed: number;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  startedAt: string;
  updatedAt: string;
  caughtUpAt: string | null;
}

/** A catalog row as PostgreSQL returns it (the table is declared with the migration). */
type GenerationRow = ProjectionsTable['projections'] & { status: GenerationStatus };

export function toGeneration(row: GenerationRow): Generation {
  return {
    name: row.name,
    generation: row.generation,
    version: row.version,
    schemaName: row.schema_name,
    status: row.status,
    tables: row.tables,
    checkpoint: row.checkpoint,
    eventsProcessed: Number(row.events_processed),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    caughtUpAt: row.caught_up_at,
  };
}

type Db = Kysely<ReadModels> | Transaction<ReadModels>;

export async function listGenerations(db: Db, name?: string): Promise<Generation[]> {
  const where = name === undefined ? sql`` : sql`where name = ${name}`;
  const result = await sql<GenerationRow>`
    select * from projections ${where} order by name, generation`.execute(db);
  return result.rows.map(toGeneration);
}

export async function findGeneration(
  db: Db,
  name: string,
  status: 'building' | 'serving',
): Promise<Generation | null> {
  const result = await sql<GenerationRow>`
    select * from projections where name = ${name} and status = ${status}`.execute(db);
  return result.rows[0] ? toGeneration(result.rows[0]) : null;
}

export async function getGeneration(db: Db, name: string, generation: number): Promise<Generation | null> {
  const result = await sql<GenerationRow>`
    select * from projections where name = ${name} and generation = ${generation}`.execute(db);
  return result.rows[0] ? toGeneration(result.rows[0]) : null;
}

/** Serialises catalog changes of one projection (creating generations, switching) across processes. */
export async function lockProjection(trx: Transaction<ReadModels>, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`projection:${name}`}))`.execute(trx);
}

/**
 * Takes the lease of one generation when it is free, expired or already ours, and only while the generation
 * still has the expected status. Returns the generation as leased, or null when someone else holds it.
 */
export async function acquireLease(
  db: Db,
  target: { name: string; generation: number; status: GenerationStatus },
  owner: string,
  ttlMs: number,
): Promise<Generation | null> {
  const result = await sql<GenerationRow>`
    update projections
    set lease_owner = ${owner}, lease_expires_at = now() + ${ttlMs} * interval '1 millisecond', updated_at = now()
    where name = ${target.name} and generation = ${target.generation} and status = ${target.status}
      and (lease_owner is null or lease_owner = ${owner} or lease_expires_at < now())
    returning *`.execute(db);
  return result.rows[0] ? toGeneration(result.rows[0]) : null;
}

/** Extends a lease we still hold on a generation that still has the expected status. */
export async function renewLease(
  db: Db,
  target: { name: string; generation: number; status: GenerationStatus },
  owner: string,
  ttlMs: number,
): Promise<boolean> {
  const result = await sql`
    update projections set lease_expires_at = now() + ${ttlMs} * interval '1 millisecond'
    where name = ${target.name} and generation = ${target.generation} and status = ${target.status}
      and lease_owner = ${owner}`.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}

export async function releaseLease(
  db: Db,
  target: { name: string; generation: number },
  owner: string,
): Promise<void> {
  await sql`
    update projections set lease_owner = null, lease_expires_at = null
    where name = ${target.name} and generation = ${target.generation} and lease_owner = ${owner}`.execute(db);
}

/** What a checkpoint notification says: the generation whose checkpoint (or status) the transaction commits. */
export interface CheckpointChange {
  name: string;
  generation: number;
  status: GenerationStatus;
  checkpoint: string;
}

/**
 * Notifies the change inside the transaction that commits it (so it arrives once the rows are visible). The
 * payload carries the new checkpoint, so read-your-writes learns it without reading the catalog.
 */
export async function notifyCheckpoint(
  trx: Transaction<ReadModels>,
  change: CheckpointChange,
): Promise<void> {
  await sql`select pg_notify(${CHECKPOINT_CHANNEL}, ${JSON.stringify(change)})`.execute(trx);
}

/** The change a notification announces; null for a payload of another shape (e.g. an older version's bare name). */
export function parseCheckpointChange(payload: string | undefined): CheckpointChange | null {
  if (!payload?.startsWith('{')) return null;
  try {
    const c = JSON.parse(payload) as Partial<CheckpointChange>;
    return typeof c.name === 'string' &&
      typeof c.generation === 'number' &&
      typeof c.status === 'string' &&
      typeof c.checkpoint === 'string'
      ? (c as CheckpointChange)
      : null;
  } catch {
    return null;
  }
}
