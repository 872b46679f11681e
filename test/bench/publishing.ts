// publishing: the pipeline with the sandbox connectors on the embedded-default wiring (in-process bus, one
// instance). Two runs: posts due spread over a window (due-to-published lag p50/p99: PostPublished time minus
// scheduledForUtc), and a burst all due at one instant (posts published per second).
//
// Sizes: BENCH_PUBLISH_SPREAD (posts spread over the window, default 1000), BENCH_PUBLISH_WINDOW_S (20),
// BENCH_PUBLISH_BURST (posts due at once, default 2000), BENCH_PUBLISH_CONCURRENCY (PUBLISH_CONCURRENCY, 16).
import { connectSandboxAccount } from '../support/social-accounts.js';
import {
  countQueries,
  createWorkspaces,
  envInt,
  fmt,
  freshDatabase,
  percentile,
  record,
  startService,
  type BenchContext,
  type BenchService,
  type BenchWorkspace,
} from './shared.js';

interface Workspace extends BenchWorkspace {
  accounts: { x: string; linkedin: string };
}

async function api(service: BenchService, token: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${service.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

async function pool<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/** Workspaces with an X and a LinkedIn sandbox account each, connected as a user granting access would. */
async function workspaces(service: BenchService, count: number): Promise<Workspace[]> {
  const spaces = await createWorkspaces(service, count, 'bench-publish');
  return Promise.all(
    spaces.map(async (ws, i) => {
      const x = await connectSandboxAccount(service, ws, 'x', { account: `bench_x_${i}` });
      const linkedin = await connectSandboxAccount(service, ws, 'linkedin', { account: `bench_li_${i}` });
      return { ...ws, accounts: { x: x.id, linkedin: linkedin.id } };
    }),
  );
}

/** Groups of two posts (x + linkedin) in review, approved for the given times; returns the post ids. */
async function schedule(service: BenchService, spaces: Workspace[], times: string[]): Promise<number> {
  const groups: Array<{ ws: Workspace; groupId: string; at: string }> = [];
  await pool(
    times.map((at, i) => ({ at, ws: spaces[i % spaces.length]! })),
    32,
    async ({ at, ws }) => {
      const res = (await api(service, ws.token, `${ws.base}/drafts`, {
        title: 'Bench',
        posts: [
          { platform: 'x', contentText: `Due at ${at} ${Math.random()}`, socialAccountId: ws.accounts.x },
          { platform: 'linkedin', contentText: `Due at ${at}`, socialAccountId: ws.accounts.linkedin },
        ],
      })) as { data: { group: { id: string } } };
      groups.push({ ws, groupId: res.data.group.id, at });
    },
  );
  let late = 0;
  await pool(groups, 32, async ({ ws, groupId, at }) => {
    if (Date.parse(at) <= Date.now() + 200) late += 1;
    await api(service, ws.token, `${ws.base}/post-groups/${groupId}/approve`, { scheduledForUtc: at });
  });
  return late;
}

/** Waits until `count` posts are published; returns each one's lag (published event time − scheduledForUtc). */
async function published(service: BenchService, count: number, since: string): Promise<number[]> {
  const db = service.runtime.readModels;
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const rows = await db
      .selectFrom('posts')
      .select(['scheduled_for_utc', 'updated_at', 'status'])
      .where('status', '=', 'published')
      .where('scheduled_for_utc', '>=', since)
      .execute();
    if (rows.length >= count)
      return rows.map((r) => new Date(r.updated_at).getTime() - new Date(r.scheduled_for_utc!).getTime());
    if (Date.now() > deadline) throw new Error(`only ${rows.length} of ${count} posts published`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function publishingBench(ctx: BenchContext): Promise<void> {
  const spread = Math.max(2, envInt('BENCH_PUBLISH_SPREAD', 1000) & ~1);
  const windowS = envInt('BENCH_PUBLISH_WINDOW_S', 20);
  const burst = Math.max(2, envInt('BENCH_PUBLISH_BURST', 2000) & ~1);
  const concurrency = envInt('BENCH_PUBLISH_CONCURRENCY', 16);
  const fresh = await freshDatabase(ctx, 'publishing');
  const service = await startService(fresh.url, { PUBLISH_CONCURRENCY: String(concurrency) });
  try {
    await service.startBackground();
    const spaces = await workspaces(service, 8);

    console.error(`scheduling ${spread} posts over ${windowS} s…`);
    const start = Date.now() + 5_000 + (spread / 2) * 15;
    const spreadTimes = Array.from({ length: spread / 2 }, (_, i) =>
      new Date(start + Math.floor((i * windowS * 1000) / (spread / 2))).toISOString(),
    );
    const lateSpread = await schedule(service, spaces, spreadTimes);
    const lags = (await published(service, spread, new Date(start - 1).toISOString())).sort((a, b) => a - b);
    record(
      `due-to-published lag, ${fmt(spread)} posts due over ${windowS} s (sandbox, in-process bus)`,
      `p50 ${fmt(percentile(lags, 50))} ms, p99 ${fmt(percentile(lags, 99))} ms`,
      `max ${fmt(lags.at(-1)!)} ms; ${lateSpread} groups approved after their time; sweep ${service.runtime.env.PUBLISH_SWEEP_INTERVAL_MS} ms`,
    );

    console.error(`scheduling a burst of ${burst} posts due at one instant…`);
    const at = new Date(Date.now() + 5_000 + (burst / 2) * 30).toISOString();
    const lateBurst = await schedule(
      service,
      spaces,
      Array.from({ length: burst / 2 }, () => at),
    );
    const waitUntil = Date.parse(at) - Date.now();
    if (waitUntil > 0) await new Promise((r) => setTimeout(r, waitUntil));
    const stopCounting = countQueries();
    const burstLags = (await published(service, burst, at)).sort((a, b) => a - b);
    stopCounting(burst);
    const seconds = burstLags.at(-1)! / 1000;
    record(
      `publish rate, ${fmt(burst)} posts due at once (concurrency ${concurrency})`,
      `${fmt(burst / seconds)} posts/s`,
      `all published ${fmt(seconds, 1)} s after their time; lag p50 ${fmt(percentile(burstLags, 50))} ms, p99 ${fmt(percentile(burstLags, 99))} ms; ${lateBurst} late approvals`,
    );
  } finally {
    await service.stop();
    await fresh.drop();
  }
}
