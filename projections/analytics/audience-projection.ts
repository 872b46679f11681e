// Read model of the accounts' follower counts over time: every reading (`account_audience_readings`, one row per
// account and reading time) and each account's current standing (`account_audience_status`: its last reading and
// whether the counts cannot be read). Applying an event twice changes nothing: a reading is keyed by its time, and
// the standing moves only to a later stream revision.
import { sql, type ColumnType } from 'kysely';
import { audienceEventCodec } from '../../domain/analytics/audience-codec.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';

/** A bigint count: read as a string, written as the event's number. */
type Count = ColumnType<string, number, number>;
type NullableCount = ColumnType<string | null, number | null, number | null>;

export type AccountAudienceReadingsTable = {
  social_account_id: string;
  read_at: string;
  org_id: string;
  platform: string;
  followers: Count;
  following: NullableCount;
  posts: NullableCount;
};

export type AccountAudienceStatusTable = {
  social_account_id: string;
  org_id: string;
  platform: string;
  /** The stream revision folded last. */
  revision: number;
  readings: number;
  last_read_at: string | null;
  unavailable_reason: string | null;
  unavailable_message: string | null;
  missing_scopes: string[] | null;
  unavailable_since: string | null;
};

/** A type (not an interface), so kysely's `withTables` takes it. */
export type AudienceTables = {
  account_audience_readings: AccountAudienceReadingsTable;
  account_audience_status: AccountAudienceStatusTable;
};

export const audienceProjection = defineProjection({
  name: 'account_audience',
  version: 1,
  tables: ['account_audience_readings', 'account_audience_status'],
  reads: [readsFrom(audienceEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    // The reader asks for an account's last reading at or before a time: the primary key answers it.
    await sql`
      create table ${s}.account_audience_readings (
        social_account_id uuid not null,
        read_at timestamptz not null,
        org_id uuid not null,
        platform text not null,
        followers bigint not null,
        following bigint,
        posts bigint,
        primary key (social_account_id, read_at)
      )`.execute(trx);
    await sql`
      create table ${s}.account_audience_status (
        social_account_id uuid primary key,
        org_id uuid not null,
        platform text not null,
        revision integer not null,
        readings integer not null,
        last_read_at timestamptz,
        unavailable_reason text,
        unavailable_message text,
        missing_scopes text[],
        unavailable_since timestamptz
      )`.execute(trx);
    await sql`create index on ${s}.account_audience_status (org_id)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<AudienceTables>().withSchema(schema);
    const d = event.data;
    const status = await db
      .selectFrom('account_audience_status')
      .select(['revision', 'readings', 'last_read_at'])
      .where('social_account_id', '=', d.socialAccountId)
      .forUpdate()
      .executeTakeFirst();
    // Folded already (a replayed batch).
    if (status && status.revision >= event.revision) return;
    const base = {
      social_account_id: d.socialAccountId,
      org_id: d.orgId,
      platform: d.platform,
      revision: event.revision,
    };
    switch (event.type) {
      case 'AccountStatsRead': {
        const r = event.data;
        await db
          .insertInto('account_audience_readings')
          .values({
            social_account_id: r.socialAccountId,
            read_at: r.readAt,
            org_id: r.orgId,
            platform: r.platform,
            followers: r.followers,
            following: r.following,
            posts: r.posts,
          })
          .onConflict((oc) => oc.columns(['social_account_id', 'read_at']).doNothing())
          .execute();
        const row = {
          ...base,
          readings: (status?.readings ?? 0) + 1,
          last_read_at: r.readAt,
          unavailable_reason: null,
          unavailable_message: null,
          missing_scopes: null,
          unavailable_since: null,
        };
        await db
          .insertInto('account_audience_status')
          .values(row)
          .onConflict((oc) => oc.column('social_account_id').doUpdateSet(row))
          .execute();
        return;
      }
      case 'AccountStatsUnavailable': {
        const u = event.data;
        const row = {
          ...base,
          readings: status?.readings ?? 0,
          last_read_at: status?.last_read_at ?? null,
          unavailable_reason: u.reason,
          unavailable_message: u.message,
          missing_scopes: u.missingScopes,
          unavailable_since: u.at,
        };
        await db
          .insertInto('account_audience_status')
          .values(row)
          .onConflict((oc) => oc.column('social_account_id').doUpdateSet(row))
          .execute();
        return;
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
});
