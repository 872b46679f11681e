// ORG/launch-kits through the whole service with the offline writer: create (copy, a plan in the workspace's
// zone, the posts drafted into review as pending_approval, nothing scheduled, no credits), the list (newest
// first, paged, counts), GET showing the posts' statuses as they change in review, PATCH a step, Idempotency-Key,
// the bad-input battery in the spec's error shape with nothing appended, and the four tools.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { answer, kitCalls, refused, type Created, type Kit } from './support.js';

let service: TestService;
let call: ReturnType<typeof kitCalls>['call'];

beforeAll(async () => {
  service = await startTestService();
  call = kitCalls(service).call;
});
afterAll(async () => service.stop());

const pitch = 'Shipday turns your changelog into release notes your customers actually read.';

async function setTimezone(ws: TestWorkspace, timezone: string) {
  const res = await service.request('PATCH', `/v1/orgs/${ws.orgId}/timezone`, {
    token: ws.tokens.owner,
    body: { timezone },
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

const create = async (ws: TestWorkspace, body: Record<string, unknown>, headers?: Record<string, string>) =>
  answer<Created>(await call(ws, 'POST', '', body, headers ? { headers } : {}), 201);

const postsOf = (ws: TestWorkspace) =>
  sql<{ status: string; scheduled_for_utc: string | null; group_id: string; platform: string }>`
    select status, scheduled_for_utc, group_id, platform from posts where org_id = ${ws.orgId}`
    .execute(service.runtime.readModels)
    .then((r) => r.rows);

describe('POST ORG/launch-kits (offline writer)', () => {
  test('writes the copy, lays out the plan in the workspace zone and drafts the posts into review, scheduling nothing', async () => {
    const ws = await createTestWorkspace(service, 'Shipday');
    await setTimezone(ws, 'Europe/London');
    const created = await create(ws, {
      pitch,
      launchDate: '2026-03-31',
      productName: 'Shipday',
      url: 'https://shipday.example/launch',
      channels: ['product_hunt', 'hacker_news', 'x', 'linkedin', 'reddit'],
      subreddits: ['r/SideProject'],
    });
    expect(created).toMatchObject({ providerModel: 'offline', creditsUsed: 0 });
    expect(created.remainingCredits).toEqual(expect.any(Number));
    const kit = created.kit;
    expect(kit).toMatchObject({
      orgId: ws.orgId,
      productName: 'Shipday',
      pitch,
      url: 'https://shipday.example/launch',
      launchDate: '2026-03-31',
      timezone: 'Europe/London',
      channels: ['product_hunt', 'hacker_news', 'x', 'linkedin', 'reddit'],
    });
    // Grounded copy within the listing limits.
    expect(kit.productHunt!.name).toBe('Shipday');
    expect(kit.productHunt!.tagline.length).toBeLessThanOrEqual(60);
    expect(kit.productHunt!.description.length).toBeLessThanOrEqual(260);
    expect(kit.productHunt!.description).toContain('changelog');
    expect(kit.hackerNews!.title).toMatch(/^Show HN: Shipday/);
    expect(kit.hackerNews!.title.length).toBeLessThanOrEqual(80);
    expect(kit.hackerNews!.url).toBe('https://shipday.example/launch');

    // The plan: ids in order, a week before to three days after, the PH listing at 00:01 Pacific (08:01 in London
    // after both changed clocks), London's spring-forward (2026-03-29) between the teasers and the launch.
    expect(kit.steps.map((s) => s.id)).toEqual(kit.steps.map((_, i) => `step-${i + 1}`));
    expect(Math.min(...kit.steps.map((s) => s.day))).toBe(-7);
    expect(Math.max(...kit.steps.map((s) => s.day))).toBe(3);
    const live = kit.steps.find((s) => s.title === 'Product Hunt launch goes live')!;
    expect(live).toMatchObject({
      day: 0,
      date: '2026-03-31',
      time: '08:01',
      scheduledForUtc: '2026-03-31T07:01:00.000Z',
      kind: 'listing',
      channel: 'product_hunt',
      groupId: null,
    });
    // Default (b2b) X window starts 08:00: in GMT before the change, in BST after it.
    const teaser = kit.steps.find((s) => s.title === 'Teaser on X')!;
    expect(teaser).toMatchObject({
      day: -5,
      date: '2026-03-26',
      time: '08:00',
      scheduledForUtc: '2026-03-26T08:00:00.000Z',
    });
    const launchX = kit.steps.find((s) => s.title === 'Launch post on X')!;
    expect(launchX).toMatchObject({
      day: 0,
      date: '2026-03-31',
      time: '08:00',
      scheduledForUtc: '2026-03-31T07:00:00.000Z',
    });

    // Every post step was drafted into its own group, waiting for approval; nothing is scheduled.
    const postSteps = kit.steps.filter((s) => s.kind === 'post');
    expect(postSteps.map((s) => s.platform)).toEqual([
      'x',
      'linkedin',
      'x',
      'linkedin',
      'reddit',
      'x',
      'linkedin',
    ]);
    for (const s of postSteps) {
      expect(s).toMatchObject({ postStatus: 'pending_approval', done: false });
      expect(s.groupId).toMatch(/^[0-9a-f-]{36}$/);
      expect(s.postText).toBeTruthy();
    }
    expect(new Set(postSteps.map((s) => s.groupId)).size).toBe(postSteps.length);
    for (const s of kit.steps.filter((s) => s.kind !== 'post')) expect(s.groupId).toBeNull();
    const posts = await postsOf(ws);
    expect(posts).toHaveLength(postSteps.length);
    for (const p of posts) expect(p).toMatchObject({ status: 'pending_approval', scheduled_for_utc: null });
    const reddit = postSteps.find((s) => s.platform === 'reddit')!;
    expect(reddit.title).toBe('Share on r/SideProject');
    const group = await service.request(
      'GET',
      `/v1/orgs/${ws.orgId}/marketing/post-groups/${reddit.groupId}`,
      {
        token: ws.tokens.viewer,
      },
    );
    const { group: g, posts: gp } = await answer<{
      group: { status: string };
      posts: Array<{ platformPayload: { reddit: { subreddit: string; title: string } } }>;
    }>(group);
    expect(g.status).toBe('pending_approval');
    expect(gp[0]!.platformPayload.reddit.subreddit).toBe('r/SideProject');
    expect(gp[0]!.platformPayload.reddit.title).toContain('Shipday');

    // GET answers what POST answered (read your writes); the list shows it.
    expect(await answer<Kit>(await call(ws, 'GET', `/${kit.id}`, undefined, { role: 'viewer' }))).toEqual(
      kit,
    );
    const list = await answer<{ items: unknown[]; total: number; hasMore: boolean }>(
      await call(ws, 'GET', ''),
    );
    expect(list).toMatchObject({ total: 1, hasMore: false });
    expect(list.items).toEqual([
      {
        id: kit.id,
        productName: 'Shipday',
        launchDate: '2026-03-31',
        timezone: 'Europe/London',
        channels: kit.channels,
        createdAt: kit.createdAt,
        stepCount: kit.steps.length,
        doneCount: 0,
      },
    ]);
  });

  test('defaults: product_hunt, hacker_news, x and linkedin in UTC; the name from the workspace when none is given', async () => {
    const ws = await createTestWorkspace(service, 'Northwind');
    const { kit } = await create(ws, { pitch: 'Tea subscriptions for offices.', launchDate: '2026-12-08' });
    expect(kit.channels).toEqual(['product_hunt', 'hacker_news', 'x', 'linkedin']);
    expect(kit.timezone).toBe('UTC');
    expect(kit.productName).toBe('Northwind');
    expect(kit.url).toBeNull();
    expect(kit.steps.some((s) => s.channel === 'reddit')).toBe(false);
  });

  test('GET shows the posts as review leaves them; PATCH marks a step done and the list counts it', async () => {
    const ws = await createTestWorkspace(service);
    const { kit } = await create(ws, { pitch, launchDate: '2026-06-02', channels: ['x', 'linkedin'] });
    const [first, second] = kit.steps.filter((s) => s.kind === 'post');
    const approve = await service.request('POST', `${ws.base}/post-groups/${first!.groupId}/approve`, {
      token: ws.tokens.reviewer,
      body: { autoSchedule: false },
    });
    expect(approve.status, await approve.clone().text()).toBe(200);
    const reject = await service.request('POST', `${ws.base}/post-groups/${second!.groupId}/reject`, {
      token: ws.tokens.reviewer,
      body: { note: 'Not yet' },
    });
    expect(reject.status, await reject.clone().text()).toBe(200);
    const shown = await answer<Kit>(await call(ws, 'GET', `/${kit.id}`));
    const statusOf = (groupId: string | null) => shown.steps.find((s) => s.groupId === groupId)!.postStatus;
    expect(statusOf(first!.groupId)).toBe('approved');
    const rejected = await answer<{ group: { status: string } }>(
      await service.request('GET', `${ws.base}/post-groups/${second!.groupId}`, { token: ws.tokens.viewer }),
    );
    expect(rejected.group.status).not.toBe('pending_approval');
    expect(statusOf(second!.groupId)).toBe(rejected.group.status);

    const task = kit.steps.find((s) => s.kind === 'task')!;
    const marked = await answer<Kit>(
      await call(ws, 'PATCH', `/${kit.id}`, { stepId: task.id, done: true }, { role: 'editor' }),
    );
    expect(marked.steps.find((s) => s.id === task.id)!.done).toBe(true);
    expect(marked.steps.filter((s) => s.done)).toHaveLength(1);
    expect(marked.updatedAt >= kit.updatedAt).toBe(true);
    // The same mark again changes nothing.
    const before = await eventCount(service);
    await answer<Kit>(await call(ws, 'PATCH', `/${kit.id}`, { stepId: task.id, done: true }));
    expect(await eventCount(service)).toBe(before);
    const list = await answer<{ items: Array<{ doneCount: number; stepCount: number }> }>(
      await call(ws, 'GET', ''),
    );
    expect(list.items[0]).toMatchObject({ doneCount: 1, stepCount: kit.steps.length });
    const undone = await answer<Kit>(await call(ws, 'PATCH', `/${kit.id}`, { stepId: task.id, done: false }));
    expect(undone.steps.some((s) => s.done)).toBe(false);
  });

  test('the list is newest first and paged', async () => {
    const ws = await createTestWorkspace(service);
    const a = await create(ws, { pitch, launchDate: '2026-05-05', productName: 'First', channels: ['x'] });
    const b = await create(ws, { pitch, launchDate: '2026-05-06', productName: 'Second', channels: ['x'] });
    const page1 = await answer<{ items: Array<{ id: string }>; total: number; hasMore: boolean }>(
      await call(ws, 'GET', '?limit=1'),
    );
    expect(page1).toMatchObject({ total: 2, hasMore: true, page: 1, limit: 1 });
    expect(page1.items.map((i) => i.id)).toEqual([b.kit.id]);
    const page2 = await answer<{ items: Array<{ id: string }>; hasMore: boolean }>(
      await call(ws, 'GET', '?limit=1&page=2'),
    );
    expect(page2.items.map((i) => i.id)).toEqual([a.kit.id]);
    expect(page2.hasMore).toBe(false);
  });

  test('an Idempotency-Key replays the first answer without a second kit or second drafts', async () => {
    const ws = await createTestWorkspace(service);
    const headers = { 'Idempotency-Key': 'launch-once' };
    const body = { pitch, launchDate: '2026-09-15', channels: ['x', 'linkedin'] };
    const first = await call(ws, 'POST', '', body, { headers });
    expect(first.status).toBe(201);
    const firstKit = ((await first.json()) as { data: Created }).data;
    const before = await eventCount(service);
    const again = await call(ws, 'POST', '', body, { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(((await again.json()) as { data: Created }).data).toEqual(firstKit);
    expect(await eventCount(service)).toBe(before);
    expect((await postsOf(ws)).length).toBe(firstKit.kit.steps.filter((s) => s.kind === 'post').length);
  });
});

describe('refusals', () => {
  test('bad input is a 400 naming the field; nothing is appended or drafted', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    const cases: Array<[unknown, string]> = [
      [{ launchDate: '2026-05-05' }, 'body.pitch'],
      [{ pitch }, 'body.launchDate'],
      [{ pitch, launchDate: '2026-02-30' }, 'body.launchDate'],
      [{ pitch, launchDate: '05/05/2026' }, 'body.launchDate'],
      [{ pitch, launchDate: '2026-05-05', channels: ['myspace'] }, 'body.channels.0'],
      [{ pitch, launchDate: '2026-05-05', channels: [] }, 'body.channels'],
      [{ pitch, launchDate: '2026-05-05', url: 'not a url' }, 'body.url'],
      [{ pitch, launchDate: '2026-05-05', url: 'ftp://example.com/x' }, 'body.url'],
      [{ pitch, launchDate: '2026-05-05', channels: ['reddit'] }, 'body.subreddits'],
      [
        { pitch, launchDate: '2026-05-05', channels: ['reddit'], subreddits: ['no such sub!'] },
        'body.subreddits.0',
      ],
      [{ pitch, launchDate: '2026-05-05', subreddits: ['r/SideProject'] }, 'body.subreddits'],
    ];
    for (const [body, path] of cases) {
      const error = await refused(await call(ws, 'POST', '', body), 400);
      expect(error.error, JSON.stringify(body)).toEqual(expect.any(String));
      expect(
        error.details?.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const kit = (await create(ws, { pitch, launchDate: '2026-05-05', channels: ['x'] })).kit;
    const middle = await eventCount(service);
    const unknownStep = await refused(
      await call(ws, 'PATCH', `/${kit.id}`, { stepId: 'step-999', done: true }),
      404,
    );
    expect(unknownStep.details?.map((d) => d.path)).toEqual(['body.stepId']);
    await refused(await call(ws, 'PATCH', `/${kit.id}`, { stepId: 'step-1' }), 400);
    await refused(await call(ws, 'GET', '/00000000-0000-4000-8000-000000000000'), 404);
    await refused(
      await call(ws, 'PATCH', '/00000000-0000-4000-8000-000000000000', { stepId: 'step-1', done: true }),
      404,
    );
    expect(await eventCount(service)).toBe(middle);
    expect(middle).toBeGreaterThan(before);
  });

  test('roles: viewers and reviewers read but do not create or mark; another workspace does not see the kit', async () => {
    const ws = await createTestWorkspace(service);
    const other = await createTestWorkspace(service);
    const { kit } = await create(ws, { pitch, launchDate: '2026-05-05', channels: ['x'] });
    await refused(await call(ws, 'POST', '', { pitch, launchDate: '2026-05-05' }, { role: 'viewer' }), 403);
    await refused(
      await call(ws, 'PATCH', `/${kit.id}`, { stepId: 'step-1', done: true }, { role: 'reviewer' }),
      403,
    );
    await answer<Kit>(await call(ws, 'GET', `/${kit.id}`, undefined, { role: 'reviewer' }));
    await refused(await call(other, 'GET', `/${kit.id}`), 404);
    await refused(await call(other, 'PATCH', `/${kit.id}`, { stepId: 'step-1', done: true }), 404);
  });
});

describe('tools', () => {
  test('create_launch_kit, list_launch_kits, get_launch_kit and update_launch_step answer as the routes do', async () => {
    const ws = await createTestWorkspace(service);
    const reader = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: [],
    });
    const readNames = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(readNames).toEqual(expect.arrayContaining(['list_launch_kits', 'get_launch_kit']));
    expect(readNames).not.toContain('create_launch_kit');
    expect(readNames).not.toContain('update_launch_step');

    const writer = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const created = (await writer.client.callTool({
      name: 'create_launch_kit',
      arguments: { pitch, launchDate: '2026-10-06', channels: ['x', 'product_hunt'] },
    })) as CallToolResult;
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const { kit } = created.structuredContent as unknown as Created;
    expect((created.content[0] as { text: string }).text).toMatch(/wait for approval/);
    // An assistant's drafts wait for a person like everyone's.
    for (const p of await postsOf(ws))
      expect(p).toMatchObject({ status: 'pending_approval', scheduled_for_utc: null });

    const listed = (await reader.client.callTool({
      name: 'list_launch_kits',
      arguments: {},
    })) as CallToolResult;
    expect(listed.structuredContent).toEqual(await answer(await call(ws, 'GET', '')));
    const got = (await reader.client.callTool({
      name: 'get_launch_kit',
      arguments: { kitId: kit.id },
    })) as CallToolResult;
    expect(got.structuredContent).toEqual(await answer(await call(ws, 'GET', `/${kit.id}`)));

    const marked = (await writer.client.callTool({
      name: 'update_launch_step',
      arguments: { kitId: kit.id, stepId: 'step-1', done: true },
    })) as CallToolResult;
    expect(marked.isError).toBeFalsy();
    expect((marked.structuredContent as unknown as Kit).steps[0]!.done).toBe(true);
    expect((marked.content[0] as { text: string }).text).toMatch(/1 of \d+ steps done/);
    const unknown = (await writer.client.callTool({
      name: 'update_launch_step',
      arguments: { kitId: kit.id, stepId: 'nope', done: true },
    })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain('arguments.stepId');
  });
});
