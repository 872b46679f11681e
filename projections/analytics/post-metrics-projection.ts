// Read model of published posts' engagement: one row per post with its latest reading (`post_metrics`), for the
// scheduler's history by local weekday and hour and for analytics. A row only moves to a later fetch number, so
// applying an event twice (a replayed batch) or out of order changes nothing.
import { sql, type ColumnType } from 'kysely';
import { postMetricsEventCodec, type PostMetricsEvent } from '../../domain/analytics/event-codec.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom, type Decoded } from '../engine/event-sources.js';

/** A bigint count: read as a string, written as the event's number. */
type Count = ColumnType<string, number, number>;

/** `post_metrics` as readers see it (the public view); counts are bigint columns, read through casts. */
export type PostMetricsTable = {
  post_id: string;
  org_id: string;
  group_id: string;
  platform: string;
  social_account_id: string;
  external_id: string;
  published_at: string;
  content_type: string | null;
  likes: Count;
  reposts: Count;
  replies: Count;
  quotes: Count;
  bookmarks: ColumnType<string | null, number | null, number | null>;
  impressions: ColumnType<string | null, number | null, number | null>;
  engagement: Count;
  fetch_count: number;
  fetched_at: string;
};

/** How many readings the workspace's history has taken in: a new one makes cached histories stale. */
export type PostMetricsVersionsTable = {
  org_id: string;
  version: string;
};

/** A type (not an interface), so kysely's `withTables` takes it. */
export type PostMetricsTables = {
  post_metrics: PostMetricsTable;
  post_metrics_versions: PostMetricsVersionsTable;
};

export const postMetricsProjection = defineProjection({
  name: 'post_metrics',
  // 2: post_metrics_versions, so the scheduler can cache a workspace's history until a reading changes it.
  version: 2,
  tables: ['post_metrics', 'post_metrics_versions'],
  reads: [readsFrom(postMetricsEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.post_metrics (
        post_id uuid primary key,
        org_id uuid not null,
        group_id uuid not null,
        platform text not null,
        social_account_id uuid not null,
        external_id text not null,
        published_at timestamptz not null,
        content_type text,
        likes bigint not null,
        reposts bigint not null,
        replies bigint not null,
        quotes bigint not null,
        bookmarks bigint,
        impressions bigint,
        engagement bigint not null,
        fetch_count integer not null,
        fetched_at timestamptz not null
      )`.execute(trx);
    // The history reads a workspace's posts since a date, for one platform or all: this index alone answers it
    // (an index-only scan: the engagement and content type are carried in it).
    await sql`
      create index on ${s}.post_metrics (org_id, platform, published_at) include (engagement, content_type)`.execute(
      trx,
    );
    await sql`
      create table ${s}.post_metrics_versions (
        org_id uuid primary key,
        version bigint not null
      )`.execute(trx);
  },

  async apply(trx, event, schema) {
    const d = event.data;
    const row = rowOf(event);
    const { post_id: _key, ...changes } = row;
    await trx
      .withTables<PostMetricsTables>()
      .withSchema(schema)
      .insertInto('post_metrics')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('post_id')
          .doUpdateSet(changes)
          // Only a later reading replaces the row: the same event again, or an older one, leaves it as it is.
          .where('post_metrics.fetch_count', '<', d.fetchNumber),
      )
      .execute();
    // Moves on with every event applied (a replayed one included): a cached history is then read again, which
    // costs one query and is never wrong.
    await sql`
      insert into ${sql.id(schema)}.post_metrics_versions as v (org_id, version) values (${d.orgId}, 1)
      on conflict (org_id) do update set version = v.version + 1`.execute(trx);
  },

  // A page of readings (a refresh records thousands at once) in a few statements: each post's latest reading of
  // the page in one upsert per chunk, and each workspace's version moved by its number of events at once.
  async applyBatch(trx, events, schema) {
    const latest = new Map<string, PostMetricsFetchedEvent>();
    const perOrg = new Map<string, number>();
    for (const event of events) {
      const seen = latest.get(event.data.postId);
      if (!seen || seen.data.fetchNumber < event.data.fetchNumber) latest.set(event.data.postId, event);
      perOrg.set(event.data.orgId, (perOrg.get(event.data.orgId) ?? 0) + 1);
    }
    const rows = [...latest.values()].map(rowOf);
    const db = trx.withTables<PostMetricsTables>().withSchema(schema);
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('post_metrics')
        .values(rows.slice(i, i + 500))
        .onConflict((oc) =>
          oc
            .column('post_id')
            .doUpdateSet((eb) => ({
              org_id: eb.ref('excluded.org_id'),
              group_id: eb.ref('excluded.group_id'),
              platform: eb.ref('excluded.platform'),
              social_account_id: eb.ref('excluded.social_account_id'),
              external_id: eb.ref('excluded.external_id'),
              published_at: eb.ref('excluded.published_at'),
              content_type: eb.ref('excluded.content_type'),
              likes: eb.ref('excluded.likes'),
              reposts: eb.ref('excluded.reposts'),
              replies: eb.ref('excluded.replies'),
              quotes: eb.ref('excluded.quotes'),
              bookmarks: eb.ref('excluded.bookmarks'),
              impressions: eb.ref('excluded.impressions'),
              engagement: eb.ref('excluded.engagement'),
              fetch_count: eb.ref('excluded.fetch_count'),
              fetched_at: eb.ref('excluded.fetched_at'),
            }))
            .where('post_metrics.fetch_count', '<', (eb) => eb.ref('excluded.fetch_count')),
        )
        .execute();
    const orgs = [...perOrg.entries()];
    await sql`
      insert into ${sql.id(schema)}.post_metrics_versions as v (org_id, version)
      select * from unnest(${orgs.map(([org]) => org)}::uuid[], ${orgs.map(([, n]) => n)}::bigint[])
      on conflict (org_id) do update set version = v.version + excluded.version`.execute(trx);
  },
});

type PostMetricsFetchedEvent = Decoded<PostMetricsEvent>;

function rowOf(event: PostMetricsFetchedEvent) {
  const d = event.data;
  const m = d.metrics;
  return {
    post_id: d.postId,
    org_id: d.orgId,
    group_id: d.groupId,
    platform: d.platform,
    social_account_id: d.socialAccountId,
    external_id: d.externalId,
    published_at: d.publishedAt,
    content_type: d.contentType,
    likes: m.likes,
    reposts: m.reposts,
    replies: m.replies,
    quotes: m.quotes,
    bookmarks: m.bookmarks,
    impressions: m.impressions,
    engagement: d.engagement,
    fetch_count: d.fetchNumber,
    fetched_at: d.fetchedAt,
  };
}
