// notification-fanout: a workspace of 50 members (1 owner, 4 admins, 15 reviewers, 20 editors, 10 viewers) and
// "approval requested" events appended at a steady rate by a process of its own (notification-events.ts), each
// notifying the 20 members who may approve. Measures how stale the notifications read model is while the load runs
// (now minus the time of the newest event it has folded, sampled every 250 ms), in the first and the last third of
// the run: a fold that keeps up shows the same lag in both; one that falls behind, a growing one.
//
// Sizes: BENCH_NOTIFY_RATE (events/s, default 1000), BENCH_NOTIFY_SECONDS (default 60). Members have e-mail off, so
// the mailer has nothing to send and the fold is measured alone.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { ensureUser } from '../../commands/users/user-commands.js';
import { addMember } from '../../commands/workspaces/workspace-commands.js';
import type { Role } from '../../domain/workspaces/roles.js';
import type { EventSourceResult, EventSourceSpec } from './notification-events.js';
import {
  commandMetadata,
  createWorkspaces,
  envInt,
  fmt,
  freshDatabase,
  percentile,
  record,
  startService,
  type BenchContext,
} from './shared.js';

const roleCounts: Array<[Role, number]> = [
  ['admin', 4],
  ['reviewer', 15],
  ['editor', 20],
  ['viewer', 10],
];

function runEventSource(spec: EventSourceSpec): Promise<EventSourceResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./notification-events.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, BENCH_EVENT_SOURCE: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let settled = false;
    child.on('message', (message: { ok: true; result: EventSourceResult } | { ok: false; error: string }) => {
      settled = true;
      if (message.ok) resolve(message.result);
      else reject(new Error(`event source failed: ${message.error}`));
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`event source exited with ${code} before answering`));
    });
    child.send(spec);
  });
}

interface Sample {
  /** ms since the load started */
  t: number;
  /** now minus the time of the newest event folded, ms */
  lag: number;
}

export async function notificationFanoutBench(ctx: BenchContext): Promise<void> {
  const rate = envInt('BENCH_NOTIFY_RATE', 1000);
  const seconds = envInt('BENCH_NOTIFY_SECONDS', 60);
  const fresh = await freshDatabase(ctx, 'notifications');
  const service = await startService(fresh.url);
  try {
    await service.startBackground();
    const { runtime } = service;
    const [ws] = await createWorkspaces(service, 1, 'bench-notify');
    const members: Array<{ userId: string; role: Role }> = [{ userId: ws!.userId, role: 'owner' }];
    for (const [role, count] of roleCounts) {
      for (let i = 0; i < count; i++) {
        const { user } = await ensureUser(
          runtime.commands,
          { email: `${role}-${i}-${process.pid}@bench.example.org` },
          commandMetadata('system'),
        );
        await addMember(
          runtime.commands,
          ws!.orgId,
          { userId: user.userId, role },
          commandMetadata('system'),
        );
        members.push({ userId: user.userId, role });
      }
    }
    for (const m of members) {
      const { token } = await runtime.auth.issueAccessToken({
        userId: m.userId,
        orgId: ws!.orgId,
        role: m.role,
      });
      const res = await fetch(`${service.origin}/v1/orgs/${ws!.orgId}/notifications/preferences`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ emailEnabled: false }),
      });
      if (res.status !== 200) throw new Error(`PUT preferences answered ${res.status}: ${await res.text()}`);
    }
    const editor = members.find((m) => m.role === 'editor')!.userId;
    const approvers = members.filter((m) => ['owner', 'admin', 'reviewer'].includes(m.role)).length;
    const db = runtime.database.db;

    const newest = async (): Promise<number | null> => {
      const { rows } = await sql<{ created_at: string }>`
        select created_at from notifications where org_id = ${ws!.orgId} and user_id = ${ws!.userId}
        order by seq desc limit 1`.execute(db);
      return rows[0] ? Date.parse(rows[0].created_at) : null;
    };

    console.error(
      `  ${members.length} members, ${approvers} approvers; ${fmt(rate)} events/s for ${seconds} s…`,
    );
    const samples: Sample[] = [];
    const started = Date.now();
    let loading = true;
    const sampler = (async () => {
      while (loading) {
        const at = await newest();
        const now = Date.now();
        if (at !== null && at >= started) samples.push({ t: now - started, lag: now - at });
        else samples.push({ t: now - started, lag: now - started });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const source = await runEventSource({ url: fresh.url, orgId: ws!.orgId, by: editor, rate, seconds });
    const loadMs = Date.now() - started;
    // Drain: until the owner (notified by every event) has one notification per event appended.
    const ownerCount = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from notifications
          where org_id = ${ws!.orgId} and user_id = ${ws!.userId}`.execute(db)
      ).rows[0]!.n;
    const drainStarted = Date.now();
    while ((await ownerCount()) < source.appended && Date.now() - drainStarted < 300_000)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const drainMs = Date.now() - drainStarted;
    loading = false;
    await sampler;

    const { rows: counted } = await sql<{ n: number }>`
      select count(*)::int as n from notifications where org_id = ${ws!.orgId}`.execute(db);
    const third = loadMs / 3;
    const lagIn = (from: number, to: number) =>
      samples
        .filter((s) => s.t >= from && s.t < to)
        .map((s) => s.lag)
        .sort((a, b) => a - b);
    const first = lagIn(0, third);
    const lastThird = lagIn(2 * third, loadMs);
    const describe = (lags: number[]) =>
      `p50 ${fmt(percentile(lags, 50))} ms, p99 ${fmt(percentile(lags, 99))} ms, max ${fmt(lags[lags.length - 1] ?? 0)} ms`;
    record(
      `notification fan-out: ${fmt(rate)} approval events/s × ${approvers} approvers of ${members.length} members, ${seconds} s`,
      `${fmt(source.appended / source.seconds)} events/s appended, ${fmt(counted[0]!.n / (loadMs / 1000))} notifications/s folded`,
      `${fmt(source.appended)} events → ${fmt(counted[0]!.n)} rows; append p50 ${fmt(source.p50, 1)} ms p99 ${fmt(source.p99, 1)} ms` +
        (source.behind > rate / 100 ? `; source ${fmt(source.behind)} events short of the rate` : ''),
    );
    record('notification fan-out: read-model lag, first third', describe(first), `${first.length} samples`);
    record(
      'notification fan-out: read-model lag, last third',
      describe(lastThird),
      `${lastThird.length} samples; caught up ${fmt(drainMs)} ms after the last append`,
    );
  } finally {
    await service.stop();
    await fresh.drop();
  }
}
