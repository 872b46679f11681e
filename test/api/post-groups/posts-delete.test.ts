// DELETE ORG/marketing/posts/{postId} through the whole service: answers the post (status canceled), which leaves
// the list, the calendar and its group; deleting the last post cancels the group; then 404. Refused requests
// append nothing; an Idempotency-Key replay answers the same.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  client,
  ids,
  inMinutes,
  refusedBy,
  startHeldService,
  type Client,
  type PostBody,
  type Refused,
  postIdChecks,
} from './posts-helpers.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let api: Client;
let otherApi: Client;
let refused: Refused;

beforeAll(async () => {
  service = await startTestService();
  [ws, other] = await Promise.all([createTestWorkspace(service), createTestWorkspace(service, 'Other')]);
  api = client(service, ws);
  otherApi = client(service, other);
  refused = refusedBy(service, api);
});
afterAll(async () => service.stop());

/** A group of two scheduled posts (x, linkedin). */
async function scheduledPair(): Promise<{ groupId: string; posts: PostBody[] }> {
  const created = await api.createGroup([
    { platform: 'x', contentText: 'On X' },
    { platform: 'linkedin', contentText: 'On LinkedIn' },
  ]);
  await api.approve(created.group.id, { scheduledForUtc: inMinutes(24 * 60) });
  return { groupId: created.group.id, posts: await api.refresh(created.group.id, created.posts) };
}

describe('deleting a post', () => {
  test('answers the post as canceled; it leaves the list, the calendar and its group; then 404', async () => {
    const { groupId, posts } = await scheduledPair();
    const [x, linkedin] = posts as [PostBody, PostBody];
    const res = await api.del(x.id, ws.tokens.editor);
    expect(res.status).toBe(200);
    const answered = ((await res.json()) as { data: PostBody }).data;
    expect(answered).toEqual({ ...x, status: 'canceled', updatedAt: expect.any(String) });

    expect(await api.find(x.id)).toBeUndefined();
    expect(ids(await api.eventsListed())).not.toContain(x.id);
    const group = await api.getGroup(groupId);
    expect(ids(group.posts)).toEqual([linkedin.id]);
    expect(group.group.status).toBe('scheduled');
    expect(await api.find(linkedin.id)).toEqual(linkedin);

    await refused(() => api.del(x.id), 404);
    await refused(() => api.patch(x.id, { contentText: 'Back?' }), 404);
    await refused(() => api.postNow(x.id), 404);
  });

  test('deleting the last post of a group cancels the group', async () => {
    const { groupId, posts } = await scheduledPair();
    for (const p of posts) expect((await api.del(p.id)).status).toBe(200);
    const group = await api.getGroup(groupId);
    expect(group.posts).toEqual([]);
    expect(group.group.status).toBe('canceled');
  });

  test('a draft, a pending and an approved post can be deleted; the group follows the posts left', async () => {
    const draft = await api.createGroup([
      { platform: 'x', contentText: 'Draft X' },
      { platform: 'linkedin', contentText: 'Draft LinkedIn' },
    ]);
    expect((await api.del(draft.posts[0]!.id)).status).toBe(200);
    expect((await api.getGroup(draft.group.id)).group.status).toBe('draft');

    const pending = await api.createDraft([{ platform: 'x', contentText: 'Pending' }]);
    const answered = await api.json<PostBody>(await api.del(pending.posts[0]!.id));
    expect(answered.status).toBe('canceled');
    expect((await api.getGroup(pending.group.id)).group.status).toBe('canceled');

    // A scheduled post deleted from a group whose other post is only approved: the group is approved.
    const mixed = await api.createGroup([
      { platform: 'x', contentText: 'Will be scheduled' },
      { platform: 'linkedin', contentText: 'Stays approved' },
    ]);
    await api.approve(mixed.group.id);
    await api.patched(mixed.posts[0]!.id, { scheduledForUtc: inMinutes(600) });
    expect((await api.getGroup(mixed.group.id)).group.status).toBe('scheduled');
    expect((await api.del(mixed.posts[0]!.id)).status).toBe(200);
    expect((await api.getGroup(mixed.group.id)).group.status).toBe('approved');
  });

  test('the group keeps its other posts in the order they were created', async () => {
    const created = await api.createGroup(
      ['x', 'linkedin', 'facebook', 'bluesky', 'threads', 'reddit'].map((platform) => ({
        platform,
        contentText: `On ${platform}`,
        ...(platform === 'reddit'
          ? { platformPayload: { reddit: { subreddit: 'typescript', title: 'A title' } } }
          : {}),
      })),
    );
    expect(ids((await api.getGroup(created.group.id)).posts)).toEqual(ids(created.posts));
    expect((await api.del(created.posts[2]!.id)).status).toBe(200);
    const left = created.posts.filter((_, i) => i !== 2);
    expect(ids((await api.getGroup(created.group.id)).posts)).toEqual(ids(left));
  });

  // This service publishes at once; a post stays `publishing` only where nothing picks the request up.
  test('a post being published cannot be deleted: 409', async () => {
    const held = await startHeldService();
    try {
      const heldWs = await createTestWorkspace(held);
      const heldApi = client(held, heldWs);
      const created = await heldApi.createGroup([
        { platform: 'x', contentText: 'On X' },
        { platform: 'linkedin', contentText: 'On LinkedIn' },
      ]);
      await heldApi.approve(created.group.id, { scheduledForUtc: inMinutes(24 * 60) });
      const postId = created.posts[0]!.id;
      expect((await heldApi.json<PostBody>(await heldApi.postNow(postId))).status).toBe('publishing');
      const error = await refusedBy(held, heldApi)(() => heldApi.del(postId), 409, postId);
      expect(error.code).toBe('post_publishing');
    } finally {
      await held.stop();
    }
  });
});

describe('refused requests: nothing appended, the post stays', () => {
  let post: PostBody;
  let theirs: PostBody;
  beforeAll(async () => {
    post = (await scheduledPair()).posts[0]!;
    theirs = (await otherApi.createGroup([{ platform: 'x', contentText: 'Theirs' }])).posts[0]!;
  });

  test('a viewer: 403', async () => {
    await refused(() => api.del(post.id, ws.tokens.viewer), 403, post.id);
  });
  test('a reviewer (no posts:draft): 403', async () => {
    await refused(() => api.del(post.id, ws.tokens.reviewer), 403, post.id);
  });
  postIdChecks(
    () => ({ service, api, otherApi, other, refused, post, theirs }),
    (client, postId, token) => client.del(postId, token),
    { method: 'DELETE' },
  );
});

describe('Idempotency-Key', () => {
  test('a replay answers the first response (though the post is gone) and appends nothing', async () => {
    const { posts } = await scheduledPair();
    const del = () => api.del(posts[0]!.id, ws.tokens.owner, { 'idempotency-key': 'delete-1' });
    const first = await del();
    expect(first.status).toBe(200);
    const firstText = await first.text();
    expect(JSON.parse(firstText)).toMatchObject({ data: { id: posts[0]!.id, status: 'canceled' } });

    const before = await eventCount(service);
    const again = await del();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(await eventCount(service)).toBe(before);
  });

  test('a replay after the last post of the group went answers the same', async () => {
    const created = await api.createGroup([{ platform: 'x', contentText: 'Alone' }]);
    const del = () => api.del(created.posts[0]!.id, ws.tokens.owner, { 'idempotency-key': 'delete-last' });
    const first = await del();
    expect(first.status).toBe(200);
    const firstText = await first.text();
    const before = await eventCount(service);
    const again = await del();
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstText);
    expect(await eventCount(service)).toBe(before);
    expect((await api.getGroup(created.group.id)).group.status).toBe('canceled');
  });
});
