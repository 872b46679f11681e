// GET ORG/marketing/analytics/performance and …/top-posts against a hand-computed fixture: posts published and read
// at chosen times around Berlin's change to summer time, one deleted on its platform, one scheduled ahead. Every
// number below was worked out by hand from the rules in docs/decisions.md ("Performance summary"); the answers are
// the same after the performance and post_groups read models are rebuilt from the log. Paging and limits, roles,
// other workspaces, and the tools through the assistant-tool server.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createHomeSlice } from '../../../api/home/slice.js';
import { createPerformanceSlice } from '../../../api/performance/slice.js';
import { slices } from '../../../api/slices.js';
import { roles } from '../../../domain/workspaces/roles.js';
import { rebuildProjection } from '../../../projections/engine/rebuild.js';
import { connectAssistant } from '../../support/assistant.js';
import { PublishedPosts, type FixtureGroup } from '../../support/published-posts.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

// Answers are read loosely: each test names the fields it checks, or compares whole answers.
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The fixture's "now": Friday 2 April 2027, 12:00 in Berlin (CEST, UTC+2 since Sunday 28 March 01:00 UTC). */
const now = new Date('2027-04-02T10:00:00.000Z');
const clock = () => now;

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
const posts: Record<string, { id: string; group: FixtureGroup; externalId?: string; url?: string }> = {};

beforeAll(async () => {
  service = await startTestService({
    // The fixture's clock for the summaries; no publishing sweep (a post scheduled before "now" stays scheduled).
    slices: slices.map((s) =>
      s.name === 'performance'
        ? createPerformanceSlice({ now: clock })
        : s.name === 'home'
          ? createHomeSlice({ now: clock })
          : s,
    ),
    publishing: { sweep: false, work: false },
  });
  ws = await createTestWorkspace(service);
  other = await createTestWorkspace(service, 'Other');
  const tz = await service.request('PATCH', `/v1/orgs/${ws.orgId}/timezone`, {
    token: ws.tokens.owner,
    body: { timezone: 'Europe/Berlin' },
  });
  expect(tz.status).toBe(200);

  const f = new PublishedPosts(service.runtime.commands, ws.orgId, ws.userIds.owner);
  const approvedAt = '2027-03-20T08:00:00.000Z';
  const publish = async (name: string, group: FixtureGroup, index: number, at: string) => {
    const id = group.postIds[index]!;
    posts[name] = { id, group, ...(await f.publish(group, id, at)) };
  };

  // P1 (x; launch, educational): published Saturday 27 March 23:30 CET, read at 00:30 CET on the 28th and on the 29th.
  const g1 = await f.approvedGroup({
    topic: 'launch',
    contentType: 'educational',
    posts: [{ platform: 'x', contentText: 'P1: we launch' }],
    at: approvedAt,
  });
  await publish('P1', g1, 0, '2027-03-27T22:30:00.000Z');
  const p1 = {
    groupId: g1.groupId,
    postId: posts.P1!.id,
    platform: 'x' as const,
    publishedAt: '2027-03-27T22:30:00.000Z',
  };
  await f.reading(
    p1,
    { likes: 10, reposts: 2, replies: 1, quotes: 0, bookmarks: 1, impressions: 500 },
    '2027-03-27T23:30:00.000Z',
  );
  await f.reading(
    p1,
    { likes: 30, reposts: 5, replies: 4, quotes: 1, bookmarks: 3, impressions: 2000 },
    '2027-03-29T12:00:00.000Z',
  );

  // P2 (linkedin; launch, no content type): published and read on Tuesday 30 March; LinkedIn gives no impressions.
  const g2 = await f.approvedGroup({
    topic: 'launch',
    posts: [{ platform: 'linkedin', contentText: 'P2: the launch, at length' }],
    at: approvedAt,
  });
  await publish('P2', g2, 0, '2027-03-30T08:00:00.000Z');
  await f.reading(
    {
      groupId: g2.groupId,
      postId: posts.P2!.id,
      platform: 'linkedin',
      publishedAt: '2027-03-30T08:00:00.000Z',
    },
    { likes: 8, reposts: 1, replies: 2, quotes: 0, bookmarks: null, impressions: null },
    '2027-03-30T09:00:00.000Z',
  );

  // P3 (x; hiring, story): published in the previous window, read then and again on the window's first day.
  const g3 = await f.approvedGroup({
    topic: 'hiring',
    contentType: 'story',
    posts: [{ platform: 'x', contentText: 'P3: we are hiring' }],
    at: approvedAt,
  });
  await publish('P3', g3, 0, '2027-03-22T10:00:00.000Z');
  const p3 = {
    groupId: g3.groupId,
    postId: posts.P3!.id,
    platform: 'x' as const,
    publishedAt: '2027-03-22T10:00:00.000Z',
  };
  await f.reading(p3, { likes: 4, bookmarks: 0, impressions: 100 }, '2027-03-22T11:00:00.000Z');
  await f.reading(
    p3,
    { likes: 9, reposts: 1, replies: 1, bookmarks: 0, impressions: 300 },
    '2027-03-27T10:00:00.000Z',
  );

  // P4 (bluesky; no topic, story): published Thursday 1 April 23:59 CEST, not read yet.
  const g4 = await f.approvedGroup({
    contentType: 'story',
    posts: [{ platform: 'bluesky', contentText: 'P4: a story' }],
    at: approvedAt,
  });
  await publish('P4', g4, 0, '2027-04-01T21:59:00.000Z');

  // P5 (x; launch, educational): published and read on Wednesday 31 March, deleted on X the next day.
  const g5 = await f.approvedGroup({
    topic: 'launch',
    contentType: 'educational',
    posts: [{ platform: 'x', contentText: 'P5: deleted later' }],
    at: approvedAt,
  });
  await publish('P5', g5, 0, '2027-03-31T10:00:00.000Z');
  await f.reading(
    { groupId: g5.groupId, postId: posts.P5!.id, platform: 'x', publishedAt: '2027-03-31T10:00:00.000Z' },
    { likes: 100, bookmarks: 0, impressions: 1000 },
    '2027-03-31T11:00:00.000Z',
  );
  await f.deleteOnPlatform(g5, posts.P5!.id, posts.P5!.externalId!, '2027-04-01T09:00:00.000Z');

  // P6 scheduled after "now"; P7 scheduled before it (not published: no sweep), so not ahead.
  const g6 = await f.approvedGroup({
    topic: 'launch',
    posts: [{ platform: 'x' }, { platform: 'linkedin' }],
    at: '2027-03-30T08:00:00.000Z',
  });
  await f.schedule(g6, g6.postIds[0]!, '2027-04-05T09:00:00.000Z', '2027-03-30T08:00:00.000Z');
  await f.schedule(g6, g6.postIds[1]!, '2027-04-01T09:00:00.000Z', '2027-03-30T08:00:00.000Z');
});
afterAll(async () => service.stop());

/** One field of every entry of a list in an answer. */
const field = (list: unknown, key: string): unknown[] =>
  (list as Loose[]).map((entry) => entry[key] as unknown);

const base = () => `/v1/orgs/${ws.orgId}/marketing/analytics`;

async function get(path: string, token = ws.tokens.owner): Promise<{ status: number; body: Loose }> {
  const res = await service.request('GET', path, { token });
  return { status: res.status, body: (await res.json()) as Loose };
}

async function data(path: string): Promise<Loose> {
  const { status, body } = await get(path);
  if (status !== 200) throw new Error(`GET ${path}: ${status} ${JSON.stringify(body)}`);
  return body.data as Loose;
}

/** The hand-computed answer for days=7 (window 27 March – 2 April in Berlin, previous 20–26 March). */
function expectedWeek(): Loose {
  const p1 = posts.P1!;
  const p2 = posts.P2!;
  return {
    windowDays: 7,
    generatedAt: '2027-04-02T10:00:00.000Z',
    summary: {
      // P1, P2, P4 (P5 was deleted on its platform).
      postsPublished: 3,
      postsScheduledUpcoming: 1,
      // P3 +200, P1 +500 and +1500, P5 +1000; P2 has no impression count.
      impressions: 3200,
      // P3 11−4, P1 14 then 43−14, P2 11, P5 100 (what was read before the deletion stays).
      engagements: 161,
      // (7 + 14 + 29 + 100) / 3200 = 0.046875: P2's 11 has no impressions to go with.
      engagementRate: 0.0469,
      // 27 March, 30 March, 1 April: 3 days in 7 is 3 a week.
      publishingActiveDays: 3,
      consistencyLabel: 'strong',
    },
    previousWindow: { postsPublished: 1, impressions: 100, engagements: 4 },
    trends: [
      { date: '2027-03-27', postsPublished: 1, impressions: 200, engagements: 7 },
      { date: '2027-03-28', postsPublished: 0, impressions: 500, engagements: 14 },
      { date: '2027-03-29', postsPublished: 0, impressions: 1500, engagements: 29 },
      { date: '2027-03-30', postsPublished: 1, impressions: null, engagements: 11 },
      { date: '2027-03-31', postsPublished: 0, impressions: 1000, engagements: 100 },
      { date: '2027-04-01', postsPublished: 1, impressions: null, engagements: 0 },
      { date: '2027-04-02', postsPublished: 0, impressions: null, engagements: 0 },
    ],
    topPosts: [
      {
        postId: p1.id,
        platform: 'x',
        publishedExternalId: p1.externalId,
        publishedUrl: p1.url,
        contentText: 'P1: we launch',
        publishedAt: '2027-03-27T22:30:00.000Z',
        likes: 30,
        reposts: 5,
        replies: 4,
        quotes: 1,
        bookmarks: 3,
        impressions: 2000,
        // 30 + 3 + 2 × 5 + 3 × 4 + 3 × 1
        engagementScore: 58,
        topic: 'launch',
        contentType: 'educational',
      },
      {
        postId: p2.id,
        platform: 'linkedin',
        publishedExternalId: p2.externalId,
        publishedUrl: p2.url,
        contentText: 'P2: the launch, at length',
        publishedAt: '2027-03-30T08:00:00.000Z',
        likes: 8,
        reposts: 1,
        replies: 2,
        quotes: 0,
        bookmarks: null,
        impressions: null,
        engagementScore: 16,
        topic: 'launch',
        contentType: null,
      },
    ],
    // The window's published posts by their group's topic, with their latest numbers: P1 43 + P2 11.
    topTopics: [{ topic: 'launch', postsPublished: 2, engagements: 54, impressions: 2000 }],
    topContentTypes: [
      { contentType: 'educational', postsPublished: 1, engagements: 43 },
      { contentType: 'story', postsPublished: 1, engagements: 0 },
    ],
    platforms: [
      { platform: 'x', postsPublished: 1, impressions: 3200, engagements: 150 },
      { platform: 'linkedin', postsPublished: 1, impressions: null, engagements: 11 },
      { platform: 'bluesky', postsPublished: 1, impressions: null, engagements: 0 },
    ],
    audience: { available: false, note: expect.any(String), accounts: [] },
  };
}

describe('GET …/analytics/performance', () => {
  test('the week matches the hand-computed fixture', async () => {
    expect(await data(`${base()}/performance?days=7`)).toEqual(expectedWeek());
  });

  test('30 days (the default): P3 joins the window, topLimit cuts every list', async () => {
    const month = await data(`${base()}/performance`);
    expect(month.windowDays).toBe(30);
    expect(month.trends).toHaveLength(30);
    expect(month.trends[0].date).toBe('2027-03-04');
    expect(month.summary).toMatchObject({ postsPublished: 4, engagements: 165, impressions: 3300 });
    expect(month.previousWindow).toEqual({ postsPublished: 0, impressions: null, engagements: 0 });
    // 4 days with a post in 30: fewer than one a week.
    expect(month.summary.consistencyLabel).toBe('sparse');
    expect(month.topContentTypes).toEqual([
      { contentType: 'educational', postsPublished: 1, engagements: 43 },
      { contentType: 'story', postsPublished: 2, engagements: 11 },
    ]);
    expect(field(month.topPosts, 'postId')).toEqual([posts.P1!.id, posts.P2!.id, posts.P3!.id]);
    expect(month.topTopics).toEqual([
      { topic: 'launch', postsPublished: 2, engagements: 54, impressions: 2000 },
      { topic: 'hiring', postsPublished: 1, engagements: 11, impressions: 300 },
    ]);
    const one = await data(`${base()}/performance?topLimit=1`);
    expect(field(one.topPosts, 'postId')).toEqual([posts.P1!.id]);
    expect(field(one.topTopics, 'topic')).toEqual(['launch']);
    expect(field(one.topContentTypes, 'contentType')).toEqual(['educational']);
  });

  test('one day: today only; no post, nothing read: consistency none', async () => {
    const day = await data(`${base()}/performance?days=1`);
    expect(day.trends).toEqual([
      { date: '2027-04-02', postsPublished: 0, impressions: null, engagements: 0 },
    ]);
    expect(day.summary).toMatchObject({ postsPublished: 0, engagementRate: null, consistencyLabel: 'none' });
    // Yesterday: P4.
    expect(day.previousWindow).toEqual({ postsPublished: 1, impressions: null, engagements: 0 });
  });

  test.each([
    ['days=0', 'query.days'],
    ['days=366', 'query.days'],
    ['days=1.5', 'query.days'],
    ['days=abc', 'query.days'],
    ['topLimit=0', 'query.topLimit'],
    ['topLimit=51', 'query.topLimit'],
    ['since=2027-01-01', 'query.since'],
  ])('400 for ?%s naming %s, in the spec error shape', async (query, path) => {
    const before = await eventCount(service);
    const { status, body } = await get(`${base()}/performance?${query}`);
    expect(status).toBe(400);
    expect(body.error).toEqual(expect.any(String));
    expect(field(body.details, 'path')).toContain(path);
    expect(await eventCount(service)).toBe(before);
  });
});

describe('GET …/analytics/top-posts', () => {
  const item = (name: string, numbers: Loose) => ({
    postId: posts[name]!.id,
    publishedExternalId: posts[name]!.externalId,
    publishedUrl: posts[name]!.url,
    contentText: expect.stringMatching(new RegExp(`^${name}:`)),
    scheduledForUtc: null,
    ...numbers,
  });

  test('ranked by engagement score over the last 30 days, 10 a page by default', async () => {
    expect(await data(`${base()}/top-posts`)).toEqual({
      items: [
        item('P1', {
          likes: 30,
          reposts: 5,
          replies: 4,
          quotes: 1,
          bookmarks: 3,
          impressions: 2000,
          engagementScore: 58,
          fetchedAt: '2027-03-29T12:00:00.000Z',
        }),
        item('P2', {
          likes: 8,
          reposts: 1,
          replies: 2,
          quotes: 0,
          bookmarks: null,
          impressions: null,
          engagementScore: 16,
          fetchedAt: '2027-03-30T09:00:00.000Z',
        }),
        item('P3', {
          likes: 9,
          reposts: 1,
          replies: 1,
          quotes: 0,
          bookmarks: 0,
          impressions: 300,
          engagementScore: 14,
          fetchedAt: '2027-03-27T10:00:00.000Z',
        }),
      ],
      page: 1,
      limit: 10,
      total: 3,
      hasMore: false,
    });
  });

  test('pages, a page past the end, and the window', async () => {
    const first = await data(`${base()}/top-posts?limit=2`);
    expect(first).toMatchObject({ page: 1, limit: 2, total: 3, hasMore: true });
    expect(field(first.items, 'postId')).toEqual([posts.P1!.id, posts.P2!.id]);
    const second = await data(`${base()}/top-posts?limit=2&page=2`);
    expect(second).toMatchObject({ page: 2, limit: 2, total: 3, hasMore: false });
    expect(field(second.items, 'postId')).toEqual([posts.P3!.id]);
    expect(await data(`${base()}/top-posts?page=9`)).toEqual({
      items: [],
      page: 9,
      limit: 10,
      total: 3,
      hasMore: false,
    });
    const week = await data(`${base()}/top-posts?days=7&limit=50`);
    expect(field(week.items, 'postId')).toEqual([posts.P1!.id, posts.P2!.id]);
  });

  test.each([
    ['limit=0', 'query.limit'],
    ['limit=51', 'query.limit'],
    ['limit=ten', 'query.limit'],
    ['page=0', 'query.page'],
    ['days=0', 'query.days'],
    ['days=400', 'query.days'],
    ['sortBy=likes', 'query.sortBy'],
  ])('400 for ?%s naming %s', async (query, path) => {
    const { status, body } = await get(`${base()}/top-posts?${query}`);
    expect(status).toBe(400);
    expect(body.error).toEqual(expect.any(String));
    expect(field(body.details, 'path')).toContain(path);
  });
});

describe('access', () => {
  test('every role reads both; the answers are the same for all', async () => {
    const owner = await get(`${base()}/performance?days=7`);
    for (const role of roles) {
      const summary = await get(`${base()}/performance?days=7`, ws.tokens[role]);
      expect(summary.status).toBe(200);
      expect(summary.body).toEqual(owner.body);
      expect((await get(`${base()}/top-posts`, ws.tokens[role])).status).toBe(200);
    }
  });

  test('another workspace is refused (403); no token is 401', async () => {
    for (const path of ['performance', 'top-posts']) {
      expect((await get(`${base()}/${path}`, other.tokens.owner)).status).toBe(403);
      const res = await service.request('GET', `${base()}/${path}`);
      expect(res.status).toBe(401);
    }
  });

  test("another workspace's own summary shows none of this one's posts", async () => {
    const theirs = await get(`/v1/orgs/${other.orgId}/marketing/analytics/performance`, other.tokens.viewer);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.summary).toMatchObject({
      postsPublished: 0,
      engagements: 0,
      postsScheduledUpcoming: 0,
    });
    expect(theirs.body.data.topPosts).toEqual([]);
  });
});

describe('the tools', () => {
  test('get_performance_summary and list_top_posts answer what the routes answer (mcp:read)', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: [],
    });
    try {
      const { tools } = await assistant.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['get_performance_summary', 'list_top_posts']),
      );
      const summary = (await assistant.client.callTool({
        name: 'get_performance_summary',
        arguments: { days: 7 },
      })) as CallToolResult;
      expect(summary.isError).toBeFalsy();
      expect(summary.structuredContent).toEqual(await data(`${base()}/performance?days=7`));
      expect(summary.content).toEqual([
        {
          type: 'text',
          text:
            '7 days: 3 posts published (1 before), 161 engagements (4 before), 3200 impressions; ' +
            'consistency strong; 1 scheduled ahead.',
        },
      ]);
      const top = (await assistant.client.callTool({
        name: 'list_top_posts',
        arguments: { limit: 2, page: 2 },
      })) as CallToolResult;
      expect(top.structuredContent).toEqual(await data(`${base()}/top-posts?limit=2&page=2`));
      const bad = (await assistant.client.callTool({
        name: 'list_top_posts',
        arguments: { limit: 51 },
      })) as CallToolResult;
      expect(bad.isError).toBe(true);
    } finally {
      await assistant.client.close();
    }
  });
});

describe('projection rebuilds', () => {
  const queries = () => [
    `${base()}/performance?days=7`,
    `${base()}/performance`,
    `${base()}/performance?days=365&topLimit=50`,
    `${base()}/top-posts?limit=50`,
    `${base()}/top-posts?days=7&limit=1&page=2`,
  ];

  test('the same numbers after performance and post_groups are rebuilt from the log', async () => {
    const before = await Promise.all(queries().map(data));
    expect(before[0]).toEqual(expectedWeek());
    const { runtime } = service;
    const deps = {
      db: runtime.database.db,
      eventStore: runtime.eventStore,
      projections: runtime.projections,
      logger: runtime.logger,
    };
    await rebuildProjection(deps, 'performance');
    expect(await Promise.all(queries().map(data))).toEqual(before);
    await rebuildProjection(deps, 'post_groups');
    expect(await Promise.all(queries().map(data))).toEqual(before);
  });

  test('a topic changed after publishing moves the posts to it (read-your-writes)', async () => {
    const res = await service.request(
      'PATCH',
      `/v1/orgs/${ws.orgId}/marketing/post-groups/${posts.P3!.group.groupId}`,
      {
        token: ws.tokens.owner,
        body: { topic: 'people' },
      },
    );
    expect(res.status).toBe(200);
    const month = await data(`${base()}/performance`);
    expect(field(month.topTopics, 'topic')).toEqual(['launch', 'people']);
  });
});

describe('a change of time zone', () => {
  test("the days follow the workspace's new zone at once; the totals stay", async () => {
    const res = await service.request('PATCH', `/v1/orgs/${ws.orgId}/timezone`, {
      token: ws.tokens.owner,
      body: { timezone: 'UTC' },
    });
    expect(res.status).toBe(200);
    const week = await data(`${base()}/performance?days=7`);
    // P1's first reading (23:30 UTC on the 27th) was 00:30 on the 28th in Berlin: now on the 27th.
    expect((week.trends as Loose[]).slice(0, 2)).toEqual([
      { date: '2027-03-27', postsPublished: 1, impressions: 700, engagements: 21 },
      { date: '2027-03-28', postsPublished: 0, impressions: null, engagements: 0 },
    ]);
    expect(week.summary).toMatchObject({ postsPublished: 3, engagements: 161, impressions: 3200 });
    // Rebuilt from the log (the zone set, days counted in Berlin, then summed again in UTC): the same answer.
    const { runtime } = service;
    await rebuildProjection(
      {
        db: runtime.database.db,
        eventStore: runtime.eventStore,
        projections: runtime.projections,
        logger: runtime.logger,
      },
      'performance',
    );
    expect(await data(`${base()}/performance?days=7`)).toEqual(week);
  });
});
