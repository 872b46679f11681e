// analytics-refresh: `POST ORG/marketing/analytics/refresh` over a workspace's published posts on the sandbox
// platforms, with the service as `npm start` runs it (startService: the default configuration, background on).
// The posts are published through the pipeline first (drafts of five posts, one per platform, each group approved
// for a few seconds later), then one refresh reads them all; its time runs from the request to the answer, which comes after the
// read models show every reading (read-your-writes). Then the background fetcher's round over the same posts once
// they are due (its clock moved an hour on).
//
// Sizes: BENCH_REFRESH_POSTS (posts read, default 10,000; a multiple of 5), BENCH_REFRESH_ROUND (0 skips the
// background round).
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { MetricsFetcher } from '../../processes/analytics/metrics-fetcher.js';
import { connectSandboxAccount } from '../support/social-accounts.js';
import type { Platform } from '../../domain/shared/platforms.js';
import {
  countQueries,
  createWorkspaces,
  envInt,
  fmt,
  freshDatabase,
  record,
  startService,
  type BenchContext,
  type BenchService,
  type BenchWorkspace,
} from './shared.js';

const platforms: Platform[] = ['x', 'linkedin', 'bluesky', 'threads', 'facebook'];

/** CPU time (ms) of the PostgreSQL backends serving `database` (Linux /proc; 0 elsewhere). */
async function databaseCpuMs(database: string): Promise<number> {
  if (process.platform !== 'linux') return 0;
  let total = 0;
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).split(' ');
      if (!title[0]?.startsWith('postgres:') || !title.includes(database)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** With BENCH_CPU_PROFILE=<dir>, a V8 CPU profile of this process (the service) during the refresh. */
async function profile(): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return async () => undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile: taken } = await session.post('Profiler.stop');
    session.disconnect();
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `${Date.now()}-analytics-refresh.cpuprofile`);
    await writeFile(file, JSON.stringify(taken));
    console.error(`  CPU profile ${file}`);
  };
}

async function post(service: BenchService, token: string, path: string, body?: unknown) {
  const res = await fetch(`${service.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { data: unknown };
}

async function pool<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/** Groups of one post per platform, approved for a few seconds later; resolves once every post is published. */
async function publishPosts(
  service: BenchService,
  ws: BenchWorkspace,
  accounts: Record<string, string>,
  count: number,
): Promise<void> {
  const groups: string[] = [];
  console.error(`drafting ${fmt(count / platforms.length)} groups of ${platforms.length} posts…`);
  await pool(
    Array.from({ length: count / platforms.length }, (_, i) => i),
    8,
    async (i) => {
      const res = (await post(service, ws.token, `${ws.base}/drafts`, {
        title: `Bench ${i}`,
        posts: platforms.map((platform) => ({
          platform,
          contentText: `Refresh bench ${i} on ${platform}`,
          socialAccountId: accounts[platform],
        })),
      })) as { data: { group: { id: string } } };
      groups.push(res.data.group.id);
    },
  );
  console.error('approving them, each due a few seconds later…');
  await pool(groups, 8, async (groupId) => {
    await post(service, ws.token, `${ws.base}/post-groups/${groupId}/approve`, {
      scheduledForUtc: new Date(Date.now() + 5_000).toISOString(),
    });
  });
  console.error('publishing…');
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from post_metrics_fetches where org_id = ${ws.orgId}`.execute(
      service.runtime.readModels,
    );
    const n = Number(rows[0]?.n ?? 0);
    if (n >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${n} of ${count} posts published`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function analyticsRefreshBench(ctx: BenchContext): Promise<void> {
  const count = Math.max(platforms.length, envInt('BENCH_REFRESH_POSTS', 10_000));
  const total = count - (count % platforms.length);
  const fresh = await freshDatabase(ctx, 'analytics_refresh');
  const service = await startService(fresh.url);
  try {
    await service.startBackground();
    const [ws] = await createWorkspaces(service, 1, 'bench-refresh');
    const accounts: Record<string, string> = {};
    for (const platform of platforms)
      accounts[platform] = (
        await connectSandboxAccount(service, ws!, platform, { account: `bench_${platform}` })
      ).id;
    await publishPosts(service, ws!, accounts, total);

    console.error(`refreshing ${fmt(total)} posts…`);
    const stopProfile = await profile();
    const stopCounting = countQueries();
    const database = new URL(fresh.url).pathname.slice(1);
    const cpuBefore = { node: process.cpuUsage(), db: await databaseCpuMs(database) };
    const started = performance.now();
    const answer = (await post(service, ws!.token, `${ws!.base}/analytics/refresh`)).data as {
      processed: number;
      updated: number;
      failed: number;
      skippedFairUse: number;
      errors: unknown[];
    };
    const seconds = (performance.now() - started) / 1000;
    const nodeCpu = process.cpuUsage(cpuBefore.node);
    const nodeMs = (nodeCpu.user + nodeCpu.system) / 1000;
    const dbMs = (await databaseCpuMs(database)) - cpuBefore.db;
    const cpuMs = nodeMs + dbMs;
    stopCounting(total);
    await stopProfile();
    if (answer.updated !== total)
      throw new Error(`the refresh updated ${answer.updated} of ${total} posts: ${JSON.stringify(answer)}`);
    record(
      `analytics refresh, ${fmt(total)} posts (sandbox, default configuration)`,
      `${fmt(total / seconds)} posts/s`,
      `${fmt(seconds, 2)} s to the answer, read models included; ${fmt(cpuMs / total, 2)} ms CPU per post (service ${fmt(nodeMs / total, 2)}, its PostgreSQL backends ${fmt(dbMs / total, 2)}); processed ${answer.processed}, failed ${answer.failed}, skipped ${answer.skippedFairUse}`,
    );

    if (process.env.BENCH_REFRESH_ROUND !== '0') {
      // The background fetcher's round once the readings are due (+1 h, the cadence's first).
      const { runtime } = service;
      const later = new Date(Date.now() + 3_600_000 + 60_000);
      const fetcher = new MetricsFetcher({
        db: runtime.readModels,
        commands: runtime.commands,
        connectors: runtime.connectors,
        accounts: runtime.accounts,
        logger: runtime.logger,
        owner: 'bench-round',
        now: () => later,
      });
      const roundStarted = performance.now();
      let read = 0;
      for (;;) {
        const round = await fetcher.runOnce();
        read += round.recorded + round.stopped + round.retried;
        if (round.recorded + round.stopped + round.retried + round.deferred === 0) break;
      }
      const roundSeconds = (performance.now() - roundStarted) / 1000;
      record(
        `metrics fetch rounds, ${fmt(read)} due posts (sandbox)`,
        `${fmt(read / roundSeconds)} posts/s`,
        `${fmt(roundSeconds, 2)} s; each post's stream read first (a crashed reader's reading is not taken twice)`,
      );
    }
  } finally {
    await service.stop();
    await fresh.drop();
  }
}
