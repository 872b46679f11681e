// ai-writing (issue 29): the AI writing paths with the service as `npm start` runs it by default (no model
// configured: the offline writer, which is what the embedded default serves and what bounds the service's own
// cost of a run: the agent run's events, the writing context's reads, the post group in review, the thought's
// event). Timed, each from a load generator in its own process: saving a thought, the thoughts list (active, with
// BENCH_AIW_THOUGHTS saved), drafting X and LinkedIn posts from a thought, an X thread, and a launch kit. A model
// call adds the provider's latency on top; that is the provider's, not measured here.
//
// Sizes: BENCH_AIW_THOUGHTS (default 500), BENCH_AIW_CONNECTIONS (load generator connections, comma-separated;
// default 1,4), BENCH_AIW_DURATION (seconds per load, 8).
import {
  describeLatency,
  describeStatuses,
  envInt,
  fmt,
  freshDatabase,
  record,
  runLoad,
  startService,
  createWorkspaces,
  type BenchContext,
  type BenchService,
} from './shared.js';

export async function aiWritingBench(ctx: BenchContext): Promise<void> {
  const thoughts = envInt('BENCH_AIW_THOUGHTS', 500);
  const loads = (process.env.BENCH_AIW_CONNECTIONS ?? '1,4')
    .split(',')
    .map((c) => Number(c.trim()))
    .filter((c) => Number.isInteger(c) && c > 0);
  const duration = envInt('BENCH_AIW_DURATION', 8);
  const database = await freshDatabase(ctx, 'ai_writing');
  let service: BenchService | undefined;
  try {
    service = await startService(database.url, {}, { publishing: { sweep: false } });
    await service.startBackground();
    const { origin } = service;
    const [ws] = await createWorkspaces(service, 1, 'bench-aiw');
    const org = `/v1/orgs/${ws!.orgId}`;
    const headers = { authorization: `Bearer ${ws!.token}`, 'content-type': 'application/json' };
    const kinds = ['thought', 'tip', 'opinion', 'story', 'lesson'];
    const thoughtBody = (n: number) =>
      JSON.stringify({
        text:
          `Thought ${n}: small teams ship more when they write less process. ` +
          'We cut our weekly sync to fifteen minutes. Decisions moved to a shared doc, and nobody missed the meeting.',
        kind: kinds[n % kinds.length],
        tags: ['process'],
      });

    console.error(`saving ${fmt(thoughts)} thoughts…`);
    const saved = await runLoad({
      origin,
      connections: 4,
      amount: thoughts,
      collectBodies: true,
      requests: Array.from({ length: thoughts }, (_, n) => ({
        method: 'POST' as const,
        path: `${org}/thoughts`,
        headers,
        body: thoughtBody(n),
      })),
    });
    const ids = (saved.responses ?? [])
      .filter(([status]) => status === 201)
      .map(([, body]) => (JSON.parse(body) as { data: { id: string } }).data.id);
    record(
      `HTTP POST thoughts (seeding ${fmt(thoughts)}), 4 conn`,
      `${fmt(saved.rate)} req/s`,
      `${describeLatency(saved)}, ${describeStatuses(saved.statuses)}`,
    );

    const cases: Array<{
      name: string;
      requests: () => Array<{ method: 'GET' | 'POST'; path: string; body?: string }>;
    }> = [
      {
        name: 'GET thoughts (active, page of 20)',
        requests: () => [{ method: 'GET', path: `${org}/thoughts?limit=20` }],
      },
      {
        name: 'POST thoughts (save)',
        requests: () => [{ method: 'POST', path: `${org}/thoughts`, body: thoughtBody(1) }],
      },
      {
        name: 'POST thoughts/{id}/drafts (X + LinkedIn, offline writer)',
        requests: () =>
          ids.slice(0, 200).map((id) => ({
            method: 'POST' as const,
            path: `${org}/thoughts/${id}/drafts`,
            body: JSON.stringify({ platforms: ['x', 'linkedin'] }),
          })),
      },
      {
        name: 'POST marketing/drafts/x-thread (offline writer)',
        requests: () => [
          {
            method: 'POST',
            path: `${org}/marketing/drafts/x-thread`,
            body: JSON.stringify({ topic: 'What we learned shipping weekly for a year', parts: 5 }),
          },
        ],
      },
      {
        name: 'POST launch-kits (offline writer)',
        requests: () => [
          {
            method: 'POST',
            path: `${org}/launch-kits`,
            body: JSON.stringify({
              pitch: 'Ledgerly closes the month in three days by matching bank lines to invoices.',
              launchDate: new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10),
              productName: 'Ledgerly Close',
            }),
          },
        ],
      },
    ];
    for (const connections of loads)
      for (const c of cases) {
        const result = await runLoad({
          origin,
          connections,
          duration,
          requests: c.requests().map((r) => ({ ...r, headers })),
        });
        const bad = result.non2xx + result.errors;
        record(
          `HTTP ${c.name}, ${connections} conn`,
          `${fmt(result.rate)} req/s`,
          `${describeLatency(result)}, ${fmt(result.total)} requests` +
            `${bad > 0 ? ` (${describeStatuses(result.statuses)})` : ''}, ${bad} non-2xx/errors`,
        );
      }
  } finally {
    await service?.stop();
    await database.drop();
  }
}
