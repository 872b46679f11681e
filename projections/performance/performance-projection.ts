// Read models of the performance summary and top posts (spec part 1, "Analytics"), folded from post-group events
// (a post's platform, its group's topic and content type, its publication, its deletion), post metrics readings
// and the workspace's time zones: `performance_posts`, one row per post with its latest reading and engagement
// score; `performance_daily`, per workspace, local day and platform: posts published and what readings added (each
// reading's increase over the post's previous one, on the day it was read), the days being those of the
// workspace's effective time zone (`performance_zones`); and `performance_activity`, the same per 15-minute UTC
// bucket, from which the days are summed again when the zone changes.
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
import { schedulingEventCodec, type SchedulingEvent } from '../../domain/scheduling/event-codec.js';
import { todayAt } from '../../domain/scheduling/time.js';
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

export type PerformanceDailyTable = {
  org_id: string;
  /** A local date of the workspace's effective time zone (read as text: `day::text`). */
  day: ColumnType<unknown, string, string>;
  platform: string;
  posts_published: number;
  engagements: Big;
  impressions: NullableBig;
  rated_engagements: Big;
};

/** The zones a workspace's days are counted in: its own, its audience's, and the one in effect. */
export type PerformanceZonesTable = {
  org_id: string;
  workspace_timezone: string | null;
  audience_timezone: string | null;
  /** audience_timezone, else workspace_timezone, else UTC (as the scheduling profile's effectiveTimezone). */
  effective_timezone: string;
};

/** Types, not interfaces, so `withTables` takes them. */
export type PerformanceTables = {
  performance_posts: PerformancePostsTable;
  performance_activity: PerformanceActivityTable;
  performance_daily: PerformanceDailyTable;
  performance_zones: PerformanceZonesTable;
};

const postGroupTypes = ['PostGroupCreated', 'PostGroupUpdated', 'PostPublished', 'PostDeleted'] as const;
type FoldedPostGroupEvent = Extract<PostGroupEvent, { type: (typeof postGroupTypes)[number] }>;
type FoldedEvent = Decoded<FoldedPostGroupEvent | PostMetricsEvent | SchedulingEvent>;

export const performanceProjection = defineProjection({
  name: 'performance',
  version: 1,
  tables: ['performance_posts', 'performance_activity', 'performance_daily', 'performance_zones'],
  reads: [
    readsFrom(postGroupEventCodec, postGroupTypes),
    readsFrom(postMetricsEventCodec),
    readsFrom(schedulingEventCodec),
  ],
  // Creating a group changes nothing the summary shows until a post of it is published: drafting does not wait.
  awaitedFor: [
    'PostGroupUpdated',
    'PostPublished',
    'PostDeleted',
    'PostMetricsFetched',
    'WorkspaceTimezoneSet',
    'SchedulingSettingsChanged',
  ],

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
    // The summary reads a workspace's days of two windows: one index-only range scan.
    await sql`
      create table ${s}.performance_daily (
        org_id uuid not null,
        day date not null,
        platform text not null,
        posts_published integer not null default 0,
        engagements bigint not null default 0,
        impressions bigint,
        rated_engagements bigint not null default 0,
        primary key (org_id, day, platform)
          include (posts_published, engagements, impressions, rated_engagements)
      )`.execute(trx);
    await sql`
      create table ${s}.performance_zones (
        org_id uuid primary key,
        workspace_timezone text,
        audience_timezone text,
        effective_timezone text not null
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

/** What the batch adds to one bucket (`performance_activity`) or one day (`performance_daily`) of a platform. */
interface ActivityDelta {
  org_id: string;
  /** The bucket's first instant, or the local date. */
  at: string;
  platform: string;
  posts_published: number;
  engagements: number;
  impressions: number | null;
  rated_engagements: number;
}

interface Zone {
  workspace: string | null;
  audience: string | null;
  effective: string;
}

/** Rows per multi-row statement, well under PostgreSQL's 65,535 parameters. */
const chunk = 500;

const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

const effectiveOf = (workspace: string | null, audience: string | null) => audience ?? workspace ?? 'UTC';

/** Adds the deltas to `table`'s rows (a bucket or a day per row), in statements of `chunk` rows. */
async function addActivity(
  trx: ReadModelTransaction,
  schema: string,
  table: 'performance_activity' | 'performance_daily',
  deltas: readonly ActivityDelta[],
) {
  const key = table === 'performance_activity' ? sql.ref('bucket') : sql.ref('day');
  for (let i = 0; i < deltas.length; i += chunk) {
    await sql`
      insert into ${sql.id(schema, table)} as a
        (org_id, ${key}, platform, posts_published, engagements, impressions, rated_engagements)
      values ${sql.join(
        deltas
          .slice(i, i + chunk)
          .map(
            (d) =>
              sql`(${d.org_id}, ${d.at}, ${d.platform}, ${d.posts_published}, ${d.engagements}, ${d.impressions}::bigint, ${d.rated_engagements})`,
          ),
      )}
      on conflict (org_id, ${key}, platform) do update set
        posts_published = a.posts_published + excluded.posts_published,
        engagements = a.engagements + excluded.engagements,
        impressions = case when excluded.impressions is null then a.impressions
          else coalesce(a.impressions, 0) + excluded.impressions end,
        rated_engagements = a.rated_engagements + excluded.rated_engagements`.execute(trx);
  }
}

/** Sums a workspace's days again from its buckets, in a zone it now counts days in (a bucket is in one day). */
async function recountDays(trx: ReadModelTransaction, schema: string, orgId: string, timezone: string) {
  const db = trx.withTables<PerformanceTables>().withSchema(schema);
  const buckets = await db
    .selectFrom('performance_activity')
    .selectAll()
    .where('org_id', '=', orgId)
    .execute();
  const days = new Map<string, ActivityDelta>();
  for (const b of buckets) {
    const day = todayAt(Date.parse(b.bucket), timezone);
    add(
      days,
      { org_id: orgId, at: day, platform: b.platform },
      {
        postsPublished: b.posts_published,
        engagements: Number(b.engagements),
        impressions: num(b.impressions),
        ratedEngagements: Number(b.rated_engagements),
      },
    );
  }
  await db.deleteFrom('performance_daily').where('org_id', '=', orgId).execute();
  await addActivity(trx, schema, 'performance_daily', [...days.values()]);
}

function add(
  into: Map<string, ActivityDelta>,
  where: Pick<ActivityDelta, 'org_id' | 'at' | 'platform'>,
  change: Partial<ReadingIncrease> & { postsPublished?: number },
) {
  const key = `${where.org_id}|${where.at}|${where.platform}`;
  let a = into.get(key);
  if (!a)
    into.set(
      key,
      (a = {
        ...where,
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
}

/**
 * Folds a batch: every post the batch touches is read once (locked), folded in memory, and written once; the
 * activity it adds is summed per bucket and per local day and added in one statement each. Each change is guarded
 * by the row's own state (published once, deleted once, a reading only after a lower fetch number), so folding an
 * event again adds nothing. A change of a workspace's effective zone writes what came before it, then sums the
 * workspace's days again from its buckets in the new zone.
 */
async function foldBatch(trx: ReadModelTransaction, events: readonly FoldedEvent[], schema: string) {
  const db = trx.withTables<PerformanceTables>().withSchema(schema);
  const postIds = new Set<string>();
  const groupIds = new Set<string>();
  const orgIds = new Set<string>();
  for (const e of events) {
    orgIds.add(e.data.orgId);
    if (e.type === 'PostGroupCreated') for (const p of e.data.posts) postIds.add(p.postId);
    else if (e.type === 'PostGroupUpdated') {
      if (e.data.changes.topic !== undefined) groupIds.add(e.data.groupId);
    } else if (e.type !== 'WorkspaceTimezoneSet' && e.type !== 'SchedulingSettingsChanged')
      postIds.add(e.data.postId);
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
  const zones = new Map<string, Zone>();
  for (const z of await db
    .selectFrom('performance_zones')
    .selectAll()
    .where('org_id', 'in', [...orgIds])
    .execute())
    zones.set(z.org_id, {
      workspace: z.workspace_timezone,
      audience: z.audience_timezone,
      effective: z.effective_timezone,
    });
  const zoneOf = (orgId: string) => zones.get(orgId)?.effective ?? 'UTC';

  let dirty = new Set<string>();
  let removed = new Set<string>();
  let buckets = new Map<string, ActivityDelta>();
  let days = new Map<string, ActivityDelta>();
  const activity = (
    row: PostRow,
    at: string,
    change: Partial<ReadingIncrease> & { postsPublished?: number },
  ) => {
    const where = { org_id: row.org_id, platform: row.platform };
    add(buckets, { ...where, at: activityBucket(at) }, change);
    add(days, { ...where, at: todayAt(Date.parse(at), zoneOf(row.org_id)) }, change);
  };
  const publish = (row: PostRow, at: string) => {
    row.published_at = at;
    activity(row, at, { postsPublished: 1 });
  };

  const flush = async () => {
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
    await addActivity(trx, schema, 'performance_activity', [...buckets.values()]);
    await addActivity(trx, schema, 'performance_daily', [...days.values()]);
    dirty = new Set();
    removed = new Set();
    buckets = new Map();
    days = new Map();
  };

  const setZone = async (orgId: string, change: { workspace?: string; audience?: string | null }) => {
    const before = zones.get(orgId) ?? { workspace: null, audience: null, effective: 'UTC' };
    const workspace = change.workspace ?? before.workspace;
    const audience = change.audience !== undefined ? change.audience : before.audience;
    const next = { workspace, audience, effective: effectiveOf(workspace, audience) };
    if (next.workspace === before.workspace && next.audience === before.audience && zones.has(orgId)) return;
    await db
      .insertInto('performance_zones')
      .values({
        org_id: orgId,
        workspace_timezone: next.workspace,
        audience_timezone: next.audience,
        effective_timezone: next.effective,
      })
      .onConflict((oc) =>
        oc.column('org_id').doUpdateSet({
          workspace_timezone: next.workspace,
          audience_timezone: next.audience,
          effective_timezone: next.effective,
        }),
      )
      .execute();
    if (next.effective !== before.effective) {
      // What came before the change is counted in the old zone's days: written first, then all summed again.
      await flush();
      await recountDays(trx, schema, orgId, next.effective);
    }
    zones.set(orgId, next);
  };

  for (const event of events) {
    switch (event.type) {
      case 'WorkspaceTimezoneSet':
        await setZone(event.data.orgId, { workspace: event.data.timezone });
        break;
      case 'SchedulingSettingsChanged':
        if (event.data.changes.audienceTimezone !== undefined)
          await setZone(event.data.orgId, { audience: event.data.changes.audienceTimezone });
        break;
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
        activity(row, row.published_at, { postsPublished: -1 });
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
        activity(row, d.fetchedAt, readingIncrease(row.latest, d.metrics));
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
  await flush();
}
