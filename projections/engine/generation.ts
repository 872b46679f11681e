// Generations of a projection: creating one (schema + tables), folding batches with the checkpoint in the same
// transaction, and the atomic switch of the public views from the serving generation to a caught-up one.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Checkpoint, EventStore, ReadAllPage } from '../../infra/event-store/port.js';
import {
  findGeneration,
  lockProjection,
  notifyCheckpoint,
  toGeneration,
  type Generation,
  type GenerationStatus,
} from './catalog.js';
import { generationSchema, type Projection } from './projection.js';
import type { ReadModels } from '../read-models.js';

/** The lease (or the generation's status) changed under us; whatever the batch wrote is rolled back. */
export class LeaseLost extends Error {
  constructor(
    readonly projection: string,
    readonly generation: number,
  ) {
    super(`Lost the lease of projection ${projection} generation ${generation}`);
    this.name = 'LeaseLost';
  }
}

interface FoldDeps {
  db: Kysely<ReadModels>;
  eventStore: EventStore<unknown>;
}

export interface FoldTarget {
  name: string;
  generation: number;
  status: 'building' | 'serving';
  schemaName: string;
  checkpoint: Checkpoint;
}

export interface FoldResult {
  /** The checkpoint now stored (unchanged when nothing was committed). */
  checkpoint: Checkpoint;
  applied: number;
  isEnd: boolean;
  committed: boolean;
}

/** The event types a projection folds, as a read filter (none: every event). */
export function eventFilter(projection: Projection) {
  return projection.eventTypes && projection.eventTypes.length > 0
    ? { eventTypes: projection.eventTypes }
    : undefined;
}

export function readNextPage(
  eventStore: EventStore<unknown>,
  projection: Projection,
  from: Checkpoint,
  limit: number,
): Promise<ReadAllPage> {
  return eventStore.readAll({ from, filter: eventFilter(projection), limit });
}

/**
 * Whether an empty page is worth a checkpoint write. At the end of the log the page checkpoint follows the
 * store's horizon, which moves with every unrelated transaction (our own checkpoint writes included), so an
 * unconditional write would spin. It is only worth it when the skipped range really held events, which
 * only a filtered projector can skip; advancing past them lets read-your-writes see the projector as current.
 */
async function emptyAdvanceMatters(
  eventStore: EventStore<unknown>,
  projection: Projection,
  from: Checkpoint,
  page: ReadAllPage,
): Promise<boolean> {
  if (eventStore.compareCheckpoints(page.checkpoint, from) <= 0) return false;
  if (!page.isEnd) return true;
  if (!eventFilter(projection)) return false;
  const probe = await eventStore.readAll({ from, limit: 1 });
  return probe.events.length > 0;
}

/**
 * Reads the next page after the target's checkpoint and commits the folded rows and the new checkpoint in one
 * transaction. The catalog row is locked first and must still be ours, with the checkpoint we started from
 * (fencing): otherwise nothing is written and LeaseLost is thrown.
 */
export async function foldNextBatch(
  deps: FoldDeps,
  projection: Projection,
  target: FoldTarget,
  owner: string,
  options: { batchSize: number; leaseTtlMs: number },
): Promise<FoldResult> {
  const page = await readNextPage(deps.eventStore, projection, target.checkpoint, options.batchSize);
  const unchanged = { checkpoint: target.checkpoint, applied: 0, isEnd: page.isEnd, committed: false };
  if (
    page.events.length === 0 &&
    !(await emptyAdvanceMatters(deps.eventStore, projection, target.checkpoint, page))
  )
    return unchanged;
  await deps.db.transaction().execute(async (trx) => {
    const locked = await sql<{ checkpoint: string }>`
      select checkpoint from projections
      where name = ${target.name} and generation = ${target.generation} and status = ${target.status}
        and lease_owner = ${owner}
      for update`.execute(trx);
    if (locked.rows[0]?.checkpoint !== target.checkpoint) throw new LeaseLost(target.name, target.generation);
    if (page.events.length > 0) await projection.fold(trx, page.events, target.schemaName);
    await sql`
      update projections
      set checkpoint = ${page.checkpoint},
          events_processed = events_processed + ${page.events.length},
          lease_expires_at = now() + ${options.leaseTtlMs} * interval '1 millisecond',
          caught_up_at = case when ${page.isEnd} and caught_up_at is null then now() else caught_up_at end,
          updated_at = now()
      where name = ${target.name} and generation = ${target.generation}`.execute(trx);
    await notifyCheckpoint(trx, {
      name: target.name,
      generation: target.generation,
      status: target.status,
      checkpoint: page.checkpoint,
    });
  });
  return { checkpoint: page.checkpoint, applied: page.events.length, isEnd: page.isEnd, committed: true };
}

async function replaceViews(
  trx: Transaction<ReadModels>,
  oldTables: readonly string[],
  schema: string,
  tables: readonly string[],
): Promise<void> {
  for (const table of oldTables)
    if (!tables.includes(table)) await sql`drop view if exists ${sql.id('public', table)}`.execute(trx);
  // drop + create rather than "create or replace": a new version may change or remove columns.
  for (const table of tables) {
    await sql`drop view if exists ${sql.id('public', table)}`.execute(trx);
    await sql`create view ${sql.id('public', table)} as select * from ${sql.id(schema, table)}`.execute(trx);
  }
}

async function createGeneration(
  trx: Transaction<ReadModels>,
  projection: Projection,
  status: 'building' | 'serving',
  start: Checkpoint,
): Promise<Generation> {
  const next = await sql<{ generation: number }>`
    select coalesce(max(generation), 0) + 1 as generation from projections where name = ${projection.name}`.execute(
    trx,
  );
  const generation = next.rows[0]!.generation;
  const schema = generationSchema(projection.name, generation);
  await sql`create schema ${sql.id(schema)}`.execute(trx);
  await projection.createTables(trx, schema);
  const inserted = await sql<Parameters<typeof toGeneration>[0]>`
    insert into projections (name, generation, version, schema_name, status, tables, checkpoint)
    values (${projection.name}, ${generation}, ${projection.version}, ${schema}, ${status},
            ${[...projection.tables]}::text[], ${start})
    returning *`.execute(trx);
  if (status === 'serving') await replaceViews(trx, [], schema, projection.tables);
  return toGeneration(inserted.rows[0]!);
}

/**
 * The serving generation, creating generation 1 (tables, views, status serving) on the very first start.
 * Null when there is no serving generation but a build is under way: that build becomes the first serving one.
 */
export async function ensureServing(deps: FoldDeps, projection: Projection): Promise<Generation | null> {
  const existing = await findGeneration(deps.db, projection.name, 'serving');
  if (existing) return existing;
  return deps.db.transaction().execute(async (trx) => {
    await lockProjection(trx, projection.name);
    const serving = await findGeneration(trx, projection.name, 'serving');
    if (serving) return serving;
    if (await findGeneration(trx, projection.name, 'building')) return null;
    return createGeneration(trx, projection, 'serving', deps.eventStore.start);
  });
}

export type PrepareOutcome =
  | { kind: 'ready'; generation: Generation; resumed: boolean }
  /** A build of a newer version is under way; older code never abandons it. */
  | { kind: 'newer-build'; version: number }
  /** Upgrade only: the serving generation already has this version (someone else switched meanwhile). */
  | { kind: 'up-to-date' };

/**
 * The building generation of the projection's current code version: the one under way (resumed from its
 * checkpoint) or a new one. A build of an older version is abandoned (retired) first. With `upgradeOnly`
 * (the runner's automatic path) nothing is created unless the serving generation is older than the code.
 */
export async function prepareBuilding(
  deps: FoldDeps,
  projection: Projection,
  options: { upgradeOnly: boolean },
): Promise<PrepareOutcome> {
  const prepared = await deps.db.transaction().execute(async (trx): Promise<PrepareOutcome> => {
    await lockProjection(trx, projection.name);
    const building = await findGeneration(trx, projection.name, 'building');
    if (building && building.version === projection.version)
      return { kind: 'ready', generation: building, resumed: true };
    if (building && building.version > projection.version)
      return { kind: 'newer-build', version: building.version };
    if (options.upgradeOnly) {
      const serving = await findGeneration(trx, projection.name, 'serving');
      if (serving && serving.version >= projection.version) return { kind: 'up-to-date' };
    }
    if (building)
      await sql`
        update projections set status = 'retired', lease_owner = null, lease_expires_at = null, updated_at = now()
        where name = ${projection.name} and generation = ${building.generation}`.execute(trx);
    const generation = await createGeneration(trx, projection, 'building', deps.eventStore.start);
    return { kind: 'ready', generation, resumed: false };
  });
  await dropRetiredSchemas(deps.db, projection.name);
  return prepared;
}

export type SwitchOutcome = { switched: true; generation: Generation; retired: number | null };

/**
 * Switches reads to the building generation in one transaction: locks the serving row (its runner's next batch
 * then waits, and afterwards finds itself fenced off), folds whatever the building generation still misses up
 * to the serving checkpoint while holding that lock (so the chase always ends), replaces the public views and
 * flips the statuses. Readers on every instance see either the old views or the new ones, never a mix.
 */
export async function switchToGeneration(
  deps: FoldDeps,
  projection: Projection,
  building: { generation: number },
  owner: string,
  options: { batchSize: number; keepLease: boolean; leaseTtlMs: number },
): Promise<SwitchOutcome> {
  const outcome = await deps.db.transaction().execute(async (trx) => {
    await lockProjection(trx, projection.name);
    const servingRow = await sql<Parameters<typeof toGeneration>[0]>`
      select * from projections where name = ${projection.name} and status = 'serving' for update`.execute(
      trx,
    );
    const serving = servingRow.rows[0] ? toGeneration(servingRow.rows[0]) : null;
    const buildingRow = await sql<Parameters<typeof toGeneration>[0]>`
      select * from projections
      where name = ${projection.name} and generation = ${building.generation} and status = 'building'
        and lease_owner = ${owner}
      for update`.execute(trx);
    if (!buildingRow.rows[0]) throw new LeaseLost(projection.name, building.generation);
    const target = toGeneration(buildingRow.rows[0]);
    let checkpoint = target.checkpoint;
    let applied = 0;
    while (serving && deps.eventStore.compareCheckpoints(checkpoint, serving.checkpoint) < 0) {
      const page = await readNextPage(deps.eventStore, projection, checkpoint, options.batchSize);
      if (page.events.length === 0 && deps.eventStore.compareCheckpoints(page.checkpoint, checkpoint) <= 0)
        throw new Error(
          `Projection ${projection.name}: generation ${target.generation} cannot reach the serving checkpoint ${serving.checkpoint}`,
        );
      if (page.events.length > 0) await projection.fold(trx, page.events, target.schemaName);
      applied += page.events.length;
      checkpoint = page.checkpoint;
    }
    await replaceViews(trx, serving?.tables ?? [], target.schemaName, projection.tables);
    if (serving)
      await sql`
        update projections set status = 'retired', lease_owner = null, lease_expires_at = null, updated_at = now()
        where name = ${projection.name} and generation = ${serving.generation}`.execute(trx);
    const keep = options.keepLease;
    const updated = await sql<Parameters<typeof toGeneration>[0]>`
      update projections
      set status = 'serving', checkpoint = ${checkpoint}, events_processed = events_processed + ${applied},
          lease_owner = ${keep ? owner : null},
          lease_expires_at = ${keep ? sql`now() + ${options.leaseTtlMs} * interval '1 millisecond'` : null},
          caught_up_at = coalesce(caught_up_at, now()), updated_at = now()
      where name = ${projection.name} and generation = ${target.generation}
      returning *`.execute(trx);
    await notifyCheckpoint(trx, {
      name: projection.name,
      generation: target.generation,
      status: 'serving',
      checkpoint,
    });
    return {
      switched: true as const,
      generation: toGeneration(updated.rows[0]!),
      retired: serving?.generation ?? null,
    };
  });
  await dropRetiredSchemas(deps.db, projection.name);
  return outcome;
}

/** Drops the schemas of retired generations that still exist (also after a crash between switch and drop). */
export async function dropRetiredSchemas(db: Kysely<ReadModels>, name: string): Promise<string[]> {
  const leftovers = await sql<{ schema_name: string }>`
    select p.schema_name from projections p
    join pg_namespace n on n.nspname = p.schema_name
    where p.name = ${name} and p.status = 'retired'`.execute(db);
  const dropped: string[] = [];
  for (const { schema_name } of leftovers.rows) {
    await sql`drop schema if exists ${sql.id(schema_name)} cascade`.execute(db);
    dropped.push(schema_name);
  }
  return dropped;
}

export type { GenerationStatus };
