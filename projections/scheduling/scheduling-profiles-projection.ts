// Read model of each workspace's scheduling stream (time zone and scheduler settings) for the scheduler's
// reads and the slot finder: one row per workspace, folded with the domain's own evolve and guarded by the
// stream revision, so a replayed event changes nothing.
import { sql, type JSONColumnType } from 'kysely';
import { schedulingEventCodec } from '../../domain/scheduling/event-codec.js';
import {
  initialSchedulingState,
  schedulingDecider,
  type SchedulingState,
} from '../../domain/scheduling/scheduling.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';

/** A type, not an interface, so `withTables` takes it. */
export type SchedulingProfilesTable = {
  org_id: string;
  revision: number;
  /** The aggregate state: the workspace's time zone and what it set (unset fields follow the defaults). */
  state: JSONColumnType<SchedulingState>;
  updated_at: string;
};

export const schedulingProfilesProjection = defineProjection({
  name: 'scheduling_profiles',
  version: 1,
  tables: ['scheduling_profiles'],
  reads: [readsFrom(schedulingEventCodec)],

  async createTables(trx, schema) {
    await sql`
      create table ${sql.id(schema)}.scheduling_profiles (
        org_id uuid primary key,
        revision integer not null,
        state jsonb not null,
        updated_at timestamptz not null
      )`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<{ scheduling_profiles: SchedulingProfilesTable }>().withSchema(schema);
    const orgId = event.data.orgId;
    const row = await db
      .selectFrom('scheduling_profiles')
      .select(['revision', 'state'])
      .where('org_id', '=', orgId)
      .forUpdate()
      .executeTakeFirst();
    if (row && row.revision >= event.revision) return;
    const next = schedulingDecider.evolve(row ? row.state : initialSchedulingState, event);
    const values = {
      org_id: orgId,
      revision: event.revision,
      state: JSON.stringify(next),
      updated_at: event.data.at,
    };
    await db
      .insertInto('scheduling_profiles')
      .values(values)
      .onConflict((oc) =>
        oc
          .column('org_id')
          .doUpdateSet({ revision: values.revision, state: values.state, updated_at: values.updated_at }),
      )
      .execute();
  },
});
