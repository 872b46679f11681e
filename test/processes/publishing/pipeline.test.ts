// The publishing pipeline on the embedded default with the sandbox: a scheduled post is claimed, published once
// and recorded; post-now publishes at once; a post without a usable account fails without a platform call.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sandboxPublicationsOf } from '../../../infra/connectors/sandbox/index.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';
import type { PostView } from '../../../domain/post-groups/views.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService({
    env: { PUBLISH_SWEEP_INTERVAL_MS: '50', PUBLISH_RETRY_BASE_MS: '100', POST_NOW_WAIT_MS: '5000' },
  });
  ws = await createTestWorkspace(service);
});
afterAll(async () => service?.stop());

async function post(id: string): Promise<PostView> {
  const res = await service.request('GET', `${ws.base}/posts?limit=100`, { token: ws.tokens.owner });
  const items = ((await res.json()) as { data: { items: PostView[] } }).data.items;
  return items.find((p) => p.id === id)!;
}

async function approvedGroup(socialAccountId: string | null, text: string) {
  const created = await service.request('POST', `${ws.base}/post-groups`, {
    token: ws.tokens.owner,
    body: {
      title: 'Launch',
      posts: [{ platform: 'x', contentText: text, ...(socialAccountId ? { socialAccountId } : {}) }],
    },
  });
  expect(created.status).toBe(200);
  const body = (await created.json()) as { data: { group: { id: string }; posts: PostView[] } };
  return { groupId: body.data.group.id, postId: body.data.posts[0]!.id };
}

test('a post scheduled two seconds ahead is published once, with its URL and the attempt recorded', async () => {
  const account = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
  const { groupId, postId } = await approvedGroup(account.id, 'Scheduled hello');
  const at = new Date(Date.now() + 2000).toISOString();
  const approved = await service.request('POST', `${ws.base}/post-groups/${groupId}/approve`, {
    token: ws.tokens.owner,
    body: { scheduledForUtc: at },
  });
  expect(approved.status).toBe(200);
  expect((await post(postId)).status).toBe('scheduled');
  const published = (await waitUntil(async () => {
    const p = await post(postId);
    return p.status === 'published' ? p : null;
  }))!;
  expect(published.publishedUrl).toMatch(/\/v1\/sandbox\/x\/posts\//);
  expect(published.publishedExternalId).toBeTruthy();
  expect(published.attemptCount).toBe(1);
  expect(published.idempotencyKey).toBe(`publish:${postId}:1`);
  expect(Date.parse(published.lastAttemptAt!)).toBeGreaterThanOrEqual(Date.parse(at));
  const rows = await sandboxPublicationsOf(service.runtime.readModels, postId);
  expect(rows).toHaveLength(1);
});

test('post-now of an approved post publishes at once and answers with the published post', async () => {
  const { groupId, postId } = await approvedGroup(null, 'Right now');
  await service.request('POST', `${ws.base}/post-groups/${groupId}/approve`, {
    token: ws.tokens.owner,
    body: { autoSchedule: false },
  });
  const res = await service.request('POST', `${ws.base}/posts/${postId}/post-now`, {
    token: ws.tokens.owner,
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: PostView };
  expect(body.data.status).toBe('published');
  expect(body.data.socialAccountId).not.toBeNull();
  expect(await sandboxPublicationsOf(service.runtime.readModels, postId)).toHaveLength(1);
});

test('a post for a platform with no connected account fails at once, naming the fix, without a platform call', async () => {
  const created = await service.request('POST', `${ws.base}/post-groups`, {
    token: ws.tokens.owner,
    body: { title: 'No account', posts: [{ platform: 'threads', contentText: 'Hello threads' }] },
  });
  const postId = ((await created.json()) as { data: { posts: PostView[] } }).data.posts[0]!.id;
  const groupId = (await post(postId)).groupId;
  await service.request('POST', `${ws.base}/post-groups/${groupId}/approve`, {
    token: ws.tokens.owner,
    body: { autoSchedule: false },
  });
  const res = await service.request('POST', `${ws.base}/posts/${postId}/post-now`, {
    token: ws.tokens.owner,
  });
  const failed = ((await res.json()) as { data: PostView }).data;
  expect(failed.status).toBe('failed');
  expect(failed.lastError).toMatch(/threads/i);
  expect(failed.attemptCount).toBe(1);
  expect(await sandboxPublicationsOf(service.runtime.readModels, postId)).toHaveLength(0);
});
