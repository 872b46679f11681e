// Shared helpers of the post endpoint tests (posts-*.test.ts): typed calls to the post, post-group, draft and tag
// endpoints, and a seeded workspace whose posts cover every filter and sort of list posts and the scheduler calendar.
import { randomUUID } from 'node:crypto';
import { expect, test } from 'vitest';
import type { Platform } from '../../../domain/shared/platforms.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import type { TestWorkspace } from '../../support/workspace.js';
import type { ErrorBody, Group, Post } from './support.js';

export type { Approval, ErrorBody } from './support.js';
export type PostBody = Post;
export type GroupBody = Group;

/**
 * A service whose publishing pipeline does not run: post-now answers at once and the post stays `publishing`,
 * which the tests of what a post being published refuses need (every other service publishes at once).
 */
export function startHeldService(): Promise<TestService> {
  return startTestService({ publishing: { sweep: false, work: false }, env: { POST_NOW_WAIT_MS: '0' } });
}

/** Connects a sandbox account of `platform` to the client's workspace as its owner; answers the account id. */
export async function connectAccount(
  service: TestService,
  ws: TestWorkspace,
  platform: Platform,
  account?: string,
): Promise<string> {
  const ref = { orgId: ws.orgId, userId: ws.userIds.owner };
  return (await connectSandboxAccount(service, ref, platform, account ? { account } : {})).id;
}

export interface PageBody {
  items: PostBody[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

/** A time `minutes` from now, whole minutes, in the ISO form the service answers with. */
export function inMinutes(minutes: number): string {
  const t = new Date(Date.now() + minutes * 60_000);
  t.setUTCSeconds(0, 0);
  return t.toISOString();
}

export const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

export interface NewPost {
  platform: string;
  contentText: string;
  socialAccountId?: string;
  media?: unknown;
  platformPayload?: unknown;
}

export function client(service: TestService, ws: TestWorkspace) {
  const json = async <T>(res: Response, status = 200): Promise<T> => {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    return (JSON.parse(text) as { data: T }).data;
  };
  const owner = ws.tokens.owner;
  const api = {
    ws,
    json,
    postPath: (postId: string) => `${ws.base}/posts/${postId}`,
    async createGroup(
      posts: NewPost[],
      extra: Record<string, unknown> = {},
      token = owner,
    ): Promise<{ group: GroupBody; posts: PostBody[] }> {
      const res = await service.request('POST', `${ws.base}/post-groups`, {
        token,
        body: { title: `Group ${randomUUID().slice(0, 6)}`, posts, ...extra },
      });
      return json(res);
    },
    async createDraft(
      posts: Array<Record<string, unknown>>,
    ): Promise<{ group: GroupBody; posts: PostBody[] }> {
      const res = await service.request('POST', `${ws.base}/drafts`, {
        token: owner,
        body: { title: `Draft ${randomUUID().slice(0, 6)}`, posts },
      });
      return json(res);
    },
    async approve(
      groupId: string,
      body: Record<string, unknown> = { autoSchedule: false },
    ): Promise<GroupBody> {
      const res = await service.request('POST', `${ws.base}/post-groups/${groupId}/approve`, {
        token: owner,
        body,
      });
      return json(res);
    },
    async patchGroup(groupId: string, body: Record<string, unknown>): Promise<GroupBody> {
      const res = await service.request('PATCH', `${ws.base}/post-groups/${groupId}`, { token: owner, body });
      return json(res);
    },
    async getGroup(groupId: string): Promise<{ group: GroupBody; posts: PostBody[] }> {
      return json(await service.request('GET', `${ws.base}/post-groups/${groupId}`, { token: owner }));
    },
    /** The posts as they stand now, in the order given (read through GET of their group). */
    async refresh(groupId: string, posts: ReadonlyArray<{ id: string }>): Promise<PostBody[]> {
      const now = (await api.getGroup(groupId)).posts;
      return posts.map((p) => {
        const found = now.find((q) => q.id === p.id);
        if (!found) throw new Error(`post ${p.id} is not in group ${groupId}`);
        return found;
      });
    },
    async createTag(name: string): Promise<string> {
      const res = await service.request('POST', `${ws.base}/tags`, { token: owner, body: { name } });
      return (await json<{ id: string }>(res)).id;
    },
    async deleteTag(tagId: string): Promise<void> {
      await json(await service.request('DELETE', `${ws.base}/tags/${tagId}`, { token: owner }));
    },
    patch(postId: string, body: unknown, token = owner, headers: Record<string, string> = {}) {
      return service.request('PATCH', api.postPath(postId), { token, body, headers });
    },
    async patched(postId: string, body: unknown, token = owner): Promise<PostBody> {
      return json(await api.patch(postId, body, token));
    },
    del(postId: string, token = owner, headers: Record<string, string> = {}) {
      return service.request('DELETE', api.postPath(postId), { token, headers });
    },
    postNow(postId: string, token = owner, headers: Record<string, string> = {}) {
      return service.request('POST', `${api.postPath(postId)}/post-now`, { token, headers });
    },
    /** GET list posts with a raw query string (e.g. `filter[status]=draft&limit=5`). */
    list(query = '', token = owner) {
      return service.request('GET', `${ws.base}/posts${query ? `?${query}` : ''}`, { token });
    },
    async listed(query = '', token = owner): Promise<PageBody> {
      return json(await api.list(query, token));
    },
    events(query = '', token = owner) {
      return service.request('GET', `${ws.base}/scheduler/events${query ? `?${query}` : ''}`, { token });
    },
    async eventsListed(query = '', token = owner): Promise<PostBody[]> {
      return json(await api.events(query, token));
    },
    /** The post as list posts shows it (undefined when it is not listed). */
    async find(postId: string): Promise<PostBody | undefined> {
      for (let page = 1; ; page++) {
        const listed = await api.listed(`limit=100&page=${page}`);
        const found = listed.items.find((p) => p.id === postId);
        if (found || !listed.hasMore) return found;
      }
    },
  };
  return api;
}

export type Client = ReturnType<typeof client>;

export type Refused = (run: () => Promise<Response>, status: number, postId?: string) => Promise<ErrorBody>;

/**
 * Checks a refused request: it answers `status` with an error body, appends no event, and leaves the post (when
 * given) as list posts showed it before.
 */
export function refusedBy(service: TestService, api: Client): Refused {
  return async (run, status, postId) => {
    const before = await eventCount(service);
    const listed = postId ? await api.find(postId) : undefined;
    const res = await run();
    const text = await res.text();
    expect(res.status, text).toBe(status);
    const body = JSON.parse(text) as ErrorBody;
    expect(body.error).toEqual(expect.any(String));
    expect(await eventCount(service)).toBe(before);
    if (postId) expect(await api.find(postId)).toEqual(listed);
    return body;
  };
}

export interface PostIdCheckContext {
  service: TestService;
  api: Client;
  otherApi: Client;
  other: TestWorkspace;
  refused: Refused;
  /** A post of this workspace, and one of the other workspace. */
  post: PostBody;
  theirs: PostBody;
}

/**
 * The checks every post write answers alike for the post id and the token: another workspace's post and an
 * unknown post 404, another workspace's token 403, no token 401, a post id that is not a uuid 400 — each
 * appending nothing. `send` makes the request as this workspace's owner, or with the token given.
 */
export function postIdChecks(
  context: () => PostIdCheckContext,
  send: (api: Client, postId: string, token?: string) => Promise<Response>,
  withoutToken: { method: string; suffix?: string; body?: unknown },
): void {
  test("another workspace's post with this workspace's token: 404", async () => {
    const { api, otherApi, refused, theirs } = context();
    await refused(() => send(api, theirs.id), 404);
    expect(await otherApi.find(theirs.id)).toEqual(theirs);
  });
  test('an unknown post id: 404', async () => {
    const { api, refused } = context();
    await refused(() => send(api, randomUUID()), 404);
  });
  test('a token of another workspace: 403', async () => {
    const { api, other, refused, post } = context();
    await refused(() => send(api, post.id, other.tokens.owner), 403, post.id);
  });
  test('no token: 401', async () => {
    const { service, api, refused, post } = context();
    const path = `${api.postPath(post.id)}${withoutToken.suffix ?? ''}`;
    const options = withoutToken.body !== undefined ? { body: withoutToken.body } : {};
    await refused(() => service.request(withoutToken.method, path, options), 401, post.id);
  });
  test('a post id that is not a uuid: 400', async () => {
    const { api, refused } = context();
    const error = await refused(() => send(api, 'not-a-uuid'), 400);
    expect(error.details?.map((d) => d.path)).toEqual(['param.postId']);
  });
}

/** What the seeded workspace holds, to compute each filter's expected answer without asking the service. */
export interface SeededPost {
  id: string;
  groupId: string;
  platform: string;
  status: string;
  socialAccountId: string | null;
  tagIds: string[];
  scheduledForUtc: string | null;
  createdAt: string;
}

export interface Seeded {
  posts: SeededPost[];
  tags: { launch: string; sales: string; doomed: string };
  /** Two X accounts, a LinkedIn and a Facebook account of the workspace (sandbox). */
  accounts: { a1: string; a2: string; linkedin: string; facebook: string };
  times: { t1: string; t2: string; t3: string; t4: string; planned: string };
}

/**
 * A workspace with 11 posts in every reachable status (draft, pending_approval, approved, scheduled,
 * publishing, canceled), on six platforms, four accounts (two on X), three tags (one to be deleted by a test),
 * some with a time and some without, created in five batches (so createdAt differs between groups). The
 * service must hold publishing (`startHeldService`) for the published-now post to stay `publishing`.
 */
export async function seedWorkspace(service: TestService, api: Client): Promise<Seeded> {
  // Accounts belong to one platform now, so X posts share the X accounts and the others have their own.
  const accounts = {
    a1: await connectAccount(service, api.ws, 'x', 'seed_x_one'),
    a2: await connectAccount(service, api.ws, 'x', 'seed_x_two'),
    linkedin: await connectAccount(service, api.ws, 'linkedin'),
    facebook: await connectAccount(service, api.ws, 'facebook'),
  };
  const tags = {
    launch: await api.createTag('Launch'),
    sales: await api.createTag('Sales'),
    doomed: await api.createTag('Doomed'),
  };
  const times = {
    t1: inMinutes(60 * 24),
    t2: inMinutes(60 * 48),
    t3: inMinutes(60 * 72),
    t4: inMinutes(60 * 96),
    planned: inMinutes(60 * 120),
  };
  const posts: SeededPost[] = [];
  const add = (p: PostBody, status: string, tagIds: string[], scheduledForUtc: string | null) =>
    posts.push({
      id: p.id,
      groupId: p.groupId,
      platform: p.platform,
      status,
      socialAccountId: p.socialAccountId,
      tagIds,
      scheduledForUtc,
      createdAt: p.createdAt,
    });

  // 1. A draft group tagged Launch: x (account 1), linkedin (its account, with a planned time while draft).
  const g1 = await api.createGroup(
    [
      { platform: 'x', contentText: 'Draft on X', socialAccountId: accounts.a1 },
      { platform: 'linkedin', contentText: 'Draft on LinkedIn', socialAccountId: accounts.linkedin },
    ],
    { tagIds: [tags.launch] },
  );
  const [g1x, g1li] = g1.posts as [PostBody, PostBody];
  await api.patched(g1li.id, { scheduledForUtc: times.planned });
  add(g1x, 'draft', [tags.launch], null);
  add(g1li, 'draft', [tags.launch], times.planned);

  // 2. A draft for review (pending_approval), tagged Sales afterwards through PATCH of the group.
  const g2 = await api.createDraft([
    { platform: 'x', contentText: 'Pending on X', socialAccountId: accounts.a2 },
    { platform: 'facebook', contentText: 'Pending on Facebook' },
  ]);
  await api.patchGroup(g2.group.id, { tagIds: [tags.sales] });
  for (const p of g2.posts) add(p, 'pending_approval', [tags.sales], null);

  // 3. Tagged Launch and Sales, approved at t2: scheduled.
  const g3 = await api.createGroup(
    [
      { platform: 'linkedin', contentText: 'Scheduled on LinkedIn', socialAccountId: accounts.linkedin },
      { platform: 'bluesky', contentText: 'Scheduled on Bluesky' },
    ],
    { tagIds: [tags.launch, tags.sales] },
  );
  await api.approve(g3.group.id, { scheduledForUtc: times.t2 });
  for (const p of g3.posts) add(p, 'scheduled', [tags.launch, tags.sales], times.t2);

  // 4. Tagged Doomed, approved without a time; its X post is then scheduled at t1, its Threads post stays approved.
  const g4 = await api.createGroup(
    [
      { platform: 'x', contentText: 'Scheduled on X', socialAccountId: accounts.a1 },
      { platform: 'threads', contentText: 'Approved on Threads' },
    ],
    { tagIds: [tags.doomed] },
  );
  await api.approve(g4.group.id);
  const [g4x, g4th] = g4.posts as [PostBody, PostBody];
  expect((await api.patched(g4x.id, { scheduledForUtc: times.t1 })).status).toBe('scheduled');
  add(g4x, 'scheduled', [tags.doomed], times.t1);
  add(g4th, 'approved', [tags.doomed], null);

  // 5. Untagged: reddit scheduled at t3 then published now (publishing), facebook at t4 then canceled,
  //    linkedin at t4 (scheduled; same time as the canceled one).
  const g5 = await api.createGroup([
    {
      platform: 'reddit',
      contentText: 'Publishing on Reddit',
      platformPayload: { reddit: { subreddit: 'typescript', title: 'A title' } },
    },
    { platform: 'facebook', contentText: 'Canceled on Facebook', socialAccountId: accounts.facebook },
    { platform: 'linkedin', contentText: 'Scheduled later on LinkedIn' },
  ]);
  await api.approve(g5.group.id);
  const [g5r, g5fb, g5li] = g5.posts as [PostBody, PostBody, PostBody];
  await api.patched(g5r.id, { scheduledForUtc: times.t3 });
  await api.patched(g5fb.id, { scheduledForUtc: times.t4 });
  await api.patched(g5li.id, { scheduledForUtc: times.t4 });
  expect((await api.json<PostBody>(await api.postNow(g5r.id))).status).toBe('publishing');
  expect((await api.patched(g5fb.id, { status: 'canceled' })).status).toBe('canceled');
  add(g5r, 'publishing', [], times.t3);
  add(g5fb, 'canceled', [], times.t4);
  add(g5li, 'scheduled', [], times.t4);

  return { posts, tags, accounts, times };
}

/** The seeded posts in the order a sort should give: by the key, then id in the same direction, nulls last. */
export function sortedIds(
  posts: readonly SeededPost[],
  by: 'scheduledForUtc' | 'createdAt' | 'status' | 'platform',
  dir: 'asc' | 'desc',
): string[] {
  const sign = dir === 'asc' ? 1 : -1;
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...posts]
    .sort((a, b) => {
      const ka = a[by];
      const kb = b[by];
      if (ka === null && kb !== null) return 1;
      if (kb === null && ka !== null) return -1;
      const byKey = ka === null || kb === null ? 0 : cmp(ka, kb);
      return byKey !== 0 ? sign * byKey : sign * cmp(a.id, b.id);
    })
    .map((p) => p.id);
}

export const ids = (posts: ReadonlyArray<{ id: string }>) => posts.map((p) => p.id);
export const sortIds = (posts: ReadonlyArray<{ id: string }>) => ids(posts).sort();
