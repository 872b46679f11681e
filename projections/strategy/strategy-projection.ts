// Read model of each workspace's strategy stream, for what other slices ask of it (schedule coverage's targets,
// onboarding's strategyReady): one row per workspace, folded with the domain's own evolve and guarded by the
// stream revision, so a replayed event changes nothing. The strategy's own reads replay the stream.
import { sql, type JSONColumnType } from 'kysely';
import {
  strategyDecider,
  strategyEventCodec,
  activeVersionOf,
  type StrategyState,
} from '../../domain/strategy/strategy.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

/** A type, not an interface, so `withTables` takes it. */
export type StrategiesTable = {
  org_id: string;
  revision: number;
  state: JSONColumnType<StrategyState>;
  /** The active version, and whether a person confirmed it (onboarding's strategyReady). */
  active_version: number | null;
  active_confirmed: boolean;
};
export type StrategyTables = { strategies: StrategiesTable };

export const strategiesProjection = defineProjection({
  name: 'strategies',
  version: 1,
  tables: ['strategies'],
  reads: [readsFrom(strategyEventCodec)],

  async createTables(trx, schema) {
    await sql`
      create table ${sql.id(schema)}.strategies (
        org_id uuid primary key,
        revision integer not null,
        state jsonb not null,
        active_version integer,
        active_confirmed boolean not null
      )`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<StrategyTables>().withSchema(schema);
    const orgId = event.data.orgId;
    const row = await db
      .selectFrom('strategies')
      .select(['revision', 'state'])
      .where('org_id', '=', orgId)
      .forUpdate()
      .executeTakeFirst();
    if (row && row.revision >= event.revision) return;
    const next = strategyDecider.evolve(row ? row.state : strategyDecider.initialState, event);
    const active = activeVersionOf(next);
    const values = {
      org_id: orgId,
      revision: event.revision,
      state: JSON.stringify(next),
      active_version: active?.version ?? null,
      active_confirmed: active !== null && active.confirmedAt !== null,
    };
    await db
      .insertInto('strategies')
      .values(values)
      .onConflict((oc) =>
        oc.column('org_id').doUpdateSet({
          revision: values.revision,
          state: values.state,
          active_version: values.active_version,
          active_confirmed: values.active_confirmed,
        }),
      )
      .execute();
  },
});
