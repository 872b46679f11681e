// The metrics process end to end on the sandbox: a post published through the pipeline is put on the fetch
// schedule by the process manager, read at +1 h, +6 h, +24 h, then weekly to 30 days by the fetcher (driven by an injected
// clock shared with the sandbox platform and the account access), recorded as PostMetricsFetched and shown in
// the post_metrics read model. Two instances never read a post twice at once, a reading recorded by an instance
// that crashed is not taken again, deleted posts and removed accounts stop, transient failures come back.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { AccountAccess } from '../../../commands/social-accounts/account-access.js';
import { tokenStoreFor } from '../../../commands/social-accounts/social-account-commands.js';
import {
  loadPostMetrics,
  postMetricsStream,
  recordPostMetrics,
} from '../../../commands/analytics/post-metrics-commands.js';
import { postMetricsEventCodec } from '../../../domain/analytics/event-codec.js';
import type { PostMetricsEvent } from '../../../domain/analytics/post-metrics.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import {
  ConnectorError,
  type ConnectorRegistry,
  type MetricsReadLimits,
  type MetricsRequest,
  type PlatformConnector,
} from '../../../infra/connectors/port.js';
import {
  createSandboxConnector,
  sandboxMetrics,
  staticFaultSource,
} from '../../../infra/connectors/sandbox/index.js';
import { createLogger } from '../../../infra/logging/logger.js';
import { engagementHistory, postMetricsOf } from '../../../projections/analytics/queries.js';
import { MetricsFetcher } from '../../../processes/analytics/metrics-fetcher.js';
import type { PostMetricsFetchesTable } from '../../../processes/analytics/migrations.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

const hour = 3_600_000;
const timezone = 'America/New_York';
const logger = createLogger({ level: 'silent' });

let service: TestService;
let ws: TestWorkspace;
let accountId: string;
/** The clock of the fetcher, of the sandbox platform it reads and of the account access it uses. */
let clock = new Date();

beforeAll(async () => {
  service = await startTestService({ env: { POST_NOW_WAIT_MS: '5000' } });
  ws = await createTestWorkspace(service);
  accountId = (await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x')).id;
});
afterAll(async () => service?.stop());
// Each test sweeps the whole schedule: what earlier tests left due is put aside.
afterEach(async () => {
  await sql`update post_metrics_fetches set status = 'done', next_fetch_at = null where status = 'active'`.execute(
    service.runtime.readModels,
  );
});

function sandboxRegistry(wrap: (c: PlatformConnector) => PlatformConnector = (c) => c): ConnectorRegistry {
  const built = new Map<Platform, PlatformConnector>();
  return {
    get(platform) {
      let connector = built.get(platform);
      if (!connector) {
        connector = wrap(
          createSandboxConnector(platform, {
            db: service.runtime.readModels,
            publicBaseUrl: 'http://localhost:3000',
            faults: staticFaultSource('none'),
            pendingMs: 0,
            now: () => clock,
          }),
        );
        built.set(platform, connector);
      }
      return connector;
    },
  };
}

/** The connector with `before` called ahead of every metrics read, single or batched (it may throw). */
function readsThrough(
  c: PlatformConnector,
  before: (requests: readonly MetricsRequest[]) => void,
): PlatformConnector {
  return {
    ...c,
    fetchMetrics: async (context, request) => {
      before([request]);
      return c.fetchMetrics(context, request);
    },
    fetchMetricsBatch: async (context, requests) => {
      before(requests);
      return c.fetchMetricsBatch!(context, requests);
    },
  };
}

function fetcher(
  options: { owner?: string; connectors?: ConnectorRegistry; readLimits?: MetricsReadLimits } = {},
): MetricsFetcher {
  const { runtime } = service;
  const connectors = options.connectors ?? sandboxRegistry();
  return new MetricsFetcher({
    ...(options.readLimits ? { readLimits: () => options.readLimits! } : {}),
    db: runtime.readModels,
    commands: runtime.commands,
    connectors,
    accounts: new AccountAccess({
      db: runtime.readModels,
      commands: runtime.commands,
      tokens: tokenStoreFor(runtime.readModels, runtime.tokenCipher),
      connectors,
      logger,
      now: () => clock,
    }),
    logger,
    owner: options.owner ?? 'test-instance',
    timezoneOf: async (orgId) => (orgId === ws.orgId ? timezone : 'UTC'),
    now: () => clock,
  });
}

async function scheduleRow(postId: string): Promise<PostMetricsFetchesTable | undefined> {
  const { rows } = await sql<PostMetricsFetchesTable>`
    select * from post_metrics_fetches where post_id = ${postId}`.execute(service.runtime.readModels);
  return rows[0];
}

/** Publishes a new X post through the pipeline (post-now) and waits for it on the fetch schedule. */
async function publishPost(text: string) {
  const created = await service.request('POST', `${ws.base}/post-groups`, {
    token: ws.tokens.owner,
    body: {
      title: 'Metrics',
      contentType: 'educational',
      posts: [{ platform: 'x', contentText: text, socialAccountId: accountId }],
    },
  });
  expect(created.status).toBe(200);
  const body = (await created.json()) as { data: { group: { id: string }; posts: PostView[] } };
  const groupId = body.data.group.id;
  const postId = body.data.posts[0]!.id;
  await service.request('POST', `${ws.base}/post-groups/${groupId}/approve`, {
    token: ws.tokens.owner,
    body: { autoSchedule: false },
  });
  const res = await service.request('POST', `${ws.base}/posts/${postId}/post-now`, {
    token: ws.tokens.owner,
  });
  const post = ((await res.json()) as { data: PostView }).data;
  expect(post.status).toBe('published');
  const row = (await waitUntil(() => scheduleRow(postId), { what: 'the post on the fetch schedule' }))!;
  return { postId, groupId, externalId: post.publishedExternalId!, publishedAt: row.published_at, row };
}

async function metricsEvents(postId: string): Promise<PostMetricsEvent[]> {
  const stored = await service.runtime.eventStore.readStream(postMetricsStream(postId));
  return postMetricsEventCodec.decodeAll(stored);
}

const at = (publishedAt: string, ms: number) => new Date(Date.parse(publishedAt) + ms);

describe('the schedule', () => {
  test('a published post is read at +1 h, +6 h, +24 h, then weekly to 30 days, each reading recorded and shown', async () => {
    const { postId, groupId, externalId, publishedAt, row } = await publishPost('Read my numbers');
    expect(row).toMatchObject({
      org_id: ws.orgId,
      group_id: groupId,
      external_id: externalId,
      status: 'active',
      next_fetch_at: at(publishedAt, hour).toISOString(),
      fetches: 0,
    });
    const instance = fetcher();
    clock = at(publishedAt, 30 * 60_000);
    expect(await instance.runOnce()).toEqual({ recorded: 0, stopped: 0, retried: 0, deferred: 0 });

    const day = 24 * hour;
    const readings: Array<[number, number]> = [
      [hour + 5_000, 6 * hour],
      [6 * hour + 5_000, day],
      [day + 5_000, 7 * day],
      [7 * day + 5_000, 14 * day],
      [14 * day + 5_000, 21 * day],
      [21 * day + 5_000, 28 * day],
      [28 * day + 5_000, 30 * day],
      [30 * day + 5_000, 0],
    ];
    for (const [index, [age, nextAge]] of readings.entries()) {
      clock = at(publishedAt, age);
      expect(await instance.runOnce()).toEqual({ recorded: 1, stopped: 0, retried: 0, deferred: 0 });
      // The same round again finds nothing due.
      expect(await instance.runOnce()).toEqual({ recorded: 0, stopped: 0, retried: 0, deferred: 0 });
      const metrics = sandboxMetrics({ platform: 'x', externalId, publishedAt, timezone, now: clock });
      const events = await metricsEvents(postId);
      expect(events).toHaveLength(index + 1);
      expect(events.at(-1)).toEqual({
        type: 'PostMetricsFetched',
        data: {
          orgId: ws.orgId,
          postId,
          groupId,
          platform: 'x',
          socialAccountId: accountId,
          externalId,
          publishedAt,
          contentType: 'educational',
          metrics,
          engagement: metrics.likes + metrics.reposts + metrics.replies + metrics.quotes + metrics.bookmarks!,
          fetchNumber: index + 1,
          fetchedAt: clock.toISOString(),
        },
      });
      const shown = await waitUntil(async () => {
        const m = await postMetricsOf(service.runtime.readModels, ws.orgId, postId);
        return m?.fetchCount === index + 1 ? m : null;
      });
      expect(shown).toMatchObject({
        likes: metrics.likes,
        impressions: metrics.impressions,
        fetchCount: index + 1,
      });
      expect(await scheduleRow(postId)).toMatchObject({
        status: nextAge === 0 ? 'done' : 'active',
        next_fetch_at: nextAge === 0 ? null : at(publishedAt, nextAge).toISOString(),
        fetches: index + 1,
        lease_owner: null,
      });
    }
    // The numbers grew with the post's age.
    const engagement = (await metricsEvents(postId)).map((e) => e.data.engagement);
    expect(engagement[0]).toBeLessThan(engagement[1]!);
    expect(engagement[1]).toBeLessThan(engagement[3]!);
    clock = at(publishedAt, 40 * 24 * hour);
    expect(await instance.runOnce()).toEqual({ recorded: 0, stopped: 0, retried: 0, deferred: 0 });
    expect(
      (
        await engagementHistory(service.runtime.readModels, {
          orgId: ws.orgId,
          platform: 'x',
          timezone,
          since: at(publishedAt, -hour).toISOString(),
          contentType: 'educational',
        })
      ).posts,
    ).toBeGreaterThanOrEqual(1);
  });

  test('two instances sweeping at once read a post once', async () => {
    const { postId, publishedAt } = await publishPost('Only once');
    clock = at(publishedAt, hour + 1_000);
    const [a, b] = await Promise.all([
      fetcher({ owner: 'instance-a' }).runOnce(),
      fetcher({ owner: 'instance-b' }).runOnce(),
    ]);
    expect(a.recorded + b.recorded).toBe(1);
    expect(await metricsEvents(postId)).toHaveLength(1);
  });

  test('a reading recorded by an instance that crashed before moving on is not taken again', async () => {
    const { postId, groupId, externalId, publishedAt } = await publishPost('Crashed after recording');
    clock = at(publishedAt, hour + 2_000);
    // What the crashed instance got done: the event, without the schedule moving on (its lease ran out).
    await recordPostMetrics(
      service.runtime.commands,
      {
        orgId: ws.orgId,
        postId,
        groupId,
        platform: 'x',
        socialAccountId: accountId,
        externalId,
        publishedAt,
        contentType: 'educational',
        metrics: { likes: 1, reposts: 0, replies: 0, quotes: 0, bookmarks: 0, impressions: 30 },
        fetchedAt: clock.toISOString(),
      },
      { orgId: ws.orgId, actor: 'system', correlationId: randomUUID(), now: clock.toISOString() },
      { awaitReadModels: false },
    );
    const calls: string[] = [];
    const counting = sandboxRegistry((c) =>
      readsThrough(c, (requests) => calls.push(...requests.map((r) => r.externalId))),
    );
    clock = at(publishedAt, hour + 60_000);
    expect(await fetcher({ connectors: counting }).runOnce()).toMatchObject({ recorded: 1 });
    expect(calls).not.toContain(externalId);
    expect(await metricsEvents(postId)).toHaveLength(1);
    expect(await scheduleRow(postId)).toMatchObject({
      status: 'active',
      fetches: 1,
      next_fetch_at: at(publishedAt, 6 * hour).toISOString(),
    });
  });
});

describe('when a reading cannot be taken', () => {
  test('a post deleted on the platform is not read again', async () => {
    const { postId, externalId, publishedAt } = await publishPost('Deleted soon');
    const registry = sandboxRegistry();
    clock = at(publishedAt, hour + 1_000);
    const instance = fetcher({ connectors: registry });
    expect(await instance.runOnce()).toMatchObject({ recorded: 1 });
    const account = await service.runtime.accounts.resolve({
      orgId: ws.orgId,
      platform: 'x',
      socialAccountId: accountId,
    });
    if (!account.ok) throw new Error(account.message);
    await service.runtime.accounts.withTokens(account.account, (tokens) =>
      service.runtime.connectors
        .get('x')
        .delete(
          { account: account.account, tokens, fetchMedia: async () => Promise.reject(new Error('none')) },
          externalId,
        ),
    );
    clock = at(publishedAt, 24 * hour + 1_000);
    expect(await instance.runOnce()).toMatchObject({ recorded: 0, stopped: 1 });
    expect(await scheduleRow(postId)).toMatchObject({
      status: 'stopped',
      next_fetch_at: null,
      stopped_reason: 'x no longer has the post',
    });
    clock = at(publishedAt, 72 * hour + 1_000);
    expect(await instance.runOnce()).toMatchObject({ recorded: 0, stopped: 0 });
    expect(await metricsEvents(postId)).toHaveLength(1);
  });

  test('a transient failure is tried again on a later round', async () => {
    const { postId, publishedAt } = await publishPost('Flaky platform');
    let failures = 1;
    const flaky = sandboxRegistry((c) =>
      readsThrough(c, () => {
        if (failures-- > 0)
          throw new ConnectorError('retryable', 'x: the platform is unavailable (HTTP 503)');
      }),
    );
    const instance = fetcher({ connectors: flaky });
    clock = at(publishedAt, hour + 1_000);
    expect(await instance.runOnce()).toMatchObject({ recorded: 0, retried: 1 });
    expect(await scheduleRow(postId)).toMatchObject({
      status: 'active',
      attempts: 1,
      last_error: 'x: the platform is unavailable (HTTP 503)',
      next_fetch_at: new Date(clock.getTime() + 5 * 60_000).toISOString(),
    });
    clock = new Date(clock.getTime() + 5 * 60_000);
    expect(await instance.runOnce()).toMatchObject({ recorded: 1 });
    expect(await scheduleRow(postId)).toMatchObject({ attempts: 0, last_error: null, fetches: 1 });
  });

  test('fetching now reads the workspace posts of the last days at once, and an account that is gone stops them', async () => {
    const first = await publishPost('Refresh me');
    clock = at(first.publishedAt, 2 * hour);
    const refreshed = await fetcher().refreshWorkspace(ws.orgId);
    expect(refreshed.failed).toBe(0);
    expect(refreshed.updated).toBeGreaterThanOrEqual(1);
    expect(await postMetricsOf(service.runtime.readModels, ws.orgId, first.postId)).toMatchObject({
      fetchCount: 1,
    });
    // The schedule moves on from the reading: +6 h is the next one.
    expect(await scheduleRow(first.postId)).toMatchObject({
      next_fetch_at: at(first.publishedAt, 6 * hour).toISOString(),
    });

    const removed = await service.request('DELETE', `${ws.base}/accounts/${accountId}`, {
      token: ws.tokens.owner,
    });
    expect(removed.status).toBeLessThan(300);
    clock = at(first.publishedAt, 6 * hour + 1_000);
    const round = await fetcher().runOnce();
    expect(round.recorded).toBe(0);
    expect(round.stopped).toBeGreaterThanOrEqual(1);
    expect(await scheduleRow(first.postId)).toMatchObject({ status: 'stopped' });
    expect((await scheduleRow(first.postId))!.stopped_reason).toMatch(/account is gone/);
    expect((await loadPostMetrics(service.runtime.commands, first.postId)).state).toMatchObject({
      fetchCount: 1,
    });
  });
});

describe('sharing the platforms and the posts', () => {
  // The account of the tests above was removed by the last of them.
  beforeAll(async () => {
    accountId = (
      await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x', {
        account: 'sharing_x',
      })
    ).id;
  });

  test("posts over the platform's request budget wait for its next window and are then read; none fails", async () => {
    const posts = [
      await publishPost('Budget 1'),
      await publishPost('Budget 2'),
      await publishPost('Budget 3'),
    ];
    const publishedAt = posts[2]!.publishedAt;
    // Two requests per 15 minutes for the account, one post a request.
    const readLimits: MetricsReadLimits = {
      limits: [{ requests: 2, windowMs: 15 * 60_000, per: 'account' }],
      requestsPerPost: 1,
      postsPerRequest: 1,
    };
    const instance = fetcher({ readLimits });
    clock = at(publishedAt, hour + 1_000);
    expect(await instance.runOnce()).toEqual({ recorded: 2, stopped: 0, retried: 0, deferred: 1 });
    const waiting = (await Promise.all(posts.map((p) => scheduleRow(p.postId)))).find(
      (r) => r!.fetches === 0,
    )!;
    const windowEnd = new Date(Math.floor(clock.getTime() / (15 * 60_000)) * 15 * 60_000 + 15 * 60_000);
    expect(waiting).toMatchObject({
      status: 'active',
      attempts: 0,
      last_error: null,
      lease_owner: null,
      next_fetch_at: windowEnd.toISOString(),
    });
    // Still the same window: nothing due; the next window: the waiting post is read.
    expect(await instance.runOnce()).toEqual({ recorded: 0, stopped: 0, retried: 0, deferred: 0 });
    clock = windowEnd;
    expect(await instance.runOnce()).toEqual({ recorded: 1, stopped: 0, retried: 0, deferred: 0 });
    for (const post of posts) expect(await metricsEvents(post.postId)).toHaveLength(1);
  });

  test('a refresh over budget answers which posts wait for the platform, and leaves their schedule alone', async () => {
    const posts = [await publishPost('Refresh budget 1'), await publishPost('Refresh budget 2')];
    clock = at(posts[1]!.publishedAt, 2 * hour);
    const before = await scheduleRow(posts[0]!.postId);
    const result = await fetcher({
      readLimits: {
        limits: [{ requests: 1, windowMs: 60 * 60_000, per: 'account' }],
        requestsPerPost: 1,
        postsPerRequest: 1,
      },
    }).refreshWorkspace(ws.orgId, { allowance: async () => 2 });
    expect(result).toMatchObject({ processed: 1, updated: 1, failed: 0, deferred: 1, busy: 0 });
    expect(result.errors).toEqual([
      { platform: 'x', message: "1 post waits for X's rate limit and will be read when it allows" },
    ]);
    const rows = await Promise.all(posts.map((p) => scheduleRow(p.postId)));
    const unread = rows.find((r) => r!.fetches === 0)!;
    expect(unread.next_fetch_at).toBe(
      unread.post_id === before!.post_id
        ? before!.next_fetch_at
        : at(posts[1]!.publishedAt, hour).toISOString(),
    );
    expect(unread).toMatchObject({ attempts: 0, last_error: null, lease_owner: null });
  });

  test('two refreshes and the background fetcher at once never read one post at the same time', async () => {
    const posts = [
      await publishPost('Contended 1'),
      await publishPost('Contended 2'),
      await publishPost('Contended 3'),
      await publishPost('Contended 4'),
    ];
    const inFlight = new Map<string, number>();
    let overlaps = 0;
    let reads = 0;
    const tracking = sandboxRegistry((c) => {
      const slow = async <T>(requests: readonly MetricsRequest[], read: () => Promise<T>): Promise<T> => {
        for (const r of requests) {
          const n = (inFlight.get(r.externalId) ?? 0) + 1;
          if (n > 1) overlaps++;
          inFlight.set(r.externalId, n);
        }
        reads += requests.length;
        try {
          await new Promise((resolve) => setTimeout(resolve, 30));
          return await read();
        } finally {
          for (const r of requests) inFlight.set(r.externalId, inFlight.get(r.externalId)! - 1);
        }
      };
      return {
        ...c,
        fetchMetrics: (context, request) => slow([request], () => c.fetchMetrics(context, request)),
        fetchMetricsBatch: (context, requests) =>
          slow(requests, () => c.fetchMetricsBatch!(context, requests)),
      };
    });
    clock = at(posts[3]!.publishedAt, hour + 1_000);
    const [a, b, round] = await Promise.all([
      fetcher({ owner: 'instance-a', connectors: tracking }).refreshWorkspace(ws.orgId),
      fetcher({ owner: 'instance-b', connectors: tracking }).refreshWorkspace(ws.orgId),
      fetcher({ owner: 'instance-c', connectors: tracking }).runOnce(),
    ]);
    expect(overlaps).toBe(0);
    const recorded = (
      await Promise.all(posts.map(async (p) => (await metricsEvents(p.postId)).length))
    ).reduce((sum, n) => sum + n, 0);
    // Every read recorded a reading, and what one reader held the others skipped.
    expect(recorded).toBe(reads);
    expect(a.updated + b.updated + round.recorded).toBe(reads);
    expect(a.busy + b.busy).toBeGreaterThan(0);
    for (const post of posts) expect((await metricsEvents(post.postId)).length).toBeGreaterThanOrEqual(1);
  });
});
