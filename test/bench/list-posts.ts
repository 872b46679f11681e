// list-posts: GET …/posts with realistic filter mixes on a large posts read model. The posts are seeded fast:
// the post-group domain decider decides the events (create, submit, approve, schedule, cancel, publish now) and
// they are appended straight through the event store, one stream per group; then the projection runner
// catches up from the start of the log. Each mix is timed over HTTP, and EXPLAIN (ANALYZE, BUFFERS) shows the
// plan of its statement (the count, and the page beside it) against the `posts` view.
//
// Sizes: BENCH_LIST_POSTS (default 100000), BENCH_LIST_WORKSPACES (100), BENCH_LIST_TAGS (tags per
// workspace, 20), BENCH_LIST_CONNECTIONS (16), BENCH_LIST_DURATION (seconds per mix, 10), BENCH_LIST_WARMUP (seconds
// of all mixes before the timed ones, 3), BENCH_SEED_WRITERS (16).
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { postListQuery } from '../../api/post-groups/post-operations.js';
import { createTag } from '../../commands/tags/tag-commands.js';
import { ensureUser } from '../../commands/users/user-commands.js';
import { createWorkspace } from '../../commands/workspaces/workspace-commands.js';
import { postGroupStream } from '../../commands/post-groups/post-group-commands.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import {
  postGroupDecider,
  postGroupEventTypes,
  type NewPostInput,
  type PostGroupCommand,
  type PostGroupEvent,
  type PostGroupState,
} from '../../domain/post-groups/post-group.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import type { Checkpoint, NewEvent } from '../../infra/event-store/port.js';
import { findPosts, type PostFilter, type PostQuery } from '../../projections/post-groups/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import {
  commandMetadata,
  describeStatuses,
  envInt,
  fmt,
  freshDatabase,
  record,
  runLoad,
  describeLatency,
  startService,
  type BenchContext,
  type BenchService,
} from './shared.js';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const quarter = 15 * minute;

/** Platforms whose posts need nothing beyond text, plus Instagram with a two-image carousel. */
const seedPlatforms: readonly Platform[] = ['x', 'linkedin', 'facebook', 'bluesky', 'threads', 'instagram'];

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

interface SeedWorkspace {
  orgId: string;
  token: string;
  tagIds: string[];
}

type Stage = 'draft' | 'pending_approval' | 'approved' | 'scheduled' | 'canceled' | 'publishing';

function stageOf(r: number): Stage {
  if (r < 0.15) return 'draft';
  if (r < 0.35) return 'pending_approval';
  if (r < 0.45) return 'approved';
  if (r < 0.85) return 'scheduled';
  if (r < 0.9) return 'canceled';
  return 'publishing';
}

const carousel = (n: number): MediaAsset => ({
  kind: 'images',
  images: [0, 1].map((i) => ({
    assetId: randomUUID(),
    url: `https://cdn.example.org/bench/${n}-${i}.jpg`,
    contentType: 'image/jpeg',
    sizeBytes: 180_000,
    width: 1080,
    height: 1080,
    altText: `Slide ${i + 1} of the bench carousel`,
  })),
});

/**
 * The events of one group of `postsPerGroup` posts on distinct platforms, decided by the domain decider:
 * created (a draft, or a draft submitted for approval), then approved, scheduled, canceled or published now.
 */
function seedGroup(
  n: number,
  workspace: SeedWorkspace,
  ownerId: string,
  postsPerGroup: number,
  now: number,
  random: () => number,
): { groupId: string; events: NewEvent[] } {
  const groupId = randomUUID();
  const stage = stageOf(random());
  const shuffled = [...seedPlatforms];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  const platforms = shuffled.slice(0, postsPerGroup);
  const tagCount = Math.floor(random() * 4);
  const tagIds = [
    ...new Set(
      Array.from(
        { length: tagCount },
        () => workspace.tagIds[Math.floor(random() * workspace.tagIds.length)]!,
      ),
    ),
  ];
  // Scheduled groups sit between two days ago and two months ahead; publishing ones in the last month.
  const timed = stage === 'scheduled' || stage === 'publishing';
  const slot = timed
    ? Math.ceil((now + (stage === 'publishing' ? -30 * random() : -2 + 62 * random()) * day) / quarter) *
      quarter
    : 0;
  const createdAt = timed ? slot - (1 + 13 * random()) * day : now - 120 * random() * day;
  const iso = (t: number) => new Date(Math.round(t)).toISOString();
  const posts: NewPostInput[] = platforms.map((platform) => ({
    postId: randomUUID(),
    platform,
    socialAccountId: null,
    contentText: `Post ${n} for ${platform}: three things we learned moving our publishing calendar to events.`,
    media: platform === 'instagram' ? carousel(n) : null,
    platformPayload: null,
  }));

  let state: PostGroupState = postGroupDecider.initialState;
  const events: PostGroupEvent[] = [];
  const step = (command: PostGroupCommand) => {
    for (const event of postGroupDecider.decide(command, state)) {
      state = postGroupDecider.evolve(state, event);
      events.push(event);
    }
  };
  step({
    type: 'CreatePostGroup',
    orgId: workspace.orgId,
    groupId,
    fields: {
      title: `Bench group ${n}`,
      topic: n % 3 === 0 ? 'engineering' : null,
      objective: null,
      timezone: 'UTC',
      scheduledFor: null,
      tagIds,
    },
    strategy: {
      strategyId: null,
      strategyVersion: null,
      pillarId: null,
      priorityId: null,
      contentType: null,
      opportunityId: null,
    },
    posts,
    origin: stage === 'draft' ? 'post_groups' : 'drafts',
    approvalId: randomUUID(),
    by: ownerId,
    now: iso(createdAt),
  });
  const approvedAt = timed ? createdAt + (slot - createdAt) / 4 : createdAt + 2 * random() * day;
  if (stage === 'approved' || timed)
    step({
      type: 'ApprovePostGroup',
      by: ownerId,
      now: iso(approvedAt),
      approvalId: randomUUID(),
      schedule: timed
        ? Object.fromEntries(
            posts.map((p, i) => [
              p.postId,
              { scheduledForUtc: iso(slot + i * quarter), scheduleReason: 'Seeded by the benchmark' },
            ]),
          )
        : null,
    });
  if (stage === 'publishing')
    step({ type: 'RequestPublishNow', postId: posts[0]!.postId, by: ownerId, now: iso(approvedAt + hour) });
  if (stage === 'canceled')
    step({
      type: 'UpdatePostGroup',
      changes: {},
      status: 'canceled',
      by: ownerId,
      now: iso(createdAt + random() * day),
      approvalId: randomUUID(),
    });
  return {
    groupId,
    events: events.map((event) => ({
      type: event.type,
      data: event.data,
      metadata: {
        orgId: workspace.orgId,
        actor: ownerId,
        correlationId: randomUUID(),
        causationId: null,
        occurredAt: (event.data as { at: string }).at,
        schemaVersion: 1,
      },
    })),
  };
}

/** The route's own translation of a parsed list query (api/post-groups/post-operations.ts, toPostQuery). */
function toPostQuery(raw: Record<string, string>): PostQuery {
  const query = postListQuery.parse(raw);
  return {
    filters: query.filters.map((f) =>
      f.op === 'in'
        ? { field: f.field, op: 'in', values: f.values.map(String) }
        : { field: f.field, op: f.op, value: String(f.value) },
    ) as PostFilter[],
    sortBy: query.sortBy ?? 'createdAt',
    sortDir: query.sortDir,
    limit: query.limit,
    offset: query.offset,
  };
}

interface Mix {
  name: string;
  /** Query parameters for the n-th request (workspaces and tags rotate). */
  params(workspace: SeedWorkspace, n: number): Record<string, string>;
}

/** The interesting lines of a text plan: scans (with index names), sorts, and the execution time. */
function summarisePlan(lines: readonly string[]): {
  summary: string;
  usesIndex: boolean;
  sorts: boolean;
  ms: number;
} {
  const scans: string[] = [];
  const sorts: string[] = [];
  let ms = 0;
  let usesIndex = false;
  for (const line of lines) {
    const scan =
      /(Index Only Scan Backward|Index Scan Backward|Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan)(?: using| on) (\S+)/.exec(
        line,
      );
    if (scan) {
      if (scan[1] !== 'Seq Scan') usesIndex = true;
      const rows = /actual time=\S+ rows=(\d+)/.exec(line)?.[1];
      scans.push(`${scan[1]} ${scan[2]}${rows !== undefined ? ` (${rows} rows)` : ''}`);
    }
    const sort = /Sort Method: (.+?)\s+(?:Memory|Disk)/.exec(line);
    if (sort) sorts.push(`sort ${sort[1]}`);
    const time = /Execution Time: ([\d.]+) ms/.exec(line);
    if (time) ms = Number(time[1]);
  }
  return { summary: [...scans, ...sorts].join(' → '), usesIndex, sorts: sorts.length > 0, ms };
}

export async function listPostsBench(ctx: BenchContext): Promise<void> {
  const totalPosts = envInt('BENCH_LIST_POSTS', 100_000);
  const workspaceCount = envInt('BENCH_LIST_WORKSPACES', 100);
  const tagsPerWorkspace = envInt('BENCH_LIST_TAGS', 20);
  const connections = envInt('BENCH_LIST_CONNECTIONS', 16);
  const duration = envInt('BENCH_LIST_DURATION', 10);
  const warmup = envInt('BENCH_LIST_WARMUP', 3);
  const writers = envInt('BENCH_SEED_WRITERS', 16);
  const postsPerGroup = 4;
  const groupsPerWorkspace = Math.max(1, Math.round(totalPosts / workspaceCount / postsPerGroup));
  const groupCount = groupsPerWorkspace * workspaceCount;

  const database = await freshDatabase(ctx, 'list_posts');
  let service: BenchService | undefined;
  try {
    // No publishing sweep: the seed has posts due in the past (scheduled ones from two days ago, publish-now
    // requests), which the pipeline would otherwise publish through the sandbox while the reads are timed.
    service = await startService(database.url, {}, { publishing: { sweep: false } });
    const { runtime, origin } = service;
    // Seeding writes before the background starts: nothing waits for read models yet.
    const direct: CommandDeps = { eventStore: runtime.eventStore };
    const meta = commandMetadata('system');
    const { user } = await ensureUser(direct, { email: 'bench-list@example.org' }, meta);
    const workspaces: SeedWorkspace[] = [];
    for (let w = 0; w < workspaceCount; w++) {
      const orgId = randomUUID();
      await createWorkspace(
        direct,
        { orgId, slug: `bench-list-${process.pid}-${w}`, name: `Bench list ${w}`, ownerId: user.userId },
        meta,
      );
      const tagIds: string[] = [];
      for (let t = 0; t < tagsPerWorkspace; t++) {
        const tagId = randomUUID();
        await createTag(direct, orgId, { tagId, name: `topic-${t}` }, { ...meta, orgId });
        tagIds.push(tagId);
      }
      const { token } = await runtime.auth.issueAccessToken({ userId: user.userId, orgId, role: 'viewer' });
      workspaces.push({ orgId, token, tagIds });
    }

    console.error(
      `seeding ${fmt(groupCount * postsPerGroup)} posts (${fmt(groupCount)} groups of ${postsPerGroup}) ` +
        `in ${workspaceCount} workspaces through the event store, ${writers} writers…`,
    );
    const now = Date.now();
    const random = prng(20_240_601);
    let next = 0;
    let seededEvents = 0;
    let last: Checkpoint = runtime.eventStore.start;
    const seedStarted = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        for (let n = next++; n < groupCount; n = next++) {
          const { groupId, events } = seedGroup(
            n,
            workspaces[n % workspaceCount]!,
            user.userId,
            postsPerGroup,
            now,
            random,
          );
          const result = await runtime.eventStore.appendToStream(postGroupStream(groupId), events, {
            expectedRevision: 'no_stream',
          });
          seededEvents += events.length;
          if (runtime.eventStore.compareCheckpoints(result.position, last) > 0) last = result.position;
          if (n > 0 && n % 5000 === 0) console.error(`  ${fmt(n)} groups appended`);
        }
      }),
    );
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    record(
      'list-posts seed: append post-group events (decider-built)',
      `${fmt(seededEvents / seedSeconds)} events/s`,
      `${fmt(seededEvents)} events in ${fmt(groupCount)} appends (${fmt(groupCount / seedSeconds)} appends/s), ` +
        `${writers} writers, ${fmt(seedSeconds, 1)} s`,
    );

    console.error('projections catching up from the start of the log…');
    const catchUpStarted = performance.now();
    const progress = setInterval(() => {
      void sql<{ n: string }>`
        select events_processed as n from projections where name = 'post_groups' and status = 'serving'`
        .execute(runtime.database.db)
        .then((r) => console.error(`  post_groups: ${fmt(Number(r.rows[0]?.n ?? 0))} events folded`))
        .catch(() => undefined);
    }, 10_000);
    try {
      await service.startBackground();
      const caughtUp = await runtime.commands.waitForProjections!(last, { timeoutMs: 3_600_000 });
      if (!caughtUp) throw new Error('the projections did not catch up within an hour');
    } finally {
      clearInterval(progress);
    }
    const catchUpSeconds = (performance.now() - catchUpStarted) / 1000;
    const folded = Number(
      (
        await sql<{ n: string }>`
          select count(*) as n from es_events where type in (${sql.join(postGroupEventTypes)})`.execute(
          runtime.database.db,
        )
      ).rows[0]!.n,
    );
    const counts = await sql<{ status: string; n: string }>`
      select status, count(*) as n from posts group by status order by count(*) desc`.execute(
      runtime.readModels,
    );
    const postCount = counts.rows.reduce((sum, r) => sum + Number(r.n), 0);
    record(
      'list-posts seed: post_groups projection catch-up',
      `${fmt(folded / catchUpSeconds)} events/s`,
      `${fmt(folded)} post-group events → ${fmt(postCount)} posts in ${fmt(catchUpSeconds, 1)} s ` +
        `(${counts.rows.map((r) => `${r.status} ${fmt(Number(r.n))}`).join(', ')})`,
    );
    if (postCount !== groupCount * postsPerGroup)
      throw new Error(`expected ${groupCount * postsPerGroup} posts in the read model, found ${postCount}`);
    // Statistics as autovacuum would have them after a while; plans on an unanalysed table say little.
    await sql`analyze`.execute(runtime.database.db);
    const table = (
      await sql<{ live: string; dead: string; heap: string; indexes: string }>`
        select n_live_tup as live, n_dead_tup as dead,
          pg_size_pretty(pg_table_size(relid)) as heap, pg_size_pretty(pg_indexes_size(relid)) as indexes
        from pg_stat_user_tables where relname = 'posts'`.execute(runtime.database.db)
    ).rows[0];
    if (table)
      record(
        'list-posts read model: posts table after catch-up + analyze',
        `${fmt(Number(table.live))} live rows`,
        `${fmt(Number(table.dead))} dead row versions (not vacuumed yet), heap ${table.heap}, indexes ${table.indexes}`,
      );

    const weekFrom = new Date(Math.ceil(now / day) * day).toISOString();
    const weekTo = new Date(Math.ceil(now / day) * day + 7 * day).toISOString();
    const mixes: Mix[] = [
      {
        name: 'filter[status]=scheduled&sortBy=scheduledForUtc',
        params: () => ({ 'filter[status]': 'scheduled', sortBy: 'scheduledForUtc' }),
      },
      {
        name: 'filter[platform]=x,linkedin (in) & filter[status]=pending_approval',
        params: () => ({
          'filter[platform]': 'x,linkedin',
          'filterOp[platform]': 'in',
          'filter[status]': 'pending_approval',
        }),
      },
      {
        name: 'filter[tagId]=<tag>',
        params: (w, n) => ({ 'filter[tagId]': w.tagIds[Math.floor(n / workspaceCount) % w.tagIds.length]! }),
      },
      {
        name: 'scheduledFrom/To (next 7 days) & sortBy=scheduledForUtc&sortDir=asc',
        params: () => ({
          'filter[scheduledFrom]': weekFrom,
          'filter[scheduledTo]': weekTo,
          sortBy: 'scheduledForUtc',
          sortDir: 'asc',
        }),
      },
      { name: 'default (createdAt desc, page 1)', params: () => ({}) },
      { name: 'default, deep page (page=30)', params: () => ({ page: '30' }) },
    ];
    const pathFor = (mix: Mix, n: number) => {
      const workspace = workspaces[n % workspaceCount]!;
      const qs = new URLSearchParams(mix.params(workspace, n)).toString();
      return {
        workspace,
        path: `/v1/orgs/${workspace.orgId}/marketing/posts${qs ? `?${qs}` : ''}`,
      };
    };

    // Unmeasured: every mix's path compiled by the JIT first, so the first mix is not timed on cold code.
    console.error(`warming up for ${warmup} s…`);
    await runLoad({
      origin,
      connections,
      duration: warmup,
      requests: mixes.flatMap((mix) =>
        Array.from({ length: 64 }, (_, n) => {
          const { workspace, path } = pathFor(mix, n);
          return { method: 'GET' as const, path, headers: { authorization: `Bearer ${workspace.token}` } };
        }),
      ),
    });
    console.error(`HTTP GET …/posts, ${connections} connections, ${duration} s per mix…`);
    for (const mix of mixes) {
      // One answer checked by hand: the mix matches something and pages as expected.
      const probe = pathFor(mix, 0);
      const res = await fetch(`${origin}${probe.path}`, {
        headers: { authorization: `Bearer ${probe.workspace.token}` },
      });
      if (res.status !== 200) throw new Error(`${mix.name} answered ${res.status}: ${await res.text()}`);
      const page = ((await res.json()) as { data: { items: unknown[]; total: number } }).data;
      // The mix's requests, cycled: every workspace and every variation the mix makes of its parameters.
      const result = await runLoad({
        origin,
        connections,
        duration,
        requests: Array.from({ length: 4096 }, (_, n) => {
          const { workspace, path } = pathFor(mix, n);
          return { method: 'GET' as const, path, headers: { authorization: `Bearer ${workspace.token}` } };
        }),
      });
      const bad = result.non2xx + result.errors;
      record(
        `HTTP GET …/posts ${mix.name}, ${connections} conn`,
        `${fmt(result.rate)} req/s`,
        `${describeLatency(result)}, ${fmt(result.total)} requests` +
          `${bad > 0 ? ` (${describeStatuses(result.statuses)})` : ''}, ${bad} non-2xx/errors; ` +
          `sample: total ${fmt(page.total)}, ${page.items.length} items`,
      );
    }

    console.error('EXPLAIN (ANALYZE, BUFFERS) of each mix against the posts view…');
    const captured: CompiledQuery[] = [];
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const logging = new Kysely<ReadModels>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query);
      },
    });
    try {
      for (const mix of mixes) {
        const workspace = workspaces[0]!;
        captured.length = 0;
        await findPosts(logging, workspace.orgId, toPostQuery(mix.params(workspace, 0)));
        const parts: string[] = [];
        let allIndexed = true;
        let pageSorts = false;
        // findPosts sends one statement: the count, and the page beside it (a lateral subquery).
        for (const query of captured) {
          const kind = /count\(\*\)/i.test(query.sql)
            ? /limit/i.test(query.sql)
              ? 'page+count'
              : 'count'
            : 'page';
          const plan = await pool.query<{ 'QUERY PLAN': string }>(
            `explain (analyze, buffers) ${query.sql}`,
            query.parameters as unknown[],
          );
          const lines = plan.rows.map((r) => r['QUERY PLAN']);
          console.error(`\n  ${mix.name} — ${kind}: ${query.sql}\n    ${lines.join('\n    ')}`);
          const { summary, usesIndex, sorts, ms } = summarisePlan(lines);
          allIndexed &&= usesIndex;
          if (kind !== 'count') pageSorts ||= sorts;
          parts.push(`${kind}: ${summary}, ${fmt(ms, 2)} ms`);
        }
        // `index + sort`: the index finds the rows, then every match is sorted to cut the page (no index order).
        const verdict = !allIndexed ? 'NO index (seq scan)' : pageSorts ? 'index + sort' : 'index order';
        record(`EXPLAIN ${mix.name}`, verdict, parts.join('; '));
      }
    } finally {
      await logging.destroy();
    }
  } finally {
    await service?.stop().catch((error: unknown) => console.error(error));
    await database.drop().catch((error: unknown) => console.error(error));
  }
}
