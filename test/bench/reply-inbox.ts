// reply-inbox (issue 30): the reply inbox with the service as `npm start` runs it by default, the sandbox X and
// Reddit accounts connected (what the embedded default serves). Each load from a load generator in its own process:
// - POST engagement/refresh finding about 1,000 new posts at once (every X source the settings allow: mentions,
//   the watched keywords' search, 20 keyword feeds, 10 communities, and Reddit search; each read two pages), timed
//   one at a time, BENCH_INBOX_ITEMS / 1,000 times with new feed keywords each time (new timelines), so the inbox
//   grows to BENCH_INBOX_ITEMS items through the path users take (the target: ≤5 s per refresh of 1,000);
// - GET engagement (list_reply_inbox) over that inbox: the default (open, newest first, a page of 20), a filter
//   (X community posts), and a deep page of everything (the target: p99 ≤30 ms with 50,000 items).
// Credits: the trial plan's allowance is raised (benchConfigFile) so 50,000 X reads are charged, never refused.
//
// Sizes: BENCH_INBOX_ITEMS (default 50000), BENCH_INBOX_CONNECTIONS (list loads, comma-separated; default 1,4),
// BENCH_INBOX_DURATION (seconds per list load, 8).
import { sql } from 'kysely';
import { connectSandboxAccount } from '../support/social-accounts.js';
import { benchConfigFile } from './billing.js';
import {
  createWorkspaces,
  recordGetLoads,
  envInt,
  fmt,
  freshDatabase,
  percentile,
  record,
  runLoad,
  startService,
  type BenchContext,
  type BenchService,
} from './shared.js';

export async function replyInboxBench(ctx: BenchContext): Promise<void> {
  const target = envInt('BENCH_INBOX_ITEMS', 50_000);
  const loads = (process.env.BENCH_INBOX_CONNECTIONS ?? '1,4')
    .split(',')
    .map((c) => Number(c.trim()))
    .filter((c) => Number.isInteger(c) && c > 0);
  const duration = envInt('BENCH_INBOX_DURATION', 8);
  const database = await freshDatabase(ctx, 'reply_inbox');
  let service: BenchService | undefined;
  try {
    service = await startService(database.url, {
      BILLING_CONFIG_FILE: await benchConfigFile(),
      INBOX_AUTO_REFRESH_INTERVAL_MS: '0',
    });
    await service.startBackground();
    const { origin } = service;
    const [ws] = await createWorkspaces(service, 1, 'bench-inbox');
    const org = `/v1/orgs/${ws!.orgId}`;
    const headers = { authorization: `Bearer ${ws!.token}`, 'content-type': 'application/json' };
    for (const platform of ['x', 'reddit'] as const)
      await connectSandboxAccount(service, { orgId: ws!.orgId, userId: ws!.userId }, platform);

    const settingsFor = (round: number) => ({
      keywords: [`launch ${round}`],
      watchHandles: ['acme'],
      redditKeywords: [`scheduler ${round}`],
      subreddits: ['SaaS'],
      feeds: Array.from({ length: 20 }, (_, f) => ({
        name: `Feed ${f}`,
        source: 'keywords',
        keywords: [`topic ${round} ${f}`],
      })),
      communities: Array.from({ length: 10 }, (_, c) =>
        String(1_600_000_000_000_000_000n + BigInt(round * 10 + c)),
      ),
    });

    let items = 0;
    const times: number[] = [];
    const added: number[] = [];
    const cpu: Array<{ server: number; db: number }> = [];
    for (let round = 0; items < target; round++) {
      const saved = await fetch(`${origin}${org}/engagement/settings`, {
        method: 'PATCH',
        headers,
        body: JSON.stringify(settingsFor(round)),
      });
      if (saved.status !== 200) throw new Error(`settings answered ${saved.status}: ${await saved.text()}`);
      const result = await runLoad({
        origin,
        connections: 1,
        amount: 1,
        collectBodies: true,
        // Slower than the target is a figure to record, not a failure.
        timeoutSeconds: 120,
        requests: [{ method: 'POST', path: `${org}/engagement/refresh`, headers, body: '{}' }],
      });
      const [status, body] = result.responses?.[0] ?? [0, ''];
      if (status !== 200) throw new Error(`refresh answered ${status}: ${body.slice(0, 300)}`);
      const answer = JSON.parse(body) as { data: { added: number; warnings: string[] } };
      if (answer.data.warnings.length > 0 && round === 0)
        console.error(`warnings: ${answer.data.warnings.join('; ')}`);
      items += answer.data.added;
      added.push(answer.data.added);
      times.push(result.latency.max);
      cpu.push({ server: result.cpu.serverMsPerRequest, db: result.cpu.databaseMsPerRequest });
      if (round === 0)
        record(
          'HTTP POST engagement/refresh, first (empty inbox)',
          `${fmt(result.latency.max)} ms`,
          `${fmt(answer.data.added)} new items, CPU ${fmt(result.cpu.serverMsPerRequest)} ms server + ` +
            `${fmt(result.cpu.databaseMsPerRequest)} ms PostgreSQL`,
        );
      if (round % 10 === 9) console.error(`${fmt(items)} items after ${round + 1} refreshes…`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const perThousand = times.map((t, i) => (t * 1000) / Math.max(1, added[i]!)).sort((a, b) => a - b);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    record(
      `HTTP POST engagement/refresh, ${times.length} refreshes to ${fmt(items)} items`,
      `p50 ${fmt(percentile(sorted, 50))} ms, max ${fmt(sorted.at(-1) ?? 0)} ms`,
      `${fmt(mean(added))} new items each (min ${fmt(Math.min(...added))}); per 1,000 new items p50 ` +
        `${fmt(percentile(perThousand, 50))} ms, max ${fmt(perThousand.at(-1) ?? 0)} ms; CPU ` +
        `${fmt(mean(cpu.map((c) => c.server)))} ms server + ${fmt(mean(cpu.map((c) => c.db)))} ms PostgreSQL a refresh`,
    );

    // The read models and processes fold the last refreshes' events after the answers: the list loads start once the
    // database has had nothing to do for a second (else their CPU figures carry that work).
    console.error('waiting for the background to settle…');
    for (let quiet = 0, waited = 0; quiet < 5 && waited < 300; waited++) {
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from pg_stat_activity
        where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`.execute(
        service.runtime.database.db,
      );
      quiet = Number(rows[0]?.n ?? 0) === 0 ? quiet + 1 : 0;
      await new Promise((r) => setTimeout(r, 200));
    }

    // Autovacuum keeps a table's statistics as it grows; a PostgreSQL run with autovacuum off (this machine's
    // service is) never analyses the new table, and the planner, thinking it empty, reads every row of the
    // workspace for a page. What autovacuum would have done, done once here (the embedded default has it on).
    const autovacuum = await sql<{ autovacuum: string }>`show autovacuum`.execute(
      service.runtime.database.db,
    );
    if (autovacuum.rows[0]?.autovacuum === 'off') {
      console.error('autovacuum is off on this server: analysing the inbox tables as it would');
      const { rows } = await sql<{ schema: string }>`
        select table_schema as schema from information_schema.tables
        where table_name in ('inbox_items', 'inbox_counts') and table_type = 'BASE TABLE'`.execute(
        service.runtime.database.db,
      );
      for (const schema of new Set(rows.map((r) => r.schema)))
        for (const table of ['inbox_items', 'inbox_counts'])
          await sql`analyze ${sql.id(schema, table)}`
            .execute(service.runtime.database.db)
            .catch(() => undefined);
    }

    // The plans of the list's statements on the projection's own table (BENCH_INBOX_EXPLAIN=1).
    if (process.env.BENCH_INBOX_EXPLAIN === '1')
      for (const statement of [
        sql`select item from inbox_items where org_id = ${ws!.orgId} and bucket = 'open'
          order by sort_at desc, item_id desc limit 20 offset 0`,
        sql`select coalesce(sum(n), 0) from inbox_counts where org_id = ${ws!.orgId} and bucket = 'open'`,
      ]) {
        const plan = await sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers) ${statement}`.execute(
          service.runtime.database.db,
        );
        console.error(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
      }

    const cases = [
      { name: 'GET engagement (open, newest first, page of 20)', path: `${org}/engagement?limit=20` },
      {
        name: 'GET engagement (X community posts, page of 20)',
        path: `${org}/engagement?platform=x&kind=community&limit=20`,
      },
      {
        name: 'GET engagement (all, page 100 of 20)',
        path: `${org}/engagement?status=all&page=100&limit=20`,
      },
    ];
    await recordGetLoads({ origin, headers, cases, loads, duration, suffix: `${fmt(items)} items` });
  } finally {
    await service?.stop();
    await database.drop();
  }
}
