// The performance read models (projections/performance): folded from random histories of post groups (created,
// topic changed, published, deleted on the platform), readings and changes of the workspace's time zones, the rows
// are the same whether the history comes as one batch, one event at a time, or with every event applied twice; the
// days are the 15-minute buckets summed in the zone in effect at the end; and the activity adds up to the posts:
// the engagement of every reading taken in equals the posts' latest engagement, the posts published counted are the
// published posts not deleted, and impressions add up to the posts' latest impressions.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postMetricsEventCodec } from '../../domain/analytics/event-codec.js';
import { engagementOf, type MetricsReading } from '../../domain/analytics/post-metrics.js';
import { postGroupEventCodec, type PostGroupEvent } from '../../domain/post-groups/event-codec.js';
import type { PostMetricsEvent } from '../../domain/analytics/post-metrics.js';
import { schedulingEventCodec, type SchedulingEvent } from '../../domain/scheduling/event-codec.js';
import { todayAt } from '../../domain/scheduling/time.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import { performanceProjection } from '../../projections/performance/performance-projection.js';
import type { ReadModels } from '../../projections/read-models.js';
import { testMetadata } from '../support/events.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { propertyRuns } from '../support/property-runs.js';

const schemas = {
  batch: 'rm_performance_batch',
  single: 'rm_performance_single',
  twice: 'rm_performance_twice',
};
let database: TestDatabase<ReadModels>;
let db: Kysely<ReadModels>;

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>();
  db = database.db;
  await db.transaction().execute(async (trx) => {
    for (const schema of Object.values(schemas)) {
      await sql`create schema ${sql.id(schema)}`.execute(trx);
      await performanceProjection.createTables(trx, schema);
    }
  });
});
afterAll(async () => database?.drop());

let position = 0;
function recorded(
  event: PostGroupEvent | PostMetricsEvent | SchedulingEvent,
  stream: string,
  revision: number,
): RecordedEvent {
  position++;
  const schemaVersion =
    event.type === 'PostMetricsFetched'
      ? postMetricsEventCodec.schemaVersion(event.type)
      : event.type === 'WorkspaceTimezoneSet' || event.type === 'SchedulingSettingsChanged'
        ? schedulingEventCodec.schemaVersion(event.type)
        : postGroupEventCodec.schemaVersion(event.type);
  return {
    id: randomUUID(),
    streamName: stream,
    revision,
    type: event.type,
    data: event.data,
    metadata: testMetadata({ schemaVersion }),
    position: `pg:1:${position}`,
    recordedAt: new Date().toISOString(),
  };
}

type Op =
  | { kind: 'publish'; post: number; minutes: number }
  | { kind: 'read'; post: number; minutes: number; metrics: MetricsReading }
  | { kind: 'delete'; post: number; minutes: number }
  | { kind: 'topic'; group: number; topic: string | null; minutes: number }
  | { kind: 'zone'; timezone: string; minutes: number }
  | { kind: 'audienceZone'; timezone: string | null; minutes: number };

const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Pacific/Chatham', 'UTC'];

const count = fc.integer({ min: 0, max: 500 });
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('publish' as const), post: fc.nat(5), minutes: fc.nat(20_000) }),
  fc.record({
    kind: fc.constant('read' as const),
    post: fc.nat(5),
    minutes: fc.nat(20_000),
    metrics: fc.record({
      likes: count,
      reposts: count,
      replies: count,
      quotes: count,
      bookmarks: fc.option(count, { nil: null }),
      impressions: fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: null }),
    }),
  }),
  fc.record({ kind: fc.constant('delete' as const), post: fc.nat(5), minutes: fc.nat(20_000) }),
  fc.record({
    kind: fc.constant('topic' as const),
    group: fc.nat(2),
    topic: fc.constantFrom('launch', 'hiring', null),
    minutes: fc.nat(20_000),
  }),
  fc.record({
    kind: fc.constant('zone' as const),
    timezone: fc.constantFrom(...zones),
    minutes: fc.nat(20_000),
  }),
  fc.record({
    kind: fc.constant('audienceZone' as const),
    timezone: fc.constantFrom(null, ...zones),
    minutes: fc.nat(20_000),
  }),
);

const platformsOfPosts: Platform[] = ['x', 'linkedin', 'x', 'bluesky', 'threads', 'x'];

/** A history of one workspace: three groups of two posts each, then the ops, as recorded events in log order. */
function history(orgId: string, ops: readonly Op[]): RecordedEvent[] {
  const start = Date.parse('2027-03-01T00:00:00.000Z');
  const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString();
  const groups = [0, 1, 2].map(() => randomUUID());
  const postIds = platformsOfPosts.map(() => randomUUID());
  const revisions = new Map<string, number>();
  const next = (stream: string) => {
    const r = (revisions.get(stream) ?? -1) + 1;
    revisions.set(stream, r);
    return r;
  };
  const by = (groupId: string, minutes: number) => ({ orgId, groupId, by: randomUUID(), at: at(minutes) });
  const events: RecordedEvent[] = groups.map((groupId, g) =>
    recorded(
      {
        type: 'PostGroupCreated',
        data: {
          ...by(groupId, 0),
          title: `Group ${g}`,
          topic: g === 2 ? null : 'launch',
          objective: null,
          timezone: 'UTC',
          scheduledFor: null,
          tagIds: [],
          strategy: {
            strategyId: null,
            strategyVersion: null,
            pillarId: null,
            priorityId: null,
            contentType: g === 1 ? 'story' : null,
            opportunityId: null,
          },
          origin: 'post_groups',
          posts: [0, 1].map((i) => ({
            postId: postIds[g * 2 + i]!,
            platform: platformsOfPosts[g * 2 + i]!,
            socialAccountId: null,
            contentText: `Post ${g * 2 + i}`,
            media: null,
            platformPayload: null,
            contentHash: 'sha256:x',
          })),
        },
      },
      `postGroup-${groupId}`,
      next(`postGroup-${groupId}`),
    ),
  );
  const fetchNumbers = new Map<number, number>();
  const lastFetch = new Map<number, number>();
  for (const op of ops) {
    if (op.kind === 'zone' || op.kind === 'audienceZone') {
      const stream = `scheduling-${orgId}`;
      events.push(
        recorded(
          op.kind === 'zone'
            ? {
                type: 'WorkspaceTimezoneSet',
                data: { orgId, timezone: op.timezone, previousTimezone: null, by: 'u', at: at(op.minutes) },
              }
            : {
                type: 'SchedulingSettingsChanged',
                data: {
                  orgId,
                  changes: { audienceTimezone: op.timezone },
                  resetPostingWindows: [],
                  by: 'u',
                  at: at(op.minutes),
                },
              },
          stream,
          next(stream),
        ),
      );
      continue;
    }
    if (op.kind === 'topic') {
      const groupId = groups[op.group]!;
      events.push(
        recorded(
          { type: 'PostGroupUpdated', data: { ...by(groupId, op.minutes), changes: { topic: op.topic } } },
          `postGroup-${groupId}`,
          next(`postGroup-${groupId}`),
        ),
      );
      continue;
    }
    const postId = postIds[op.post]!;
    const groupId = groups[Math.floor(op.post / 2)]!;
    const stream = `postGroup-${groupId}`;
    if (op.kind === 'publish')
      events.push(
        recorded(
          {
            type: 'PostPublished',
            data: {
              ...by(groupId, op.minutes),
              postId,
              attempt: 1,
              externalId: `ext-${op.post}`,
              url: `u${op.post}`,
            },
          },
          stream,
          next(stream),
        ),
      );
    else if (op.kind === 'delete')
      events.push(
        recorded(
          { type: 'PostDeleted', data: { ...by(groupId, op.minutes), postId, groupStatus: 'approved' } },
          stream,
          next(stream),
        ),
      );
    else {
      // The decider only records a reading newer than the last one.
      const fetchedAt = Math.max(op.minutes, (lastFetch.get(op.post) ?? -1) + 1);
      lastFetch.set(op.post, fetchedAt);
      const fetchNumber = (fetchNumbers.get(op.post) ?? 0) + 1;
      fetchNumbers.set(op.post, fetchNumber);
      events.push(
        recorded(
          {
            type: 'PostMetricsFetched',
            data: {
              orgId,
              postId,
              groupId,
              platform: platformsOfPosts[op.post]!,
              socialAccountId: randomUUID(),
              externalId: `ext-${op.post}`,
              publishedAt: at(0),
              contentType: null,
              metrics: op.metrics,
              engagement: engagementOf(op.metrics),
              fetchNumber,
              fetchedAt: at(fetchedAt),
            },
          },
          `postMetrics-${postId}`,
          fetchNumber - 1,
        ),
      );
    }
  }
  return events;
}

async function rowsOf(schema: string, orgId: string) {
  const posts = await sql`
    select * from ${sql.id(schema, 'performance_posts')} where org_id = ${orgId} order by post_id`.execute(
    db,
  );
  const activity = await sql`
    select * from ${sql.id(schema, 'performance_activity')} where org_id = ${orgId}
    order by bucket, platform`.execute(db);
  const daily = await sql`
    select org_id, day::text as day, platform, posts_published, engagements, impressions, rated_engagements
    from ${sql.id(schema, 'performance_daily')} where org_id = ${orgId} order by day, platform`.execute(db);
  const zone = await sql`
    select * from ${sql.id(schema, 'performance_zones')} where org_id = ${orgId}`.execute(db);
  return { posts: posts.rows, activity: activity.rows, daily: daily.rows, zone: zone.rows };
}

async function fold(schema: string, events: readonly RecordedEvent[]) {
  await db.transaction().execute(async (trx) => performanceProjection.fold(trx, events, schema));
}

test('property: one batch, one event at a time and every event twice give the same rows, and activity adds up to the posts', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(arbOp, { maxLength: 30 }), async (ops) => {
      const orgId = randomUUID();
      const events = history(orgId, ops);
      await fold(schemas.batch, events);
      for (const event of events) await fold(schemas.single, [event]);
      for (const event of events) {
        await fold(schemas.twice, [event]);
        await fold(schemas.twice, [event]);
      }
      const batch = await rowsOf(schemas.batch, orgId);
      expect(await rowsOf(schemas.single, orgId)).toEqual(batch);
      expect(await rowsOf(schemas.twice, orgId)).toEqual(batch);

      // The days are the buckets summed in the zone in effect now (audience, else workspace, else UTC).
      let workspace: string | null = null;
      let audience: string | null = null;
      for (const op of ops)
        if (op.kind === 'zone') workspace = op.timezone;
        else if (op.kind === 'audienceZone') audience = op.timezone;
      const zone = audience ?? workspace ?? 'UTC';
      const expected = new Map<string, { posts: number; engagements: number; impressions: number | null }>();
      for (const row of batch.activity as Array<{
        bucket: string;
        platform: string;
        posts_published: number;
        engagements: string;
        impressions: string | null;
      }>) {
        const key = `${todayAt(Date.parse(row.bucket), zone)} ${row.platform}`;
        const e = expected.get(key) ?? { posts: 0, engagements: 0, impressions: null };
        e.posts += row.posts_published;
        e.engagements += Number(row.engagements);
        if (row.impressions !== null) e.impressions = (e.impressions ?? 0) + Number(row.impressions);
        expected.set(key, e);
      }
      expect(
        new Map(
          (
            batch.daily as Array<{
              day: string;
              platform: string;
              posts_published: number;
              engagements: string;
              impressions: string | null;
            }>
          ).map((d) => [
            `${d.day} ${d.platform}`,
            {
              posts: d.posts_published,
              engagements: Number(d.engagements),
              impressions: d.impressions === null ? null : Number(d.impressions),
            },
          ]),
        ),
      ).toEqual(expected);

      const { rows } = await sql<{
        engagement: number;
        activity_engagement: number;
        published: number;
        activity_published: number;
        impressions: number;
        activity_impressions: number;
      }>`
        select
          (select coalesce(sum(engagement), 0)::float8 from ${sql.id(schemas.batch, 'performance_posts')}
            where org_id = ${orgId}) as engagement,
          (select coalesce(sum(engagements), 0)::float8 from ${sql.id(schemas.batch, 'performance_activity')}
            where org_id = ${orgId}) as activity_engagement,
          (select count(*)::int from ${sql.id(schemas.batch, 'performance_posts')}
            where org_id = ${orgId} and published_at is not null and not deleted) as published,
          (select coalesce(sum(posts_published), 0)::int from ${sql.id(schemas.batch, 'performance_activity')}
            where org_id = ${orgId}) as activity_published,
          (select coalesce(sum(impressions), 0)::float8 from ${sql.id(schemas.batch, 'performance_posts')}
            where org_id = ${orgId}) as impressions,
          (select coalesce(sum(impressions), 0)::float8 from ${sql.id(schemas.batch, 'performance_activity')}
            where org_id = ${orgId}) as activity_impressions`.execute(db);
      const totals = rows[0]!;
      expect(totals.activity_engagement).toBe(totals.engagement);
      expect(totals.activity_published).toBe(totals.published);
      // Impressions add up when every reading of a post counted them (a reading without a count adds none).
      const readings = ops.filter((o): o is Extract<Op, { kind: 'read' }> => o.kind === 'read');
      if (readings.every((r) => r.metrics.impressions !== null))
        expect(totals.activity_impressions).toBe(totals.impressions);
    }),
    { numRuns: propertyRuns(100, 20) },
  );
});

test('a post deleted after publishing leaves the counts, keeps what was read; a later reading of it adds nothing', async () => {
  const orgId = randomUUID();
  const metrics = { likes: 5, reposts: 0, replies: 0, quotes: 0, bookmarks: null, impressions: 50 };
  const ops: Op[] = [
    { kind: 'publish', post: 0, minutes: 60 },
    { kind: 'read', post: 0, minutes: 120, metrics },
    { kind: 'delete', post: 0, minutes: 180 },
    { kind: 'read', post: 0, minutes: 240, metrics: { ...metrics, likes: 9 } },
    // Never published: deleting it removes its row.
    { kind: 'delete', post: 1, minutes: 240 },
  ];
  await fold(schemas.batch, history(orgId, ops));
  const { posts, activity } = await rowsOf(schemas.batch, orgId);
  const deleted = posts.find((p) => (p as { external_id: string | null }).external_id === 'ext-0') as Record<
    string,
    unknown
  >;
  expect(deleted).toMatchObject({ deleted: true, likes: '5', fetch_count: 1 });
  expect(posts).toHaveLength(5);
  expect(
    activity.map((a) => {
      const r = a as { bucket: string; posts_published: number; engagements: string };
      return [r.bucket, r.posts_published, r.engagements];
    }),
  ).toEqual([
    // Published at 01:00 (+1, then −1 on deletion), read at 02:00 (+5).
    ['2027-03-01T01:00:00.000Z', 0, '0'],
    ['2027-03-01T02:00:00.000Z', 0, '5'],
  ]);
});

test('an older reading folded again after a newer one changes nothing', async () => {
  const orgId = randomUUID();
  const metrics = { likes: 5, reposts: 0, replies: 0, quotes: 0, bookmarks: null, impressions: 50 };
  const events = history(orgId, [
    { kind: 'publish', post: 2, minutes: 60 },
    { kind: 'read', post: 2, minutes: 120, metrics },
    { kind: 'read', post: 2, minutes: 180, metrics: { ...metrics, likes: 9, impressions: 80 } },
  ]);
  await fold(schemas.batch, events);
  const before = await rowsOf(schemas.batch, orgId);
  expect(before.posts.find((p) => (p as { fetch_count: number }).fetch_count === 2)).toMatchObject({
    likes: '9',
  });
  await fold(schemas.batch, [events[events.length - 2]!]);
  expect(await rowsOf(schemas.batch, orgId)).toEqual(before);
});
