// inspiration (issue 31): the inspiration library with the service as `npm start` runs it by default (no model
// configured: the offline analysis, which is what the embedded default serves). Each load from a load generator in
// its own process: saving by text (the save, its analysis and its interpretation against the strategy), the list
// in its compact form by relevance and by recency, the opportunities, and the research reads that answer from the
// curated set (trends, viral formats) with BENCH_INSP_ITEMS saved.
//
// Sizes: BENCH_INSP_ITEMS (default 600), BENCH_INSP_CONNECTIONS (comma-separated; default 1,4), BENCH_INSP_DURATION
// (seconds per load, 8).
import {
  createWorkspaces,
  recordGetLoads,
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

export async function inspirationBench(ctx: BenchContext): Promise<void> {
  const items = envInt('BENCH_INSP_ITEMS', 600);
  const loads = (process.env.BENCH_INSP_CONNECTIONS ?? '1,4')
    .split(',')
    .map((c) => Number(c.trim()))
    .filter((c) => Number.isInteger(c) && c > 0);
  const duration = envInt('BENCH_INSP_DURATION', 8);
  const database = await freshDatabase(ctx, 'inspiration');
  let service: BenchService | undefined;
  try {
    service = await startService(database.url, {}, { publishing: { sweep: false } });
    await service.startBackground();
    const { origin } = service;
    const [ws] = await createWorkspaces(service, 1, 'bench-insp');
    const org = `/v1/orgs/${ws!.orgId}`;
    const headers = { authorization: `Bearer ${ws!.token}`, 'content-type': 'application/json' };
    const topics = ['onboarding', 'pricing', 'hiring', 'shipping weekly', 'customer interviews', 'retention'];
    const body = (n: number) =>
      JSON.stringify({
        platform: n % 3 === 0 ? 'linkedin' : 'x',
        contentText:
          `Post ${n}: what ${topics[n % topics.length]} taught us.\n\n` +
          '1. Start with one goal\n2. Show the number\n3. Ask one question at the end\n\nWhat would you add?',
        authorName: `Author ${n % 40}`,
        tags: [topics[n % topics.length]!.split(' ')[0]!],
      });

    console.error(`saving ${fmt(items)} items…`);
    const saved = await runLoad({
      origin,
      connections: 4,
      amount: items,
      requests: Array.from({ length: items }, (_, n) => ({
        method: 'POST' as const,
        path: `${org}/inspiration`,
        headers,
        body: body(n),
      })),
    });
    record(
      `HTTP POST inspiration (save by text + offline analysis, seeding ${fmt(items)}), 4 conn`,
      `${fmt(saved.rate)} req/s`,
      `${describeLatency(saved)}, ${describeStatuses(saved.statuses)}`,
    );

    const cases = [
      {
        name: 'GET inspiration (compact, by relevance, page of 20)',
        path: `${org}/inspiration?includeHidden=false&verbose=false&sort=relevance&limit=20`,
      },
      {
        name: 'GET inspiration (compact, recent, tag filter)',
        path: `${org}/inspiration?includeHidden=false&verbose=false&sort=recent&tag=pricing&limit=20`,
      },
      {
        name: 'GET inspiration (verbose, recent, page 50)',
        path: `${org}/inspiration?includeHidden=false&verbose=true&sort=recent&page=50&limit=20`,
      },
      { name: 'GET inspiration/opportunities', path: `${org}/inspiration/opportunities` },
      { name: 'GET inspiration/trends (curated)', path: `${org}/inspiration/trends` },
      { name: 'GET inspiration/formats', path: `${org}/inspiration/formats` },
    ];
    await recordGetLoads({ origin, headers, cases, loads, duration, suffix: `${fmt(items)} items` });
  } finally {
    await service?.stop();
    await database.drop();
  }
}
