// Read model of the workspaces whose reply inbox refreshes itself (engagement settings `autoRefresh`), for the
// auto-refresh sweep (processes/engagement/inbox-auto-refresh.ts): one row per workspace that ever saved its
// engagement settings, with the flag as last saved. The settings themselves are read from their stream.
import { sql } from 'kysely';
import { engagementSettingsEventCodec } from '../../domain/engagement/event-codec.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

/** A type, not an interface, so `withTables` takes it. */
export type EngagementAutoRefreshTable = {
  org_id: string;
  auto_refresh: boolean;
  /** When the flag was last saved (the sweep's first refresh of a workspace is right after it is switched on). */
  updated_at: string;
};
export type EngagementAutoRefreshTables = { engagement_auto_refresh: EngagementAutoRefreshTable };

export const engagementAutoRefreshProjection = defineProjection({
  name: 'engagement_auto_refresh',
  version: 1,
  tables: ['engagement_auto_refresh'],
  reads: [readsFrom(engagementSettingsEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.engagement_auto_refresh (
        org_id uuid primary key,
        auto_refresh boolean not null,
        updated_at timestamptz not null
      )`.execute(trx);
    await sql`create index on ${s}.engagement_auto_refresh (org_id) where auto_refresh`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<EngagementAutoRefreshTables>().withSchema(schema);
    const values = {
      org_id: event.data.orgId,
      auto_refresh: event.data.settings.autoRefresh,
      updated_at: event.data.updatedAt,
    };
    await db
      .insertInto('engagement_auto_refresh')
      .values(values)
      .onConflict((oc) =>
        oc.column('org_id').doUpdateSet({ auto_refresh: values.auto_refresh, updated_at: values.updated_at }),
      )
      .execute();
  },
});
