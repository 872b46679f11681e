// Failure injection through the sandbox: retryable failures back off with growing delays and end `failed` with
// lastError; "pending" goes through awaiting_platform to published; rejections fail at once; lost answers are
// checked before any retry; a revoked account fails the post and marks the account `error`.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxPublicationsOf } from '../../../infra/connectors/sandbox/index.js';
import { setSandboxAccountRevoked } from '../../../infra/connectors/sandbox/accounts.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import type { MediaAsset } from '../../../domain/shared/media-asset.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import type { SocialAccountView } from '../../../domain/social-accounts/social-account.js';
import { recordMediaFixtures } from '../../support/media.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';

let service: TestService;
let ws: TestWorkspace;
const accounts: Partial<Record<Platform, SocialAccountView>> = {};

beforeAll(async () => {
  service = await startTestService({
    env: {
      // One fault per platform, so each test exercises one behaviour.
      SANDBOX_FAULTS: 'linkedin:fail=1,threads:pending=1,bluesky:reject=1,tiktok:timeout=1',
      SANDBOX_PENDING_MS: '400',
      PUBLISH_POLL_INTERVAL_MS: '100',
      PUBLISH_MAX_ATTEMPTS: '4',
      PUBLISH_RETRY_BASE_MS: '300',
      PUBLISH_SWEEP_INTERVAL_MS: '30',
      POST_NOW_WAIT_MS: '3000',
    },
  });
  ws = await createTestWorkspace(service);
  for (const platform of ['linkedin', 'threads', 'bluesky', 'tiktok', 'reddit'] as const)
    accounts[platform] = await connectSandboxAccount(
      service,
      { orgId: ws.orgId, userId: ws.userIds.owner },
      platform,
    );
  await recordMediaFixtures(service, ws.orgId, tiktokVideo);
}, 120_000);
afterAll(async () => service?.stop());

async function getPost(postId: string): Promise<PostView> {
  const res = await service.request('GET', `${ws.base}/posts?limit=100`, { token: ws.tokens.owner });
  return ((await res.json()) as { data: { items: PostView[] } }).data.items.find((p) => p.id === postId)!;
}

const payloads: Partial<Record<Platform, object>> = {
  reddit: { reddit: { subreddit: 'test', title: 'A title' } },
  tiktok: {},
};

/** TikTok posts need a video: an asset of the workspace's media library (recorded in beforeAll). */
const tiktokVideo: MediaAsset = {
  kind: 'video',
  assetId: '00000000-0000-4000-8000-000000000001',
  url: 'https://cdn.example.com/v.mp4',
  contentType: 'video/mp4',
  sizeBytes: 1000,
  durationSeconds: 10,
  width: 1080,
  height: 1920,
};

/** An approved post on the platform's account, published now; answers the post-now response. */
async function postNow(platform: Platform, text = `Hello from ${platform} ${Math.random()}`) {
  const media = platform === 'tiktok' ? tiktokVideo : undefined;
  const created = await service.request('POST', `${ws.base}/post-groups`, {
    token: ws.tokens.owner,
    body: {
      title: 'Injected',
      posts: [
        {
          platform,
          contentText: text,
          socialAccountId: accounts[platform]!.id,
          ...(media ? { media } : {}),
          ...(payloads[platform] ? { platformPayload: payloads[platform] } : {}),
        },
      ],
    },
  });
  expect(created.status).toBe(200);
  const data = ((await created.json()) as { data: { group: { id: string }; posts: PostView[] } }).data;
  const postId = data.posts[0]!.id;
  await service.request('POST', `${ws.base}/post-groups/${data.group.id}/approve`, {
    token: ws.tokens.owner,
    body: { autoSchedule: false },
  });
  const res = await service.request('POST', `${ws.base}/posts/${postId}/post-now`, {
    token: ws.tokens.owner,
  });
  expect(res.status).toBe(200);
  return { postId, groupId: data.group.id, answer: ((await res.json()) as { data: PostView }).data };
}

async function streamEvents(groupId: string) {
  return service.runtime.eventStore.readStream(`postGroup-${groupId}`);
}

describe('retryable failures', () => {
  test('retry with growing delays, then fail for good with lastError', async () => {
    const { postId, groupId, answer } = await postNow('linkedin');
    // Post-now answers after the first attempt; on a loaded machine the next one may already be under way.
    expect(['scheduled', 'publishing']).toContain(answer.status);
    expect(answer.attemptCount).toBeGreaterThanOrEqual(1);
    expect(answer.lastError).toMatch(/unavailable/);
    const failed = (await waitUntil(async () => {
      const p = await getPost(postId);
      return p.status === 'failed' ? p : null;
    }))!;
    expect(failed.attemptCount).toBe(4);
    expect(failed.nextRetryAt).toBeNull();
    expect(failed.lastError).toMatch(/gave up after 4 attempts/);
    const failures = (await streamEvents(groupId)).filter((e) => e.type === 'PostPublishAttemptFailed');
    expect(failures).toHaveLength(4);
    const delays = failures
      .map((e) => e.data as { nextRetryAt: string | null })
      .map((d, i) =>
        d.nextRetryAt ? Date.parse(d.nextRetryAt) - Date.parse(failures[i]!.metadata.occurredAt) : null,
      );
    expect(delays[3]).toBeNull();
    // Equal jitter on a doubling ceiling: each delay lies in [ceiling/2, ceiling], so none is shorter than the last.
    const [d1, d2, d3] = delays as number[];
    expect(d1).toBeGreaterThanOrEqual(150);
    expect(d2).toBeGreaterThanOrEqual(d1!);
    expect(d3).toBeGreaterThanOrEqual(d2!);
    expect(d3).toBeGreaterThanOrEqual(600);
    expect(await sandboxPublicationsOf(service.runtime.readModels, postId)).toHaveLength(0);
    // A failed post keeps its approval: post-now may try again.
    const again = await service.request('POST', `${ws.base}/posts/${postId}/post-now`, {
      token: ws.tokens.owner,
    });
    expect(again.status).toBe(200);
  });
});

describe('pending on the platform', () => {
  test('awaiting_platform, polled until published', async () => {
    const { postId, groupId, answer } = await postNow('threads');
    expect(answer.status).toBe('awaiting_platform');
    const published = (await waitUntil(async () => {
      const p = await getPost(postId);
      return p.status === 'published' ? p : null;
    }))!;
    expect(published.publishedUrl).toMatch(/\/v1\/sandbox\/threads\/posts\//);
    expect(published.attemptCount).toBe(1);
    const types = (await streamEvents(groupId)).map((e) => e.type);
    expect(types.indexOf('PostAwaitingPlatform')).toBeGreaterThan(types.indexOf('PostPublishAttemptStarted'));
    expect(types.at(-1)).toBe('PostPublished');
    expect(await sandboxPublicationsOf(service.runtime.readModels, postId)).toHaveLength(1);
  });
});

describe('permanent failures', () => {
  test('a rejection fails at once, without retries', async () => {
    const { answer } = await postNow('bluesky');
    expect(answer.status).toBe('failed');
    expect(answer.attemptCount).toBe(1);
    expect(answer.nextRetryAt).toBeNull();
    expect(answer.lastError).toMatch(/rejected/);
  });
});

describe('lost answers', () => {
  test('every attempt whose answer is lost is checked first: published exactly once, or never', async () => {
    const results = await Promise.all([1, 2, 3, 4].map(() => postNow('tiktok')));
    for (const { postId } of results) {
      const settled = (await waitUntil(async () => {
        const p = await getPost(postId);
        return p.status === 'published' || p.status === 'failed' ? p : null;
      }))!;
      const publications = await sandboxPublicationsOf(service.runtime.readModels, postId);
      if (settled.status === 'published') expect(publications).toHaveLength(1);
      else {
        expect(publications).toHaveLength(0);
        expect(settled.lastError).toMatch(/gave up after 4 attempts/);
      }
    }
  });
});

describe('accounts', () => {
  test('a revoked account: refresh refused → the post fails naming the fix, the account is `error`', async () => {
    const account = accounts.reddit!;
    await setSandboxAccountRevoked(
      service.runtime.readModels as never,
      'reddit',
      account.accountExternalId,
      true,
    );
    const { answer } = await postNow('reddit');
    expect(answer.status).toBe('failed');
    expect(answer.lastError).toMatch(/reconnect/i);
    const listed = await service.request('GET', `${ws.base}/accounts`, { token: ws.tokens.owner });
    const row = ((await listed.json()) as { data: SocialAccountView[] }).data.find(
      (a) => a.id === account.id,
    )!;
    expect(row.status).toBe('error');
    const events = await service.runtime.eventStore.readStream(`socialAccount-${account.id}`);
    expect(events.map((e) => e.type)).toContain('SocialAccountRefreshFailed');
  });
});
