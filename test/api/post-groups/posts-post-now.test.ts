// POST ORG/marketing/posts/{postId}/post-now through the whole service, publishing pipeline and sandbox included:
// only approved (or scheduled, or failed) posts are published, once, and the answer is the post after the
// attempt (published with its URL, or failed naming the fix when there is no account); draft and
// pending_approval are 409 (spec), as is a second request; posts:publish is needed. Refused requests append
// nothing; an Idempotency-Key replay appends and publishes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxPublicationsOf } from '../../../infra/connectors/sandbox/index.js';
import type { SocialAccountView } from '../../../domain/social-accounts/social-account.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  client,
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
/** The workspace's only X account and its LinkedIn account (sandbox). */
let accounts: { x: SocialAccountView; linkedin: SocialAccountView };

/** One post per state, created once. */
const posts = {} as Record<'draft' | 'pending' | 'approved' | 'scheduled' | 'canceled' | 'edited', PostBody>;

const publicationsOf = (postId: string) => sandboxPublicationsOf(service.runtime.readModels, postId);

beforeAll(async () => {
  // A generous wait for the outcome: a slow machine makes the request slower, not its answer `publishing`.
  service = await startTestService({ env: { POST_NOW_WAIT_MS: '20000' } });
  [ws, other] = await Promise.all([createTestWorkspace(service), createTestWorkspace(service, 'Other')]);
  api = client(service, ws);
  otherApi = client(service, other);
  refused = refusedBy(service, api);
  const owner = { orgId: ws.orgId, userId: ws.userIds.owner };
  accounts = {
    x: await connectSandboxAccount(service, owner, 'x'),
    linkedin: await connectSandboxAccount(service, owner, 'linkedin'),
  };

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
  const scheduled = await api.createGroup([
    { platform: 'linkedin', contentText: 'Scheduled', socialAccountId: accounts.linkedin.id },
  ]);
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
      expect(await publicationsOf(posts[state].id)).toEqual([]);
    });
  }

  test('an approved post: 200, published once with its URL by the workspace’s only X account; again: 409', async () => {
    const postId = posts.approved.id;
    const res = await api.postNow(postId, ws.tokens.reviewer);
    expect(res.status).toBe(200);
    const answered = ((await res.json()) as { data: PostBody }).data;
    expect(answered).toEqual({
      ...posts.approved,
      status: 'published',
      // The post named no account: the workspace's only X account is recorded on it by the attempt.
      socialAccountId: accounts.x.id,
      publishedExternalId: expect.stringMatching(/\S/),
      publishedUrl: expect.stringMatching(/\/v1\/sandbox\/x\/posts\/\S+$/),
      attemptCount: 1,
      lastAttemptAt: expect.any(String),
      idempotencyKey: `publish:${postId}:1`,
      updatedAt: expect.any(String),
    });
    expect(await api.find(postId)).toEqual(answered);
    expect(await publicationsOf(postId)).toEqual([
      expect.objectContaining({
        platform: 'x',
        account_external_id: accounts.x.accountExternalId,
        idempotency_key: `publish:${postId}:1`,
        external_id: answered.publishedExternalId,
        url: answered.publishedUrl,
        text: 'Approved',
        status: 'published',
      }),
    ]);
    await refused(() => api.postNow(postId), 409, postId);
    expect(await publicationsOf(postId)).toHaveLength(1);
  });

  test('a scheduled post: 200, published by its own account; it keeps its time; again: 409', async () => {
    const postId = posts.scheduled.id;
    const answered = await api.json<PostBody>(await api.postNow(postId));
    expect(answered).toMatchObject({
      id: postId,
      status: 'published',
      socialAccountId: accounts.linkedin.id,
      publishedUrl: expect.stringMatching(/\/v1\/sandbox\/linkedin\/posts\//),
      scheduledForUtc: posts.scheduled.scheduledForUtc,
      attemptCount: 1,
      idempotencyKey: `publish:${postId}:1`,
      lastError: null,
    });
    expect(answered.idempotencyKey).not.toBe((await api.find(posts.approved.id))!.idempotencyKey);
    const publications = await publicationsOf(postId);
    expect(publications).toHaveLength(1);
    expect(publications[0]).toMatchObject({
      platform: 'linkedin',
      account_external_id: accounts.linkedin.accountExternalId,
      idempotency_key: `publish:${postId}:1`,
    });
    await refused(() => api.postNow(postId), 409, postId);
  });

  test('a post of a platform without an account: 200, failed naming the fix, nothing sent; connected, post-now publishes it', async () => {
    const created = await api.createGroup([{ platform: 'threads', contentText: 'On Threads' }]);
    await api.approve(created.group.id);
    const postId = created.posts[0]!.id;
    const failed = await api.json<PostBody>(await api.postNow(postId));
    expect(failed).toMatchObject({
      id: postId,
      status: 'failed',
      socialAccountId: null,
      publishedUrl: null,
      attemptCount: 1,
      nextRetryAt: null,
      idempotencyKey: `publish:${postId}:1`,
      lastError: expect.stringMatching(/^No threads account .*connect one under Social accounts/),
    });
    expect(await publicationsOf(postId)).toEqual([]);

    // A failed post keeps its approval, so post-now after connecting an account tries once more.
    const threads = await connectSandboxAccount(
      service,
      { orgId: ws.orgId, userId: ws.userIds.owner },
      'threads',
    );
    const published = await api.json<PostBody>(await api.postNow(postId));
    expect(published).toMatchObject({
      status: 'published',
      socialAccountId: threads.id,
      attemptCount: 2,
      idempotencyKey: `publish:${postId}:2`,
      lastError: null,
    });
    expect(await publicationsOf(postId)).toEqual([
      expect.objectContaining({ platform: 'threads', idempotency_key: `publish:${postId}:2` }),
    ]);
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
  test('the post is still approved and can be published by an admin; theirs was never sent', async () => {
    expect(await publicationsOf(post.id)).toEqual([]);
    const answered = await api.json<PostBody>(await api.postNow(post.id, ws.tokens.admin));
    expect(answered).toMatchObject({ status: 'published', attemptCount: 1 });
    expect(await publicationsOf(post.id)).toHaveLength(1);
    expect(await publicationsOf(theirs.id)).toEqual([]);
  });
});

describe('Idempotency-Key', () => {
  test('a replay appends and publishes nothing; without the key a repeat is 409', async () => {
    const created = await api.createGroup([{ platform: 'x', contentText: 'Once only' }]);
    await api.approve(created.group.id);
    const postId = created.posts[0]!.id;
    const postNow = () => api.postNow(postId, ws.tokens.owner, { 'idempotency-key': 'publish-1' });
    const first = await postNow();
    expect(first.status).toBe(200);
    const firstBody = (await first.json()) as { data: PostBody };
    expect(firstBody).toMatchObject({
      data: { id: postId, status: 'published', idempotencyKey: `publish:${postId}:1` },
    });

    const before = await eventCount(service);
    const again = await postNow();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The replay answers what the first request answered: the post after its attempt.
    expect(await again.json()).toEqual(firstBody);
    expect(await eventCount(service)).toBe(before);
    expect(await publicationsOf(postId)).toHaveLength(1);

    await refused(() => api.postNow(postId), 409, postId);
  });
});

describe('when the outcome does not come within POST_NOW_WAIT_MS', () => {
  // Nothing picks the request up in this service, so the answer is the post as the request left it.
  let held: TestService;
  let heldApi: Client;
  let heldRefused: Refused;
  beforeAll(async () => {
    held = await startHeldService();
    heldApi = client(held, await createTestWorkspace(held));
    heldRefused = refusedBy(held, heldApi);
  });
  afterAll(async () => held?.stop());

  async function approvedPost(text: string): Promise<PostBody> {
    const created = await heldApi.createGroup([{ platform: 'x', contentText: text }]);
    await heldApi.approve(created.group.id);
    return (await heldApi.getGroup(created.group.id)).posts[0]!;
  }

  test('200, publishing, with the idempotencyKey of its first attempt; again: 409', async () => {
    const post = await approvedPost('Waiting');
    const answered = await heldApi.json<PostBody>(await heldApi.postNow(post.id));
    expect(answered).toEqual({
      ...post,
      status: 'publishing',
      idempotencyKey: `publish:${post.id}:1`,
      updatedAt: expect.any(String),
    });
    expect(await heldApi.find(post.id)).toEqual(answered);
    const error = await heldRefused(() => heldApi.postNow(post.id), 409, post.id);
    expect(error.code).toBe('post_publishing');
  });

  test('an Idempotency-Key replay answers the first response byte for byte and appends nothing', async () => {
    const post = await approvedPost('Once only');
    const postNow = () => heldApi.postNow(post.id, undefined, { 'idempotency-key': 'publish-1' });
    const first = await postNow();
    expect(first.status).toBe(200);
    const firstText = await first.text();
    expect(JSON.parse(firstText)).toMatchObject({ data: { id: post.id, status: 'publishing' } });
    const before = await eventCount(held);
    const again = await postNow();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(await eventCount(held)).toBe(before);
  });
});
