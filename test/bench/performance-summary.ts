// performance-summary: GET …/marketing/analytics/performance for a workspace with 10,000 published posts and a year
// of metrics, under load, with the service as `npm start` runs it by default (shared.ts's startService). The posts
// are seeded fast: the post-group decider decides each group's events (created, approved, published now) and the
// post metrics decider each post's readings (+1 h, +24 h, +72 h, +7 days after publication, those already due),
// appended straight through the event store; the projections then catch up from the start of the log. Timed: the
// summary at 30 days (the default), 90 and 365 days, top posts, and the home summary; EXPLAIN (ANALYZE, BUFFERS)
// shows the summary's statements.
//
// Sizes: BENCH_PERF_POSTS (default 10000), BENCH_PERF_CONNECTIONS (load generator connections, comma-separated for
// several loads; default 1,4,16), BENCH_PERF_DURATION (seconds per load, 10), BENCH_PERF_WARMUP (3),
// BENCH_SEED_WRITERS (16).
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { postMetricsStream } from '../../commands/analytics/post-metrics-commands.js';
import { postGroupStream } from '../../commands/post-groups/post-group-commands.js';
import { setWorkspaceTimezone } from '../../commands/scheduling/scheduling-commands.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import { ensureUser } from '../../commands/users/user-commands.js';
import { createWorkspace } from '../../commands/workspaces/workspace-commands.js';
import { postMetricsDecider, type MetricsReading } from '../../domain/analytics/post-metrics.js';
import { performanceWindow } from '../../domain/performance/performance.js';
import {
  postGroupDecider,
  type PostGroupCommand,
  type PostGroupEvent,
  type PostGroupState,
} from '../../domain/post-groups/post-group.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { Checkpoint, NewEvent } from '../../infra/event-store/port.js';
import { METRICS_FETCH_OFFSETS_MS } from '../../processes/analytics/post-metrics-schedule.js';
import {
  commandMetadata,
  describeLatency,
  describeStatuses,
  envInt,
  fmt,
  freshDatabase,
  record,
  runLoad,
  startService,
  type BenchContext,
  type BenchService,
} from './shared.js';

const hour = 3_600_000;
const day = 24 * hour;
const otherPlatforms: readonly Platform[] = ['linkedin', 'bluesky', 'threads', 'facebook'];
const topics = ['launch', 'hiring', 'engineering', 'customers', 'pricing', 'events', 'culture', 'roadmap'];
const contentTypes = ['educational', 'story', 'announcement', 'opinion', 'how_to', null];
const timezone = 'Europe/Berlin';

/** Deterministic random numbers (mulberry32), so two runs seed the same shape of data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface SeededPost {
  postId: string;
  platform: Platform;
  publishedAt: number;
}

const iso = (t: number) => new Date(Math.round(t)).toISOString();

/**
 * One group of two posts (X and another platform), created and approved a day before it is published now; or, for
 * `scheduledAt`, approved and scheduled then (not published).
 */
function seedGroup(
  n: number,
  orgId: string,
  ownerId: string,
  at: number,
  random: () => number,
  scheduledAt: number | null,
): { groupId: string; events: NewEvent[]; posts: SeededPost[] } {
  const groupId = randomUUID();
  const platforms: Platform[] = ['x', otherPlatforms[n % otherPlatforms.length]!];
  const posts = platforms.map((platform) => ({ postId: randomUUID(), platform }));
  let state: PostGroupState = postGroupDecider.initialState;
  const events: PostGroupEvent[] = [];
  const step = (command: PostGroupCommand) => {
    for (const event of postGroupDecider.decide(command, state)) {
      state = postGroupDecider.evolve(state, event);
      events.push(event);
    }
  };
  const created = at - day;
  step({
    type: 'CreatePostGroup',
    orgId,
    groupId,
    fields: {
      title: `Bench group ${n}`,
      topic: topics[Math.floor(random() * topics.length)]!,
      objective: null,
      timezone,
      scheduledFor: null,
      tagIds: [],
    },
    strategy: {
      strategyId: null,
      strategyVersion: null,
      pillarId: null,
      priorityId: null,
      contentType: contentTypes[Math.floor(random() * contentTypes.length)]!,
      opportunityId: null,
    },
    posts: posts.map((p) => ({
      postId: p.postId,
      platform: p.platform,
      socialAccountId: null,
      contentText: `Post ${n} on ${p.platform}: what a year of publishing on a calendar taught us.`,
      media: null,
      platformPayload: null,
    })),
    origin: 'drafts',
    approvalId: randomUUID(),
    by: ownerId,
    now: iso(created),
  });
  step({
    type: 'ApprovePostGroup',
    by: ownerId,
    now: iso(created + hour),
    approvalId: randomUUID(),
    schedule:
      scheduledAt === null
        ? null
        : Object.fromEntries(
            posts.map((p, i) => [
              p.postId,
              {
                scheduledForUtc: iso(scheduledAt + i * 15 * 60_000),
                scheduleReason: 'Seeded by the benchmark',
              },
            ]),
          ),
  });
  if (scheduledAt === null)
    for (const p of posts) {
      step({ type: 'RequestPublishNow', postId: p.postId, by: ownerId, now: iso(at) });
      step({
        type: 'StartPublishAttempt',
        postId: p.postId,
        socialAccountId: null,
        by: ownerId,
        now: iso(at),
      });
      step({
        type: 'RecordPublishOutcome',
        postId: p.postId,
        attempt: 1,
        outcome: {
          kind: 'published',
          externalId: `bench-${p.postId}`,
          url: `https://example.org/${p.postId}`,
        },
        by: ownerId,
        now: iso(at + 1000),
      });
    }
  return {
    groupId,
    events: events.map((event) => ({
      type: event.type,
      data: event.data,
      metadata: {
        orgId,
        actor: ownerId,
        correlationId: randomUUID(),
        causationId: null,
        occurredAt: (event.data as { at: string }).at,
        schemaVersion: 1,
      },
    })),
    posts: scheduledAt === null ? posts.map((p) => ({ ...p, publishedAt: at + 1000 })) : [],
  };
}

/** A post's readings already due at `now`: lifetime numbers growing with its age (the last one the largest). */
function readings(
  orgId: string,
  groupId: string,
  post: SeededPost,
  now: number,
  random: () => number,
): NewEvent[] {
  const reach = 200 + Math.floor(random() * 5000);
  let state = postMetricsDecider.initialState;
  const out: NewEvent[] = [];
  METRICS_FETCH_OFFSETS_MS.forEach((offset, i) => {
    const at = post.publishedAt + offset;
    if (at > now) return;
    const share = [0.35, 0.75, 0.92, 1][i]!;
    const impressions = Math.round(reach * share);
    const metrics: MetricsReading = {
      likes: Math.round(impressions * 0.02),
      reposts: Math.round(impressions * 0.004),
      replies: Math.round(impressions * 0.003),
      quotes: Math.round(impressions * 0.001),
      bookmarks: post.platform === 'x' ? Math.round(impressions * 0.002) : null,
      impressions: post.platform === 'linkedin' ? null : impressions,
    };
    for (const event of postMetricsDecider.decide(
      {
        type: 'RecordPostMetrics',
        orgId,
        postId: post.postId,
        groupId,
        platform: post.platform,
        socialAccountId: '00000000-0000-4000-8000-00000000bea0',
        externalId: `bench-${post.postId}`,
        publishedAt: iso(post.publishedAt),
        contentType: null,
        metrics,
        fetchedAt: iso(at),
      },
      state,
    )) {
      state = postMetricsDecider.evolve(state, event);
      out.push({
        type: event.type,
        data: event.data,
        metadata: {
          orgId,
          actor: 'system',
          correlationId: randomUUID(),
          causationId: null,
          occurredAt: iso(at),
          schemaVersion: 1,
        },
      });
    }
  });
  return out;
}

/** The interesting lines of a text plan: scans (with index names), and the execution time. */
function summarisePlan(lines: readonly string[]): string {
  const parts: string[] = [];
  for (const line of lines) {
    const scan =
      /(Index Only Scan Backward|Index Scan Backward|Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan)(?: using| on) (\S+)/.exec(
        line,
      );
    if (scan) {
      const rows = /actual time=\S+ rows=(\d+)/.exec(line)?.[1];
      parts.push(`${scan[1]} ${scan[2]}${rows !== undefined ? ` (${rows} rows)` : ''}`);
    }
    const fetches = /^\s*Heap Fetches: (\d+)/.exec(line)?.[1];
    if (fetches !== undefined) parts.push(`heap fetches ${fetches}`);
    const time = /Execution Time: ([\d.]+) ms/.exec(line);
    if (time) parts.push(`${time[1]} ms`);
  }
  return parts.join(' → ');
}

export async function performanceSummaryBench(ctx: BenchContext): Promise<void> {
  const totalPosts = envInt('BENCH_PERF_POSTS', 10_000);
  const loads = (process.env.BENCH_PERF_CONNECTIONS ?? '1,4,16')
    .split(',')
    .map((c) => Number(c.trim()))
    .filter((c) => Number.isInteger(c) && c > 0);
  const duration = envInt('BENCH_PERF_DURATION', 10);
  const warmup = envInt('BENCH_PERF_WARMUP', 3);
  const writers = envInt('BENCH_SEED_WRITERS', 16);
  const groupCount = Math.ceil(totalPosts / 2);
  const scheduledGroups = 100;

  const database = await freshDatabase(ctx, 'performance');
  let service: BenchService | undefined;
  try {
    // The default configuration; no publishing sweep, so the seeded schedule stays as it is while reads are timed.
    service = await startService(database.url, {}, { publishing: { sweep: false } });
    const { runtime, origin } = service;
    const direct: CommandDeps = { eventStore: runtime.eventStore };
    const meta = commandMetadata('system');
    const { user } = await ensureUser(direct, { email: 'bench-performance@example.org' }, meta);
    const orgId = randomUUID();
    await createWorkspace(
      direct,
      { orgId, slug: `bench-perf-${process.pid}`, name: 'Bench performance', ownerId: user.userId },
      meta,
    );
    await setWorkspaceTimezone(direct, orgId, timezone, { ...meta, orgId });

    console.error(
      `seeding ${fmt(groupCount * 2)} published posts over the last year (${fmt(groupCount)} groups of 2) and their ` +
        `readings, plus ${scheduledGroups} scheduled groups, ${writers} writers…`,
    );
    const now = Date.now();
    const random = prng(20_270_402);
    let next = 0;
    let seeded = 0;
    let readingEvents = 0;
    let last: Checkpoint = runtime.eventStore.start;
    const fetchRows: Array<{ post_id: string; group_id: string; published: number }> = [];
    const note = (position: Checkpoint) => {
      if (runtime.eventStore.compareCheckpoints(position, last) > 0) last = position;
    };
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        for (let n = next++; n < groupCount + scheduledGroups; n = next++) {
          const scheduled = n >= groupCount;
          const at = scheduled
            ? Math.ceil((now + (1 + 29 * random()) * day) / (15 * 60_000)) * 15 * 60_000
            : now - 365 * day * random();
          const group = seedGroup(
            n,
            orgId,
            user.userId,
            scheduled ? now - 2 * day : at,
            random,
            scheduled ? at : null,
          );
          note(
            (
              await runtime.eventStore.appendToStream(postGroupStream(group.groupId), group.events, {
                expectedRevision: 'no_stream',
              })
            ).position,
          );
          seeded += group.events.length;
          for (const post of group.posts) {
            fetchRows.push({ post_id: post.postId, group_id: group.groupId, published: post.publishedAt });
            const events = readings(orgId, group.groupId, post, now, random);
            if (events.length === 0) continue;
            note(
              (
                await runtime.eventStore.appendToStream(postMetricsStream(post.postId), events, {
                  expectedRevision: 'no_stream',
                })
              ).position,
            );
            readingEvents += events.length;
          }
          if (n > 0 && n % 1000 === 0) console.error(`  ${fmt(n)} groups appended`);
        }
      }),
    );
    const seedSeconds = (performance.now() - started) / 1000;
    record(
      'performance seed: append post-group and metrics events (decider-built)',
      `${fmt((seeded + readingEvents) / seedSeconds)} events/s`,
      `${fmt(seeded)} post-group + ${fmt(readingEvents)} PostMetricsFetched events, ${fmt(seedSeconds, 1)} s`,
    );

    // The metrics schedule as a year of fetching leaves it: every reading already due was taken (seeded above), so
    // the fetcher has only the last week's posts' later readings ahead of it, as in a workspace running all along.
    for (let i = 0; i < fetchRows.length; i += 1000) {
      const rows = fetchRows.slice(i, i + 1000).map((r) => {
        const due = METRICS_FETCH_OFFSETS_MS.map((o) => r.published + o).find((t) => t > now);
        return sql`(${r.post_id}, ${orgId}, ${r.group_id}, ${`bench-${r.post_id}`}, ${iso(r.published)},
          ${due === undefined ? 'done' : 'active'}, ${due === undefined ? null : iso(due)})`;
      });
      await sql`
        insert into post_metrics_fetches (post_id, org_id, group_id, external_id, published_at, status, next_fetch_at)
        values ${sql.join(rows)} on conflict (post_id) do nothing`.execute(runtime.database.db);
    }

    console.error('projections catching up from the start of the log…');
    const catchUp = performance.now();
    await service.startBackground();
    if (!(await runtime.commands.waitForProjections!(last, { timeoutMs: 3_600_000 })))
      throw new Error('the projections did not catch up within an hour');
    const folded = Number(
      (
        await sql<{ n: string }>`
          select events_processed as n from projections where name = 'performance' and status = 'serving'`.execute(
          runtime.database.db,
        )
      ).rows[0]?.n ?? 0,
    );
    const catchUpSeconds = (performance.now() - catchUp) / 1000;
    const counts = (
      await sql<{ posts: number; read: number; buckets: number; days: number }>`
        select (select count(*)::int from performance_posts where published_at is not null) as posts,
          (select count(*)::int from performance_posts where fetch_count > 0) as read,
          (select count(*)::int from performance_activity) as buckets,
          (select count(*)::int from performance_daily) as days`.execute(runtime.readModels)
    ).rows[0]!;
    record(
      'performance seed: projections catch-up (all of them, from the start of the log)',
      `${fmt(catchUpSeconds, 1)} s`,
      `performance folded ${fmt(folded)} events: ${fmt(counts.posts)} published posts, ${fmt(counts.read)} with ` +
        `readings, ${fmt(counts.buckets)} activity buckets, ${fmt(counts.days)} day rows`,
    );
    if (counts.posts !== groupCount * 2)
      throw new Error(`expected ${groupCount * 2} published posts, found ${counts.posts}`);
    // Statistics and the visibility map as autovacuum would have them after a while.
    await sql`vacuum analyze`.execute(runtime.database.db);

    const { token } = await runtime.auth.issueAccessToken({ userId: user.userId, orgId, role: 'owner' });
    const headers = { authorization: `Bearer ${token}` };
    const base = `/v1/orgs/${orgId}/marketing/analytics`;
    const paths = [
      { name: 'performance (default: 30 days)', path: `${base}/performance` },
      { name: 'performance?days=90', path: `${base}/performance?days=90` },
      { name: 'performance?days=365&topLimit=50', path: `${base}/performance?days=365&topLimit=50` },
      { name: 'top-posts (default: 30 days, 10)', path: `${base}/top-posts` },
      { name: 'top-posts?days=365&limit=50&page=5', path: `${base}/top-posts?days=365&limit=50&page=5` },
      { name: 'home', path: `/v1/orgs/${orgId}/home` },
    ];
    const probe = await fetch(`${origin}${paths[0]!.path}`, { headers });
    if (probe.status !== 200) throw new Error(`the summary answered ${probe.status}: ${await probe.text()}`);
    const summary = (
      (await probe.json()) as { data: { summary: Record<string, unknown>; trends: unknown[] } }
    ).data;
    console.error(`  sample: ${JSON.stringify(summary.summary)}`);

    console.error(`warming up for ${warmup} s…`);
    await runLoad({
      origin,
      connections: Math.max(...loads),
      duration: warmup,
      requests: paths.map((p) => ({ method: 'GET' as const, path: p.path, headers })),
    });
    for (const connections of loads)
      for (const p of paths) {
        if (connections !== Math.max(...loads) && !p.name.startsWith('performance (default')) continue;
        const result = await runLoad({
          origin,
          connections,
          duration,
          requests: [{ method: 'GET', path: p.path, headers }],
        });
        const bad = result.non2xx + result.errors;
        record(
          `HTTP GET …/${p.name}, ${connections} conn`,
          `${fmt(result.rate)} req/s`,
          `${describeLatency(result)}, ${fmt(result.total)} requests` +
            `${bad > 0 ? ` (${describeStatuses(result.statuses)})` : ''}, ${bad} non-2xx/errors`,
        );
      }

    console.error('EXPLAIN (ANALYZE, BUFFERS) of the default summary’s statements…');
    const window = performanceWindow(Date.now(), timezone, 30);
    const statements: Array<[string, string, unknown[]]> = [
      [
        'activity by day',
        `select day::text as date, platform, posts_published, engagements::float8, impressions::float8,
           rated_engagements::float8
         from performance_daily where org_id = $1 and day >= $2::date and day <= $3::date`,
        [orgId, window.previousDates[0], window.dates[window.dates.length - 1]],
      ],
      [
        'topics and content types',
        `select topic, content_type, grouping(content_type) = 1, count(*)::int, sum(engagement)::float8,
           sum(impressions)::float8
         from performance_posts where org_id = $1 and published_at >= $2 and published_at < $3 and not deleted
         group by grouping sets ((topic), (content_type))`,
        [orgId, iso(window.startMs), iso(window.endMs)],
      ],
      [
        'ranking',
        `select post_id, engagement_score, engagement, published_at, count(*) over () as total
         from performance_posts where org_id = $1 and published_at >= $2 and published_at < $3 and not deleted
           and fetch_count > 0
         order by engagement_score desc, engagement desc, published_at desc, post_id limit 5`,
        [orgId, iso(window.startMs), iso(window.endMs)],
      ],
    ];
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      for (const [name, text, values] of statements) {
        const plan = await pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`, values);
        const lines = plan.rows.map((r) => r['QUERY PLAN']);
        console.error(`\n  ${name}:\n    ${lines.join('\n    ')}`);
        record(
          `plan: ${name} (30 days)`,
          summarisePlan(lines).split(' → ').pop() ?? '',
          summarisePlan(lines),
        );
      }
    } finally {
      await pool.end();
    }
  } finally {
    await service?.stop().catch(() => undefined);
    await database.drop().catch(() => undefined);
  }
}
