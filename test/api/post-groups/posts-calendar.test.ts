// GET ORG/marketing/scheduler/events (the calendar) through the whole service: the list-posts query, a plain
// array in `data`, only posts that have a time, ordered by scheduledForUtc ascending unless asked otherwise.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventCount, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  client,
  connectAccount,
  ids,
  seedWorkspace,
  startHeldService,
  sortedIds,
  sortIds,
  type Client,
  type ErrorBody,
  type PostBody,
  type Seeded,
  type SeededPost,
} from './posts-helpers.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let api: Client;
let seeded: Seeded;
/** The seeded posts that have a time: the calendar's whole content. */
let timed: SeededPost[];
let otherTimedIds: string[];

beforeAll(async () => {
  // The seed keeps one post in `publishing`, so nothing may pick it up.
  service = await startHeldService();
  [ws, other] = await Promise.all([createTestWorkspace(service), createTestWorkspace(service, 'Other')]);
  api = client(service, ws);
  seeded = await seedWorkspace(service, api);
  timed = seeded.posts.filter((p) => p.scheduledForUtc !== null);

  // The same X account on the platform, connected to the other workspace (its own account id there).
  const otherApi = client(service, other);
  const theirAccount = await connectAccount(service, other, 'x', 'seed_x_one');
  const theirs = await otherApi.createGroup([
    { platform: 'x', contentText: 'Theirs on X', socialAccountId: theirAccount },
  ]);
  await otherApi.approve(theirs.group.id, { scheduledForUtc: seeded.times.t1 });
  otherTimedIds = ids(theirs.posts);
});
afterAll(async () => service.stop());

describe('the calendar', () => {
  test('data is a plain array of the posts that have a time, by scheduledForUtc ascending', async () => {
    const res = await api.events();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: unknown };
    expect(Array.isArray(body.data)).toBe(true);
    const items = body.data as PostBody[];
    // Drafts with a planned time, scheduled, publishing and canceled posts with a time; never a post without one.
    expect(sortIds(items)).toEqual(sortIds(timed));
    expect(new Set(items.map((p) => p.status))).toEqual(
      new Set(['draft', 'scheduled', 'publishing', 'canceled']),
    );
    expect(items.every((p) => p.scheduledForUtc !== null)).toBe(true);
    expect(ids(items)).toEqual(sortedIds(timed, 'scheduledForUtc', 'asc'));
    expect(timed.length).toBeLessThan(seeded.posts.length);
  });

  test('each item is the post as list posts shows it', async () => {
    const items = await api.eventsListed();
    const listed = (await api.listed('limit=100')).items;
    for (const item of items) expect(item).toEqual(listed.find((p) => p.id === item.id));
  });

  test('another workspace never shows, even with filters it would match; every role may read', async () => {
    for (const query of ['', `filter[socialAccountId]=${seeded.accounts.a1}`, 'filter[platform]=x']) {
      const items = await api.eventsListed(query);
      expect(items.filter((p) => otherTimedIds.includes(p.id) || p.orgId !== ws.orgId)).toEqual([]);
    }
    expect(ids(await client(service, other).eventsListed())).toEqual(otherTimedIds);
    for (const role of ['viewer', 'editor', 'reviewer'] as const) {
      expect(sortIds(await api.eventsListed('', ws.tokens[role]))).toEqual(sortIds(timed));
    }
  });

  test('no token is 401; a token of another workspace is 403', async () => {
    const before = await eventCount(service);
    expect((await service.request('GET', `${ws.base}/scheduler/events`)).status).toBe(401);
    expect((await api.events('', other.tokens.owner)).status).toBe(403);
    expect(await eventCount(service)).toBe(before);
  });
});

describe('the list-posts query applies', () => {
  const cases: Array<{ name: string; query: () => string; match: (p: SeededPost) => boolean }> = [
    {
      name: 'platform eq',
      query: () => 'filter[platform]=linkedin',
      match: (p) => p.platform === 'linkedin',
    },
    {
      name: 'platform in',
      query: () => 'filter[platform]=x,reddit&filterOp[platform]=in',
      match: (p) => ['x', 'reddit'].includes(p.platform),
    },
    { name: 'status eq', query: () => 'filter[status]=scheduled', match: (p) => p.status === 'scheduled' },
    {
      name: 'status in',
      query: () => 'filter[status]=draft,canceled&filterOp[status]=in',
      match: (p) => ['draft', 'canceled'].includes(p.status),
    },
    {
      name: 'status eq approved (approved posts without a time are not on the calendar)',
      query: () => 'filter[status]=approved',
      match: (p) => p.status === 'approved',
    },
    {
      name: 'socialAccountId eq',
      query: () => `filter[socialAccountId]=${seeded.accounts.a1}`,
      match: (p) => p.socialAccountId === seeded.accounts.a1,
    },
    {
      name: 'tagId eq',
      query: () => `filter[tagId]=${seeded.tags.launch}`,
      match: (p) => p.tagIds.includes(seeded.tags.launch),
    },
    {
      name: 'tagId in',
      query: () => `filter[tagId]=${seeded.tags.sales},${seeded.tags.doomed}&filterOp[tagId]=in`,
      match: (p) => p.tagIds.includes(seeded.tags.sales) || p.tagIds.includes(seeded.tags.doomed),
    },
    {
      name: 'scheduledFrom gte and scheduledTo lte (inclusive window)',
      query: () => `filter[scheduledFrom]=${seeded.times.t2}&filter[scheduledTo]=${seeded.times.t4}`,
      match: (p) => p.scheduledForUtc! >= seeded.times.t2 && p.scheduledForUtc! <= seeded.times.t4,
    },
    {
      name: 'scheduledTo lte alone',
      query: () => `filter[scheduledTo]=${seeded.times.t1}&filterOp[scheduledTo]=lte`,
      match: (p) => p.scheduledForUtc! <= seeded.times.t1,
    },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const expected = timed.filter(c.match);
      expect(ids(await api.eventsListed(c.query()))).toEqual(sortedIds(expected, 'scheduledForUtc', 'asc'));
    });
  }

  for (const by of ['scheduledForUtc', 'createdAt', 'status', 'platform'] as const) {
    for (const dir of ['asc', 'desc'] as const) {
      test(`sortBy=${by}&sortDir=${dir}`, async () => {
        expect(ids(await api.eventsListed(`sortBy=${by}&sortDir=${dir}`))).toEqual(sortedIds(timed, by, dir));
      });
    }
  }

  test('limit and page cut the ordered calendar', async () => {
    const order = sortedIds(timed, 'scheduledForUtc', 'asc');
    expect(ids(await api.eventsListed('limit=2'))).toEqual(order.slice(0, 2));
    expect(ids(await api.eventsListed('limit=2&page=2'))).toEqual(order.slice(2, 4));
    expect(await api.eventsListed('limit=2&page=99')).toEqual([]);
  });

  const bad: Array<[name: string, query: string, path: string]> = [
    ['an unknown filter field', 'filter[groupId]=x', 'query.filter[groupId]'],
    [
      'operator in on socialAccountId',
      `filter[socialAccountId]=${randomUUID()}&filterOp[socialAccountId]=in`,
      'query.filterOp[socialAccountId]',
    ],
    [
      'operator eq on scheduledFrom',
      'filter[scheduledFrom]=2030-01-01T00:00:00Z&filterOp[scheduledFrom]=eq',
      'query.filterOp[scheduledFrom]',
    ],
    ['status=bogus', 'filter[status]=bogus', 'query.filter[status]'],
    ['tagId not a uuid', 'filter[tagId]=launch', 'query.filter[tagId]'],
    ['scheduledTo not a timestamp', 'filter[scheduledTo]=next-week', 'query.filter[scheduledTo]'],
    ['an unknown sortBy', 'sortBy=title', 'query.sortBy'],
    ['limit 0', 'limit=0', 'query.limit'],
  ];
  for (const [name, query, path] of bad) {
    test(`400: ${name}`, async () => {
      const before = await eventCount(service);
      const res = await api.events(query);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).details?.map((d) => d.path)).toContain(path);
      expect(await eventCount(service)).toBe(before);
    });
  }
});

describe('the calendar follows writes at once', () => {
  test('a newly scheduled post shows at once; a deleted one disappears', async () => {
    const created = await api.createGroup([{ platform: 'linkedin', contentText: 'Late addition' }]);
    const postId = created.posts[0]!.id;
    expect(ids(await api.eventsListed())).not.toContain(postId);
    await api.approve(created.group.id, { scheduledForUtc: seeded.times.t1 });
    const withNew = await api.eventsListed(`filter[scheduledTo]=${seeded.times.t1}`);
    expect(ids(withNew)).toContain(postId);
    expect(withNew.find((p) => p.id === postId)).toMatchObject({
      status: 'scheduled',
      scheduledForUtc: seeded.times.t1,
    });
    expect((await api.del(postId)).status).toBe(200);
    expect(ids(await api.eventsListed())).toEqual(sortedIds(timed, 'scheduledForUtc', 'asc'));
  });
});
