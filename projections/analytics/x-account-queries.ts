// Reads of the X account analytics read model: the workspace's setting, the readings of its account (audience and
// when each was taken) and the days' numbers over a window.
import type { Kysely, Selectable } from 'kysely';
import type { XAccountDay } from '../../domain/analytics/x-account.js';
import type { ReadModels } from '../read-models.js';
import type { XAccountReadingsTable, XAccountTables } from './x-account-projection.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyReadModels = Kysely<ReadModels> | Kysely<any>;

const tablesOf = (db: AnyReadModels) => (db as Kysely<ReadModels>).withTables<XAccountTables>();

const count = (value: string | number | null): number | null => (value === null ? null : Number(value));

export interface XAccountSetting {
  enabled: boolean;
  socialAccountId: string;
  updatedAt: string;
  updatedBy: string;
}

export interface XAccountReadingRow {
  date: string;
  readAt: string;
  timezone: string;
  followers: number | null;
  following: number | null;
  postCount: number | null;
  nextReadAt: string;
}

/** The workspace's setting; null when X account analytics was never switched on. */
export async function xAccountSettingOf(db: AnyReadModels, orgId: string): Promise<XAccountSetting | null> {
  const row = await tablesOf(db)
    .selectFrom('x_account_settings')
    .selectAll()
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return row
    ? {
        enabled: row.enabled,
        socialAccountId: row.social_account_id,
        updatedAt: new Date(row.updated_at).toISOString(),
        updatedBy: row.updated_by,
      }
    : null;
}

function readingOf(r: Selectable<XAccountReadingsTable>): XAccountReadingRow {
  return {
    date: r.date,
    readAt: new Date(r.read_at).toISOString(),
    timezone: r.timezone,
    followers: count(r.followers),
    following: count(r.following),
    postCount: count(r.post_count),
    nextReadAt: new Date(r.next_read_at).toISOString(),
  };
}

/** The account's newest reading (before `before`, a date, when given); null when none. */
export async function latestXAccountReading(
  db: AnyReadModels,
  orgId: string,
  socialAccountId: string,
  options: { before?: string } = {},
): Promise<XAccountReadingRow | null> {
  let query = tablesOf(db)
    .selectFrom('x_account_readings')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('social_account_id', '=', socialAccountId);
  if (options.before !== undefined) query = query.where('date', '<', options.before);
  const row = await query.orderBy('date', 'desc').limit(1).executeTakeFirst();
  return row ? readingOf(row) : null;
}

/** The account's readings from `from` to `to` (dates, both included), oldest first. */
export async function xAccountReadingsBetween(
  db: AnyReadModels,
  orgId: string,
  socialAccountId: string,
  from: string,
  to: string,
): Promise<XAccountReadingRow[]> {
  const rows = await tablesOf(db)
    .selectFrom('x_account_readings')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('social_account_id', '=', socialAccountId)
    .where('date', '>=', from)
    .where('date', '<=', to)
    .orderBy('date')
    .execute();
  return rows.map(readingOf);
}

/** The days read of the account from `from` to `to` (both included), oldest first; days never read are absent. */
export async function xAccountDaysBetween(
  db: AnyReadModels,
  orgId: string,
  socialAccountId: string,
  from: string,
  to: string,
): Promise<XAccountDay[]> {
  const rows = await tablesOf(db)
    .selectFrom('x_account_days')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('social_account_id', '=', socialAccountId)
    .where('date', '>=', from)
    .where('date', '<=', to)
    .orderBy('date')
    .execute();
  return rows.map((r) => ({
    date: r.date,
    impressions: Number(r.impressions),
    engagements: Number(r.engagements),
    likes: Number(r.likes),
    reposts: Number(r.reposts),
    replies: Number(r.replies),
    quotes: Number(r.quotes),
    bookmarks: Number(r.bookmarks),
    posts: Number(r.posts),
    repliesSent: Number(r.replies_sent),
    profileVisits: count(r.profile_visits),
    linkClicks: count(r.link_clicks),
  }));
}
