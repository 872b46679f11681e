// scheduler-slots: GET …/scheduler/slots over real HTTP for a workspace with 500 scheduled X posts and a year of
// history (post metrics of published posts, so the ranking is on the `history` basis), in Europe/Berlin; the load
// comes from the load generator's own process. Rows: the default query (14 days, 5 slots), a wide one (90 days,
// 50 slots), all platforms, and suggested-times and schedule-coverage for comparison, at 8 connections; the
// default query again at one connection (latency without queueing).
//
// Sizes: BENCH_SLOTS_REQUESTS (per row, default 2000), BENCH_SLOTS_SCHEDULED (500), BENCH_SLOTS_HISTORY (2000
// published posts over 365 days), BENCH_SLOTS_CONNECTIONS (8).
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { recordPostMetrics } from '../../commands/analytics/post-metrics-commands.js';
import {
  commandMetadata,
  createWorkspaces,
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

const zone = 'Europe/Berlin';

export async function schedulerSlotsBench(ctx: BenchContext): Promise<void> {
  const requests = envInt('BENCH_SLOTS_REQUESTS', 2000);
  const scheduledCount = envInt('BENCH_SLOTS_SCHEDULED', 500);
  const historyCount = envInt('BENCH_SLOTS_HISTORY', 2000);
  const connections = envInt('BENCH_SLOTS_CONNECTIONS', 8);
  const database = await freshDatabase(ctx, 'slots');
  let service: BenchService | undefined;
  try {
    service = await startService(database.url);
    await service.startBackground();
    const { runtime, origin } = service;
    const [workspace] = await createWorkspaces(service, 1, 'bench-slots');
    const ws = workspace!;
    const headers = { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${origin}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: unknown }).data;
    };
    // A busy workspace: every day, more posts a day and shorter gaps than the b2b defaults.
    await call('PATCH', `${ws.base}/scheduler/settings`, {
      audienceTimezone: zone,
      includeWeekends: true,
      maxPostsPerDay: 12,
      minGapMinutes: 30,
    });

    console.error(`scheduling ${fmt(scheduledCount)} X posts over the next 60 days…`);
    const start = DateTime.now().setZone(zone).startOf('day').plus({ days: 1 });
    const draftLoad = await runLoad({
      origin,
      connections: 16,
      amount: scheduledCount,
      collectBodies: true,
      requests: Array.from({ length: scheduledCount }, (_, n) => ({
        method: 'POST' as const,
        path: `${ws.base}/drafts`,
        headers,
        body: JSON.stringify({
          title: `Scheduled ${n}`,
          posts: [{ platform: 'x', contentText: `Post ${n}` }],
        }),
      })),
    });
    const groupIds = (draftLoad.responses ?? [])
      .filter(([status]) => status === 200)
      .map(([, body]) => (JSON.parse(body) as { data: { group: { id: string } } }).data.group.id);
    const approveLoad = await runLoad({
      origin,
      connections: 16,
      amount: groupIds.length,
      requests: groupIds.map((groupId, n) => ({
        method: 'POST' as const,
        path: `${ws.base}/post-groups/${groupId}/approve`,
        headers,
        body: JSON.stringify({
          // Spread over 60 days at 08:00–20:00 local, on the quarter hour.
          scheduledForUtc: start
            .plus({ days: n % 60, hours: 8 + ((n * 7) % 12), minutes: 15 * (n % 4) })
            .toUTC()
            .toISO(),
        }),
      })),
    });
    if (approveLoad.non2xx + approveLoad.errors > 0)
      console.error(`  scheduling: ${describeStatuses(approveLoad.statuses)}`);

    console.error(`recording a year of history: ${fmt(historyCount)} published posts with metrics…`);
    const now = DateTime.now().setZone(zone);
    const positions: string[] = [];
    for (let n = 0; n < historyCount; n++) {
      const publishedAt = now
        .minus({ days: 1 + Math.floor((n * 365) / historyCount), hours: (n * 5) % 14 })
        .set({ minute: 0 })
        .toUTC();
      // Tuesday and Wednesday mornings did best.
      const local = publishedAt.setZone(zone);
      const good = (local.weekday === 2 || local.weekday === 3) && local.hour >= 8 && local.hour < 11;
      const engagement = (good ? 200 : 50) + (n % 17);
      const recorded = await recordPostMetrics(
        runtime.commands,
        {
          orgId: ws.orgId,
          postId: randomUUID(),
          groupId: randomUUID(),
          platform: 'x',
          socialAccountId: randomUUID(),
          externalId: `bench-${n}`,
          publishedAt: publishedAt.toISO()!,
          contentType: n % 3 === 0 ? 'thread' : null,
          metrics: {
            likes: engagement,
            reposts: 3,
            replies: 2,
            quotes: 0,
            bookmarks: null,
            impressions: engagement * 30,
          },
          fetchedAt: publishedAt.plus({ days: 3 }).toISO()!,
        },
        commandMetadata('bench'),
        { awaitReadModels: false },
      );
      if (recorded.position) positions.push(recorded.position);
    }
    const last = positions[positions.length - 1];
    if (last && runtime.commands.waitForProjections)
      await runtime.commands.waitForProjections(last, { timeoutMs: 120_000 });

    const probe = (await call('GET', `${ws.base}/scheduler/slots?platform=x`)) as {
      historyPosts: number;
      slots: Array<{ basis: string }>;
    };
    console.error(`  history: ${fmt(probe.historyPosts)} posts, basis ${probe.slots[0]?.basis ?? 'none'}`);

    const day = now.plus({ days: 2 }).toISODate();
    const loads = [
      ['GET …/scheduler/slots?platform=x (14 days, 5 slots)', `${ws.base}/scheduler/slots?platform=x`],
      [
        'GET …/scheduler/slots?platform=x&days=90&count=50',
        `${ws.base}/scheduler/slots?platform=x&days=90&count=50`,
      ],
      ['GET …/scheduler/slots (all platforms)', `${ws.base}/scheduler/slots`],
      [
        'GET …/scheduler/suggested-times',
        `${ws.base}/scheduler/suggested-times?date=${day}&timezone=${encodeURIComponent(zone)}&platform=x`,
      ],
      ['GET …/scheduler/schedule-coverage', `${ws.base}/scheduler/schedule-coverage?days=14`],
    ] as const;
    const runs = [
      ...loads.map(([label, path]) => ({ label, path, conns: connections })),
      { label: loads[0][0], path: loads[0][1], conns: 1 },
    ];
    for (const { label, path, conns } of runs) {
      console.error(`${label}, ${conns} conn…`);
      const result = await runLoad({
        origin,
        connections: conns,
        amount: requests,
        requests: [{ method: 'GET', path, headers: { authorization: headers.authorization } }],
      });
      record(
        `HTTP ${label}, ${fmt(scheduledCount)} scheduled, ${fmt(probe.historyPosts)} posts of history, ${conns} conn`,
        `${fmt(result.rate)} req/s`,
        `${describeLatency(result)}, ${fmt(result.total)} requests, ${describeStatuses(result.statuses)}`,
      );
    }
  } finally {
    await service?.stop().catch((error: unknown) => console.error(error));
    await database.drop().catch((error: unknown) => console.error(error));
  }
}
