// Slots learn from the workspace's own results: a workspace whose published posts did best on Tuesday 09:00 in
// its audience's time zone gets that slot ranked first with `basis: history`; one with too little history gets
// `basis: defaults`. The results are post metrics recorded as the metrics process records them
// (PostMetricsFetched), published at local times in the past.
import { randomUUID } from 'node:crypto';
import { DateTime, type WeekdayNumbers } from 'luxon';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { recordPostMetrics } from '../../../commands/analytics/post-metrics-commands.js';
import { MIN_HISTORY_POSTS } from '../../../domain/scheduling/slots.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { data, workspaceClient } from '../post-groups/support.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

const zone = 'America/New_York';

interface Slots {
  timezone: string;
  historyPosts: number;
  slots: Array<{
    scheduledForUtc: string;
    localTime: string;
    weekday: string;
    basis: string;
    reason: string;
    score: number;
  }>;
}

/** A post published `weeksAgo` weeks ago on that local weekday (1 = Monday … 7 = Sunday, Luxon's) and time. */
function publishedAt(weeksAgo: number, weekday: WeekdayNumbers, time: string): string {
  const [hour, minute] = time.split(':').map(Number);
  return DateTime.now()
    .setZone(zone)
    .minus({ weeks: weeksAgo })
    .set({ weekday, hour, minute, second: 0, millisecond: 0 })
    .toUTC()
    .toISO()!;
}

async function recordResult(ws: TestWorkspace, at: string, engagement: number): Promise<void> {
  const likes = Math.round(engagement * 0.8);
  await recordPostMetrics(
    service.runtime.commands,
    {
      orgId: ws.orgId,
      postId: randomUUID(),
      groupId: randomUUID(),
      platform: 'x',
      socialAccountId: randomUUID(),
      externalId: `x-${randomUUID()}`,
      publishedAt: at,
      contentType: null,
      metrics: {
        likes,
        reposts: engagement - likes,
        replies: 0,
        quotes: 0,
        bookmarks: null,
        impressions: engagement * 30,
      },
      fetchedAt: new Date(Date.parse(at) + 72 * 3_600_000).toISOString(),
    },
    { orgId: ws.orgId, actor: 'system', correlationId: randomUUID(), now: new Date().toISOString() },
  );
}

async function workspaceIn(timezone: string): Promise<TestWorkspace> {
  const ws = await createTestWorkspace(service);
  const client = workspaceClient(service, ws);
  await data(await client.call('PATCH', '/scheduler/settings', { body: { audienceTimezone: timezone } }));
  return ws;
}

const slotsOf = async (ws: TestWorkspace, query = '?platform=x&count=5') =>
  data<Slots>(
    await service.request('GET', `${ws.base}/scheduler/slots${query}`, { token: ws.tokens.viewer }),
  );

describe('slots learn from history', () => {
  test('posts that did best on Tuesday 09:00 local rank that slot first, basis history', async () => {
    const ws = await workspaceIn(zone);
    // Without history: the defaults rank Monday–Friday mornings alike (sooner first).
    const before = await slotsOf(ws);
    expect(before.historyPosts).toBe(0);
    expect(before.slots.every((s) => s.basis === 'defaults')).toBe(true);

    // Twelve weeks: Tuesday 09:00 posts earned 300, the other window times 60–90.
    for (let week = 1; week <= 12; week++) {
      await recordResult(ws, publishedAt(week, 2, '09:00'), 300);
      await recordResult(ws, publishedAt(week, 1, '08:15'), 80);
      await recordResult(ws, publishedAt(week, 3, '12:30'), 90);
      await recordResult(ws, publishedAt(week, 4, '17:00'), 60);
    }
    const after = await slotsOf(ws);
    expect(after.timezone).toBe(zone);
    expect(after.historyPosts).toBe(48);
    const best = after.slots[0]!;
    expect(best).toMatchObject({ weekday: 'Tuesday', localTime: '09:00', basis: 'history', score: 100 });
    const local = DateTime.fromISO(best.scheduledForUtc, { zone });
    expect([local.weekday, local.toFormat('HH:mm')]).toEqual([2, '09:00']);
    expect(best.reason).toMatch(/Tuesday/);
    expect(after.slots.every((s) => s.basis === 'history')).toBe(true);

    // The finder behind approve follows the same ranking, and its reason names the basis.
    const client = workspaceClient(service, ws);
    const drafted = await client.draft({
      title: 'Learned',
      posts: [{ platform: 'x', contentText: 'Best time' }],
    });
    await client.approve(drafted.group.id);
    const { posts } = await client.get(drafted.group.id);
    expect(posts[0]!.scheduledForUtc).toBe(best.scheduledForUtc);
    expect(posts[0]!.scheduleReason).toMatch(/^Best free slot \(basis: history, score 100\)/);
  });

  test(`fewer than ${MIN_HISTORY_POSTS} posts with results: basis defaults, historyPosts counted`, async () => {
    const ws = await workspaceIn(zone);
    for (let week = 1; week < MIN_HISTORY_POSTS; week++)
      await recordResult(ws, publishedAt(week, 2, '09:00'), 500);
    const result = await slotsOf(ws);
    expect(result.historyPosts).toBe(MIN_HISTORY_POSTS - 1);
    expect(result.slots.every((s) => s.basis === 'defaults')).toBe(true);
    expect(result.slots[0]!.reason).toMatch(/not enough/i);
  });

  test("another workspace's history does not count", async () => {
    const ws = await workspaceIn(zone);
    const other = await workspaceIn(zone);
    for (let week = 1; week <= 12; week++) await recordResult(other, publishedAt(week, 2, '09:00'), 300);
    expect((await slotsOf(ws)).historyPosts).toBe(0);
    expect((await slotsOf(other)).historyPosts).toBe(12);
  });
});
