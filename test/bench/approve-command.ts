// approve-command: POST …/post-groups/{groupId}/approve over real HTTP at 32 connections, read-your-writes
// included (projections run in the background), every request approving a different pending group. The drafts
// are made first through POST …/drafts (x + linkedin each, spread over a few workspaces); that is measured too.
//
// Sizes: BENCH_APPROVE (approvals per row, default 2000), BENCH_APPROVE_WORKSPACES (8),
// BENCH_APPROVE_CONNECTIONS (32).
import { sql } from 'kysely';
import {
  createWorkspaces,
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
  type BenchWorkspace,
} from './shared.js';

interface Group {
  workspace: BenchWorkspace;
  groupId: string;
}

export async function approveCommandBench(ctx: BenchContext): Promise<void> {
  const perRow = envInt('BENCH_APPROVE', 2000);
  const workspaceCount = envInt('BENCH_APPROVE_WORKSPACES', 8);
  const connections = envInt('BENCH_APPROVE_CONNECTIONS', 32);
  const database = await freshDatabase(ctx, 'approve');
  let service: BenchService | undefined;
  try {
    service = await startService(database.url);
    await service.startBackground();
    const { runtime, origin } = service;
    const workspaces = await createWorkspaces(service, workspaceCount, 'bench-approve');
    const byOrg = new Map(workspaces.map((w) => [w.orgId, w]));
    // Busy workspaces: 48 posts a day per platform, no gap, and posting windows that hold them (08:00–20:00 every
    // day, 48 quarter hours). With the b2b defaults (2 a day, 3 hours apart) a workspace has about 130 free X
    // slots in 90 days; each of these gets 250 approvals per row.
    for (const w of workspaces) {
      const res = await fetch(`${origin}${w.base}/scheduler/settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${w.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          includeWeekends: true,
          maxPostsPerDay: 48,
          minGapMinutes: 0,
          postingWindows: Object.fromEntries(
            ['x', 'linkedin'].map((p) => [
              p,
              [{ days: [0, 1, 2, 3, 4, 5, 6], start: '08:00', end: '20:00' }],
            ]),
          ),
        }),
      });
      if (!res.ok) throw new Error(`scheduler settings answered ${res.status}: ${await res.text()}`);
    }

    console.error(`creating ${fmt(perRow * 3)} drafts over ${workspaceCount} workspaces…`);
    const groups: Group[] = [];
    const drafts = await runLoad({
      origin,
      connections,
      amount: perRow * 3,
      collectBodies: true,
      requests: Array.from({ length: perRow * 3 }, (_, n) => {
        const workspace = workspaces[n % workspaces.length]!;
        const text = `Bench draft ${n}: what we learned shipping an event-sourced scheduler this week.`;
        return {
          method: 'POST' as const,
          path: `${workspace.base}/drafts`,
          headers: { authorization: `Bearer ${workspace.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            title: `Bench draft ${n}`,
            posts: [
              { platform: 'x', contentText: text },
              { platform: 'linkedin', contentText: `${text} A longer take for LinkedIn readers.` },
            ],
          }),
        };
      }),
    });
    for (const [status, body] of drafts.responses ?? []) {
      if (status !== 200) continue;
      const { group } = (
        JSON.parse(body) as { data: { group: { id: string; orgId: string; status: string } } }
      ).data;
      const workspace = byOrg.get(group.orgId);
      if (workspace && group.status === 'pending_approval') groups.push({ workspace, groupId: group.id });
    }
    const draftBad = drafts.non2xx + drafts.errors;
    record(
      `HTTP POST …/drafts (x + linkedin), ${connections} conn, read-your-writes`,
      `${fmt(drafts.rate)} req/s`,
      `${describeLatency(drafts)}, ${fmt(drafts.total)} requests ` +
        `(${describeStatuses(drafts.statuses)}), ${draftBad} non-2xx/errors`,
    );
    if (groups.length < perRow * 3)
      console.error(
        `  only ${groups.length} pending groups were created; the approve rows use what there is`,
      );

    // The third row schedules at a given time: what scheduling costs without the slot finder.
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const rowsSpec = [
      { label: 'body {} (autoSchedule → slot finder)', body: '{}', expected: 'scheduled' },
      { label: 'body {"autoSchedule": false}', body: '{"autoSchedule":false}', expected: 'approved' },
      {
        label: 'body {"scheduledForUtc": …} (scheduled, no slot finder)',
        body: JSON.stringify({ scheduledForUtc: at }),
        expected: 'scheduled',
      },
    ] as const;
    const half = Math.floor(groups.length / rowsSpec.length);
    const rates: number[] = [];
    for (const [index, spec] of rowsSpec.entries()) {
      const queue = groups.slice(index * half, (index + 1) * half);
      console.error(`approving ${fmt(queue.length)} groups, ${spec.label}…`);
      // A fixed amount of requests, one per group: a surplus would re-approve (a 200 no-op).
      const result = await runLoad({
        origin,
        connections,
        amount: queue.length,
        collectBodies: true,
        requests: queue.map((group) => ({
          method: 'POST' as const,
          path: `${group.workspace.base}/post-groups/${group.groupId}/approve`,
          headers: { authorization: `Bearer ${group.workspace.token}`, 'content-type': 'application/json' },
          body: spec.body,
        })),
      });
      let unexpected = 0;
      let firstFailure: string | undefined;
      for (const [status, body] of result.responses ?? []) {
        if (status !== 200) {
          firstFailure ??= `${status}: ${body.slice(0, 300)}`;
          continue;
        }
        if ((JSON.parse(body) as { data: { status: string } }).data.status !== spec.expected) unexpected++;
      }
      if (firstFailure) console.error(`  first failure ${firstFailure}`);
      const statuses = new Map(result.statuses);
      const bad = result.non2xx + result.errors;
      const ok = statuses.get(200) ?? 0;
      rates.push(result.rate);
      // Concurrent approvals in one workspace ask the slot finder at the same time: count shared slots.
      const slots =
        index === 0
          ? (
              await sql<{ posts: string; slots: string }>`
                select count(*) as posts,
                  count(distinct (org_id, platform, scheduled_for_utc)) as slots
                from posts where status = 'scheduled'`.execute(runtime.readModels)
            ).rows[0]!
          : null;
      record(
        `HTTP POST …/post-groups/{id}/approve ${spec.label}, ${connections} conn`,
        `${fmt(result.rate)} req/s`,
        `${describeLatency(result)}, ${fmt(result.total)} requests, ` +
          `${ok === result.total && bad === 0 ? 'all 200' : `${describeStatuses(statuses)}`}, ` +
          `${bad} non-2xx/errors, ${unexpected} answers not ${spec.expected}` +
          (slots
            ? `; slot finder: ${fmt(Number(slots.posts))} scheduled posts in ${fmt(Number(slots.slots))} ` +
              `distinct (workspace, platform, time) slots`
            : ''),
      );
    }
    record(
      `approve with autoSchedule ÷ approve with autoSchedule false, ${connections} conn`,
      `${fmt(rates[0]! / rates[1]!, 2)} ×`,
      `${fmt(rates[0]!)} vs ${fmt(rates[1]!)} req/s`,
    );
  } finally {
    await service?.stop().catch((error: unknown) => console.error(error));
    await database.drop().catch((error: unknown) => console.error(error));
  }
}
