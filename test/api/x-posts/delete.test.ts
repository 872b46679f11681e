// POST ORG/marketing/x-posts/delete: a published post is deleted on X (the sandbox) and removed here, a post
// not sent yet is canceled, a link to a post published elsewhere is deleted with the workspace's X account;
// bad input is a 400 naming the field and changes nothing; roles, workspaces and tokens are checked.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxPublicationsOf } from '../../../infra/connectors/sandbox/index.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import type { SocialAccountView } from '../../../domain/social-accounts/social-account.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let account: SocialAccountView;

beforeAll(async () => {
  service = await startTestService({ env: { PUBLISH_SWEEP_INTERVAL_MS: '50', POST_NOW_WAIT_MS: '10000' } });
  ws = await createTestWorkspace(service);
  other = await createTestWorkspace(service, 'Other');
  account = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
});
afterAll(async () => service?.stop());

const del = (body: unknown, token = ws.tokens.owner, base = ws.base) =>
  service.request('POST', `${base}/x-posts/delete`, { token, body });

async function newPost(platform = 'x', text = `Hello ${Math.random()}`) {
  const res = await service.request('POST', `${ws.base}/post-groups`, {
    token: ws.tokens.owner,
    body: { title: 'T', posts: [{ platform, contentText: text }] },
  });
  const data = ((await res.json()) as { data: { group: { id: string }; posts: PostView[] } }).data;
  return { groupId: data.group.id, postId: data.posts[0]!.id };
}

async function publishedPost(): Promise<PostView> {
  const { groupId, postId } = await newPost();
  await service.request('POST', `${ws.base}/post-groups/${groupId}/approve`, {
    token: ws.tokens.owner,
    body: { autoSchedule: false },
  });
  const res = await service.request('POST', `${ws.base}/posts/${postId}/post-now`, {
    token: ws.tokens.owner,
  });
  const post = ((await res.json()) as { data: PostView }).data;
  expect(post.status).toBe('published');
  return post;
}

async function listed(postId: string): Promise<PostView | undefined> {
  const res = await service.request('GET', `${ws.base}/posts?limit=100`, { token: ws.tokens.owner });
  return ((await res.json()) as { data: { items: PostView[] } }).data.items.find((p) => p.id === postId);
}

describe('published X post', () => {
  test('by id: deleted on X and removed here (deleted_on_x)', async () => {
    const post = await publishedPost();
    const res = await del({ postId: post.id });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual({
      outcome: 'deleted_on_x',
      postId: post.id,
      xPostId: post.publishedExternalId,
      socialAccountId: account.id,
      warnings: [],
    });
    expect(await listed(post.id)).toBeUndefined();
    const [publication] = await sandboxPublicationsOf(service.runtime.readModels, post.id);
    expect(publication!.status).toBe('deleted');
  });

  test('by link: the same, found by its X id', async () => {
    const post = await publishedPost();
    const res = await del({
      postUrl: `https://x.com/${account.accountHandle}/status/${post.publishedExternalId}?s=20`,
    });
    expect(res.status).toBe(200);
    const data = ((await res.json()) as { data: { outcome: string; postId: string } }).data;
    expect(data).toMatchObject({ outcome: 'deleted_on_x', postId: post.id });
    expect(await listed(post.id)).toBeUndefined();
  });

  test('already gone from X: removed here with a warning', async () => {
    const post = await publishedPost();
    const connector = service.runtime.connectors.get('x');
    await service.runtime.accounts.withTokens({ ...account, xSubscription: null }, (tokens) =>
      connector.delete(
        {
          account: { ...account, xSubscription: null },
          tokens,
          fetchMedia: () => Promise.reject(new Error()),
        },
        post.publishedExternalId!,
      ),
    );
    const res = await del({ postId: post.id });
    const data = ((await res.json()) as { data: { outcome: string; warnings: string[] } }).data;
    expect(data.outcome).toBe('deleted_on_x');
    expect(data.warnings.join(' ')).toMatch(/already gone from X/);
    expect(await listed(post.id)).toBeUndefined();
  });

  test('a link to a post not published here that X does not know is a 404; nothing changes', async () => {
    const before = await eventCount(service);
    const res = await del({ postUrl: 'https://x.com/someone/status/1234567890123456789' });
    expect(res.status).toBe(404);
    expect(await eventCount(service)).toBe(before);
  });
});

describe('unsent X post', () => {
  test('a scheduled post is taken off the schedule (removed_from_schedule, canceled)', async () => {
    const { groupId, postId } = await newPost();
    await service.request('POST', `${ws.base}/post-groups/${groupId}/approve`, {
      token: ws.tokens.owner,
      body: { scheduledForUtc: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect((await listed(postId))!.status).toBe('scheduled');
    const res = await del({ postId });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual({
      outcome: 'removed_from_schedule',
      postId,
      xPostId: null,
      socialAccountId: null,
      warnings: [],
    });
    expect((await listed(postId))!.status).toBe('canceled');
    expect(await sandboxPublicationsOf(service.runtime.readModels, postId)).toHaveLength(0);
  });

  test('a second call says it was already canceled', async () => {
    const { postId } = await newPost();
    await del({ postId });
    const res = await del({ postId });
    const data = ((await res.json()) as { data: { warnings: string[] } }).data;
    expect(data.warnings).toEqual(['The post was already canceled']);
  });
});

describe('bad input changes nothing', () => {
  test.each([
    [{}, 'body.postUrl'],
    [{ postUrl: 'https://x.com/a/status/1', postId: '00000000-0000-4000-8000-000000000000' }, 'body.postId'],
    [{ postUrl: 'https://example.com/a/status/1' }, 'body.postUrl'],
    [{ postId: 'nope' }, 'body.postId'],
    [{ postId: '00000000-0000-4000-8000-000000000000', extra: 1 }, 'body'],
  ])('%j → 400 naming %s', async (body, path) => {
    const before = await eventCount(service);
    const res = await del(body);
    expect(res.status).toBe(400);
    const error = (await res.json()) as { details: Array<{ path: string }> };
    expect(error.details.map((d) => d.path).join(' ')).toContain(path);
    expect(await eventCount(service)).toBe(before);
  });

  test('a post of another platform is a 400 naming postId', async () => {
    const { postId } = await newPost('linkedin');
    const res = await del({ postId });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { details: Array<{ path: string }> }).details[0]!.path).toBe('body.postId');
  });

  test('an unknown post, or another workspace’s, is a 404', async () => {
    expect((await del({ postId: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    const { postId } = await newPost();
    expect((await del({ postId }, other.tokens.owner, other.base)).status).toBe(404);
  });
});

describe('access', () => {
  test('only owners and admins delete X posts; no token is a 401', async () => {
    const { postId } = await newPost();
    for (const role of ['editor', 'reviewer', 'viewer'] as const)
      expect((await del({ postId }, ws.tokens[role])).status).toBe(403);
    const res = await service.request('POST', `${ws.base}/x-posts/delete`, { body: { postId } });
    expect(res.status).toBe(401);
    expect((await del({ postId }, ws.tokens.admin)).status).toBe(200);
  });

  test('an Idempotency-Key replays the first answer', async () => {
    const post = await publishedPost();
    const headers = { 'idempotency-key': `del-${post.id}` };
    const first = await service.request('POST', `${ws.base}/x-posts/delete`, {
      token: ws.tokens.owner,
      body: { postId: post.id },
      headers,
    });
    const second = await service.request('POST', `${ws.base}/x-posts/delete`, {
      token: ws.tokens.owner,
      body: { postId: post.id },
      headers,
    });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
  });
});
