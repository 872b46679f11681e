// The X automation's nightly sweep against the service's database and event store, on a clock of its own: a
// workspace is run at night in its effective time zone (01:00–05:00), once per night; two instances sweeping at
// once run it once; a night held by an instance that stopped is taken over once its lease lapses; a workspace whose
// rules are off is not visited; a nightly dry run tells the owners and admins what it would have done.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decideXAutomation } from '../../../commands/automation/x-automation-commands.js';
import { localClock, NightlySweep, nightOf } from '../../../processes/automation/nightly-sweep.js';
import { effectiveTimezoneOf } from '../../../projections/scheduling/queries.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { publishedXPost, testRunDeps } from '../../support/x-automation.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    env: {
      AUTOMATION_SWEEP_INTERVAL_MS: '0',
      PUBLISH_SWEEP_INTERVAL_MS: '50',
      POST_NOW_WAIT_MS: '10000',
      READ_YOUR_WRITES_TIMEOUT_MS: '20000',
    },
  });
});
afterAll(async () => service?.stop());

const silent = { info: () => {}, warn: () => {}, error: () => {} };

/** A sweeping instance on a clock the test moves. */
function sweeper(clock: { now: Date }) {
  return new NightlySweep({
    readModels: service.runtime.readModels,
    run: testRunDeps(service, () => clock.now),
    timezoneOf: (orgId) => effectiveTimezoneOf(service.runtime.readModels, orgId),
    logger: silent,
    intervalMs: 60_000,
    now: () => clock.now,
  });
}

/** The first time after now when it is `hour`:30 in `timezone` (whole-hour zones). */
function nextLocal(timezone: string, hour: number, after = new Date()): Date {
  const start = Math.ceil(after.getTime() / 3_600_000) * 3_600_000 + 30 * 60_000;
  for (let t = start; ; t += 3_600_000)
    if (localClock(new Date(t), timezone).hour === hour) return new Date(t);
}

/** A workspace in `timezone` with an X account, one weak post and the delete rule on (dry run unless `live`). */
async function workspaceIn(timezone: string, options: { live?: boolean } = {}): Promise<TestWorkspace> {
  const w = await createTestWorkspace(service, `Sweep ${timezone}`);
  const zone = await service.request('PATCH', `/v1/orgs/${w.orgId}/timezone`, {
    token: w.tokens.owner,
    body: { timezone },
  });
  expect(zone.status).toBe(200);
  const account = await connectSandboxAccount(service, { orgId: w.orgId, userId: w.userIds.owner }, 'x');
  await publishedXPost(service, w, account, { impressions: 3, likes: 0 });
  const put = await service.request('PUT', `/v1/orgs/${w.orgId}/automation/x/rules`, {
    token: w.tokens.owner,
    body: {
      autoDelete: {
        enabled: true,
        dryRun: !options.live,
        minAgeHours: 0,
        maxImpressions: 100,
        metricsMaxAgeHours: 72,
      },
    },
  });
  expect(put.status).toBe(200);
  return w;
}

/** The nightly runs started on the workspace's automation stream, as [runId, night]. */
async function nightlyStarts(orgId: string): Promise<Array<[string, string | null]>> {
  const events = await service.runtime.eventStore.readStream(`xAutomation-${orgId}`);
  return events.flatMap((e) => {
    const d = e.data as { trigger?: string; runId: string; localDate: string | null };
    return e.type === 'XAutomationRunStarted' && d.trigger === 'nightly' ? [[d.runId, d.localDate]] : [];
  });
}

test('the night is 01:00 to 05:00 local time', () => {
  expect(nightOf(new Date('2026-07-01T17:30:00Z'), 'Asia/Tokyo')).toBe('2026-07-02'); // 02:30 in Tokyo
  expect(nightOf(new Date('2026-07-01T15:59:00Z'), 'Asia/Tokyo')).toBeNull(); // 00:59
  expect(nightOf(new Date('2026-07-01T20:00:00Z'), 'Asia/Tokyo')).toBeNull(); // 05:00
  expect(nightOf(new Date('2026-07-01T08:30:00Z'), 'America/Los_Angeles')).toBe('2026-07-01'); // 01:30 PDT
});

describe('nightly sweep', () => {
  let tokyo: TestWorkspace;
  beforeAll(async () => {
    tokyo = await workspaceIn('Asia/Tokyo');
  });

  test('outside the night nothing runs; at night the rules run once, and again the next night', async () => {
    const clock = { now: nextLocal('Asia/Tokyo', 14) };
    const sweep = sweeper(clock);
    expect((await sweep.runOnce()).swept).not.toContain(tokyo.orgId);
    expect(await nightlyStarts(tokyo.orgId)).toEqual([]);

    clock.now = nextLocal('Asia/Tokyo', 2, clock.now);
    const night = localClock(clock.now, 'Asia/Tokyo').localDate;
    expect((await sweep.runOnce()).swept).toContain(tokyo.orgId);
    expect((await nightlyStarts(tokyo.orgId)).map(([, n]) => n)).toEqual([night]);
    // The dry run planned the weak post, and touched nothing.
    const items = await runsOf(tokyo, (i) => i.length > 0);
    expect(items.every((a) => a.status === 'planned' && a.dryRun)).toBe(true);

    // Later the same night: swept already.
    clock.now = new Date(clock.now.getTime() + 60 * 60_000);
    expect((await sweep.runOnce()).swept).not.toContain(tokyo.orgId);
    expect(await nightlyStarts(tokyo.orgId)).toHaveLength(1);

    // The next night runs again.
    clock.now = nextLocal('Asia/Tokyo', 1, new Date(clock.now.getTime() + 6 * 3_600_000));
    expect((await sweep.runOnce()).swept).toContain(tokyo.orgId);
    expect(await nightlyStarts(tokyo.orgId)).toHaveLength(2);
  });

  test('a nightly dry run that would act tells the owners and admins', async () => {
    const inbox = async (token: string) => {
      const res = await service.request('GET', `/v1/orgs/${tokyo.orgId}/notifications?unreadOnly=false`, {
        token,
      });
      return ((await res.json()) as { data: { items: Array<{ type: string; title: string }> } }).data.items;
    };
    const admin = (await waitUntil(
      async () => {
        const planned = (await inbox(tokyo.tokens.admin)).filter((n) => n.type === 'x_automation_planned');
        return planned.length > 0 ? planned : null;
      },
      { what: "the admin's x_automation_planned notification" },
    ))!;
    expect(admin[0]!.title).toBe('X automation (dry run) would delete 1 post');
    expect((await inbox(tokyo.tokens.editor)).some((n) => n.type === 'x_automation_planned')).toBe(false);
  });

  test('two instances sweeping at once run a workspace once per night', async () => {
    const la = await workspaceIn('America/Los_Angeles', { live: true });
    const clock = { now: nextLocal('America/Los_Angeles', 3) };
    const [a, b] = await Promise.all([sweeper(clock).runOnce(), sweeper(clock).runOnce()]);
    const ran = [a, b].filter((r) => r.swept.includes(la.orgId));
    expect(ran).toHaveLength(1);
    expect([a, b].filter((r) => r.taken.includes(la.orgId) || r.swept.includes(la.orgId))).toHaveLength(2);
    expect(await nightlyStarts(la.orgId)).toHaveLength(1);
    // The live rule deleted the weak post once.
    const items = await runsOf(la, (i) => i.some((a) => a.status === 'succeeded'));
    expect(items.filter((i) => i.status === 'succeeded')).toHaveLength(1);
  });

  test('a night held by an instance that stopped is taken over once its lease lapses', async () => {
    const berlin = await workspaceIn('Europe/Berlin');
    const clock = { now: nextLocal('Europe/Berlin', 1) };
    const night = localClock(clock.now, 'Europe/Berlin').localDate;
    // An instance claimed the night and stopped before doing anything.
    await decideXAutomation(
      service.runtime.commands,
      berlin.orgId,
      {
        type: 'StartXAutomationRun',
        orgId: berlin.orgId,
        runId: randomUUID(),
        trigger: 'nightly',
        localDate: night,
        kinds: ['auto_repost', 'auto_delete'],
        dryRun: false,
        by: null,
        now: clock.now.toISOString(),
        leaseMs: 15 * 60_000,
        staleActionMs: 15 * 60_000,
      },
      { orgId: berlin.orgId, actor: 'system', correlationId: randomUUID(), now: clock.now.toISOString() },
    );
    clock.now = new Date(clock.now.getTime() + 5 * 60_000);
    const held = await sweeper(clock).runOnce();
    expect(held.taken).toContain(berlin.orgId);
    clock.now = new Date(clock.now.getTime() + 15 * 60_000);
    const taken = await sweeper(clock).runOnce();
    expect(taken.swept).toContain(berlin.orgId);
    expect((await nightlyStarts(berlin.orgId)).map(([, n]) => n)).toEqual([night, night]);
  });

  test('a workspace whose rules are off is not visited', async () => {
    const off = await workspaceIn('Asia/Tokyo');
    const put = await service.request('PUT', `/v1/orgs/${off.orgId}/automation/x/rules`, {
      token: off.tokens.owner,
      body: { autoDelete: { enabled: false } },
    });
    expect(put.status).toBe(200);
    const clock = { now: nextLocal('Asia/Tokyo', 2) };
    const round = await sweeper(clock).runOnce();
    expect([...round.swept, ...round.taken, ...round.failed]).not.toContain(off.orgId);
    expect(await nightlyStarts(off.orgId)).toEqual([]);
  });
});

/** The workspace's automation actions once they satisfy `ready` (the sweep's runs do not wait for read models). */
async function runsOf(
  w: TestWorkspace,
  ready: (items: Array<{ status: string; dryRun: boolean }>) => boolean,
): Promise<Array<{ status: string; dryRun: boolean }>> {
  const items = await waitUntil(
    async () => {
      const res = await service.request('GET', `/v1/orgs/${w.orgId}/automation/x/runs`, {
        token: w.tokens.viewer,
      });
      const items = ((await res.json()) as { data: { items: Array<{ status: string; dryRun: boolean }> } })
        .data.items;
      return ready(items) ? items : null;
    },
    { what: 'the automation actions' },
  );
  return items!;
}
