// The scheduler's reads through the whole service: GET …/slots (defaults, windows in local time, clashes,
// parameters, 400s, roles), GET …/suggested-times, GET …/schedule-coverage, and the best free slot behind
// approve and schedule — concurrent approvals never receive clashing slots.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { audienceDefaults } from '../../../domain/scheduling/defaults.js';
import type { PostingWindow } from '../../../domain/scheduling/types.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { data, failure, workspaceClient, type Group, type WorkspaceClient } from '../post-groups/support.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

interface Slot {
  scheduledForUtc: string;
  localDate: string;
  localTime: string;
  weekday: string;
  score: number;
  reason: string;
  basis: 'defaults' | 'history';
}
interface Slots {
  timezone: string;
  audienceType: string;
  historyPosts: number;
  slots: Slot[];
}

async function get<T>(ws: TestWorkspace, path: string, role: keyof TestWorkspace['tokens'] = 'viewer') {
  return data<T>(await service.request('GET', `${ws.base}/scheduler${path}`, { token: ws.tokens[role] }));
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/** The slot's local time lies in one of the windows (and the window admits its weekday). */
function inWindows(at: string, timezone: string, windows: readonly PostingWindow[]): boolean {
  const local = DateTime.fromISO(at, { zone: timezone });
  const weekday = local.weekday % 7;
  const m = local.hour * 60 + local.minute;
  return windows.some(
    (w) => w.weight > 0 && w.days.includes(weekday) && m >= minutes(w.start) && m < minutes(w.end),
  );
}

async function draftAndApprove(client: WorkspaceClient, title: string, body?: unknown): Promise<Group> {
  const drafted = await client.draft({ title, posts: [{ platform: 'x', contentText: `${title} on X` }] });
  return client.approve(drafted.group.id, body);
}

describe('GET …/scheduler/slots', () => {
  test('a new workspace: five ranked slots inside the default X windows, basis defaults, nothing learned', async () => {
    const ws = await createTestWorkspace(service);
    const result = await get<Slots>(ws, '/slots?platform=x');
    expect(result).toMatchObject({ timezone: 'UTC', audienceType: 'b2b', historyPosts: 0 });
    expect(result.slots).toHaveLength(5);
    const windows = audienceDefaults('b2b').postingWindows.x;
    for (const slot of result.slots) {
      expect(slot.basis).toBe('defaults');
      expect(inWindows(slot.scheduledForUtc, 'UTC', windows), JSON.stringify(slot)).toBe(true);
      const local = DateTime.fromISO(slot.scheduledForUtc, { zone: 'UTC' });
      expect(slot).toMatchObject({
        localDate: local.toISODate(),
        localTime: local.toFormat('HH:mm'),
        weekday: local.toFormat('cccc'),
      });
      expect(Date.parse(slot.scheduledForUtc)).toBeGreaterThan(Date.now());
      expect(slot.reason).toMatch(/default/i);
    }
    const scores = result.slots.map((s) => s.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  test('in the audience time zone, with count and days, for LinkedIn', async () => {
    const ws = await createTestWorkspace(service);
    const client = workspaceClient(service, ws);
    await data(
      await client.call('PATCH', '/scheduler/settings', { body: { audienceTimezone: 'Asia/Kolkata' } }),
    );
    const result = await get<Slots>(ws, '/slots?platform=linkedin&count=3&days=7');
    expect(result.timezone).toBe('Asia/Kolkata');
    expect(result.slots).toHaveLength(3);
    for (const slot of result.slots) {
      expect(
        inWindows(slot.scheduledForUtc, 'Asia/Kolkata', audienceDefaults('b2b').postingWindows.linkedin),
      ).toBe(true);
      expect(DateTime.fromISO(slot.scheduledForUtc, { zone: 'Asia/Kolkata' }).toFormat('HH:mm')).toBe(
        slot.localTime,
      );
      expect(Date.parse(slot.scheduledForUtc)).toBeLessThan(Date.now() + 8 * 86_400_000);
    }
  });

  test('a scheduled post pushes every slot at least minGapMinutes away from it', async () => {
    const ws = await createTestWorkspace(service);
    const client = workspaceClient(service, ws);
    const before = await get<Slots>(ws, '/slots?platform=x&count=3');
    const taken = before.slots[0]!.scheduledForUtc;
    await draftAndApprove(client, 'Taken', { scheduledForUtc: taken });
    const { minGapMinutes } = await get<{ minGapMinutes: number }>(ws, '/settings');
    const after = await get<Slots>(ws, '/slots?platform=x&count=10');
    expect(after.slots.map((s) => s.scheduledForUtc)).not.toContain(taken);
    for (const slot of after.slots)
      expect(Math.abs(Date.parse(slot.scheduledForUtc) - Date.parse(taken))).toBeGreaterThanOrEqual(
        minGapMinutes * 60_000,
      );
  });

  test('blackout dates and owner availability are skipped', async () => {
    const ws = await createTestWorkspace(service);
    const client = workspaceClient(service, ws);
    const first = await get<Slots>(ws, '/slots?platform=x&count=1');
    const day = first.slots[0]!.localDate;
    await data(
      await client.call('PATCH', '/scheduler/settings', {
        body: {
          blackoutDates: [day],
          ownerAvailability: [{ days: [0, 1, 2, 3, 4, 5, 6], start: '12:00', end: '14:00' }],
        },
      }),
    );
    const after = await get<Slots>(ws, '/slots?platform=x&count=10&days=21');
    expect(after.slots.length).toBeGreaterThan(0);
    for (const slot of after.slots) {
      expect(slot.localDate).not.toBe(day);
      expect(minutes(slot.localTime)).toBeGreaterThanOrEqual(12 * 60);
      expect(minutes(slot.localTime)).toBeLessThan(14 * 60);
    }
  });

  test.each([
    ['platform=facebook', 'platform'],
    ['days=0', 'days'],
    ['days=91', 'days'],
    ['days=soon', 'days'],
    ['count=0', 'count'],
    ['count=51', 'count'],
    ['count=2.5', 'count'],
    ['when=now', ''],
  ])('400 for ?%s', async (query, path) => {
    const ws = await createTestWorkspace(service);
    const res = await service.request('GET', `${ws.base}/scheduler/slots?${query}`, {
      token: ws.tokens.owner,
    });
    const body = await failure(res, 400);
    expect(
      body.details?.some((d) => d.path.includes(path)),
      JSON.stringify(body),
    ).toBe(true);
  });

  test('every member may ask; another workspace may not (403)', async () => {
    const ws = await createTestWorkspace(service);
    const other = await createTestWorkspace(service);
    for (const role of ['owner', 'admin', 'reviewer', 'editor', 'viewer'] as const)
      expect((await get<Slots>(ws, '/slots', role)).slots.length).toBeGreaterThan(0);
    const res = await service.request('GET', `${ws.base}/scheduler/slots`, { token: other.tokens.owner });
    expect(res.status).toBe(403);
  });
});

describe('GET …/scheduler/suggested-times', () => {
  const nextWeekday = (weekday: number, zone: string) => {
    let d = DateTime.now().setZone(zone).plus({ days: 1 }).startOf('day');
    while (d.weekday % 7 !== weekday) d = d.plus({ days: 1 });
    return d.toISODate()!;
  };

  test('times of that day in that zone, inside the windows, best first with reasons', async () => {
    const ws = await createTestWorkspace(service);
    const date = nextWeekday(2, 'America/New_York');
    const result = await get<{ suggestions: Array<{ localTime: string; reason: string }> }>(
      ws,
      `/suggested-times?date=${date}&timezone=America/New_York&count=4&platform=linkedin`,
    );
    expect(result.suggestions.length).toBeGreaterThan(0);
    expect(result.suggestions.length).toBeLessThanOrEqual(4);
    const windows = audienceDefaults('b2b').postingWindows.linkedin;
    for (const s of result.suggestions) {
      expect(s.localTime).toMatch(/^\d\d:\d\d$/);
      const at = DateTime.fromISO(`${date}T${s.localTime}`, { zone: 'America/New_York' }).toISO()!;
      expect(inWindows(at, 'America/New_York', windows), s.localTime).toBe(true);
      expect(s.reason.length).toBeGreaterThan(10);
    }
  });

  test('a Sunday for a b2b workspace without weekends suggests nothing', async () => {
    const ws = await createTestWorkspace(service);
    const date = nextWeekday(0, 'Europe/Berlin');
    const result = await get<{ suggestions: unknown[] }>(
      ws,
      `/suggested-times?date=${date}&timezone=Europe/Berlin`,
    );
    expect(result.suggestions).toEqual([]);
  });

  test.each([
    ['timezone=Europe/Berlin', 'date'],
    ['date=2030-01-02', 'timezone'],
    ['date=2030-02-30&timezone=Europe/Berlin', 'date'],
    ['date=tomorrow&timezone=Europe/Berlin', 'date'],
    ['date=2030-01-02&timezone=Europe/Atlantis', 'timezone'],
    ['date=2020-01-02&timezone=Europe/Berlin', 'date'],
    ['date=2030-01-02&timezone=UTC&count=0', 'count'],
  ])('400 for ?%s', async (query, path) => {
    const ws = await createTestWorkspace(service);
    const res = await service.request('GET', `${ws.base}/scheduler/suggested-times?${query}`, {
      token: ws.tokens.owner,
    });
    const body = await failure(res, 400);
    expect(
      body.details?.some((d) => d.path.includes(path)),
      JSON.stringify(body),
    ).toBe(true);
  });
});

describe('GET …/scheduler/schedule-coverage', () => {
  interface Coverage {
    windowDays: number;
    timezone: string;
    overallStatus: string;
    pendingApprovalTotal: number;
    channels: Array<{
      platform: string;
      scheduledCount: number;
      publishedCount: number;
      pendingApprovalCount: number;
      targetPosts: number | null;
      status: string;
      nextGapAt: string | null;
      notes: string[];
    }>;
  }

  test('nothing connected, nothing planned: no channels and needs attention', async () => {
    const ws = await createTestWorkspace(service);
    expect(await get<Coverage>(ws, '/schedule-coverage')).toEqual({
      windowDays: 7,
      timezone: 'UTC',
      overallStatus: 'needs_attention',
      channels: [],
      pendingApprovalTotal: 0,
    });
  });

  test('a connected X account with nothing planned is a gap; a waiting draft makes it waiting; posts on every posting day cover it', async () => {
    const ws = await createTestWorkspace(service);
    const client = workspaceClient(service, ws);
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
    let coverage = await get<Coverage>(ws, '/schedule-coverage?days=7&timezone=Europe/Berlin');
    expect(coverage.timezone).toBe('Europe/Berlin');
    expect(coverage.channels).toHaveLength(1);
    expect(coverage.channels[0]).toMatchObject({
      platform: 'x',
      scheduledCount: 0,
      publishedCount: 0,
      pendingApprovalCount: 0,
      targetPosts: null,
      status: 'gap',
      nextGapAt: expect.any(String),
    });
    expect(coverage.channels[0]!.notes.join(' ')).toMatch(/slots/);

    const waiting = await client.draft({ title: 'Waiting', posts: [{ platform: 'x', contentText: 'Soon' }] });
    coverage = await get<Coverage>(ws, '/schedule-coverage?days=7');
    expect(coverage.channels[0]).toMatchObject({ status: 'waiting', pendingApprovalCount: 1 });
    expect(coverage.pendingApprovalTotal).toBe(1);
    expect(coverage.channels[0]!.notes.join(' ')).toMatch(/approv/);
    expect(coverage.overallStatus).toBe('needs_attention');
    await client.approve(waiting.group.id, { autoSchedule: false });

    // One post on every posting day of the window (the best slot of each day in UTC).
    const slots = await get<Slots>(ws, '/slots?platform=x&count=50&days=7');
    const byDay = new Map<string, string>();
    for (const s of slots.slots) if (!byDay.has(s.localDate)) byDay.set(s.localDate, s.scheduledForUtc);
    for (const [day, at] of byDay) await draftAndApprove(client, `Day ${day}`, { scheduledForUtc: at });
    coverage = await get<Coverage>(ws, '/schedule-coverage?days=7');
    expect(coverage.channels[0]).toMatchObject({
      status: 'covered',
      scheduledCount: byDay.size,
      nextGapAt: null,
    });
    expect(coverage.overallStatus).toBe('covered');
  });

  test('400 for a bad time zone or days', async () => {
    const ws = await createTestWorkspace(service);
    for (const query of ['timezone=Moon/Base', 'days=0', 'days=100'])
      await failure(
        await service.request('GET', `${ws.base}/scheduler/schedule-coverage?${query}`, {
          token: ws.tokens.owner,
        }),
        400,
      );
  });
});

describe('the best free slot behind approve and schedule', () => {
  test('approve assigns a slot inside the X window with a reason naming basis, window and score', async () => {
    const ws = await createTestWorkspace(service);
    const client = workspaceClient(service, ws);
    const group = await draftAndApprove(client, 'Best');
    expect(group.status).toBe('scheduled');
    const { posts } = await client.get(group.id);
    const x = posts[0]!;
    expect(inWindows(x.scheduledForUtc!, 'UTC', audienceDefaults('b2b').postingWindows.x)).toBe(true);
    expect(x.scheduleReason).toMatch(/basis: defaults/);
    expect(x.scheduleReason).toMatch(/score \d/i);
    expect(x.scheduleReason).toMatch(/\d\d:\d\d–\d\d:\d\d/);
    // It is the slot the slots endpoint ranked first before.
  });

  test('twelve groups approved at the same moment never receive clashing slots', async () => {
    const ws = await createTestWorkspace(service);
    const client = workspaceClient(service, ws);
    await data(
      await client.call('PATCH', '/scheduler/settings', { body: { minGapMinutes: 120, maxPostsPerDay: 2 } }),
    );
    const drafted = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        client.draft({ title: `Concurrent ${i}`, posts: [{ platform: 'x', contentText: `Post ${i}` }] }),
      ),
    );
    const approved = await Promise.all(drafted.map((d) => client.approve(d.group.id)));
    expect(approved.every((g) => g.status === 'scheduled')).toBe(true);
    const times = (await client.posts('?filter[status]=scheduled&limit=100'))
      .map((p) => Date.parse(p.scheduledForUtc!))
      .sort((a, b) => a - b);
    expect(times).toHaveLength(12);
    for (let i = 1; i < times.length; i++)
      expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(120 * 60_000);
    const perDay = new Map<string, number>();
    for (const t of times) {
      const day = new Date(t).toISOString().slice(0, 10);
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }
    expect(Math.max(...perDay.values())).toBeLessThanOrEqual(2);
  });

  test('schedule with useBestSlot moves the posts to the best free slot', async () => {
    const ws = await createTestWorkspace(service);
    const client = workspaceClient(service, ws);
    const at = new Date(Date.now() + 3 * 3_600_000).toISOString();
    const group = await draftAndApprove(client, 'Moved', { scheduledForUtc: at });
    const best = await client.schedule(group.id, { useBestSlot: true });
    const { posts } = await client.get(best.id);
    expect(posts[0]!.scheduledForUtc).not.toBe(at);
    expect(inWindows(posts[0]!.scheduledForUtc!, 'UTC', audienceDefaults('b2b').postingWindows.x)).toBe(true);
    expect(posts[0]!.scheduleReason).toMatch(/^Best free slot/);
  });

  test('no free slot at all: 409 no_free_slot naming what to change, nothing appended', async () => {
    const ws = await createTestWorkspace(service);
    const client = workspaceClient(service, ws);
    await data(
      await client.call('PATCH', '/scheduler/settings', {
        body: { postingWindows: { x: [{ days: [1], start: '09:00', end: '10:00', weight: 0 }] } },
      }),
    );
    const drafted = await client.draft({ title: 'Nowhere', posts: [{ platform: 'x', contentText: 'Hi' }] });
    const before = await eventCount(service);
    const res = await client.call('POST', `/post-groups/${drafted.group.id}/approve`, { as: 'reviewer' });
    const body = await failure(res, 409);
    expect(body.code).toBe('no_free_slot');
    expect(body.error).toMatch(/posting windows/);
    expect(await eventCount(service)).toBe(before);
  });
});
