// POST ORG/marketing/posts/{postId}/post-now through the whole service: only approved (or scheduled) posts are
// published; draft and pending_approval are 409 (spec), as is a second request; posts:publish is needed. Refused
// requests append nothing; an Idempotency-Key replay answers the same.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  client,
  inMinutes,
  refusedBy,
  type Client,
  type PostBody,
  type Refused,
  postIdChecks,
} from './helpers.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let api: Client;
let otherApi: Client;
let refused: Refused;

/** One post per state, created once. */
const posts = {} as Record<'draft' | 'pending' | 'approved' | 'scheduled' | 'canceled' | 'edited', PostBody>;

beforeAll(async () => {
  service = await startTestService();
  [ws, other] = await Promise.all([createTestWorkspace(service), createTestWorkspace(service, 'Other')]);
  api = client(service, ws);
  otherApi = client(service, other);
  refused = refusedBy(service, api);

  posts.draft = (await api.createGroup([{ platform: 'x', contentText: 'Draft' }])).posts[0]!;
  posts.pending = (await api.createDraft([{ platform: 'x', contentText: 'Pending' }])).posts[0]!;
  const approved = await api.createGroup([
    { platform: 'x', contentText: 'Approved' },
    { platform: 'linkedin', contentText: 'Canceled' },
    { platform: 'facebook', contentText: 'Approved, then edited' },
  ]);
  await api.approve(approved.group.id);
  [posts.approved, posts.canceled, posts.edited] = (await api.refresh(approved.group.id, approved.posts)) as [
    PostBody,
    PostBody,
    PostBody,
  ];
  posts.canceled = await api.patched(posts.canceled.id, { status: 'canceled' });
  posts.edited = await api.patched(posts.edited.id, { contentText: 'Edited after approval' });
  const scheduled = await api.createGroup([{ platform: 'linkedin', contentText: 'Scheduled' }]);
  await api.approve(scheduled.group.id, { scheduledForUtc: inMinutes(24 * 60) });
  posts.scheduled = (await api.getGroup(scheduled.group.id)).posts[0]!;
});
afterAll(async () => service.stop());

describe('only approved content is published', () => {
  for (const state of ['draft', 'pending', 'canceled', 'edited'] as const) {
    test(`${state} post: 409`, async () => {
      expect(posts[state].status).toBe(
        state === 'pending' || state === 'edited' ? 'pending_approval' : state,
      );
      await refused(() => api.postNow(posts[state].id), 409, posts[state].id);
    });
  }

  test('an approved post: 200, publishing, with an idempotencyKey; again: 409', async () => {
    const res = await api.postNow(posts.approved.id, ws.tokens.reviewer);
    expect(res.status).toBe(200);
    const answered = ((await res.json()) as { data: PostBody }).data;
    expect(answered).toEqual({
      ...posts.approved,
      status: 'publishing',
      idempotencyKey: expect.stringMatching(/\S/),
      updatedAt: expect.any(String),
    });
    expect(await api.find(posts.approved.id)).toEqual(answered);
    await refused(() => api.postNow(posts.approved.id), 409, posts.approved.id);
  });

  test('a scheduled post: 200, publishing; it keeps its time; again: 409', async () => {
    const answered = await api.json<PostBody>(await api.postNow(posts.scheduled.id));
    expect(answered).toMatchObject({
      id: posts.scheduled.id,
      status: 'publishing',
      scheduledForUtc: posts.scheduled.scheduledForUtc,
      idempotencyKey: expect.stringMatching(/\S/),
    });
    expect(answered.idempotencyKey).not.toBe((await api.find(posts.approved.id))!.idempotencyKey);
    await refused(() => api.postNow(posts.scheduled.id), 409, posts.scheduled.id);
  });
});

describe('refused requests: nothing appended, the post stays', () => {
  let post: PostBody;
  let theirs: PostBody;
  beforeAll(async () => {
    const created = await api.createGroup([{ platform: 'x', contentText: 'Ready' }]);
    await api.approve(created.group.id);
    post = (await api.getGroup(created.group.id)).posts[0]!;
    const theirGroup = await otherApi.createGroup([{ platform: 'x', contentText: 'Theirs' }]);
    await otherApi.approve(theirGroup.group.id);
    theirs = (await otherApi.getGroup(theirGroup.group.id)).posts[0]!;
  });

  test('a viewer (no posts:publish): 403', async () => {
    await refused(() => api.postNow(post.id, ws.tokens.viewer), 403, post.id);
  });
  test('an editor (no posts:publish): 403', async () => {
    await refused(() => api.postNow(post.id, ws.tokens.editor), 403, post.id);
  });
  postIdChecks(
    () => ({ service, api, otherApi, other, refused, post, theirs }),
    (client, postId, token) => client.postNow(postId, token),
    { method: 'POST', suffix: '/post-now' },
  );
  test('the post is still approved and can be published by an admin', async () => {
    expect((await api.json<PostBody>(await api.postNow(post.id, ws.tokens.admin))).status).toBe('publishing');
  });
});

describe('Idempotency-Key', () => {
  test('a replay answers the first response and appends nothing; without the key a repeat is 409', async () => {
    const created = await api.createGroup([{ platform: 'x', contentText: 'Once only' }]);
    await api.approve(created.group.id);
    const postId = created.posts[0]!.id;
    const postNow = () => api.postNow(postId, ws.tokens.owner, { 'idempotency-key': 'publish-1' });
    const first = await postNow();
    expect(first.status).toBe(200);
    const firstText = await first.text();
    expect(JSON.parse(firstText)).toMatchObject({ data: { id: postId, status: 'publishing' } });

    const before = await eventCount(service);
    const again = await postNow();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(await eventCount(service)).toBe(before);

    await refused(() => api.postNow(postId), 409, postId);
  });
});
