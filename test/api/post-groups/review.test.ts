// PATCH ORG/marketing/post-groups/{groupId} and POST …/approve, …/reject, …/schedule through the whole service:
// the rows of the spec's state table end to end, slots from the slot finder, the 409s, the bad-input battery
// (each a 400 appending nothing), Idempotency-Key and read-your-writes through GET ORG/marketing/posts.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { audienceDefaults } from '../../../domain/scheduling/defaults.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  badRequestPaths,
  data,
  failure,
  quarterHourMs,
  twoPlatformDraft,
  uuidPattern,
  workspaceClient,
  type Group,
  type WorkspaceClient,
} from './support.js';

let service: TestService;
let ws: TestWorkspace;
let api: WorkspaceClient;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  api = workspaceClient(service, ws);
});
afterAll(async () => service.stop());

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

/** A fresh workspace, so the slot finder sees no other scheduled post. */
async function freshWorkspace(): Promise<WorkspaceClient> {
  return workspaceClient(service, await createTestWorkspace(service, 'Slots'));
}

/** A drafted (pending_approval) X + LinkedIn group. */
async function pendingGroup(client = api, title = 'Scheduler launch') {
  return client.draft(twoPlatformDraft(title));
}

/** A drafted group approved without a slot. */
async function approvedGroup(client = api, title = 'Scheduler launch') {
  const drafted = await pendingGroup(client, title);
  const group = await client.approve(drafted.group.id, { autoSchedule: false });
  expect(group.status).toBe('approved');
  return { ...drafted, group };
}

/** A drafted group approved with a time an hour ahead (scheduled). */
async function scheduledGroup(client = api, title = 'Scheduler launch') {
  const drafted = await pendingGroup(client, title);
  const at = inHours(1);
  const group = await client.approve(drafted.group.id, { scheduledForUtc: at });
  expect(group.status).toBe('scheduled');
  return { ...drafted, group, at };
}

async function preferenceSignals(groupId: string) {
  const res = await service.runtime.database.pool.query<{ type: string; data: Record<string, unknown> }>(
    `select type, data from es_events where type = 'PreferenceSignalRecorded' and data->>'groupId' = $1`,
    [groupId],
  );
  return res.rows;
}

/** A slot of the best-slot finder: on a quarter-hour step of a posting window, at least 15 minutes ahead. */
function expectBestSlot(slot: string | null, notBefore: string) {
  expect(slot).not.toBeNull();
  const t = Date.parse(slot!);
  expect(t % quarterHourMs).toBe(0);
  expect(t - Date.parse(notBefore)).toBeGreaterThanOrEqual(quarterHourMs);
}

describe('POST …/approve', () => {
  test('approves a pending group and, by default, assigns each post the best free slot of its platform', async () => {
    const client = await freshWorkspace();
    const { group: drafted, posts } = await pendingGroup(client);
    const res = await client.call('POST', `/post-groups/${drafted.id}/approve`, { as: 'reviewer' });
    const group = await data<Group>(res);
    const approval = {
      id: expect.stringMatching(uuidPattern),
      level: 'group',
      groupId: drafted.id,
      postId: null,
      approvedByUserId: client.ws.userIds.reviewer,
      approvedAt: group.approvedAt,
      action: 'approved',
    };
    expect(group).toEqual({
      ...drafted,
      status: 'scheduled',
      approvedBy: client.ws.userIds.reviewer,
      approvedAt: expect.any(String),
      updatedAt: group.approvedAt,
      scheduledFor: expect.any(String),
      scheduleReason: expect.any(String),
      approvals: [...drafted.approvals, approval],
    });
    expectBestSlot(group.scheduledFor, group.approvedAt!);
    expect(group.scheduleReason).toMatch(/^Best free slot \(basis: defaults, score [\d.]+\): /);

    // Read-your-writes: the group and the posts list show both posts scheduled right away.
    const read = await client.get(drafted.id);
    expect(read.group).toEqual(group);
    const listed = await client.posts('?filter[status]=scheduled');
    expect(listed.map((p) => p.id).sort()).toEqual(posts.map((p) => p.id).sort());
    for (const post of listed) {
      // Each platform gets the best slot of its own windows; the group shows its first post's.
      expect(post).toMatchObject({
        status: 'scheduled',
        scheduleReason: expect.stringMatching(/^Best free slot/),
        approvals: [drafted.approvals[0], group.approvals[1]],
      });
      expectBestSlot(post.scheduledForUtc, group.approvedAt!);
      expect(read.posts).toContainEqual(post);
    }
    expect(read.posts.map((p) => p.scheduledForUtc)).toContain(group.scheduledFor);
  });

  test('two groups with an X post each get distinct slots, at least minGapMinutes apart', async () => {
    const client = await freshWorkspace();
    const first = await pendingGroup(client, 'First');
    const second = await pendingGroup(client, 'Second');
    const a = await client.approve(first.group.id);
    const b = await client.approve(second.group.id);
    const slotOf = async (groupId: string) =>
      (await client.get(groupId)).posts.find((p) => p.platform === 'x')!.scheduledForUtc!;
    const slotA = await slotOf(a.id);
    const slotB = await slotOf(b.id);
    expectBestSlot(slotA, a.approvedAt!);
    expectBestSlot(slotB, b.approvedAt!);
    expect(slotB).not.toBe(slotA);
    const gap = audienceDefaults('b2b').minGapMinutes * 60_000;
    expect(Math.abs(Date.parse(slotB) - Date.parse(slotA))).toBeGreaterThanOrEqual(gap);
  });

  test('autoSchedule false approves without a slot', async () => {
    const { group: drafted } = await pendingGroup();
    const group = await api.approve(drafted.id, { autoSchedule: false });
    expect(group).toMatchObject({
      status: 'approved',
      scheduledFor: null,
      scheduleReason: null,
      approvedBy: ws.userIds.reviewer,
    });
    expect(group.approvals.map((a) => [a.level, a.action])).toEqual([
      ['group', 'submit_for_approval'],
      ['group', 'approved'],
    ]);
    const { posts } = await api.get(drafted.id);
    expect(posts.map((p) => [p.status, p.scheduledForUtc])).toEqual([
      ['approved', null],
      ['approved', null],
    ]);
  });

  test('scheduledForUtc schedules every approved post at that time (and sets the timezone)', async () => {
    const { group: drafted } = await pendingGroup();
    const at = inHours(5);
    const group = await api.approve(drafted.id, { scheduledForUtc: at, timezone: 'Europe/Berlin' });
    expect(group).toMatchObject({
      status: 'scheduled',
      scheduledFor: at,
      scheduleReason: 'Time chosen by a member',
      timezone: 'Europe/Berlin',
    });
    const { posts } = await api.get(drafted.id);
    expect(posts.map((p) => [p.status, p.scheduledForUtc])).toEqual([
      ['scheduled', at],
      ['scheduled', at],
    ]);
  });

  test('approvePosts approves only the named posts, with post-level records', async () => {
    const { group: drafted, posts } = await pendingGroup();
    const x = posts.find((p) => p.platform === 'x')!;
    const linkedin = posts.find((p) => p.platform === 'linkedin')!;
    const group = await api.approve(drafted.id, { approvePosts: [x.id], autoSchedule: false });
    const record = {
      id: expect.stringMatching(uuidPattern),
      level: 'post',
      groupId: drafted.id,
      postId: x.id,
      approvedByUserId: ws.userIds.reviewer,
      approvedAt: group.approvedAt,
      action: 'approved',
    };
    expect(group.status).toBe('approved');
    expect(group.approvals).toEqual([...drafted.approvals, record]);
    const read = await api.get(drafted.id);
    const readX = read.posts.find((p) => p.id === x.id)!;
    const readLinkedin = read.posts.find((p) => p.id === linkedin.id)!;
    expect(readX).toMatchObject({ status: 'approved', approvals: [...x.approvals, record] });
    expect(readLinkedin).toEqual(linkedin);

    // The rest can be approved later; a post approved before is approved again only if it changed.
    const rest = await api.approve(drafted.id, { approvePosts: [x.id, linkedin.id], autoSchedule: false });
    expect(rest.approvals.slice(2).map((a) => [a.level, a.postId, a.action])).toEqual([
      ['post', linkedin.id, 'approved'],
    ]);
  });

  test('approving an approved group again changes nothing', async () => {
    const { group } = await approvedGroup();
    const before = await eventCount(service);
    expect(await api.approve(group.id, { autoSchedule: false })).toEqual(group);
    expect(await eventCount(service)).toBe(before);
  });

  test('a canceled group cannot be approved (409)', async () => {
    const { group: drafted } = await pendingGroup();
    const canceled = await api.patch(drafted.id, { status: 'canceled' });
    expect(canceled.status).toBe('canceled');
    expect((await api.get(drafted.id)).posts.map((p) => p.status)).toEqual(['canceled', 'canceled']);
    const before = await eventCount(service);
    const body = await failure(
      await api.call('POST', `/post-groups/${drafted.id}/approve`, { as: 'reviewer' }),
      409,
    );
    expect(body.code).toBe('group_canceled');
    expect(await eventCount(service)).toBe(before);
  });
});

describe('POST …/reject', () => {
  test('with reason and note: back to draft, a rejected record, and a PreferenceSignalRecorded event', async () => {
    const { group: drafted, posts } = await pendingGroup();
    const group = await api.reject(drafted.id, { reason: 'too_promotional', note: '  Tone it down  ' });
    const record = {
      id: expect.stringMatching(uuidPattern),
      level: 'group',
      groupId: drafted.id,
      postId: null,
      approvedByUserId: ws.userIds.reviewer,
      approvedAt: group.updatedAt,
      action: 'rejected',
    };
    expect(group).toEqual({
      ...drafted,
      status: 'draft',
      updatedAt: expect.any(String),
      approvals: [...drafted.approvals, record],
    });
    const read = await api.get(drafted.id);
    expect(read.posts.map((p) => p.status)).toEqual(['draft', 'draft']);
    const signals = await preferenceSignals(drafted.id);
    expect(signals).toEqual([
      {
        type: 'PreferenceSignalRecorded',
        data: expect.objectContaining({
          orgId: ws.orgId,
          groupId: drafted.id,
          by: ws.userIds.reviewer,
          kind: 'reject',
          signal: 'too_promotional',
          note: 'Tone it down',
          topic: 'launch',
          posts: posts.map((p) => ({ postId: p.id, platform: p.platform, contentText: p.contentText })),
        }),
      },
    ]);
    // The read model lists the posts as drafts at once.
    const listed = await api.posts('?filter[status]=draft&limit=100');
    expect(listed.filter((p) => p.groupId === drafted.id)).toHaveLength(2);
  });

  test('without a body; rejectPosts rejects only the named post; a scheduled post loses its slot', async () => {
    const { group: drafted, posts } = await scheduledGroup();
    const x = posts.find((p) => p.platform === 'x')!;
    const group = await api.reject(drafted.id, { rejectPosts: [x.id] });
    expect(group.status).toBe('scheduled');
    expect(group.approvals.at(-1)).toMatchObject({ level: 'post', postId: x.id, action: 'rejected' });
    const read = await api.get(drafted.id);
    expect(read.posts.find((p) => p.id === x.id)).toMatchObject({ status: 'draft', scheduledForUtc: null });
    expect(read.posts.find((p) => p.id !== x.id)).toMatchObject({ status: 'scheduled' });
    const all = await api.reject(drafted.id);
    expect(all.status).toBe('draft');
    expect((await preferenceSignals(drafted.id)).map((s) => s.data.signal)).toEqual([
      'unspecified',
      'unspecified',
    ]);
  });
});

describe('POST …/schedule', () => {
  test('draft and pending_approval groups cannot be scheduled (409), nothing appended', async () => {
    const composed = await api.compose({ title: 'Draft', posts: [{ platform: 'x', contentText: 'Hi' }] });
    expect(composed.group.status).toBe('draft');
    const { group: pending } = await pendingGroup();
    const before = await eventCount(service);
    for (const id of [composed.group.id, pending.id]) {
      for (const body of [undefined, { useBestSlot: true }, { scheduledForUtc: inHours(2) }]) {
        const res = await api.call('POST', `/post-groups/${id}/schedule`, { as: 'reviewer', body });
        expect((await failure(res, 409)).code).toBe('group_not_approved');
      }
    }
    expect(await eventCount(service)).toBe(before);
    expect((await api.get(pending.id)).group.status).toBe('pending_approval');
  });

  test('scheduledForUtc, then useBestSlot, then postIds for one post', async () => {
    const client = await freshWorkspace();
    const { group: approved, posts } = await approvedGroup(client);
    const at = inHours(3);
    const scheduled = await client.schedule(approved.id, { scheduledForUtc: at });
    expect(scheduled).toMatchObject({
      status: 'scheduled',
      scheduledFor: at,
      scheduleReason: 'Time chosen by a member',
      approvedBy: approved.approvedBy,
      approvedAt: approved.approvedAt,
      approvals: approved.approvals,
    });
    let read = await client.get(approved.id);
    expect(read.posts.map((p) => [p.status, p.scheduledForUtc])).toEqual([
      ['scheduled', at],
      ['scheduled', at],
    ]);

    const best = await client.schedule(approved.id, { useBestSlot: true });
    expectBestSlot(best.scheduledFor, best.updatedAt);
    expect(best.scheduleReason).toMatch(/^Best free slot/);
    read = await client.get(approved.id);
    const bestTimes = read.posts.map((p) => p.scheduledForUtc);
    for (const p of read.posts) {
      expectBestSlot(p.scheduledForUtc, best.updatedAt);
      expect(p.scheduleReason).toMatch(/^Best free slot/);
    }
    expect(bestTimes).toContain(best.scheduledFor);
    // Read-your-writes on the posts list.
    const listed = await client.posts('?filter[status]=scheduled');
    expect(listed.map((p) => p.scheduledForUtc).sort()).toEqual([...bestTimes].sort());

    const x = posts.find((p) => p.platform === 'x')!;
    const later = inHours(6);
    await client.schedule(approved.id, { postIds: [x.id], scheduledForUtc: later, timezone: 'Asia/Tokyo' });
    read = await client.get(approved.id);
    expect(read.group.timezone).toBe('Asia/Tokyo');
    expect(read.posts.find((p) => p.id === x.id)!.scheduledForUtc).toBe(later);
    expect(read.posts.find((p) => p.id !== x.id)!.scheduledForUtc).toBe(
      bestTimes[read.posts.findIndex((p) => p.id !== x.id)],
    );
  });

  test('schedule without a body keeps planned times; a canceled group is a 409', async () => {
    const { group: approved } = await approvedGroup();
    const planned = inHours(4);
    await api.patch(approved.id, { scheduledFor: planned });
    const group = await api.schedule(approved.id);
    expect(group).toMatchObject({ status: 'scheduled', scheduledFor: planned });
    await api.patch(approved.id, { status: 'canceled' });
    const res = await api.call('POST', `/post-groups/${approved.id}/schedule`, { as: 'reviewer' });
    expect((await failure(res, 409)).code).toBe('group_canceled');
  });
});

describe('PATCH ORG/marketing/post-groups/{groupId}', () => {
  for (const field of ['title', 'topic', 'objective'] as const) {
    test(`changing ${field} of an approved group returns it and its posts to pending_approval`, async () => {
      const { group: approved } = await approvedGroup();
      const group = await api.patch(approved.id, { [field]: `new ${field}` }, 'editor');
      expect(group).toMatchObject({
        [field]: `new ${field}`,
        status: 'pending_approval',
        approvedBy: null,
        approvedAt: null,
      });
      expect(group.approvals.at(-1)).toEqual({
        id: expect.stringMatching(uuidPattern),
        level: 'group',
        groupId: approved.id,
        postId: null,
        approvedByUserId: ws.userIds.editor,
        approvedAt: group.updatedAt,
        action: 'submit_for_approval',
      });
      const read = await api.get(approved.id);
      expect(read.group).toEqual(group);
      expect(read.posts.map((p) => p.status)).toEqual(['pending_approval', 'pending_approval']);
      // Approving again is a re-approval.
      const again = await api.approve(approved.id, { autoSchedule: false });
      expect(again.approvals.at(-1)).toMatchObject({ level: 'group', action: 'reapproved' });
    });
  }

  test('changing the title of a scheduled group withdraws the approval: posts pending, not scheduled', async () => {
    const { group: scheduled } = await scheduledGroup();
    const group = await api.patch(scheduled.id, { title: 'Retitled' });
    expect(group).toMatchObject({ status: 'pending_approval', approvedBy: null, approvedAt: null });
    const listed = (await api.posts('?filter[status]=scheduled&limit=100')).filter(
      (p) => p.groupId === scheduled.id,
    );
    expect(listed).toEqual([]);
    const read = await api.get(scheduled.id);
    expect(read.posts.map((p) => p.status)).toEqual(['pending_approval', 'pending_approval']);
    const res = await api.call('POST', `/post-groups/${scheduled.id}/schedule`, { as: 'reviewer' });
    await failure(res, 409);
  });

  test('timezone, planned time and tags of an approved group change without withdrawing the approval', async () => {
    const { group: approved } = await approvedGroup();
    const tag = await data<{ id: string }>(await api.call('POST', '/tags', { body: { name: 'Keep' } }));
    const planned = inHours(8);
    const group = await api.patch(
      approved.id,
      { timezone: 'America/New_York', scheduledFor: planned, tagIds: [tag.id] },
      'editor',
    );
    expect(group).toMatchObject({
      status: 'approved',
      timezone: 'America/New_York',
      scheduledFor: planned,
      tagIds: [tag.id],
      approvedBy: approved.approvedBy,
      approvals: approved.approvals,
    });
    const listed = await api.posts(`?filter[tagId]=${tag.id}`);
    expect(listed.map((p) => p.status)).toEqual(['approved', 'approved']);
  });

  test('an edit that changes nothing answers the group and appends nothing', async () => {
    const { group: approved } = await approvedGroup();
    const before = await eventCount(service);
    for (const body of [{}, { title: approved.title }, { topic: 'launch', status: 'approved' }]) {
      expect(await api.patch(approved.id, body)).toEqual(approved);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('status moves: pending_approval, approved, scheduled, draft, canceled', async () => {
    const composed = await api.compose(twoPlatformDraft('Status moves'));
    const id = composed.group.id;
    let group = await api.patch(id, { status: 'pending_approval' }, 'editor');
    expect(group.status).toBe('pending_approval');
    expect(group.approvals.map((a) => a.action)).toEqual(['submit_for_approval']);

    group = await api.patch(id, { status: 'approved' }, 'reviewer');
    expect(group).toMatchObject({ status: 'approved', scheduledFor: null, approvedBy: ws.userIds.reviewer });

    group = await api.patch(id, { status: 'scheduled' }, 'reviewer');
    expect(group.status).toBe('scheduled');
    expectBestSlot(group.scheduledFor, group.updatedAt);

    group = await api.patch(id, { status: 'draft' }, 'editor');
    expect(group).toMatchObject({ status: 'draft', approvedBy: null, approvedAt: null });
    expect((await api.get(id)).posts.map((p) => p.status)).toEqual(['draft', 'draft']);

    group = await api.patch(id, { status: 'canceled' }, 'editor');
    expect(group.status).toBe('canceled');
    expect(
      (await api.posts('?filter[status]=canceled&limit=100')).filter((p) => p.groupId === id),
    ).toHaveLength(2);
  });

  test('status approved on a scheduled group makes it approved (the given value): its posts leave the schedule', async () => {
    const { group: scheduled, posts } = await scheduledGroup();
    const before = await eventCount(service);
    const group = await api.patch(scheduled.id, { status: 'approved' }, 'reviewer');
    expect(group).toMatchObject({
      status: 'approved',
      approvedBy: scheduled.approvedBy,
      approvedAt: scheduled.approvedAt,
      approvals: scheduled.approvals,
    });
    // One event per post unscheduled, appended together.
    expect(await eventCount(service)).toBe(before + posts.length);
    const read = await api.get(scheduled.id);
    expect(read.group).toEqual(group);
    expect(read.posts.map((p) => [p.status, p.scheduledForUtc])).toEqual([
      ['approved', null],
      ['approved', null],
    ]);
    expect(
      (await api.posts('?filter[status]=scheduled&limit=100')).filter((p) => p.groupId === scheduled.id),
    ).toEqual([]);

    // With a title edit in the same PATCH: the approval is withdrawn and given again, nothing stays scheduled.
    const again = await scheduledGroup();
    const edited = await api.patch(again.group.id, { title: 'Retitled and approved', status: 'approved' });
    expect(edited).toMatchObject({
      title: 'Retitled and approved',
      status: 'approved',
      approvedBy: ws.userIds.owner,
    });
    expect(edited.approvals.slice(-2).map((a) => a.action)).toEqual(['submit_for_approval', 'reapproved']);
    expect((await api.get(again.group.id)).posts.map((p) => p.status)).toEqual(['approved', 'approved']);
  });

  test('status scheduled on a pending group is a 409 and changes nothing, also with other edits', async () => {
    const { group: pending } = await pendingGroup();
    const before = await eventCount(service);
    for (const body of [{ status: 'scheduled' }, { title: 'Renamed', status: 'scheduled' }]) {
      const res = await api.call('PATCH', `/post-groups/${pending.id}`, { body });
      expect((await failure(res, 409)).code).toBe('group_not_approved');
    }
    expect(await eventCount(service)).toBe(before);
    expect((await api.get(pending.id)).group).toEqual(pending);
  });
});

describe('bad input: 400 naming each field, nothing appended', () => {
  let groupId: string;
  let pendingId: string;
  let postIds: string[];
  beforeAll(async () => {
    const { group, posts } = await approvedGroup(api, 'Battery');
    groupId = group.id;
    postIds = posts.map((p) => p.id);
    pendingId = (await pendingGroup(api, 'Pending battery')).group.id;
  });
  const unknownId = '0f0f0f0f-0000-4000-8000-0000000000ff';
  const past = '2020-01-01T09:00:00Z';
  const cases: Array<{
    name: string;
    method: string;
    path: () => string;
    /** The body, or a function building it once the battery group exists. */
    body?: unknown;
    paths: string[];
  }> = [
    {
      name: 'PATCH: unknown field, bad status, blank title, bad timezone',
      method: 'PATCH',
      path: () => `/post-groups/${groupId}`,
      body: { colour: 'red', status: 'published', title: ' ', timezone: 'Nowhere/Land' },
      paths: ['body.colour', 'body.status', 'body.title', 'body.timezone'],
    },
    {
      name: 'PATCH: scheduledFor in the past',
      method: 'PATCH',
      path: () => `/post-groups/${groupId}`,
      body: { scheduledFor: past },
      paths: ['body.scheduledFor'],
    },
    {
      name: 'PATCH: unknown tag ids',
      method: 'PATCH',
      path: () => `/post-groups/${groupId}`,
      body: { tagIds: [unknownId] },
      paths: ['body.tagIds.0'],
    },
    {
      name: 'PATCH: a group id that is not a uuid',
      method: 'PATCH',
      path: () => '/post-groups/nope',
      body: { title: 'T' },
      paths: ['param.groupId'],
    },
    {
      name: 'approve: unknown fields and types',
      method: 'POST',
      path: () => `/post-groups/${groupId}/approve`,
      body: { approvePosts: ['x'], autoSchedule: 'yes', everything: true },
      paths: ['body.approvePosts.0', 'body.autoSchedule', 'body.everything'],
    },
    {
      name: 'approve: unknown approvePosts ids',
      method: 'POST',
      path: () => `/post-groups/${groupId}/approve`,
      body: { approvePosts: [unknownId] },
      paths: ['body.approvePosts.0'],
    },
    {
      name: 'approve: scheduledForUtc in the past',
      method: 'POST',
      path: () => `/post-groups/${pendingId}/approve`,
      body: { scheduledForUtc: past },
      paths: ['body.scheduledForUtc'],
    },
    {
      name: 'approve: scheduledForUtc in the past, on a group with nothing left to approve',
      method: 'POST',
      path: () => `/post-groups/${groupId}/approve`,
      body: { scheduledForUtc: past },
      paths: ['body.scheduledForUtc'],
    },
    {
      name: 'reject: a bad uuid path',
      method: 'POST',
      path: () => '/post-groups/not-a-uuid/reject',
      paths: ['param.groupId'],
    },
    {
      name: 'schedule: a bad uuid path',
      method: 'POST',
      path: () => '/post-groups/00000000-0000-0000-0000/schedule',
      paths: ['param.groupId'],
    },
    {
      name: 'approve: a bad uuid path',
      method: 'POST',
      path: () => '/post-groups/123/approve',
      paths: ['param.groupId'],
    },
    {
      name: 'reject: unknown reason, unknown field, unknown rejectPosts id',
      method: 'POST',
      path: () => `/post-groups/${groupId}/reject`,
      body: { reason: 'boring', why: 'x' },
      paths: ['body.reason', 'body.why'],
    },
    {
      name: 'reject: unknown rejectPosts ids',
      method: 'POST',
      path: () => `/post-groups/${groupId}/reject`,
      body: () => ({ rejectPosts: [postIds[0], unknownId] }),
      paths: ['body.rejectPosts.1'],
    },
    {
      name: 'schedule: scheduledForUtc in the past',
      method: 'POST',
      path: () => `/post-groups/${groupId}/schedule`,
      body: { scheduledForUtc: past },
      paths: ['body.scheduledForUtc'],
    },
    {
      name: 'schedule: unknown postIds, bad scheduledForUtc, bad timezone',
      method: 'POST',
      path: () => `/post-groups/${groupId}/schedule`,
      body: { postIds: ['nope'], scheduledForUtc: 'soon', timezone: 'UTC+25' },
      paths: ['body.postIds.0', 'body.scheduledForUtc', 'body.timezone'],
    },
    {
      name: 'schedule: postIds not of this group',
      method: 'POST',
      path: () => `/post-groups/${groupId}/schedule`,
      body: { postIds: [unknownId] },
      paths: ['body.postIds.0'],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const before = await eventCount(service);
      const groups = [await api.get(groupId), await api.get(pendingId)];
      const body = typeof c.body === 'function' ? (c.body as () => unknown)() : c.body;
      const res = await api.call(c.method, c.path(), { body });
      expect([...(await badRequestPaths(res))].sort()).toEqual([...c.paths].sort());
      expect(await eventCount(service)).toBe(before);
      expect([await api.get(groupId), await api.get(pendingId)]).toEqual(groups);
    });
  }
});

describe('Idempotency-Key', () => {
  test('approve: the same key and body replays the answer and appends nothing; another body is a 422', async () => {
    const { group: pending } = await pendingGroup();
    const headers = { 'Idempotency-Key': `approve-${pending.id}` };
    const path = `/post-groups/${pending.id}/approve`;
    const body = { autoSchedule: false };
    const first = await api.call('POST', path, { as: 'reviewer', body, headers });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const approved = await data<Group>(first);
    const after = await eventCount(service);

    const again = await api.call('POST', path, { as: 'reviewer', body, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await data<Group>(again)).toEqual(approved);
    expect(await eventCount(service)).toBe(after);

    await failure(
      await api.call('POST', path, { as: 'reviewer', body: { autoSchedule: true }, headers }),
      422,
    );
    expect(await eventCount(service)).toBe(after);
  });

  test('PATCH and reject and schedule replay too', async () => {
    const { group: approved } = await approvedGroup();
    const steps: Array<[string, string, unknown]> = [
      ['PATCH', `/post-groups/${approved.id}`, { title: 'Keyed' }],
      ['POST', `/post-groups/${approved.id}/approve`, { autoSchedule: false }],
      ['POST', `/post-groups/${approved.id}/schedule`, { useBestSlot: true }],
      ['POST', `/post-groups/${approved.id}/reject`, { reason: 'other' }],
    ];
    for (const [method, path, body] of steps) {
      const headers = { 'Idempotency-Key': `${method}-${path}` };
      const first = await data<Group>(await api.call(method, path, { body, headers }));
      const after = await eventCount(service);
      const again = await api.call(method, path, { body, headers });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await data<Group>(again)).toEqual(first);
      expect(await eventCount(service)).toBe(after);
    }
    expect((await api.get(approved.id)).group.status).toBe('draft');
  });
});
