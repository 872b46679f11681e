// Reads of the performance read models (performance-projection.ts) for the summary, top posts and the home
// screen: activity per local day and platform over a window and the one before it, the window's published posts
// by topic and by content type, its posts ranked by engagement score, and the count of posts scheduled ahead.
// Each is one statement on an index led by the workspace.
import { sql, type Kysely } from 'kysely';
import type { DayActivity, PerformanceWindow } from '../../domain/performance/performance.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { ReadModels } from '../read-models.js';

const iso = (ms: number) => new Date(ms).toISOString();
const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/**
 * Activity per local day of the window and the previous window, and platform: the 15-minute buckets grouped by the
 * window's day boundaries (`width_bucket` over them, so days are the zone's own as the domain computed them).
 */
export async function activityByDay(
  db: Kysely<ReadModels>,
  orgId: string,
  window: PerformanceWindow,
): Promise<DayActivity[]> {
  const bounds = window.bounds.map(iso);
  const { rows } = await sql<{
    day: number;
    platform: Platform;
    posts: number;
    engagements: number;
    impressions: number | null;
    rated: number;
  }>`
    select width_bucket(bucket, ${bounds}::timestamptz[]) - 1 as day, platform,
      sum(posts_published)::int as posts, sum(engagements)::float8 as engagements,
      sum(impressions)::float8 as impressions, sum(rated_engagements)::float8 as rated
    from performance_activity
    where org_id = ${orgId} and bucket >= ${bounds[0]!} and bucket < ${bounds[bounds.length - 1]!}
    group by 1, 2`.execute(db);
  return rows.map((r) => ({
    day: r.day,
    platform: r.platform,
    postsPublished: r.posts,
    engagements: r.engagements,
    impressions: r.impressions,
    ratedEngagements: r.rated,
  }));
}

export interface TopicTotals {
  topic: string;
  postsPublished: number;
  engagements: number;
  impressions: number | null;
}

export interface ContentTypeTotals {
  contentType: string;
  postsPublished: number;
  engagements: number;
}

/**
 * The posts published in [from, to) (deleted ones left out) by their group's topic and by its content type, each
 * with what its posts have earned so far (their latest readings); posts without a topic (content type) are not in
 * that list. Most engagement first, then most posts, then by name.
 */
export async function publishedBreakdowns(
  db: Kysely<ReadModels>,
  orgId: string,
  from: number,
  to: number,
): Promise<{ topics: TopicTotals[]; contentTypes: ContentTypeTotals[] }> {
  const { rows } = await sql<{
    topic: string | null;
    content_type: string | null;
    by_topic: boolean;
    posts: number;
    engagements: number;
    impressions: number | null;
  }>`
    select topic, content_type, grouping(content_type) = 1 as by_topic, count(*)::int as posts,
      sum(engagement)::float8 as engagements, sum(impressions)::float8 as impressions
    from performance_posts
    where org_id = ${orgId} and published_at >= ${iso(from)} and published_at < ${iso(to)} and not deleted
    group by grouping sets ((topic), (content_type))`.execute(db);
  const byName =
    <T>(key: (t: T) => string) =>
    (a: T, b: T) =>
      key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  const ranked = <T extends { engagements: number; postsPublished: number }>(key: (t: T) => string) => {
    const name = byName(key);
    return (a: T, b: T) => b.engagements - a.engagements || b.postsPublished - a.postsPublished || name(a, b);
  };
  const topics: TopicTotals[] = rows
    .filter((r) => r.by_topic && r.topic !== null)
    .map((r) => ({
      topic: r.topic!,
      postsPublished: r.posts,
      engagements: r.engagements,
      impressions: r.impressions,
    }))
    .sort(ranked((t) => t.topic));
  const contentTypes: ContentTypeTotals[] = rows
    .filter((r) => !r.by_topic && r.content_type !== null)
    .map((r) => ({ contentType: r.content_type!, postsPublished: r.posts, engagements: r.engagements }))
    .sort(ranked((t) => t.contentType));
  return { topics, contentTypes };
}

/** A published post with readings, as the rankings show it. */
export interface RankedPost {
  postId: string;
  groupId: string;
  platform: Platform;
  publishedExternalId: string | null;
  publishedUrl: string | null;
  /** The post's text (the posts read model); empty if it is not there. */
  contentText: string;
  scheduledForUtc: string | null;
  publishedAt: string;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  bookmarks: number | null;
  impressions: number | null;
  engagement: number;
  engagementScore: number;
  topic: string | null;
  contentType: string | null;
  /** When its latest reading was taken. */
  fetchedAt: string;
}

export interface RankedPage {
  items: RankedPost[];
  /** Posts with readings published in the window. */
  total: number;
}

/**
 * The posts published in [from, to) with at least one reading (deleted ones left out), by engagement score, then
 * engagement, then newest first: `limit` of them from `offset`, and how many there are. The ranking reads the
 * window's index entries only; the page's rows and texts are then read by key.
 */
export async function rankedPosts(
  db: Kysely<ReadModels>,
  query: { orgId: string; from: number; to: number; limit: number; offset: number },
): Promise<RankedPage> {
  const { orgId, from, to, limit, offset } = query;
  const { rows } = await sql<{
    total: string;
    post_id: string;
    group_id: string;
    platform: Platform;
    external_id: string | null;
    url: string | null;
    content_text: string | null;
    scheduled_for_utc: string | null;
    published_at: string;
    likes: string;
    reposts: string;
    replies: string;
    quotes: string;
    bookmarks: string | null;
    impressions: string | null;
    engagement: string;
    engagement_score: string;
    topic: string | null;
    content_type: string | null;
    fetched_at: string;
  }>`
    with ranked as (
      select post_id, engagement_score, engagement, published_at, count(*) over () as total
      from performance_posts
      where org_id = ${orgId} and published_at >= ${iso(from)} and published_at < ${iso(to)} and not deleted
        and fetch_count > 0
      order by engagement_score desc, engagement desc, published_at desc, post_id
      limit ${limit} offset ${offset}
    )
    select r.total, pp.post_id, pp.group_id, pp.platform, pp.external_id, pp.url, p.body->>'contentText' as content_text,
      p.scheduled_for_utc, pp.published_at, pp.likes, pp.reposts, pp.replies, pp.quotes, pp.bookmarks,
      pp.impressions, pp.engagement, pp.engagement_score, pp.topic, pp.content_type, pp.fetched_at
    from ranked r
    join performance_posts pp on pp.post_id = r.post_id
    left join posts p on p.id = r.post_id
    order by r.engagement_score desc, r.engagement desc, r.published_at desc, r.post_id`.execute(db);
  const items = rows.map((r): RankedPost => ({
    postId: r.post_id,
    groupId: r.group_id,
    platform: r.platform,
    publishedExternalId: r.external_id,
    publishedUrl: r.url,
    contentText: r.content_text ?? '',
    scheduledForUtc: r.scheduled_for_utc,
    publishedAt: r.published_at,
    likes: Number(r.likes),
    reposts: Number(r.reposts),
    replies: Number(r.replies),
    quotes: Number(r.quotes),
    bookmarks: num(r.bookmarks),
    impressions: num(r.impressions),
    engagement: Number(r.engagement),
    engagementScore: Number(r.engagement_score),
    topic: r.topic,
    contentType: r.content_type,
    fetchedAt: r.fetched_at,
  }));
  if (rows.length > 0) return { items, total: Number(rows[0]!.total) };
  if (offset === 0) return { items, total: 0 };
  // A page past the end: the count alone.
  const counted = await sql<{ n: number }>`
    select count(*)::int as n from performance_posts
    where org_id = ${orgId} and published_at >= ${iso(from)} and published_at < ${iso(to)} and not deleted
      and fetch_count > 0`.execute(db);
  return { items, total: counted.rows[0]?.n ?? 0 };
}

/** Posts scheduled after `now` (the posts read model's status and time index). */
export async function upcomingScheduledCount(
  db: Kysely<ReadModels>,
  orgId: string,
  now: string,
): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from posts
    where org_id = ${orgId} and status = 'scheduled' and scheduled_for_utc > ${now}`.execute(db);
  return rows[0]?.n ?? 0;
}
