// Reads of the performance read models (performance-projection.ts) for the summary, top posts and the home
// screen: in one statement, the activity per local day and platform over a window and the one before it, the
// window's published posts by topic and by content type, its best posts by engagement score and the count of posts
// scheduled ahead; and a page of the ranking. Each answers the zone the workspace's days are counted in, so a
// caller that computed the window for a zone it guessed knows whether to ask again. Each part reads an index led by
// the workspace.
import { sql, type Kysely } from 'kysely';
import type { DayActivity, PerformanceWindow } from '../../domain/performance/performance.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { ReadModels } from '../read-models.js';

const iso = (ms: number) => new Date(ms).toISOString();
const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

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

/** A ranked post's row, from the statement's columns or its JSON (bigints as strings or numbers). */
interface RankedRow {
  post_id: string;
  group_id: string;
  platform: Platform;
  external_id: string | null;
  url: string | null;
  content_text: string | null;
  scheduled_for_utc: string | null;
  published_at: string;
  likes: string | number;
  reposts: string | number;
  replies: string | number;
  quotes: string | number;
  bookmarks: string | number | null;
  impressions: string | number | null;
  engagement: string | number;
  engagement_score: string | number;
  topic: string | null;
  content_type: string | null;
  fetched_at: string;
}

/** Timestamps as the API writes them (JSON from PostgreSQL spells them `…+00:00`). */
const instant = (v: string) => new Date(v).toISOString();

function rankedPostOf(r: RankedRow): RankedPost {
  return {
    postId: r.post_id,
    groupId: r.group_id,
    platform: r.platform,
    publishedExternalId: r.external_id,
    publishedUrl: r.url,
    contentText: r.content_text ?? '',
    scheduledForUtc: r.scheduled_for_utc === null ? null : instant(r.scheduled_for_utc),
    publishedAt: instant(r.published_at),
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
    fetchedAt: instant(r.fetched_at),
  };
}

/** The window's published posts with readings (deleted ones left out), from the (org_id, published_at) index. */
const windowPosts = (orgId: string, from: number, to: number) => sql`
  from performance_posts
  where org_id = ${orgId} and published_at >= ${iso(from)} and published_at < ${iso(to)} and not deleted
    and fetch_count > 0`;

/** By engagement score, then engagement, then newest first. */
const ranking = (prefix: string) =>
  sql.raw(
    `${prefix}engagement_score desc, ${prefix}engagement desc, ${prefix}published_at desc, ${prefix}post_id`,
  );

/** The columns of a ranked post, its row (`pp`) beside its text and time from the posts read model (`p`). */
const rankedColumns = sql`pp.post_id, pp.group_id, pp.platform, pp.external_id, pp.url,
  p.body->>'contentText' as content_text, p.scheduled_for_utc, pp.published_at, pp.likes, pp.reposts, pp.replies,
  pp.quotes, pp.bookmarks, pp.impressions, pp.engagement, pp.engagement_score, pp.topic, pp.content_type,
  pp.fetched_at`;

/** The zone a workspace's days are counted in, as a column (UTC if none). */
const zoneColumn = (orgId: string) =>
  sql<string>`coalesce((select effective_timezone from performance_zones where org_id = ${orgId}), 'UTC')`;

/**
 * The posts published in [from, to) with at least one reading (deleted ones left out), by engagement score, then
 * engagement, then newest first: `limit` of them from `offset`, and how many there are; with the zone the read
 * model counts the workspace's days in, so a caller that guessed the window's zone can tell it was right. The
 * ranking reads the window's index entries only; the page's rows and texts are then read by key.
 */
export async function rankedPosts(
  db: Kysely<ReadModels>,
  query: { orgId: string; from: number; to: number; limit: number; offset: number },
): Promise<RankedPage & { zone: string }> {
  const { orgId, from, to, limit, offset } = query;
  const { rows } = await sql<Partial<RankedRow> & { zone: string; total: number }>`
    with ranked as (
      select post_id, engagement_score, engagement, published_at
      ${windowPosts(orgId, from, to)}
      order by ${ranking('')}
      limit ${limit} offset ${offset}
    )
    select z.zone, z.total, page.*
    from (select ${zoneColumn(orgId)} as zone, (select count(*)::int ${windowPosts(orgId, from, to)}) as total) z
    left join lateral (
      select ${rankedColumns}
      from ranked r
      join performance_posts pp on pp.post_id = r.post_id
      left join posts p on p.id = r.post_id
    ) page on true
    order by ${ranking('page.')}`.execute(db);
  return {
    zone: rows[0]!.zone,
    total: rows[0]!.total,
    items: rows.filter((r) => r.post_id != null).map((r) => rankedPostOf(r as RankedRow)),
  };
}

export interface SummaryReads {
  /** The zone the read model counts the workspace's days in (the window must be of it). */
  zone: string;
  activity: DayActivity[];
  topics: TopicTotals[];
  contentTypes: ContentTypeTotals[];
  /** The window's best `topLimit` posts. */
  top: RankedPost[];
  /** Posts scheduled after now (the posts read model's status and time index). */
  postsScheduledUpcoming: number;
}

const byName =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/** Most engagement first, then most posts, then by name. */
function ranked<T extends { engagements: number; postsPublished: number }>(key: (t: T) => string) {
  const name = byName(key);
  return (a: T, b: T) => b.engagements - a.engagements || b.postsPublished - a.postsPublished || name(a, b);
}

/**
 * What a summary reads, in one statement: the activity per local day and platform of the window and the previous
 * window (`performance_daily`); the window's published posts (deleted ones left out) by their group's topic and by
 * its content type with what they have earned so far (their latest readings; posts without a topic or content type
 * are not in that list); its best `topLimit` posts; and the count of posts scheduled after `now`.
 */
export async function summaryReads(
  db: Kysely<ReadModels>,
  input: { orgId: string; window: PerformanceWindow; topLimit: number; now: string },
): Promise<SummaryReads> {
  const { orgId, window, topLimit, now } = input;
  const from = window.startMs;
  const to = window.endMs;
  const { rows } = await sql<{
    days: Array<[string, Platform, number, number, number | null, number]>;
    groups: Array<[string | null, string | null, boolean, number, number, number | null]>;
    top: RankedRow[];
    upcoming: number;
    zone: string;
  }>`
    with ranked as (
      select post_id, engagement_score, engagement, published_at
      ${windowPosts(orgId, from, to)}
      order by ${ranking('')}
      limit ${topLimit}
    ), grouped as (
      select topic, content_type, grouping(content_type) = 1 as by_topic, count(*)::int as posts,
        sum(engagement)::float8 as engagements, sum(impressions)::float8 as impressions
      from performance_posts
      where org_id = ${orgId} and published_at >= ${iso(from)} and published_at < ${iso(to)} and not deleted
      group by grouping sets ((topic), (content_type))
    )
    select ${zoneColumn(orgId)} as zone,
      (select coalesce(json_agg(json_build_array(day::text, platform, posts_published, engagements, impressions,
          rated_engagements)), '[]'::json)
        from performance_daily
        where org_id = ${orgId} and day >= ${window.previousDates[0]!}::date
          and day <= ${window.dates[window.dates.length - 1]!}::date) as days,
      (select coalesce(json_agg(json_build_array(topic, content_type, by_topic, posts, engagements, impressions)),
          '[]'::json)
        from grouped) as groups,
      (select coalesce(json_agg(row_to_json(t)), '[]'::json) from (
        select ${rankedColumns}
        from ranked r
        join performance_posts pp on pp.post_id = r.post_id
        left join posts p on p.id = r.post_id
        order by ${ranking('r.')}) as t) as top,
      (select count(*)::int from posts
        where org_id = ${orgId} and status = 'scheduled' and scheduled_for_utc > ${now}) as upcoming`.execute(
    db,
  );
  const row = rows[0]!;
  const topics: TopicTotals[] = row.groups
    .filter(([topic, , byTopic]) => byTopic && topic !== null)
    .map(([topic, , , posts, engagements, impressions]) => ({
      topic: topic!,
      postsPublished: posts,
      engagements,
      impressions,
    }))
    .sort(ranked((t) => t.topic));
  const contentTypes: ContentTypeTotals[] = row.groups
    .filter(([, contentType, byTopic]) => !byTopic && contentType !== null)
    .map(([, contentType, , posts, engagements]) => ({
      contentType: contentType!,
      postsPublished: posts,
      engagements,
    }))
    .sort(ranked((t) => t.contentType));
  return {
    zone: row.zone,
    activity: row.days.map(([date, platform, posts, engagements, impressions, rated]) => ({
      date,
      platform,
      postsPublished: posts,
      engagements,
      impressions,
      ratedEngagements: rated,
    })),
    topics,
    contentTypes,
    top: row.top.map(rankedPostOf),
    postsScheduledUpcoming: row.upcoming,
  };
}
