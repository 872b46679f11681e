// `npm run bench`: speed figures, printed as a table. Uses DATABASE_URL when reachable, else an embedded
// PostgreSQL under .data/bench-postgres; each benchmark works in a fresh database that it drops afterwards.
//
// Benchmarks: foundation (event store, subscription, projection rebuild, workspace HTTP), approve-command,
// list-posts, publishing, post-groups-rebuild, scheduler-slots, notification-fanout, billing, visuals,
// analytics-refresh, performance-summary, ai-writing, reply-inbox and inspiration. Run some by name: `npm run bench -- list-posts` or
// `BENCH_ONLY=approve-command,list-posts`.
// Sizes come from the environment; each benchmark's file lists its variables.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { sql } from 'kysely';
import { createLogger } from '../../infra/logging/logger.js';
import { createDatabase, isReachable, migrateToLatest } from '../../infra/db/database.js';
import { startEmbeddedPostgres } from '../../infra/db/embedded-postgres.js';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.js';
import type { NewEvent } from '../../infra/event-store/port.js';
import { allMigrations, projections } from '../../api/runtime.js';
import { rebuildProjection } from '../../projections/engine/rebuild.js';
import type { ReadModels } from '../../projections/read-models.js';
import { ensureUser } from '../../commands/users/user-commands.js';
import { billingBench } from './billing.js';
import { visualsBench } from './visuals.js';
import { approveCommandBench } from './approve-command.js';
import { listPostsBench } from './list-posts.js';
import { publishingBench } from './publishing.js';
import { postGroupsRebuildBench } from './post-groups-rebuild.js';
import { schedulerSlotsBench } from './scheduler-slots.js';
import { notificationFanoutBench } from './notification-fanout.js';
import { analyticsRefreshBench } from './analytics-refresh.js';
import { performanceSummaryBench } from './performance-summary.js';
import { aiWritingBench } from './ai-writing.js';
import { replyInboxBench } from './reply-inbox.js';
import { inspirationBench } from './inspiration.js';
import { printBeforeAfter } from './before-after.js';
import {
  fmt,
  freshDatabase,
  percentile,
  printTable,
  record,
  rows,
  runLoad,
  describeLatency,
  startService,
  type BenchContext,
} from './shared.js';

const meta = {
  orgId: null,
  actor: 'bench',
  correlationId: 'bench',
  causationId: null,
  occurredAt: new Date().toISOString(),
  schemaVersion: 1,
};

async function serverUrl(): Promise<{ url: string; stop?: () => Promise<void> }> {
  if (process.env.DATABASE_URL && (await isReachable(process.env.DATABASE_URL)))
    return { url: process.env.DATABASE_URL };
  const embedded = await startEmbeddedPostgres({ dataDir: '.data/bench-postgres', database: 'bench' });
  return { url: embedded.url, stop: () => embedded.stop() };
}

async function foundationBench(ctx: BenchContext): Promise<void> {
  const fresh = await freshDatabase(ctx, 'foundation');
  const url = fresh.url;
  const database = createDatabase<ReadModels>(url, { max: 40 });
  await migrateToLatest(database.db, allMigrations);
  const store = new PostgresEventStore({ db: database.db, url });
  const events = (n: number): NewEvent[] =>
    Array.from({ length: n }, () => ({
      type: 'BenchEvent',
      data: { n: 1, text: 'x'.repeat(100) },
      metadata: meta,
    }));

  try {
    console.error('event store appends…');
    for (const [writers, perAppend] of [
      [1, 1],
      [1, 10],
      [16, 1],
      [16, 10],
    ] as const) {
      const appendsPerWriter =
        Math.round((writers === 1 ? 2000 : 400) / perAppend) * (perAppend === 10 ? 2 : 1);
      const started = performance.now();
      await Promise.all(
        Array.from({ length: writers }, async () => {
          const stream = `bench-${randomUUID()}`;
          let revision: number | 'no_stream' = 'no_stream';
          for (let i = 0; i < appendsPerWriter; i++) {
            const r = await store.appendToStream(stream, events(perAppend), { expectedRevision: revision });
            revision = r.nextExpectedRevision;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const total = writers * appendsPerWriter * perAppend;
      record(
        `append: ${writers} writer(s) × ${perAppend} event(s)/append`,
        `${fmt(total / seconds)} events/s`,
        `${fmt(total)} events`,
      );
    }

    console.error('readStream…');
    const stream50 = `bench-read-${randomUUID()}`;
    await store.appendToStream(stream50, events(50), { expectedRevision: 'no_stream' });
    const reads: number[] = [];
    const readStarted = performance.now();
    for (let i = 0; i < 2000; i++) {
      const t = performance.now();
      const got = await store.readStream(stream50);
      reads.push(performance.now() - t);
      if (got.length !== 50) throw new Error('readStream returned the wrong count');
    }
    reads.sort((a, b) => a - b);
    record(
      'readStream of a 50-event stream',
      `${fmt(2000 / ((performance.now() - readStarted) / 1000))} reads/s`,
      `p50 ${fmt(percentile(reads, 50), 2)} ms, p99 ${fmt(percentile(reads, 99), 2)} ms`,
    );

    console.error('generating 100,000 synthetic workspace events…');
    await sql`
      with w as (select gen_random_uuid() as id, g from generate_series(1, 50000) g)
      insert into es_events (event_id, stream_name, revision, type, data, metadata)
      select gen_random_uuid(), 'workspace-' || w.id, r.rev,
        case r.rev when 0 then 'WorkspaceCreated' else 'MemberJoined' end,
        case r.rev when 0
          then jsonb_build_object('orgId', w.id, 'slug', 'ws-' || w.g, 'name', 'Workspace ' || w.g, 'ownerId', w.id, 'createdAt', now())
          else jsonb_build_object('orgId', w.id, 'userId', w.id, 'role', 'owner', 'joinedAt', now()) end,
        ${JSON.stringify(meta)}::jsonb
      from w cross join (values (0), (1)) r(rev) order by w.g, r.rev`.execute(database.db);
    await sql`insert into es_streams (stream_name, revision) select distinct stream_name, 1 from es_events where stream_name like 'workspace-%'`.execute(
      database.db,
    );
    const total = Number(
      (await sql<{ n: string }>`select count(*) as n from es_events`.execute(database.db)).rows[0]!.n,
    );

    console.error('subscription catch-up…');
    let seen = 0;
    const subStarted = performance.now();
    await new Promise<void>((resolve, reject) => {
      const sub = store.subscribeToAll({
        onEvent: async () => {
          seen++;
        },
        onCaughtUp: () => {
          if (seen >= total) void sub.stop().then(resolve);
        },
        onError: reject,
      });
    });
    record(
      'subscription catch-up',
      `${fmt(seen / ((performance.now() - subStarted) / 1000))} events/s`,
      `${fmt(seen)} events from the start`,
    );

    console.error('projection rebuild (workspaces) over the log…');
    const logger = createLogger({ level: 'silent' });
    const rebuildBatch = process.env.BENCH_REBUILD_BATCH;
    const rebuilt = await rebuildProjection(
      { db: database.db, eventStore: store, projections, logger },
      'workspaces',
      rebuildBatch ? { batchSize: Number(rebuildBatch) } : {},
    );
    record(
      'projection rebuild: workspaces',
      `${fmt(total / (rebuilt.durationMs / 1000))} events/s`,
      `${fmt(total)} events in the log (${fmt(100_000)} synthetic), ${fmt(rebuilt.durationMs / 1000, 1)} s`,
    );
    await store.close();
    await database.close();

    console.error('HTTP (load generator in its own process, 32 connections)…');
    const service = await startService(url);
    await service.startBackground();
    const { runtime } = service;
    const { user } = await ensureUser(
      runtime.commands,
      { email: 'bench@example.org' },
      { orgId: null, actor: 'system', correlationId: 'bench', now: new Date().toISOString() },
    );
    const { token } = await runtime.auth.issueAccessToken({ userId: user.userId, orgId: null, role: null });
    const create = await runLoad({
      origin: service.origin,
      connections: 32,
      duration: 10,
      requests: [
        {
          method: 'POST',
          path: '/v1/orgs',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Bench', slug: `bench-${process.pid}-{n}` }),
        },
      ],
    });
    record(
      'HTTP POST /v1/orgs (create workspace, read-your-writes included)',
      `${fmt(create.rate)} req/s`,
      `${describeLatency(create)}, ${fmt(create.total)} requests, ${create.non2xx + create.errors} non-2xx/errors`,
    );
    const health = await runLoad({
      origin: service.origin,
      connections: 32,
      duration: 10,
      requests: [{ method: 'GET', path: '/healthz' }],
    });
    record(
      'HTTP GET /healthz',
      `${fmt(health.rate)} req/s`,
      `32 conn, ${describeLatency(health)}, ${health.non2xx + health.errors} non-2xx/errors`,
    );
    const list = await runLoad({
      origin: service.origin,
      connections: 32,
      duration: 10,
      requests: [{ method: 'GET', path: '/v1/orgs?limit=25', headers: { authorization: `Bearer ${token}` } }],
    });
    record(
      'HTTP GET /v1/orgs?limit=25',
      `${fmt(list.rate)} req/s`,
      `${describeLatency(list)}, ${list.non2xx + list.errors} non-2xx/errors`,
    );
    await service.stop();
  } finally {
    await store.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    await fresh.drop().catch(() => undefined);
  }
}

const benchmarks: Record<string, (ctx: BenchContext) => Promise<void>> = {
  foundation: foundationBench,
  'approve-command': approveCommandBench,
  'list-posts': listPostsBench,
  publishing: publishingBench,
  'post-groups-rebuild': postGroupsRebuildBench,
  'scheduler-slots': schedulerSlotsBench,
  'notification-fanout': notificationFanoutBench,
  billing: billingBench,
  visuals: visualsBench,
  'analytics-refresh': analyticsRefreshBench,
  'performance-summary': performanceSummaryBench,
  'ai-writing': aiWritingBench,
  'reply-inbox': replyInboxBench,
  inspiration: inspirationBench,
};

async function main() {
  const asked = [
    ...process.argv.slice(2),
    ...(process.env.BENCH_ONLY ?? '').split(',').map((n) => n.trim()),
  ].filter((n) => n !== '');
  const unknown = asked.filter((n) => !(n in benchmarks));
  if (unknown.length > 0)
    throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(benchmarks).join(', ')}`);
  const selected = asked.length > 0 ? [...new Set(asked)] : Object.keys(benchmarks);

  const server = await serverUrl();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    for (const name of selected) {
      console.error(`\n== ${name}`);
      await benchmarks[name]!({ serverUrl: server.url, admin });
    }
  } finally {
    await admin.end();
    await server.stop?.();
  }
  printTable(
    `Benchmarks: ${selected.join(', ')} (${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${server.stop ? 'embedded' : 'from DATABASE_URL'})`,
  );
  printBeforeAfter(rows);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
