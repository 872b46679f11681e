// POST ORG/marketing/analytics/refresh on the sandbox: the workspace's published posts read now and shown at once
// (read-your-writes), the answer's counts, fair use (posts read moments ago, the hour's posts and calls, here set
// to 3 posts and 4 calls an hour), errors grouped per platform, an Idempotency-Key replaying the answer, and who
// may call it: owners and admins; other roles, other workspaces and missing tokens are refused and change nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postMetricsStream } from '../../../commands/analytics/post-metrics-commands.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import { setSandboxAccountRevoked } from '../../../infra/connectors/sandbox/index.js';
import { postMetricsOf } from '../../../projections/analytics/queries.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    env: {
      POST_NOW_WAIT_MS: '10000',
      ANALYTICS_REFRESH_POSTS_PER_HOUR: '3',
      ANALYTICS_REFRESH_CALLS_PER_HOUR: '4',
    },
  });
});
afterAll(async () => service?.stop());

interface Refresh {
  processed: number;
  updated: number;
  failed: number;
  skippedFairUse?: number;
  errors?: Array<{ platform: string; message: string }>;
}

const refresh = (ws: TestWorkspace, token = ws.tokens.owner, headers: Record<string, string> = {}) =>
  service.request('POST', `/v1/orgs/${ws.orgId}/marketing/analytics/refresh`, { token, headers });

async function answer(res: Response): Promise<Refresh> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Refresh }).data;
}

/** A workspace with one sandbox account per platform given. */
async function workspaceWith(platforms: Platform[]) {
  const ws = await createTestWorkspace(service);
  const accounts = {} as Record<Platform, { id: string; accountExternalId: string }>;
  for (const platform of platforms)
    accounts[platform] = await connectSandboxAccount(
      service,
      { orgId: ws.orgId, userId: ws.userIds.owner },
      platform,
      { account: `refresh_${platform}_${ws.orgId.slice(0, 8)}` },
    );
  return { ws, accounts };
}

/** One group with a post per platform, approved and each post published now. */
async function publish(
  ws: TestWorkspace,
  accounts: Partial<Record<Platform, { id: string }>>,
): Promise<PostView[]> {
  const created = await service.request('POST', `${ws.base}/post-groups`, {
    token: ws.tokens.owner,
    body: {
      title: 'Numbers',
      posts: Object.entries(accounts).map(([platform, account]) => ({
        platform,
        contentText: `Refresh me on ${platform} ${Math.random()}`,
        socialAccountId: account.id,
      })),
    },
  });
  expect(created.status).toBe(200);
  const group = ((await created.json()) as { data: { group: { id: string }; posts: PostView[] } }).data;
  await service.request('POST', `${ws.base}/post-groups/${group.group.id}/approve`, {
    token: ws.tokens.owner,
    body: { autoSchedule: false },
  });
  const published: PostView[] = [];
  for (const post of group.posts) {
    const res = await service.request('POST', `${ws.base}/posts/${post.id}/post-now`, {
      token: ws.tokens.owner,
    });
    const view = ((await res.json()) as { data: PostView }).data;
    expect(view.status).toBe('published');
    published.push(view);
  }
  // The post-metrics process puts each published post on the schedule right after PostPublished.
  await waitForSchedule(published.map((p) => p.id));
  return published;
}

async function waitForSchedule(postIds: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await service.runtime.readModels
      .selectFrom('post_metrics_fetches' as never)
      .select('post_id' as never)
      .where('post_id' as never, 'in', postIds as never)
      .execute();
    if (rows.length === postIds.length) return;
    if (Date.now() > deadline) throw new Error('posts not on the metrics schedule');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const readings = async (postId: string) =>
  (await service.runtime.eventStore.readStream(postMetricsStream(postId))).length;

describe('refreshing', () => {
  test("reads the workspace's published posts now, and every read model shows them when it answers", async () => {
    const { ws, accounts } = await workspaceWith(['x', 'linkedin']);
    const posts = await publish(ws, accounts);
    const data = await answer(await refresh(ws));
    expect(data).toEqual({ processed: 2, updated: 2, failed: 0, skippedFairUse: 0, errors: [] });
    for (const post of posts) {
      expect(await readings(post.id)).toBe(1);
      expect(await postMetricsOf(service.runtime.readModels, ws.orgId, post.id)).toMatchObject({
        fetchCount: 1,
        platform: post.platform,
      });
    }
  });

  test('posts read moments ago are skipped (fair use), and so are those beyond the hour’s allowance', async () => {
    const { ws, accounts } = await workspaceWith(['x', 'linkedin', 'bluesky', 'threads']);
    const posts = await publish(ws, accounts);
    // Three posts an hour: the fourth is left out.
    expect(await answer(await refresh(ws))).toEqual({
      processed: 3,
      updated: 3,
      failed: 0,
      skippedFairUse: 1,
      errors: [],
    });
    // Again at once: the three are fresh, and the allowance is spent for the fourth.
    expect(await answer(await refresh(ws))).toEqual({
      processed: 0,
      updated: 0,
      failed: 0,
      skippedFairUse: 4,
      errors: [],
    });
    expect((await Promise.all(posts.map((p) => readings(p.id)))).sort()).toEqual([0, 1, 1, 1]);
  });

  test('a fifth call in the hour is refused with 429 and the time to wait, and records nothing', async () => {
    const { ws, accounts } = await workspaceWith(['x']);
    await publish(ws, accounts);
    for (let call = 1; call <= 4; call++) expect((await refresh(ws)).status).toBe(200);
    const before = await eventCount(service);
    const res = await refresh(ws);
    expect(res.status).toBe(429);
    const body = (await res.json()) as { code: string; retryAfterSeconds: number; error: string };
    expect(body.code).toBe('rate_limit_exceeded');
    expect(body.retryAfterSeconds).toBeGreaterThan(0);
    expect(body.retryAfterSeconds).toBeLessThanOrEqual(3600);
    expect(body.error).toMatch(/fair use/);
    expect(await eventCount(service)).toBe(before);
  });

  test('failures are grouped per platform, each reason with its number of posts; the others are read', async () => {
    const { ws, accounts } = await workspaceWith(['x', 'bluesky']);
    const [xPost, bskyPost] = await publish(ws, accounts);
    // Bluesky no longer lets us in; the X post was deleted on X.
    await setSandboxAccountRevoked(
      service.runtime.readModels as never,
      'bluesky',
      accounts.bluesky.accountExternalId,
      true,
    );
    const account = await service.runtime.accounts.resolve({
      orgId: ws.orgId,
      platform: 'x',
      socialAccountId: accounts.x.id,
    });
    if (!account.ok) throw new Error(account.message);
    await service.runtime.accounts.withTokens(account.account, (tokens) =>
      service.runtime.connectors
        .get('x')
        .delete(
          { account: account.account, tokens, fetchMedia: async () => Promise.reject(new Error('none')) },
          xPost!.publishedExternalId!,
        ),
    );
    const data = await answer(await refresh(ws));
    expect(data).toMatchObject({ processed: 2, updated: 0, failed: 2, skippedFairUse: 0 });
    expect(data.errors).toHaveLength(2);
    expect(data.errors![0]).toEqual({ platform: 'bluesky', message: expect.stringMatching(/\(1 post\)$/) });
    expect(data.errors![0]!.message).toMatch(/reconnect/i);
    expect(data.errors![1]).toEqual({ platform: 'x', message: 'x no longer has the post (1 post)' });
    expect(await readings(bskyPost!.id)).toBe(0);
  });

  test('an Idempotency-Key replays the first answer without reading again', async () => {
    const { ws, accounts } = await workspaceWith(['linkedin']);
    const [post] = await publish(ws, accounts);
    const headers = { 'idempotency-key': `refresh-${ws.orgId}` };
    const first = await refresh(ws, ws.tokens.owner, headers);
    const second = await refresh(ws, ws.tokens.owner, headers);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    expect(await readings(post!.id)).toBe(1);
  });
});

describe('who may refresh', () => {
  test('owners and admins; reviewers, editors and viewers get 403 and nothing is read', async () => {
    const { ws, accounts } = await workspaceWith(['x']);
    const [post] = await publish(ws, accounts);
    const before = await eventCount(service);
    for (const role of ['reviewer', 'editor', 'viewer'] as const) {
      const res = await refresh(ws, ws.tokens[role]);
      expect(res.status, role).toBe(403);
    }
    expect(await eventCount(service)).toBe(before);
    expect(await readings(post!.id)).toBe(0);
    expect((await refresh(ws, ws.tokens.admin)).status).toBe(200);
  });

  test('no token is 401, another workspace’s token or a malformed workspace id 403; nothing changes', async () => {
    const { ws } = await workspaceWith([]);
    const other = await createTestWorkspace(service, 'Other');
    const before = await eventCount(service);
    expect((await service.request('POST', `/v1/orgs/${ws.orgId}/marketing/analytics/refresh`)).status).toBe(
      401,
    );
    expect((await refresh(ws, other.tokens.owner)).status).toBe(403);
    const malformed = await service.request('POST', '/v1/orgs/not-a-workspace/marketing/analytics/refresh', {
      token: ws.tokens.owner,
    });
    expect(malformed.status).toBe(403);
    expect(await eventCount(service)).toBe(before);
    // A workspace without posts: nothing to read.
    expect(await answer(await refresh(ws))).toEqual({
      processed: 0,
      updated: 0,
      failed: 0,
      skippedFairUse: 0,
      errors: [],
    });
  });
});
