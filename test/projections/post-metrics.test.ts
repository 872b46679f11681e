// The post metrics read model and its reads: a row per post with its latest reading (applying an event twice,
// or an older one late, changes nothing), and the engagement history by local weekday and hour in a workspace's
// time zone, right on both sides of a daylight saving time change, answered from the index.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  engagementOf,
  type MetricsReading,
  type PostMetricsEvent,
} from '../../domain/analytics/post-metrics.js';
import { postMetricsEventCodec } from '../../domain/analytics/event-codec.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import { postMetricsProjection } from '../../projections/analytics/post-metrics-projection.js';
import { engagementHistory, postMetricsOf } from '../../projections/analytics/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import { testMetadata } from '../support/events.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

const schema = 'rm_post_metrics_g1';
let database: TestDatabase<ReadModels>;
let db: Kysely<ReadModels>;

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>();
  db = database.db;
  await db.transaction().execute(async (trx) => {
    await sql`create schema ${sql.id(schema)}`.execute(trx);
    await postMetricsProjection.createTables(trx, schema);
    await sql`create view post_metrics as select * from ${sql.id(schema, 'post_metrics')}`.execute(trx);
  });
});
afterAll(async () => database?.drop());

const orgId = randomUUID();
let revision = 0;

function fetched(input: {
  postId: string;
  publishedAt: string;
  engagement?: number;
  fetchNumber?: number;
  fetchedAt?: string;
  platform?: Platform;
  contentType?: string | null;
  org?: string;
}): RecordedEvent {
  const metrics: MetricsReading = {
    likes: input.engagement ?? 10,
    reposts: 0,
    replies: 0,
    quotes: 0,
    bookmarks: null,
    impressions: (input.engagement ?? 10) * 30,
  };
  const event: PostMetricsEvent = {
    type: 'PostMetricsFetched',
    data: {
      orgId: input.org ?? orgId,
      postId: input.postId,
      groupId: randomUUID(),
      platform: input.platform ?? 'x',
      socialAccountId: randomUUID(),
      externalId: `ext-${input.postId.slice(0, 8)}`,
      publishedAt: input.publishedAt,
      contentType: input.contentType ?? null,
      metrics,
      engagement: engagementOf(metrics),
      fetchNumber: input.fetchNumber ?? 1,
      fetchedAt: input.fetchedAt ?? new Date(Date.parse(input.publishedAt) + 3_600_000).toISOString(),
    },
  };
  return {
    id: randomUUID(),
    streamName: `postMetrics-${input.postId}`,
    revision: revision++,
    type: event.type,
    data: event.data,
    metadata: testMetadata({ schemaVersion: postMetricsEventCodec.schemaVersion(event.type) }),
    position: `pg:1:${revision}`,
    recordedAt: new Date().toISOString(),
  };
}

async function apply(...events: RecordedEvent[]) {
  await db.transaction().execute(async (trx) => {
    await postMetricsProjection.fold(trx, events, schema);
  });
}

describe('the read model', () => {
  test('keeps the latest reading of a post; applying an event twice, or an older one late, changes nothing', async () => {
    const postId = randomUUID();
    const publishedAt = '2026-03-03T09:00:00.000Z';
    const first = fetched({ postId, publishedAt, engagement: 5, fetchNumber: 1 });
    const second = fetched({
      postId,
      publishedAt,
      engagement: 40,
      fetchNumber: 2,
      fetchedAt: '2026-03-04T09:00:00.000Z',
    });
    await apply(first);
    expect(await postMetricsOf(db, orgId, postId)).toMatchObject({ engagement: 5, fetchCount: 1 });
    await apply(second);
    const after = await postMetricsOf(db, orgId, postId);
    await apply(second, first, second);
    expect(await postMetricsOf(db, orgId, postId)).toEqual(after);
    expect(after).toEqual({
      postId,
      orgId,
      groupId: (second.data as PostMetricsEvent['data']).groupId,
      platform: 'x',
      socialAccountId: (second.data as PostMetricsEvent['data']).socialAccountId,
      externalId: `ext-${postId.slice(0, 8)}`,
      publishedAt,
      contentType: null,
      likes: 40,
      reposts: 0,
      replies: 0,
      quotes: 0,
      bookmarks: null,
      impressions: 1200,
      engagement: 40,
      fetchCount: 2,
      fetchedAt: '2026-03-04T09:00:00.000Z',
    });
    expect(await postMetricsOf(db, randomUUID(), postId)).toBeNull();
  });
});

describe('a page folded at once', () => {
  test('gives the rows and versions that folding its events one by one gives', async () => {
    const one = 'rm_post_metrics_one_by_one';
    const batch = 'rm_post_metrics_batched';
    await db.transaction().execute(async (trx) => {
      for (const s of [one, batch]) {
        await sql`create schema ${sql.id(s)}`.execute(trx);
        await postMetricsProjection.createTables(trx, s);
      }
    });
    const org = randomUUID();
    const posts = [randomUUID(), randomUUID(), randomUUID()];
    const publishedAt = '2026-03-10T09:00:00.000Z';
    const later = (n: number) => new Date(Date.parse(publishedAt) + n * 3_600_000).toISOString();
    // Readings out of order, one twice, across posts and workspaces.
    const page = [
      fetched({ org, postId: posts[0]!, publishedAt, engagement: 5, fetchNumber: 1, fetchedAt: later(1) }),
      fetched({ org, postId: posts[0]!, publishedAt, engagement: 30, fetchNumber: 3, fetchedAt: later(24) }),
      fetched({ org, postId: posts[0]!, publishedAt, engagement: 20, fetchNumber: 2, fetchedAt: later(6) }),
      fetched({ org, postId: posts[1]!, publishedAt, engagement: 8, fetchNumber: 1, fetchedAt: later(1) }),
      fetched({ org, postId: posts[1]!, publishedAt, engagement: 8, fetchNumber: 1, fetchedAt: later(1) }),
      fetched({ postId: posts[2]!, publishedAt, engagement: 12, fetchNumber: 1, fetchedAt: later(1) }),
    ];
    await db.transaction().execute(async (trx) => {
      for (const event of page)
        await postMetricsProjection.apply(trx, postMetricsEventCodec.decode(event) as never, one);
      await postMetricsProjection.fold(trx, page, batch);
    });
    const rowsOf = async (s: string) =>
      (await sql`select * from ${sql.id(s, 'post_metrics')} order by post_id`.execute(db)).rows;
    const versionsOf = async (s: string) =>
      (await sql`select * from ${sql.id(s, 'post_metrics_versions')} order by org_id`.execute(db)).rows;
    expect(await rowsOf(batch)).toEqual(await rowsOf(one));
    expect(await versionsOf(batch)).toEqual(await versionsOf(one));
    expect((await rowsOf(batch)).find((r) => (r as { post_id: string }).post_id === posts[0])).toMatchObject({
      fetch_count: 3,
      engagement: '30',
    });
  });
});

describe('the engagement history', () => {
  // Europe/Berlin moves from UTC+1 to UTC+2 on Sunday 2026-03-29 at 02:00 local.
  const berlin = randomUUID();
  beforeAll(async () => {
    await apply(
      // Tuesday 08:30 local before the change (07:30 UTC) and after it (06:30 UTC): both are 08:00 on Tuesday.
      fetched({ org: berlin, postId: randomUUID(), publishedAt: '2026-03-24T07:30:00.000Z', engagement: 10 }),
      fetched({ org: berlin, postId: randomUUID(), publishedAt: '2026-03-31T06:30:00.000Z', engagement: 30 }),
      // Sunday 2026-03-29 03:15 local is 01:15 UTC, right after the gap; 00:30 UTC that day was 01:30 local.
      fetched({ org: berlin, postId: randomUUID(), publishedAt: '2026-03-29T01:15:00.000Z', engagement: 7 }),
      fetched({ org: berlin, postId: randomUUID(), publishedAt: '2026-03-29T00:30:00.000Z', engagement: 3 }),
      // Saturday 23:30 local (22:30 UTC): still Saturday in Berlin, on LinkedIn, of a content type.
      fetched({
        org: berlin,
        postId: randomUUID(),
        publishedAt: '2026-03-28T22:30:00.000Z',
        engagement: 50,
        platform: 'linkedin',
        contentType: 'educational',
      }),
      // Another workspace's post at the same time counts for nobody here.
      fetched({ org: randomUUID(), postId: randomUUID(), publishedAt: '2026-03-24T07:30:00.000Z' }),
    );
  });

  test('buckets posts by local weekday and hour across a daylight saving time change, with mean engagement', async () => {
    const history = await engagementHistory(db, {
      orgId: berlin,
      platform: null,
      timezone: 'Europe/Berlin',
      since: '2026-01-01T00:00:00.000Z',
    });
    expect(history).toEqual({
      posts: 5,
      buckets: [
        { weekday: 0, hour: 1, posts: 1, engagement: 3 },
        { weekday: 0, hour: 3, posts: 1, engagement: 7 },
        { weekday: 2, hour: 8, posts: 2, engagement: 20 },
        { weekday: 6, hour: 23, posts: 1, engagement: 50 },
      ],
    });
  });

  test('the same posts read in UTC fall in other buckets', async () => {
    const history = await engagementHistory(db, {
      orgId: berlin,
      platform: null,
      timezone: 'UTC',
      since: '2026-01-01T00:00:00.000Z',
    });
    expect(history.buckets).toEqual([
      { weekday: 0, hour: 0, posts: 1, engagement: 3 },
      { weekday: 0, hour: 1, posts: 1, engagement: 7 },
      { weekday: 2, hour: 6, posts: 1, engagement: 30 },
      { weekday: 2, hour: 7, posts: 1, engagement: 10 },
      { weekday: 6, hour: 22, posts: 1, engagement: 50 },
    ]);
  });

  test('narrows to a platform, a content type and a start date', async () => {
    const base = { orgId: berlin, timezone: 'Europe/Berlin', since: '2026-01-01T00:00:00.000Z' };
    expect(await engagementHistory(db, { ...base, platform: 'linkedin' })).toEqual({
      posts: 1,
      buckets: [{ weekday: 6, hour: 23, posts: 1, engagement: 50 }],
    });
    expect((await engagementHistory(db, { ...base, platform: 'x', contentType: 'educational' })).posts).toBe(
      0,
    );
    expect((await engagementHistory(db, { ...base, platform: null, contentType: 'educational' })).posts).toBe(
      1,
    );
    expect((await engagementHistory(db, { ...base, platform: null, contentType: null })).posts).toBe(5);
    expect(
      (await engagementHistory(db, { ...base, platform: null, since: '2026-03-30T00:00:00.000Z' })).buckets,
    ).toEqual([{ weekday: 2, hour: 8, posts: 1, engagement: 30 }]);
  });

  test("a year of a workspace's history (2,000 posts among 20,000) is read from the index alone", async () => {
    const busy = randomUUID();
    const platforms = ['x', 'linkedin', 'bluesky', 'threads'];
    // 2,000 posts of this workspace over a year, and 18,000 of 9 others, inserted in bulk.
    await sql`
      insert into ${sql.id(schema, 'post_metrics')}
        (post_id, org_id, group_id, platform, social_account_id, external_id, published_at, content_type,
         likes, reposts, replies, quotes, bookmarks, impressions, engagement, fetch_count, fetched_at)
      select gen_random_uuid(), case when i % 10 = 0 then ${busy}::uuid else orgs.id end, gen_random_uuid(),
             (${sql.val(platforms)}::text[])[1 + i % 4], gen_random_uuid(), 'e' || i,
             timestamptz '2025-03-01T00:00:00Z' + (i * interval '26 minutes'), null,
             i % 50, 0, 0, 0, null, null, i % 50, 4, now()
      from generate_series(1, 20000) as i,
           lateral (select (array[${sql.join(Array.from({ length: 10 }, () => sql`gen_random_uuid()`))}])[1 + i % 10] as id) as orgs`.execute(
      db,
    );
    await sql`vacuum analyze ${sql.id(schema, 'post_metrics')}`.execute(db);
    const query = { orgId: busy, timezone: 'America/New_York', since: '2025-03-01T00:00:00.000Z' };
    const started = performance.now();
    const all = await engagementHistory(db, { ...query, platform: null });
    console.info(`engagementHistory over 2,000 posts: ${(performance.now() - started).toFixed(1)} ms`);
    expect(all.posts).toBe(2000);
    expect(all.buckets.length).toBeGreaterThan(100);
    const x = await engagementHistory(db, { ...query, platform: 'x' });
    expect(x.posts).toBeGreaterThan(0);
    for (const platform of [null, 'x']) {
      const plan = await sql<{ 'QUERY PLAN': string }>`
        explain (analyze, costs off)
        select extract(dow from published_at at time zone 'America/New_York')::int, count(*), avg(engagement)
        from post_metrics
        where org_id = ${busy} and published_at >= '2025-03-01T00:00:00Z'
          ${platform === null ? sql`` : sql`and platform = ${platform}`}
        group by 1`.execute(db);
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index Only Scan using post_metrics_org_id_platform_published_at/);
      const ms = Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1]);
      console.info(`engagement history of 2,000 posts, platform ${platform ?? 'any'}: ${ms} ms`);
    }
  });
});
