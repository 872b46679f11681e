// post-groups-rebuild: how fast post-group events are read back. The groups' whole lives (created, submitted,
// edited, approved with times, rejected, claimed, awaiting the platform, failed and retried, published) are decided
// by the domain decider and written straight into the log; then (1) every stream is folded in memory, the events as
// the store hands them cast to the union (as before decoding) and decoded by the slice's codec, and (2) the
// post_groups projection is rebuilt from the log. Events/s of wall time, with the CPU time of this process.
//
// Sizes: BENCH_REBUILD_GROUPS (default 10000), BENCH_REBUILD_FOLDS (in-memory passes over every stream, 5).
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { allMigrations, projections } from '../../api/runtime.js';
import { postGroupStream } from '../../commands/post-groups/post-group-commands.js';
import {
  postGroupDecider,
  type NewPostInput,
  type PostGroupCommand,
  type PostGroupEvent,
  type PostGroupState,
} from '../../domain/post-groups/post-group.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import { fold } from '../../domain/shared/decider.js';
import { createDatabase, migrateToLatest } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.js';
import { createLogger } from '../../infra/logging/logger.js';
import { rebuildProjection } from '../../projections/engine/rebuild.js';
import type { ReadModels } from '../../projections/read-models.js';
import { envInt, fmt, freshDatabase, record, type BenchContext } from './shared.js';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const platforms: readonly Platform[] = ['x', 'linkedin', 'bluesky', 'instagram'];

/** Deterministic random numbers (mulberry32), so two runs write the same shape of log. */
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

const carousel = (n: number): MediaAsset => ({
  kind: 'images',
  images: [0, 1].map((i) => ({
    assetId: `asset-${n}-${i}`,
    url: `https://cdn.example.org/bench/${n}-${i}.jpg`,
    contentType: 'image/jpeg',
    sizeBytes: 180_000,
    width: 1080,
    height: 1080,
    altText: `Slide ${i + 1}`,
  })),
});

/** One group's life, decided by the decider; each event with the time it happened. */
function groupLife(n: number, orgId: string, userId: string, start: number, random: () => number) {
  const groupId = randomUUID();
  const iso = (t: number) => new Date(Math.round(t)).toISOString();
  const count = 2 + Math.floor(random() * 2);
  const posts: NewPostInput[] = platforms.slice(0, count).map((platform) => ({
    postId: randomUUID(),
    platform,
    socialAccountId: null,
    contentText: `Post ${n} for ${platform}: what we learned moving our publishing calendar to events.`,
    media: platform === 'instagram' ? carousel(n) : null,
    platformPayload:
      platform === 'x' && random() < 0.3 ? { poll: { options: ['Yes', 'No'], durationMinutes: 60 } } : null,
  }));
  let state: PostGroupState = postGroupDecider.initialState;
  const events: Array<{ event: PostGroupEvent; at: string }> = [];
  let t = start;
  const step = (command: PostGroupCommand) => {
    for (const event of postGroupDecider.decide(command, state)) {
      state = postGroupDecider.evolve(state, event);
      events.push({ event, at: command.now });
    }
  };
  const common = () => ({ by: userId, now: iso((t += hour * (1 + random()))), approvalId: randomUUID() });
  step({
    type: 'CreatePostGroup',
    orgId,
    groupId,
    fields: {
      title: `Group ${n}`,
      topic: 'events',
      objective: null,
      timezone: 'UTC',
      scheduledFor: null,
      tagIds: [],
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
    origin: random() < 0.5 ? 'drafts' : 'post_groups',
    ...common(),
  });
  if (state.kind === 'active' && state.status === 'draft')
    step({ type: 'UpdatePostGroup', changes: {}, status: 'pending_approval', ...common() });
  if (random() < 0.2)
    step({ type: 'RejectPostGroup', reason: 'too_promotional', note: 'Tone it down', ...common() });
  if (random() < 0.3)
    step({
      type: 'UpdatePost',
      postId: posts[0]!.postId,
      changes: { contentText: `Edited ${n}` },
      ...common(),
    });
  const schedule = (at: number) =>
    Object.fromEntries(
      posts.map((p, i) => [p.postId, { scheduledForUtc: iso(at + i * hour), scheduleReason: 'Bench' }]),
    );
  const slot = t + 2 * day;
  step({ type: 'ApprovePostGroup', schedule: schedule(slot), ...common() });
  // Publishing: each post claimed when due; some wait for the platform, some fail once and are retried.
  t = slot + count * hour;
  for (const p of posts) {
    const attempt = (k: number) => {
      step({ type: 'StartPublishAttempt', postId: p.postId, socialAccountId: null, ...common() });
      return k;
    };
    const outcome = (k: number, o: Extract<PostGroupCommand, { type: 'RecordPublishOutcome' }>['outcome']) =>
      step({ type: 'RecordPublishOutcome', postId: p.postId, attempt: k, outcome: o, ...common() });
    const r = random();
    let k = attempt(1);
    if (r < 0.2) {
      outcome(k, {
        kind: 'failed',
        error: 'Platform answered 503',
        reason: 'retryable',
        nextRetryAt: iso(t + minute),
      });
      t += 2 * minute;
      k = attempt(2);
    }
    if (r > 0.8) outcome(k, { kind: 'pending', reference: `upload-${n}`, nextCheckAt: iso(t + minute) });
    outcome(k, { kind: 'published', externalId: `ext-${n}-${p.platform}`, url: `https://example.org/${n}` });
  }
  return { groupId, events };
}

export async function postGroupsRebuildBench(ctx: BenchContext): Promise<void> {
  const groups = envInt('BENCH_REBUILD_GROUPS', 10_000);
  const passes = envInt('BENCH_REBUILD_FOLDS', 5);
  const fresh = await freshDatabase(ctx, 'post_groups_rebuild');
  const database = createDatabase<ReadModels>(fresh.url, { max: 8 });
  try {
    await migrateToLatest(database.db, allMigrations);
    const store = new PostgresEventStore({ db: database.db, url: fresh.url });
    console.error(`writing the lives of ${fmt(groups)} post groups…`);
    const random = prng(7);
    const orgId = randomUUID();
    const userId = randomUUID();
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    let total = 0;
    for (let first = 0; first < groups; first += 500) {
      const rows: Array<Record<string, unknown>> = [];
      const streams: Array<{ stream_name: string; revision: number }> = [];
      for (let n = first; n < Math.min(groups, first + 500); n++) {
        const { groupId, events } = groupLife(n, orgId, userId, start + n * minute, random);
        const stream = postGroupStream(groupId);
        events.forEach(({ event, at }, revision) =>
          rows.push({
            event_id: randomUUID(),
            stream_name: stream,
            revision,
            type: event.type,
            data: event.data,
            metadata: {
              orgId,
              actor: userId,
              correlationId: randomUUID(),
              causationId: null,
              occurredAt: at,
              schemaVersion: postGroupDecider.codec.schemaVersion(event.type),
            },
          }),
        );
        streams.push({ stream_name: stream, revision: events.length - 1 });
      }
      await sql`
        insert into es_events (event_id, stream_name, revision, type, data, metadata)
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as r(event_id uuid, stream_name text, revision bigint, type text, data jsonb, metadata jsonb)`.execute(
        database.db,
      );
      await sql`
        insert into es_streams (stream_name, revision)
        select * from jsonb_to_recordset(${JSON.stringify(streams)}::jsonb) as r(stream_name text, revision bigint)`.execute(
        database.db,
      );
      total += rows.length;
    }
    await sql`analyze es_events`.execute(database.db);

    console.error('folding every stream in memory…');
    const streams = new Map<string, RecordedEvent[]>();
    for (let from: string | undefined = undefined; ;) {
      const page = await store.readAll({ ...(from ? { from } : {}), limit: 5000 });
      for (const e of page.events) {
        const list = streams.get(e.streamName) ?? [];
        list.push(e);
        streams.set(e.streamName, list);
      }
      from = page.checkpoint;
      if (page.isEnd) break;
    }
    const timed = (label: string, run: (events: RecordedEvent[]) => PostGroupState) => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      let active = 0;
      for (let pass = 0; pass < passes; pass++)
        for (const events of streams.values()) if (run(events).kind === 'active') active++;
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const cpuSeconds = (used.user + used.system) / 1e6;
      if (active !== passes * streams.size) throw new Error(`${label}: ${active} groups folded active`);
      record(
        `post_groups fold in memory (${label})`,
        `${fmt((passes * total) / seconds)} events/s`,
        `${fmt((passes * total) / cpuSeconds)} events per CPU-second; ${fmt(total)} events × ${passes}`,
      );
    };
    timed('events cast to the union, as before decoding', (events) =>
      fold(postGroupDecider, events as unknown as PostGroupEvent[]),
    );
    timed('events decoded by the codec', (events) =>
      fold(postGroupDecider, postGroupDecider.codec.decodeAll(events)),
    );

    console.error('rebuilding post_groups from the log…');
    const cpu = process.cpuUsage();
    const rebuilt = await rebuildProjection(
      { db: database.db, eventStore: store, projections, logger: createLogger({ level: 'silent' }) },
      'post_groups',
    );
    const used = process.cpuUsage(cpu);
    record(
      'projection rebuild: post_groups',
      `${fmt(total / (rebuilt.durationMs / 1000))} events/s`,
      `${fmt(total)} events of ${fmt(groups)} groups in ${fmt(rebuilt.durationMs / 1000, 1)} s; ` +
        `${fmt(total / ((used.user + used.system) / 1e6))} events per CPU-second of this process`,
    );
    await store.close();
  } finally {
    await database.close().catch(() => undefined);
    await fresh.drop().catch(() => undefined);
  }
}
