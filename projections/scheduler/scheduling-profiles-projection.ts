// Read model of each workspace's scheduling stream (time zone and scheduler settings) for the scheduler's
// reads and the slot finder: one row per workspace, folded with the domain's own evolve and guarded by the
// stream revision, so a replayed event changes nothing.
import { sql, type Transaction } from 'kysely';
import { schedulingEventCodec } from '../../domain/scheduling/event-codec.js';
import {
  initialSchedulingState,
  schedulingDecider,
  type SchedulingState,
} from '../../domain/scheduling/scheduling.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import type { AnyDatabase, Projection } from '../engine/projection.js';

export interface SchedulingProfilesTable {
  org_id: string;
  revision: number;
  /** The aggregate state: the workspace's time zone and what it set (unset fields follow the defaults). */
  state: SchedulingState;
  updated_at: string;
}

export const schedulingProfilesProjection: Projection = {
  name: 'scheduling_profiles',
  version: 1,
  tables: ['scheduling_profiles'],
  eventTypes: ['WorkspaceTimezoneSet', 'SchedulingSettingsChanged'],

  async createTables(trx: Transaction<AnyDatabase>, schema: string) {
    await sql`
      create table ${sql.id(schema)}.scheduling_profiles (
        org_id uuid primary key,
        revision integer not null,
        state jsonb not null,
        updated_at timestamptz not null
      )`.execute(trx);
  },

  async apply(trx: Transaction<AnyDatabase>, recorded: RecordedEvent, schema: string) {
    const db = trx.withSchema(schema);
    const event = schedulingEventCodec.decode(recorded);
    const orgId = event.data.orgId;
    const found: unknown = await db
      .selectFrom('scheduling_profiles')
      .select(['revision', 'state'])
      .where('org_id', '=', orgId)
      .forUpdate()
      .executeTakeFirst();
    const row = found as { revision: number; state: SchedulingState } | undefined;
    if (row && row.revision >= recorded.revision) return;
    const next = schedulingDecider.evolve(row ? row.state : initialSchedulingState, event);
    const values = {
      org_id: orgId,
      revision: recorded.revision,
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
};
