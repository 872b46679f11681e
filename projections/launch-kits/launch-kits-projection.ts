// Read model of launch kits for GET ORG/launch-kits and GET ORG/launch-kits/{kitId}: one row per kit, folded with
// the domain's own evolve and guarded by the stream revision, so an event applied twice changes nothing. Post
// statuses are not kept here: they are read from the post groups when a kit is shown.
import { sql, type JSONColumnType } from 'kysely';
import { launchKitEventCodec } from '../../domain/launch-kits/event-codec.js';
import { launchKitDecider, type LaunchKit } from '../../domain/launch-kits/launch-kit.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

/** A type, not an interface, so `withTables` takes it. */
export type LaunchKitsTable = {
  id: string;
  org_id: string;
  revision: number;
  kit: JSONColumnType<LaunchKit>;
  created_at: string;
  step_count: number;
  done_count: number;
};
export type LaunchKitTables = { launch_kits: LaunchKitsTable };

export const launchKitsProjection = defineProjection({
  name: 'launch_kits',
  version: 1,
  tables: ['launch_kits'],
  reads: [readsFrom(launchKitEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.launch_kits (
        id uuid primary key,
        org_id uuid not null,
        revision integer not null,
        kit jsonb not null,
        created_at timestamptz not null,
        step_count integer not null,
        done_count integer not null
      )`.execute(trx);
    await sql`create index on ${s}.launch_kits (org_id, created_at desc, id desc)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<LaunchKitTables>().withSchema(schema);
    const kitId = event.data.kitId;
    const row = await db
      .selectFrom('launch_kits')
      .select(['revision', 'kit'])
      .where('id', '=', kitId)
      .forUpdate()
      .executeTakeFirst();
    if (row && row.revision >= event.revision) return;
    const next = launchKitDecider.evolve(
      row ? { status: 'exists', kit: row.kit } : launchKitDecider.initialState,
      event,
    );
    if (next.status !== 'exists') return;
    const kit = next.kit;
    const values = {
      id: kit.id,
      org_id: kit.orgId,
      revision: event.revision,
      kit: JSON.stringify(kit),
      created_at: kit.createdAt,
      step_count: kit.steps.length,
      done_count: kit.steps.filter((s) => s.done).length,
    };
    await db
      .insertInto('launch_kits')
      .values(values)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          revision: values.revision,
          kit: values.kit,
          step_count: values.step_count,
          done_count: values.done_count,
        }),
      )
      .execute();
  },
});
