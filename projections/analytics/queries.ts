// Reads of the post metrics read model: one post's numbers, and a workspace's engagement by local weekday and
// hour of publication (the scheduler's history), computed in SQL with PostgreSQL's own time-zone database.
import { sql, type Kysely } from 'kysely';
import type { History, HistoryBucket } from '../../domain/scheduling/types.js';
import type { ReadModels } from '../read-models.js';
import type { PostMetricsTables } from './post-metrics-projection.js';

export interface PostMetricsView {
  postId: string;
  orgId: string;
  groupId: string;
  platform: string;
  socialAccountId: string;
  externalId: string;
  publishedAt: string;
  contentType: string | null;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  bookmarks: number | null;
  impressions: number | null;
  engagement: number;
  /** Readings recorded so far. */
  fetchCount: number;
  /** When the latest reading was taken. */
  fetchedAt: string;
}

// Readers may hold the read models' type or one of their own; only the post_metrics view is read here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyReadModels = Kysely<ReadModels> | Kysely<any>;

const tablesOf = (db: AnyReadModels) => (db as Kysely<ReadModels>).withTables<PostMetricsTables>();

const count = (value: string | number | null): number | null => (value === null ? null : Number(value));

/** The latest numbers of one post of the workspace; null before its first reading. */
export async function postMetricsOf(
  db: AnyReadModels,
  orgId: string,
  postId: string,
): Promise<PostMetricsView | null> {
  const row = await tablesOf(db)
    .selectFrom('post_metrics')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('post_id', '=', postId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    postId: row.post_id,
    orgId: row.org_id,
    groupId: row.group_id,
    platform: row.platform,
    socialAccountId: row.social_account_id,
    externalId: row.external_id,
    publishedAt: row.published_at,
    contentType: row.content_type,
    likes: Number(row.likes),
    reposts: Number(row.reposts),
    replies: Number(row.replies),
    quotes: Number(row.quotes),
    bookmarks: count(row.bookmarks),
    impressions: count(row.impressions),
    engagement: Number(row.engagement),
    fetchCount: row.fetch_count,
    fetchedAt: row.fetched_at,
  };
}

export interface EngagementHistoryQuery {
  orgId: string;
  /** One platform's posts; null for every platform's. */
  platform: string | null;
  /** IANA zone the weekday and hour are read in (the workspace's effective time zone). */
  timezone: string;
  /** ISO; posts published from then on count. */
  since: string;
  /** Only posts of this content type; null or left out: every post. */
  contentType?: string | null;
}

/**
 * The workspace's published posts with metrics, by the local weekday (0 = Sunday) and hour of publication in
 * `timezone`: per bucket the number of posts and their mean engagement (latest reading of each post). Buckets
 * without posts are left out; `posts` is the total. The local time is PostgreSQL's (`at time zone`), so daylight
 * saving time is that of its time-zone database, never a fixed offset. One index-only scan of the workspace's
 * rows (`(org_id, platform, published_at) include (engagement, content_type)`).
 */
export async function engagementHistory(db: AnyReadModels, query: EngagementHistoryQuery): Promise<History> {
  const platform = query.platform === null ? sql`` : sql`and platform = ${query.platform}`;
  const contentType =
    query.contentType === undefined || query.contentType === null
      ? sql``
      : sql`and content_type = ${query.contentType}`;
  const rows = await sql<{ weekday: number; hour: number; posts: number; engagement: number }>`
    select weekday, hour, count(*)::int as posts, avg(engagement)::float8 as engagement
    from (
      select
        extract(dow from published_at at time zone ${query.timezone})::int as weekday,
        extract(hour from published_at at time zone ${query.timezone})::int as hour,
        engagement
      from post_metrics
      where org_id = ${query.orgId} and published_at >= ${query.since} ${platform} ${contentType}
    ) as local
    group by weekday, hour
    order by weekday, hour`.execute(db);
  const buckets: HistoryBucket[] = rows.rows.map((r) => ({
    weekday: r.weekday,
    hour: r.hour,
    posts: r.posts,
    engagement: r.engagement,
  }));
  return { posts: buckets.reduce((sum, b) => sum + b.posts, 0), buckets };
}

/**
 * engagementHistory, kept per workspace, platform, time zone, content type and day until a reading of the
 * workspace is projected (its version moves): the slot finder asks on every approval, and a year of history
 * changes a few times an hour. The version comes with the caller's profile read; the grouping only when it moved. The
 * least recently used entries go beyond `maxEntries`.
 */
export class HistoryCache {
  private readonly entries = new Map<string, History>();

  constructor(
    private readonly db: AnyReadModels,
    private readonly maxEntries = 5_000,
  ) {}

  /**
   * `version`: the workspace's history version, read with its profile (schedulingInputsOf, slotFinderInputs); `db`:
   * the connection to read through on a miss (a caller holding one inside a transaction must not wait for another).
   */
  async history(
    query: EngagementHistoryQuery,
    version: string,
    db: AnyReadModels = this.db,
  ): Promise<History> {
    const key = JSON.stringify([
      query.orgId,
      version,
      query.platform,
      query.timezone,
      query.contentType ?? null,
      query.since,
    ]);
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const history = await engagementHistory(db, query);
    this.entries.set(key, history);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return history;
  }
}
