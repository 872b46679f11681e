// Read model of X account analytics: the workspace's setting (`x_account_settings`), each reading's audience and
// when the next one is due (`x_account_readings`), and each local day's numbers as the latest reading covering the
// day read them (`x_account_days`). Dates are `YYYY-MM-DD` text in the workspace's zone at the reading. A day
// only moves to a reading of a later (or the same) date, so applying an event twice, or an older one after a
// newer, changes nothing.
import { sql, type ColumnType } from 'kysely';
import { xAccountEventCodec } from '../../domain/analytics/x-account-codec.js';
import { addLocalDays, localDays } from '../../domain/scheduling/time.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';

/** A bigint count: read as a string, written as the event's number. */
type Count = ColumnType<string, number, number>;
type NullableCount = ColumnType<string | null, number | null, number | null>;

export type XAccountSettingsTable = {
  org_id: string;
  enabled: boolean;
  social_account_id: string;
  updated_at: string;
  updated_by: string;
};

export type XAccountReadingsTable = {
  org_id: string;
  social_account_id: string;
  date: string;
  read_at: string;
  timezone: string;
  followers: NullableCount;
  following: NullableCount;
  post_count: NullableCount;
  /** The start of the next local day after the reading's: when the daily read is due again. */
  next_read_at: string;
};

export type XAccountDaysTable = {
  org_id: string;
  social_account_id: string;
  date: string;
  /** The date of the reading these numbers are from. */
  reading_date: string;
  impressions: Count;
  engagements: Count;
  likes: Count;
  reposts: Count;
  replies: Count;
  quotes: Count;
  bookmarks: Count;
  posts: Count;
  replies_sent: Count;
  profile_visits: NullableCount;
  link_clicks: NullableCount;
};

export type XAccountTables = {
  x_account_settings: XAccountSettingsTable;
  x_account_readings: XAccountReadingsTable;
  x_account_days: XAccountDaysTable;
};

/** When the daily read after a reading of `date` in `timezone` is due: the next local day's start. */
export function nextReadAt(date: string, timezone: string): string {
  return new Date(localDays(addLocalDays(date, 1), 1, timezone)[0]!.startMs).toISOString();
}

export const xAccountProjection = defineProjection({
  name: 'x_account_analytics',
  version: 1,
  tables: ['x_account_settings', 'x_account_readings', 'x_account_days'],
  reads: [readsFrom(xAccountEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.x_account_settings (
        org_id uuid primary key,
        enabled boolean not null,
        social_account_id uuid not null,
        updated_at timestamptz not null,
        updated_by text not null
      )`.execute(trx);
    // The daily reader looks for enabled workspaces whose newest reading's next_read_at has passed.
    await sql`
      create index on ${s}.x_account_settings (org_id) where enabled`.execute(trx);
    await sql`
      create table ${s}.x_account_readings (
        org_id uuid not null,
        social_account_id uuid not null,
        date text not null,
        read_at timestamptz not null,
        timezone text not null,
        followers bigint,
        following bigint,
        post_count bigint,
        next_read_at timestamptz not null,
        primary key (org_id, social_account_id, date)
      )`.execute(trx);
    await sql`
      create table ${s}.x_account_days (
        org_id uuid not null,
        social_account_id uuid not null,
        date text not null,
        reading_date text not null,
        impressions bigint not null,
        engagements bigint not null,
        likes bigint not null,
        reposts bigint not null,
        replies bigint not null,
        quotes bigint not null,
        bookmarks bigint not null,
        posts bigint not null,
        replies_sent bigint not null,
        profile_visits bigint,
        link_clicks bigint,
        primary key (org_id, social_account_id, date)
      )`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<XAccountTables>().withSchema(schema);
    switch (event.type) {
      case 'XAccountAnalyticsEnabled':
      case 'XAccountAnalyticsDisabled': {
        const d = event.data;
        const row = {
          org_id: d.orgId,
          enabled: event.type === 'XAccountAnalyticsEnabled',
          social_account_id: d.socialAccountId,
          updated_at: d.at,
          updated_by: d.by,
        };
        const { org_id: _key, ...changes } = row;
        await db
          .insertInto('x_account_settings')
          .values(row)
          .onConflict((oc) => oc.column('org_id').doUpdateSet(changes))
          .execute();
        return;
      }
      case 'XAccountRead': {
        const d = event.data;
        await db
          .insertInto('x_account_readings')
          .values({
            org_id: d.orgId,
            social_account_id: d.socialAccountId,
            date: d.date,
            read_at: d.readAt,
            timezone: d.timezone,
            followers: d.audience.followers,
            following: d.audience.following,
            post_count: d.audience.postCount,
            next_read_at: nextReadAt(d.date, d.timezone),
          })
          .onConflict((oc) => oc.columns(['org_id', 'social_account_id', 'date']).doNothing())
          .execute();
        if (d.days.length === 0) return;
        await db
          .insertInto('x_account_days')
          .values(
            d.days.map((day) => ({
              org_id: d.orgId,
              social_account_id: d.socialAccountId,
              date: day.date,
              reading_date: d.date,
              impressions: day.impressions,
              engagements: day.engagements,
              likes: day.likes,
              reposts: day.reposts,
              replies: day.replies,
              quotes: day.quotes,
              bookmarks: day.bookmarks,
              posts: day.posts,
              replies_sent: day.repliesSent,
              profile_visits: day.profileVisits,
              link_clicks: day.linkClicks,
            })),
          )
          .onConflict((oc) =>
            oc
              .columns(['org_id', 'social_account_id', 'date'])
              .doUpdateSet((eb) => ({
                reading_date: eb.ref('excluded.reading_date'),
                impressions: eb.ref('excluded.impressions'),
                engagements: eb.ref('excluded.engagements'),
                likes: eb.ref('excluded.likes'),
                reposts: eb.ref('excluded.reposts'),
                replies: eb.ref('excluded.replies'),
                quotes: eb.ref('excluded.quotes'),
                bookmarks: eb.ref('excluded.bookmarks'),
                posts: eb.ref('excluded.posts'),
                replies_sent: eb.ref('excluded.replies_sent'),
                profile_visits: eb.ref('excluded.profile_visits'),
                link_clicks: eb.ref('excluded.link_clicks'),
              }))
              // A newer reading's numbers stand; an older one arriving late changes nothing.
              .whereRef('x_account_days.reading_date', '<=', 'excluded.reading_date'),
          )
          .execute();
        return;
      }
    }
  },
});
