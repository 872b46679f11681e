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
  ratePerSecond,
  record,
  runAutocannon,
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

    console.error(`creating ${fmt(perRow * 2)} drafts over ${workspaceCount} workspaces…`);
    const groups: Group[] = [];
    const draftStatuses = new Map<number, number>();
    let draftCounter = 0;
    const drafts = await runAutocannon({
      url: origin,
      connections,
      amount: perRow * 2,
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => {
            const n = draftCounter++;
            const workspace = workspaces[n % workspaces.length]!;
            const text = `Bench draft ${n}: what we learned shipping an event-sourced scheduler this week.`;
            return {
              ...req,
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
          },
          onResponse: (status, body) => {
            draftStatuses.set(status, (draftStatuses.get(status) ?? 0) + 1);
            if (status !== 200) return;
            const { group } = (
              JSON.parse(body) as { data: { group: { id: string; orgId: string; status: string } } }
            ).data;
            const workspace = byOrg.get(group.orgId);
            if (workspace && group.status === 'pending_approval')
              groups.push({ workspace, groupId: group.id });
          },
        },
      ],
    });
    const draftBad = drafts.non2xx + drafts.errors;
    record(
      `HTTP POST …/drafts (x + linkedin), ${connections} conn, read-your-writes`,
      `${fmt(ratePerSecond(drafts))} req/s`,
      `p50 ${drafts.latency.p50} ms, p99 ${drafts.latency.p99} ms, ${fmt(drafts.requests.total)} requests ` +
        `(${describeStatuses(draftStatuses)}), ${draftBad} non-2xx/errors`,
    );
    if (groups.length < perRow * 2)
      console.error(
        `  only ${groups.length} pending groups were created; the approve rows use what there is`,
      );

    const rowsSpec = [
      { label: 'body {} (autoSchedule → slot finder)', body: '{}', expected: 'scheduled' },
      { label: 'body {"autoSchedule": false}', body: '{"autoSchedule":false}', expected: 'approved' },
    ] as const;
    const half = Math.floor(groups.length / 2);
    for (const [index, spec] of rowsSpec.entries()) {
      const queue = groups.slice(index * half, (index + 1) * half);
      console.error(`approving ${fmt(queue.length)} groups, ${spec.label}…`);
      const statuses = new Map<number, number>();
      let unexpected = 0;
      let next = 0;
      let reused = 0;
      const result = await runAutocannon({
        url: origin,
        connections,
        amount: queue.length,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => {
              // autocannon asks for exactly `amount` requests; a surplus would re-approve (a 200 no-op).
              const group = queue[next++] ?? queue[(reused++, 0)]!;
              return {
                ...req,
                path: `${group.workspace.base}/post-groups/${group.groupId}/approve`,
                headers: {
                  authorization: `Bearer ${group.workspace.token}`,
                  'content-type': 'application/json',
                },
                body: spec.body,
              };
            },
            onResponse: (status, body) => {
              statuses.set(status, (statuses.get(status) ?? 0) + 1);
              if (status !== 200) {
                if (statuses.get(status) === 1) console.error(`  first ${status}: ${body.slice(0, 300)}`);
                return;
              }
              const data = (JSON.parse(body) as { data: { status: string } }).data;
              if (data.status !== spec.expected) unexpected++;
            },
          },
        ],
      });
      const bad = result.non2xx + result.errors;
      const ok = statuses.get(200) ?? 0;
      // Concurrent approvals in one workspace ask the slot finder at the same time: count shared slots.
      const slots =
        spec.expected === 'scheduled'
          ? (
              await sql<{ posts: string; slots: string }>`
                select count(*) as posts,
                  count(distinct (org_id, platform, scheduled_for_utc)) as slots
                from posts where status = 'scheduled'`.execute(runtime.readModels)
            ).rows[0]!
          : null;
      record(
        `HTTP POST …/post-groups/{id}/approve ${spec.label}, ${connections} conn`,
        `${fmt(ratePerSecond(result))} req/s`,
        `p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${fmt(result.requests.total)} requests, ` +
          `${ok === result.requests.total && bad === 0 ? 'all 200' : `${describeStatuses(statuses)}`}, ` +
          `${bad} non-2xx/errors, ${unexpected} answers not ${spec.expected}` +
          (reused > 0 ? `, ${reused} repeated groups` : '') +
          (slots
            ? `; slot finder: ${fmt(Number(slots.posts))} scheduled posts in ${fmt(Number(slots.slots))} ` +
              `distinct (workspace, platform, time) slots`
            : ''),
      );
    }
  } finally {
    await service?.stop().catch((error: unknown) => console.error(error));
    await database.drop().catch((error: unknown) => console.error(error));
  }
}
