// Read models of the performance summary and top posts (spec part 1, "Analytics"), folded from post-group events
// (a post's platform, its group's topic and content type, its publication, its deletion) and post metrics readings:
// `performance_posts`, one row per post with its latest reading and engagement score, and
// `performance_activity`, per workspace, 15-minute bucket and platform: posts published and what readings added
// (each reading's increase over the post's previous one, in the bucket it was read in). Buckets are UTC, so the
// summary groups them into the days of whatever zone the workspace has when it asks.
import { sql, type ColumnType, type Insertable } from 'kysely';
import { postMetricsEventCodec } from '../../domain/analytics/event-codec.js';
import type { MetricsReading, PostMetricsEvent } from '../../domain/analytics/post-metrics.js';
import { postGroupEventCodec, type PostGroupEvent } from '../../domain/post-groups/event-codec.js';
import {
  activityBucket,
  engagementScore,
  readingIncrease,
  type ReadingIncrease,
} from '../../domain/performance/performance.js';
import { engagementOf } from '../../domain/analytics/post-metrics.js';
import { defineProjection, type ReadModelTransaction } from '../engine/projection.js';
import { readsFrom, type Decoded } from '../engine/event-sources.js';

/** A bigint: read as a string, written as a number. */
type Big = ColumnType<string, number, number>;
type NullableBig = ColumnType<string | null, number | null, number | null>;

export type PerformancePostsTable = {
  post_id: string;
  org_id: string;
  group_id: string;
  platform: string;
  topic: string | null;
  content_type: string | null;
  /** Null until the post is published. */
  published_at: string | null;
  external_id: string | null;
  url: string | null;
  /** Deleted after it was published (on the platform): it leaves the counts and the rankings. */
  deleted: boolean;
  likes: Big;
  reposts: Big;
  replies: Big;
  quotes: Big;
  bookmarks: NullableBig;
  impressions: NullableBig;
  engagement: Big;
  engagement_score: Big;
  /** Readings taken in so far (0: none yet). */
  fetch_count: number;
  fetched_at: string | null;
};

export type PerformanceActivityTable = {
  org_id: string;
  /** The bucket's first instant (UTC, a quarter hour). */
  bucket: string;
  platform: string;
  posts_published: number;
  engagements: Big;
  /** Null while no reading in the bucket had an impression count. */
  impressions: NullableBig;
  rated_engagements: Big;
};

/** Types, not interfaces, so `withTables` takes them. */
export type PerformanceTables = {
  performance_posts: PerformancePostsTable;
  performance_activity: PerformanceActivityTable;
};

const postGroupTypes = ['PostGroupCreated', 'PostGroupUpdated', 'PostPublished', 'PostDeleted'] as const;
type FoldedPostGroupEvent = Extract<PostGroupEvent, { type: (typeof postGroupTypes)[number] }>;
type FoldedEvent = Decoded<FoldedPostGroupEvent | PostMetricsEvent>;

export const performanceProjection = defineProjection({
  name: 'performance',
  version: 1,
  tables: ['performance_posts', 'performance_activity'],
  reads: [readsFrom(postGroupEventCodec, postGroupTypes), readsFrom(postMetricsEventCodec)],
  // Creating a group changes nothing the summary shows until a post of it is published: drafting does not wait.
  awaitedFor: ['PostGroupUpdated', 'PostPublished', 'PostDeleted', 'PostMetricsFetched'],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.performance_posts (
        post_id uuid primary key,
        org_id uuid not null,
        group_id uuid not null,
        platform text not null,
        topic text,
        content_type text,
        published_at timestamptz,
        external_id text,
        url text,
        deleted boolean not null default false,
        likes bigint not null default 0,
        reposts bigint not null default 0,
        replies bigint not null default 0,
        quotes bigint not null default 0,
        bookmarks bigint,
        impressions bigint,
        engagement bigint not null default 0,
        engagement_score bigint not null default 0,
        fetch_count integer not null default 0,
        fetched_at timestamptz
      )`.execute(trx);
    // A topic changes on every post of its group.
    await sql`create index on ${s}.performance_posts (group_id)`.execute(trx);
    // The window's published posts, for the rankings and the breakdowns by topic and content type: this index
    // alone answers the breakdowns and orders the ranking (the page's rows are then read by key).
    await sql`
      create index on ${s}.performance_posts (org_id, published_at)
        include (post_id, topic, content_type, engagement, engagement_score, impressions, fetch_count)
        where published_at is not null and not deleted`.execute(trx);
    await sql`
      create table ${s}.performance_activity (
        org_id uuid not null,
        bucket timestamptz not null,
        platform text not null,
        posts_published integer not null default 0,
        engagements bigint not null default 0,
        impressions bigint,
        rated_engagements bigint not null default 0,
        primary key (org_id, bucket, platform)
          include (posts_published, engagements, impressions, rated_engagements)
      )`.execute(trx);
  },

  apply(trx, event, schema) {
    return foldBatch(trx, [event], schema);
  },

  applyBatch: foldBatch,
});

/** A post row as folded in memory (counts as numbers). */
interface PostRow {
  post_id: string;
  org_id: string;
  group_id: string;
  platform: string;
  topic: string | null;
  content_type: string | null;
  published_at: string | null;
  external_id: string | null;
  url: string | null;
  deleted: boolean;
  latest: MetricsReading | null;
  fetch_count: number;
  fetched_at: string | null;
}

interface ActivityDelta {
  org_id: string;
  bucket: string;
  platform: string;
  posts_published: number;
  engagements: number;
  impressions: number | null;
  rated_engagements: number;
}

/** Rows per multi-row statement, well under PostgreSQL's 65,535 parameters. */
const chunk = 500;

const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

/**
 * Folds a batch: every post the batch touches is read once (locked), folded in memory, and written once; the
 * activity it adds is summed per bucket and added in one statement. Each change is guarded by the row's own state
 * (published once, deleted once, a reading only after a lower fetch number), so folding an event again adds
 * nothing.
 */
async function foldBatch(trx: ReadModelTransaction, events: readonly FoldedEvent[], schema: string) {
  const db = trx.withTables<PerformanceTables>().withSchema(schema);
  const postIds = new Set<string>();
  const groupIds = new Set<string>();
  for (const e of events) {
    if (e.type === 'PostGroupCreated') for (const p of e.data.posts) postIds.add(p.postId);
    else if (e.type === 'PostGroupUpdated') {
      if (e.data.changes.topic !== undefined) groupIds.add(e.data.groupId);
    } else postIds.add(e.data.postId);
  }
  const rows = new Map<string, PostRow>();
  if (postIds.size > 0 || groupIds.size > 0) {
    const found = await db
      .selectFrom('performance_posts')
      .selectAll()
      .where((eb) =>
        eb.or([
          ...(postIds.size > 0 ? [eb('post_id', 'in', [...postIds])] : []),
          ...(groupIds.size > 0 ? [eb('group_id', 'in', [...groupIds])] : []),
        ]),
      )
      .forUpdate()
      .execute();
    for (const r of found)
      rows.set(r.post_id, {
        post_id: r.post_id,
        org_id: r.org_id,
        group_id: r.group_id,
        platform: r.platform,
        topic: r.topic,
        content_type: r.content_type,
        published_at: r.published_at,
        external_id: r.external_id,
        url: r.url,
        deleted: r.deleted,
        latest:
          r.fetch_count === 0
            ? null
            : {
                likes: Number(r.likes),
                reposts: Number(r.reposts),
                replies: Number(r.replies),
                quotes: Number(r.quotes),
                bookmarks: num(r.bookmarks),
                impressions: num(r.impressions),
              },
        fetch_count: r.fetch_count,
        fetched_at: r.fetched_at,
      });
  }

  const dirty = new Set<string>();
  const removed = new Set<string>();
  const activity = new Map<string, ActivityDelta>();
  const addActivity = (
    row: PostRow,
    at: string,
    change: Partial<ReadingIncrease> & { postsPublished?: number },
  ) => {
    const bucket = activityBucket(at);
    const key = `${row.org_id}|${bucket}|${row.platform}`;
    let a = activity.get(key);
    if (!a)
      activity.set(
        key,
        (a = {
          org_id: row.org_id,
          bucket,
          platform: row.platform,
          posts_published: 0,
          engagements: 0,
          impressions: null,
          rated_engagements: 0,
        }),
      );
    a.posts_published += change.postsPublished ?? 0;
    a.engagements += change.engagements ?? 0;
    a.rated_engagements += change.ratedEngagements ?? 0;
    if (change.impressions !== undefined && change.impressions !== null)
      a.impressions = (a.impressions ?? 0) + change.impressions;
  };
  const publish = (row: PostRow, at: string) => {
    row.published_at = at;
    addActivity(row, at, { postsPublished: 1 });
  };

  for (const event of events) {
    switch (event.type) {
      case 'PostGroupCreated': {
        const d = event.data;
        for (const p of d.posts) {
          if (rows.has(p.postId)) continue;
          rows.set(p.postId, {
            post_id: p.postId,
            org_id: d.orgId,
            group_id: d.groupId,
            platform: p.platform,
            topic: d.topic,
            content_type: d.strategy.contentType,
            published_at: null,
            external_id: null,
            url: null,
            deleted: false,
            latest: null,
            fetch_count: 0,
            fetched_at: null,
          });
          removed.delete(p.postId);
          dirty.add(p.postId);
        }
        break;
      }
      case 'PostGroupUpdated': {
        const { groupId, changes } = event.data;
        if (changes.topic === undefined) break;
        for (const row of rows.values())
          if (row.group_id === groupId && row.topic !== changes.topic) {
            row.topic = changes.topic;
            dirty.add(row.post_id);
          }
        break;
      }
      case 'PostPublished': {
        const d = event.data;
        const row = rows.get(d.postId);
        // A post is published once; its creation comes first in the log (same projection), so a row is there.
        if (!row || row.deleted || row.published_at !== null) break;
        row.external_id = d.externalId;
        row.url = d.url;
        publish(row, d.at);
        dirty.add(row.post_id);
        break;
      }
      case 'PostDeleted': {
        const row = rows.get(event.data.postId);
        if (!row || row.deleted) break;
        if (row.published_at === null) {
          // Never published: nothing of it is counted anywhere.
          rows.delete(row.post_id);
          dirty.delete(row.post_id);
          removed.add(row.post_id);
          break;
        }
        row.deleted = true;
        addActivity(row, row.published_at, { postsPublished: -1 });
        dirty.add(row.post_id);
        break;
      }
      case 'PostMetricsFetched': {
        const d = event.data;
        let row = rows.get(d.postId);
        if (!row) {
          // A reading of a post this read model has not seen created: what the reading says of it is kept.
          row = {
            post_id: d.postId,
            org_id: d.orgId,
            group_id: d.groupId,
            platform: d.platform,
            topic: null,
            content_type: d.contentType,
            published_at: null,
            external_id: d.externalId,
            url: null,
            deleted: false,
            latest: null,
            fetch_count: 0,
            fetched_at: null,
          };
          rows.set(d.postId, row);
          removed.delete(d.postId);
        }
        if (row.deleted || row.fetch_count >= d.fetchNumber) break;
        if (row.published_at === null) {
          row.external_id ??= d.externalId;
          publish(row, d.publishedAt);
        }
        addActivity(row, d.fetchedAt, readingIncrease(row.latest, d.metrics));
        row.latest = { ...d.metrics };
        row.fetch_count = d.fetchNumber;
        row.fetched_at = d.fetchedAt;
        dirty.add(row.post_id);
        break;
      }
      default: {
        const never: never = event;
        throw new Error(`performance: unexpected event ${(never as { type: string }).type}`);
      }
    }
  }

  if (removed.size > 0)
    await db
      .deleteFrom('performance_posts')
      .where('post_id', 'in', [...removed])
      .execute();
  const upserts: Insertable<PerformancePostsTable>[] = [...dirty].map((id) => {
    const r = rows.get(id)!;
    const m = r.latest;
    return {
      post_id: r.post_id,
      org_id: r.org_id,
      group_id: r.group_id,
      platform: r.platform,
      topic: r.topic,
      content_type: r.content_type,
      published_at: r.published_at,
      external_id: r.external_id,
      url: r.url,
      deleted: r.deleted,
      likes: m?.likes ?? 0,
      reposts: m?.reposts ?? 0,
      replies: m?.replies ?? 0,
      quotes: m?.quotes ?? 0,
      bookmarks: m?.bookmarks ?? null,
      impressions: m?.impressions ?? null,
      engagement: m ? engagementOf(m) : 0,
      engagement_score: m ? engagementScore(m) : 0,
      fetch_count: r.fetch_count,
      fetched_at: r.fetched_at,
    };
  });
  for (let i = 0; i < upserts.length; i += chunk) {
    await db
      .insertInto('performance_posts')
      .values(upserts.slice(i, i + chunk))
      .onConflict((oc) =>
        oc.column('post_id').doUpdateSet((eb) => ({
          topic: eb.ref('excluded.topic'),
          content_type: eb.ref('excluded.content_type'),
          published_at: eb.ref('excluded.published_at'),
          external_id: eb.ref('excluded.external_id'),
          url: eb.ref('excluded.url'),
          deleted: eb.ref('excluded.deleted'),
          likes: eb.ref('excluded.likes'),
          reposts: eb.ref('excluded.reposts'),
          replies: eb.ref('excluded.replies'),
          quotes: eb.ref('excluded.quotes'),
          bookmarks: eb.ref('excluded.bookmarks'),
          impressions: eb.ref('excluded.impressions'),
          engagement: eb.ref('excluded.engagement'),
          engagement_score: eb.ref('excluded.engagement_score'),
          fetch_count: eb.ref('excluded.fetch_count'),
          fetched_at: eb.ref('excluded.fetched_at'),
        })),
      )
      .execute();
  }
  const deltas = [...activity.values()];
  for (let i = 0; i < deltas.length; i += chunk) {
    await sql`
      insert into ${sql.id(schema, 'performance_activity')} as a
        (org_id, bucket, platform, posts_published, engagements, impressions, rated_engagements)
      values ${sql.join(
        deltas
          .slice(i, i + chunk)
          .map(
            (d) =>
              sql`(${d.org_id}, ${d.bucket}, ${d.platform}, ${d.posts_published}, ${d.engagements}, ${d.impressions}::bigint, ${d.rated_engagements})`,
          ),
      )}
      on conflict (org_id, bucket, platform) do update set
        posts_published = a.posts_published + excluded.posts_published,
        engagements = a.engagements + excluded.engagements,
        impressions = case when excluded.impressions is null then a.impressions
          else coalesce(a.impressions, 0) + excluded.impressions end,
        rated_engagements = a.rated_engagements + excluded.rated_engagements`.execute(trx);
  }
}
