// GET ORG/marketing/posts through the whole service: every filter and operator of the spec, every sort, paging
// (default 25, maximum 100, total over all pages, hasMore), the 400s for bad queries, workspace isolation, roles
// and tags (a deleted tag, or one taken off a group, stops matching).
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
let api: Client;
let seeded: Seeded;
let other: TestWorkspace;
let otherApi: Client;
let otherPostIds: string[];
let otherTag: string;
/** A third workspace holding 30 posts, for paging. */
let paging: Client;
let pagingIds: string[];

beforeAll(async () => {
  // The seed keeps one post in `publishing`, so nothing may pick it up.
  service = await startHeldService();
  [ws, other] = await Promise.all([createTestWorkspace(service), createTestWorkspace(service, 'Other')]);
  api = client(service, ws);
  otherApi = client(service, other);
  seeded = await seedWorkspace(service, api);

  // The other workspace: posts that would match most filters used here (the same platform accounts, platform
  // x, times). Its posts name its own connections of those accounts: naming ours would be a 400.
  otherTag = await otherApi.createTag('Launch');
  const theirs = await otherApi.createGroup(
    [
      {
        platform: 'x',
        contentText: 'Theirs on X',
        socialAccountId: await connectAccount(service, other, 'x', 'seed_x_one'),
      },
      {
        platform: 'linkedin',
        contentText: 'Theirs on LinkedIn',
        socialAccountId: await connectAccount(service, other, 'linkedin'),
      },
    ],
    { tagIds: [otherTag] },
  );
  await otherApi.approve(theirs.group.id, { scheduledForUtc: seeded.times.t2 });
  const theirDraft = await otherApi.createDraft([{ platform: 'facebook', contentText: 'Theirs pending' }]);
  otherPostIds = [...ids(theirs.posts), ...ids(theirDraft.posts)];

  const pagingWs = await createTestWorkspace(service, 'Paging');
  paging = client(service, pagingWs);
  pagingIds = [];
  // One X account per post (a group takes one post per platform and account; a filter by account finds one).
  const pagingAccounts: string[] = [];
  for (let i = 0; i < 30; i++)
    pagingAccounts.push(await connectAccount(service, pagingWs, 'x', `paging_${i}`));
  for (const batch of [0, 1]) {
    const created = await paging.createGroup(
      Array.from({ length: 15 }, (_, i) => ({
        platform: 'x',
        contentText: `Post ${batch}-${i}`,
        socialAccountId: pagingAccounts[batch * 15 + i]!,
      })),
    );
    pagingIds.push(...ids(created.posts));
  }
});
afterAll(async () => service.stop());

const all = (query = '') => api.listed(query ? `${query}&limit=100` : 'limit=100');

describe('the list', () => {
  test('lists every post of the workspace with the spec fields, newest first by default', async () => {
    const page = await api.listed();
    expect(page).toMatchObject({ page: 1, limit: 25, total: 11, hasMore: false });
    expect(sortIds(page.items)).toEqual(sortIds(seeded.posts));
    expect(ids(page.items)).toEqual(sortedIds(seeded.posts, 'createdAt', 'desc'));
    for (const item of page.items) {
      const expected = seeded.posts.find((p) => p.id === item.id)!;
      expect(item).toEqual({
        id: expected.id,
        orgId: ws.orgId,
        groupId: expected.groupId,
        platform: expected.platform,
        socialAccountId: expected.socialAccountId,
        status: expected.status,
        scheduledForUtc: expected.scheduledForUtc,
        contentText: expect.any(String),
        media: null,
        platformPayload: expected.platform === 'reddit' ? expect.any(Object) : null,
        publishedExternalId: null,
        publishedUrl: null,
        attemptCount: 0,
        lastAttemptAt: null,
        nextRetryAt: null,
        lastError: null,
        idempotencyKey: expected.status === 'publishing' ? expect.any(String) : null,
        createdAt: expected.createdAt,
        updatedAt: expect.any(String),
        // The reason a time was chosen stays with a post that was scheduled (also once publishing or canceled).
        scheduleReason:
          expected.scheduledForUtc !== null && expected.status !== 'draft' ? expect.any(String) : null,
        approvals: expect.any(Array),
      });
    }
  });

  test('posts of another workspace never appear, whatever the filter', async () => {
    for (const query of [
      '',
      `filter[socialAccountId]=${seeded.accounts.a1}`,
      'filter[platform]=x,linkedin,facebook&filterOp[platform]=in',
      'filter[status]=scheduled',
      `filter[scheduledFrom]=${seeded.times.t2}&filter[scheduledTo]=${seeded.times.t2}`,
    ]) {
      const page = await all(query);
      expect(page.items.filter((p) => otherPostIds.includes(p.id) || p.orgId !== ws.orgId)).toEqual([]);
    }
    // Another workspace's tag matches nothing here (and is no error).
    expect(await all(`filter[tagId]=${otherTag}`)).toMatchObject({ items: [], total: 0, hasMore: false });
    // And the other workspace sees its own posts only.
    const theirs = await otherApi.listed('limit=100');
    expect(sortIds(theirs.items)).toEqual([...otherPostIds].sort());
    expect(theirs.total).toBe(3);
  });

  test('every role of the workspace may list (viewer, editor, reviewer, admin)', async () => {
    for (const role of ['viewer', 'editor', 'reviewer', 'admin'] as const) {
      const page = await api.listed('limit=100', ws.tokens[role]);
      expect(page.total).toBe(11);
      expect(sortIds(page.items)).toEqual(sortIds(seeded.posts));
    }
  });

  test('no token is 401; a token of another workspace or without a workspace is 403', async () => {
    const unscoped = await service.userToken();
    const before = await eventCount(service);
    const none = await service.request('GET', `${ws.base}/posts`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const bad = await api.list('', 'not-a-real-token');
    expect(bad.status).toBe(401);
    const foreign = await api.list('', other.tokens.owner);
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as ErrorBody).error).toEqual(expect.any(String));
    expect((await api.list('', unscoped.token)).status).toBe(403);
    expect(await eventCount(service)).toBe(before);
  });
});

describe('filters: each operator of the spec', () => {
  const cases: Array<{ name: string; query: () => string; match: (p: SeededPost) => boolean }> = [
    {
      name: 'platform eq (default operator)',
      query: () => 'filter[platform]=x',
      match: (p) => p.platform === 'x',
    },
    {
      name: 'platform eq (explicit)',
      query: () => 'filter[platform]=linkedin&filterOp[platform]=eq',
      match: (p) => p.platform === 'linkedin',
    },
    {
      name: 'platform in',
      query: () => 'filter[platform]=x,facebook&filterOp[platform]=in',
      match: (p) => p.platform === 'x' || p.platform === 'facebook',
    },
    {
      name: 'platform eq with no post on that platform',
      query: () => 'filter[platform]=youtube',
      match: () => false,
    },
    { name: 'status eq', query: () => 'filter[status]=scheduled', match: (p) => p.status === 'scheduled' },
    {
      name: 'status eq publishing',
      query: () => 'filter[status]=publishing&filterOp[status]=eq',
      match: (p) => p.status === 'publishing',
    },
    {
      name: 'status eq canceled',
      query: () => 'filter[status]=canceled',
      match: (p) => p.status === 'canceled',
    },
    {
      name: 'status in',
      query: () => 'filter[status]=draft,pending_approval,approved&filterOp[status]=in',
      match: (p) => ['draft', 'pending_approval', 'approved'].includes(p.status),
    },
    {
      name: 'socialAccountId eq',
      query: () => `filter[socialAccountId]=${seeded.accounts.a1}`,
      match: (p) => p.socialAccountId === seeded.accounts.a1,
    },
    {
      name: 'socialAccountId eq (explicit, second account)',
      query: () => `filter[socialAccountId]=${seeded.accounts.a2}&filterOp[socialAccountId]=eq`,
      match: (p) => p.socialAccountId === seeded.accounts.a2,
    },
    {
      name: 'tagId eq',
      query: () => `filter[tagId]=${seeded.tags.launch}`,
      match: (p) => p.tagIds.includes(seeded.tags.launch),
    },
    {
      name: 'tagId eq, a tag put on the group by PATCH after creation',
      query: () => `filter[tagId]=${seeded.tags.sales}&filterOp[tagId]=eq`,
      match: (p) => p.tagIds.includes(seeded.tags.sales),
    },
    {
      name: 'tagId in (a post with both tags is listed once)',
      query: () => `filter[tagId]=${seeded.tags.launch},${seeded.tags.doomed}&filterOp[tagId]=in`,
      match: (p) => p.tagIds.includes(seeded.tags.launch) || p.tagIds.includes(seeded.tags.doomed),
    },
    {
      name: 'tagId eq, an id that is no tag',
      query: () => `filter[tagId]=${randomUUID()}`,
      match: () => false,
    },
    {
      name: 'scheduledFrom gte (inclusive; posts without a time are left out)',
      query: () => `filter[scheduledFrom]=${seeded.times.t2}`,
      match: (p) => p.scheduledForUtc !== null && p.scheduledForUtc >= seeded.times.t2,
    },
    {
      name: 'scheduledTo lte (inclusive)',
      query: () => `filter[scheduledTo]=${seeded.times.t2}&filterOp[scheduledTo]=lte`,
      match: (p) => p.scheduledForUtc !== null && p.scheduledForUtc <= seeded.times.t2,
    },
    {
      name: 'scheduledFrom and scheduledTo together (a window)',
      query: () =>
        `filter[scheduledFrom]=${seeded.times.t2}&filterOp[scheduledFrom]=gte&filter[scheduledTo]=${seeded.times.t3}`,
      match: (p) =>
        p.scheduledForUtc !== null &&
        p.scheduledForUtc >= seeded.times.t2 &&
        p.scheduledForUtc <= seeded.times.t3,
    },
    {
      name: 'scheduledFrom given with an offset means the same instant',
      query: () => {
        const t2 = new Date(seeded.times.t2);
        const local = new Date(t2.getTime() + 2 * 3_600_000).toISOString().replace('.000Z', '+02:00');
        return `filter[scheduledFrom]=${encodeURIComponent(local)}`;
      },
      match: (p) => p.scheduledForUtc !== null && p.scheduledForUtc >= seeded.times.t2,
    },
    {
      name: 'several filters combine with AND',
      query: () => `filter[platform]=linkedin&filter[status]=scheduled&filter[tagId]=${seeded.tags.launch}`,
      match: (p) =>
        p.platform === 'linkedin' && p.status === 'scheduled' && p.tagIds.includes(seeded.tags.launch),
    },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const expected = seeded.posts.filter(c.match);
      const page = await all(c.query());
      expect(sortIds(page.items)).toEqual(sortIds(expected));
      expect(page.total).toBe(expected.length);
      expect(page.hasMore).toBe(false);
      // Filtered lists keep the default order.
      expect(ids(page.items)).toEqual(sortedIds(expected, 'createdAt', 'desc'));
    });
  }

  test('the cases above are not vacuous: each matches some posts and leaves out others', () => {
    for (const c of cases.filter((c) => !/no post|no tag/.test(c.name))) {
      const n = seeded.posts.filter(c.match).length;
      expect(n, c.name).toBeGreaterThan(0);
      expect(n, c.name).toBeLessThan(seeded.posts.length);
    }
  });
});

describe('sorting', () => {
  for (const by of ['scheduledForUtc', 'createdAt', 'status', 'platform'] as const) {
    for (const dir of ['asc', 'desc'] as const) {
      test(`sortBy=${by}&sortDir=${dir}`, async () => {
        const page = await all(`sortBy=${by}&sortDir=${dir}`);
        expect(ids(page.items)).toEqual(sortedIds(seeded.posts, by, dir));
        const keys = page.items.map((p: PostBody) => p[by]);
        const present = keys.filter((k): k is string => k !== null);
        const ordered = [...present].sort();
        expect(present).toEqual(dir === 'asc' ? ordered : ordered.reverse());
      });
    }
  }

  test('pages of a sort follow on from each other, without overlap or gap', async () => {
    const walked: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const p = await api.listed(`sortBy=scheduledForUtc&sortDir=asc&limit=4&page=${page}`);
      expect(p.total).toBe(11);
      expect(p.hasMore).toBe(page < 3);
      walked.push(...ids(p.items));
    }
    expect(walked).toEqual(sortedIds(seeded.posts, 'scheduledForUtc', 'asc'));
  });

  test('sorting applies to a filtered list', async () => {
    const page = await all('filter[status]=scheduled&sortBy=scheduledForUtc&sortDir=desc');
    const scheduled = seeded.posts.filter((p) => p.status === 'scheduled');
    expect(ids(page.items)).toEqual(sortedIds(scheduled, 'scheduledForUtc', 'desc'));
  });
});

describe('paging', () => {
  test('the default page size is 25; total counts every post; hasMore says another page follows', async () => {
    const first = await paging.listed();
    expect(first.items).toHaveLength(25);
    expect(first).toMatchObject({ page: 1, limit: 25, total: 30, hasMore: true });
    const second = await paging.listed('page=2');
    expect(second.items).toHaveLength(5);
    expect(second).toMatchObject({ page: 2, limit: 25, total: 30, hasMore: false });
    const walked = [...ids(first.items), ...ids(second.items)];
    expect(new Set(walked).size).toBe(30);
    expect([...walked].sort()).toEqual([...pagingIds].sort());
  });

  test('limit 100 (the maximum) gives all 30; a page that ends exactly at the end has no more', async () => {
    const page = await paging.listed('limit=100');
    expect(page.items).toHaveLength(30);
    expect(page).toMatchObject({ page: 1, limit: 100, total: 30, hasMore: false });
    const third = await paging.listed('limit=10&page=3');
    expect(third.items).toHaveLength(10);
    expect(third).toMatchObject({ page: 3, limit: 10, total: 30, hasMore: false });
    const second = await paging.listed('limit=10&page=2');
    expect(second.hasMore).toBe(true);
  });

  test('a page beyond the end is empty, with the total and hasMore false', async () => {
    for (const query of ['limit=10&page=4', 'page=99', 'limit=100&page=2']) {
      const page = await paging.listed(query);
      expect(page.items).toEqual([]);
      expect(page.total).toBe(30);
      expect(page.hasMore).toBe(false);
    }
  });

  test('total counts every match of the filter, not the page', async () => {
    const scheduled = seeded.posts.filter((p) => p.status === 'scheduled').length;
    const page = await api.listed('filter[status]=scheduled&limit=1');
    expect(page.items).toHaveLength(1);
    expect(page).toMatchObject({ total: scheduled, hasMore: true, limit: 1 });
    const last = await api.listed(`filter[status]=scheduled&limit=1&page=${scheduled}`);
    expect(last.items).toHaveLength(1);
    expect(last).toMatchObject({ total: scheduled, hasMore: false, page: scheduled });
    const one = await paging.listed(
      `filter[socialAccountId]=${(await paging.find(pagingIds[0]!))!.socialAccountId}`,
    );
    expect(one).toMatchObject({ total: 1, hasMore: false });
  });

  test('limit=101 is refused (maximum 100)', async () => {
    const res = await paging.list('limit=101');
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).details?.map((d) => d.path)).toEqual(['query.limit']);
  });
});

describe('bad queries: 400 naming the parameter, nothing appended', () => {
  const uuid = randomUUID();
  const cases: Array<[name: string, query: string, path: string]> = [
    ['an unknown filter field', 'filter[title]=Launch', 'query.filter[title]'],
    ['an unknown filter field given an operator', 'filterOp[groupId]=eq', 'query.filterOp[groupId]'],
    [
      'operator in on socialAccountId',
      `filter[socialAccountId]=${uuid}&filterOp[socialAccountId]=in`,
      'query.filterOp[socialAccountId]',
    ],
    [
      'operator lte on scheduledFrom',
      'filter[scheduledFrom]=2030-01-01T00:00:00Z&filterOp[scheduledFrom]=lte',
      'query.filterOp[scheduledFrom]',
    ],
    [
      'operator gte on scheduledTo',
      'filter[scheduledTo]=2030-01-01T00:00:00Z&filterOp[scheduledTo]=gte',
      'query.filterOp[scheduledTo]',
    ],
    [
      'operator contains on platform',
      'filter[platform]=x&filterOp[platform]=contains',
      'query.filterOp[platform]',
    ],
    ['operator gte on status', 'filter[status]=draft&filterOp[status]=gte', 'query.filterOp[status]'],
    ['an unknown operator', 'filter[status]=draft&filterOp[status]=like', 'query.filterOp[status]'],
    ['status=bogus', 'filter[status]=bogus', 'query.filter[status]'],
    [
      'a bad status among in values',
      'filter[status]=draft,bogus&filterOp[status]=in',
      'query.filter[status]',
    ],
    ['a list of statuses with eq', 'filter[status]=draft,scheduled', 'query.filter[status]'],
    ['an unknown platform', 'filter[platform]=myspace', 'query.filter[platform]'],
    ['tagId not a uuid', 'filter[tagId]=launch', 'query.filter[tagId]'],
    [
      'tagId in with one value not a uuid',
      `filter[tagId]=${uuid},nope&filterOp[tagId]=in`,
      'query.filter[tagId]',
    ],
    ['socialAccountId not a uuid', 'filter[socialAccountId]=12345', 'query.filter[socialAccountId]'],
    ['scheduledFrom not a timestamp', 'filter[scheduledFrom]=tomorrow', 'query.filter[scheduledFrom]'],
    [
      'scheduledFrom a date without a time',
      'filter[scheduledFrom]=2030-01-01',
      'query.filter[scheduledFrom]',
    ],
    ['scheduledTo not a timestamp', 'filter[scheduledTo]=2030-13-45T99:00:00Z', 'query.filter[scheduledTo]'],
    ['an empty filter value', 'filter[platform]=', 'query.filter[platform]'],
    ['filterOp without its filter', 'filterOp[status]=eq', 'query.filterOp[status]'],
    ['an unknown sortBy', 'sortBy=title', 'query.sortBy'],
    ['an unknown sortDir', 'sortBy=status&sortDir=up', 'query.sortDir'],
    ['limit 0', 'limit=0', 'query.limit'],
    ['limit not a number', 'limit=ten', 'query.limit'],
    ['page 0', 'page=0', 'query.page'],
    ['page not an integer', 'page=1.5', 'query.page'],
  ];

  for (const [name, query, path] of cases) {
    test(name, async () => {
      const before = await eventCount(service);
      const res = await api.list(query);
      expect(res.status).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.error).toEqual(expect.any(String));
      expect(body.details?.map((d) => d.path)).toContain(path);
      expect(await eventCount(service)).toBe(before);
    });
  }
});

// These change tags of the seeded workspace, so they run last.
describe('tags that change after the posts were tagged', () => {
  test('a group whose tags are replaced by PATCH stops matching the old tag and matches the new one', async () => {
    const g1 = seeded.posts.filter((p) => p.tagIds.length === 1 && p.tagIds[0] === seeded.tags.launch);
    expect(g1).toHaveLength(2);
    const groupId = g1[0]!.groupId;
    const before = await all(`filter[tagId]=${seeded.tags.launch}`);
    expect(ids(before.items)).toEqual(expect.arrayContaining(ids(g1)));

    await api.patchGroup(groupId, { tagIds: [seeded.tags.sales] });
    const launch = await all(`filter[tagId]=${seeded.tags.launch}`);
    expect(ids(launch.items)).not.toEqual(expect.arrayContaining([g1[0]!.id]));
    expect(launch.total).toBe(before.total - 2);
    const sales = await all(`filter[tagId]=${seeded.tags.sales}`);
    expect(ids(sales.items)).toEqual(expect.arrayContaining(ids(g1)));

    await api.patchGroup(groupId, { tagIds: [seeded.tags.launch] });
    expect((await all(`filter[tagId]=${seeded.tags.launch}`)).total).toBe(before.total);
  });

  test('a deleted tag stops matching (eq and in); the posts stay listed', async () => {
    const doomed = seeded.posts.filter((p) => p.tagIds.includes(seeded.tags.doomed));
    expect(doomed).toHaveLength(2);
    expect(sortIds((await all(`filter[tagId]=${seeded.tags.doomed}`)).items)).toEqual(sortIds(doomed));

    await api.deleteTag(seeded.tags.doomed);

    expect(await all(`filter[tagId]=${seeded.tags.doomed}`)).toMatchObject({ items: [], total: 0 });
    const launchOrDoomed = await all(
      `filter[tagId]=${seeded.tags.launch},${seeded.tags.doomed}&filterOp[tagId]=in`,
    );
    expect(sortIds(launchOrDoomed.items)).toEqual(
      sortIds(seeded.posts.filter((p) => p.tagIds.includes(seeded.tags.launch))),
    );
    const everything = await all();
    expect(everything.total).toBe(11);
    expect(ids(everything.items)).toEqual(expect.arrayContaining(ids(doomed)));
    // The group no longer names the tag either.
    const group = await api.getGroup(doomed[0]!.groupId);
    expect(group.group.tagIds).toEqual([]);
  });

  test('a later write to a group whose tag was deleted does not bring the tag back', async () => {
    const doomed = seeded.posts.filter((p) => p.tagIds.includes(seeded.tags.doomed));
    const approved = doomed.find((p) => p.status === 'approved')!;
    // The approved post is on Threads, so it takes a Threads account of the workspace.
    const threads = await connectAccount(service, ws, 'threads');
    await api.patched(approved.id, { socialAccountId: threads });
    await api.patchGroup(approved.groupId, { topic: 'After the tag went' });
    expect(await all(`filter[tagId]=${seeded.tags.doomed}`)).toMatchObject({ items: [], total: 0 });
    expect((await api.getGroup(approved.groupId)).group.tagIds).toEqual([]);
    expect(sortIds((await all(`filter[socialAccountId]=${threads}`)).items)).toEqual([approved.id]);
  });
});
