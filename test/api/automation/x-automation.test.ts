// ORG/automation/x through the whole service: rules saved with safe defaults (kinds and fields left out keep
// theirs, null clears a threshold), runs in dry run that touch nothing, live runs that repost through the X
// connector and delete through the x-posts deletion (the post removed here and on the sandbox platform), members
// notified, the runs list, bad input as 400 in the spec's error shape changing nothing, roles and other
// workspaces refused, an Idempotency-Key replaying a run, two instances running at once within the caps, and the tools.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import type { SocialAccountView } from '../../../domain/social-accounts/social-account.js';
import { sandboxPublicationsOf } from '../../../infra/connectors/sandbox/index.js';
import { connectAssistant } from '../../support/assistant.js';
import {
  eventCount,
  startAnotherInstance,
  startTestService,
  type TestService,
} from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { publishedXPost as publishedXPostWith } from '../../support/x-automation.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

/** An answer as JSON, read loosely: each test checks the fields it is about. */
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let account: SocialAccountView;

// The nightly sweep is tested on its own (test/processes/automation); here it must not run on its own clock.
// Read-your-writes waits longer than by default: a run folds many events, and the shared test machine is busy.
const env = {
  AUTOMATION_SWEEP_INTERVAL_MS: '0',
  PUBLISH_SWEEP_INTERVAL_MS: '50',
  POST_NOW_WAIT_MS: '10000',
  READ_YOUR_WRITES_TIMEOUT_MS: '20000',
};

beforeAll(async () => {
  service = await startTestService({ env });
  ws = await createTestWorkspace(service);
  other = await createTestWorkspace(service, 'Other');
  account = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
});
afterAll(async () => service?.stop());

const rulesPath = (w: TestWorkspace = ws) => `/v1/orgs/${w.orgId}/automation/x/rules`;
const runPath = (w: TestWorkspace = ws) => `/v1/orgs/${w.orgId}/automation/x/run`;
const runsPath = (w: TestWorkspace = ws) => `/v1/orgs/${w.orgId}/automation/x/runs`;

async function call(
  method: string,
  path: string,
  body?: unknown,
  token = ws.tokens.owner,
  headers?: Record<string, string>,
) {
  const res = await service.request(method, path, {
    token,
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });
  return { status: res.status, res, json: (await res.json()) as Loose };
}

/** An X post published now through post-now, with one reading of its metrics (`fetchedHoursAgo` before now). */
const publishedXPost = (
  w: TestWorkspace,
  metrics: { impressions: number | null; likes: number; replies?: number },
  fetchedHoursAgo = 0,
) => publishedXPostWith(service, w, account, { ...metrics, fetchedHoursAgo });

async function listedPost(postId: string): Promise<PostView | undefined> {
  const res = await call('GET', `${ws.base}/posts?limit=100`);
  return (res.json.data.items as PostView[]).find((p) => p.id === postId);
}

/** Removes the workspace's rules' effect between tests: both rules off. */
async function rulesOff(w: TestWorkspace = ws) {
  const res = await call(
    'PUT',
    rulesPath(w),
    { autoRepost: { enabled: false }, autoDelete: { enabled: false } },
    w.tokens.owner,
  );
  expect(res.status).toBe(200);
}

describe('rules', () => {
  test('never set up: every field null', async () => {
    const res = await call('GET', rulesPath(other), undefined, other.tokens.viewer);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      data: { autoRepost: null, autoDelete: null, updatedAt: null, updatedBy: null },
    });
  });

  test('saved the first time: safe defaults (off, dry run); a kind left out keeps its rule; null clears a threshold', async () => {
    const first = await call('PUT', rulesPath(other), { autoRepost: { minAgeHours: 6 } }, other.tokens.admin);
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({
      autoRepost: {
        channel: 'x',
        enabled: false,
        dryRun: true,
        minAgeHours: 6,
        action: 'retweet',
        selection: { mode: 'top_n' },
      },
      autoDelete: null,
      updatedBy: other.userIds.admin,
    });
    // Read-your-writes: the GET right after shows it.
    expect((await call('GET', rulesPath(other), undefined, other.tokens.viewer)).json.data).toEqual(
      first.json.data,
    );

    const second = await call(
      'PUT',
      rulesPath(other),
      {
        autoDelete: { maxImpressions: 100, maxLikes: 2 },
        autoRepost: { selection: { mode: 'threshold', minLikes: 10, minImpressions: 500 } },
      },
      other.tokens.owner,
    );
    expect(second.json.data.autoRepost).toMatchObject({
      minAgeHours: 6,
      selection: { mode: 'threshold', minLikes: 10, minImpressions: 500, minEngagementRate: null },
    });
    expect(second.json.data.autoDelete).toMatchObject({
      enabled: false,
      dryRun: true,
      maxImpressions: 100,
      maxLikes: 2,
      requireMetricsFetched: true,
    });

    const third = await call(
      'PUT',
      rulesPath(other),
      { autoRepost: { selection: { minLikes: null } }, autoDelete: { maxLikes: null } },
      other.tokens.owner,
    );
    expect(third.json.data.autoRepost.selection).toEqual({
      mode: 'threshold',
      minImpressions: 500,
      minLikes: null,
      minEngagementRate: null,
    });
    expect(third.json.data.autoDelete).toMatchObject({ maxImpressions: 100, maxLikes: null });
    expect(third.json.data.autoRepost.minAgeHours).toBe(6);
  });

  test('bad input is a 400 in the spec error shape naming the field, and changes nothing', async () => {
    const before = await eventCount(service);
    const cases: Array<[unknown, string]> = [
      [{ autoRepost: { maxActionsPerDay: 0 } }, 'body.autoRepost.maxActionsPerDay'],
      [{ autoRepost: { maxActionsPerDay: 2.5 } }, 'body.autoRepost.maxActionsPerDay'],
      [{ autoDelete: { metricsMaxAgeHours: 'soon' } }, 'body.autoDelete.metricsMaxAgeHours'],
      [{ autoDelete: { requireMetricsFetched: false } }, 'body.autoDelete.requireMetricsFetched'],
      [{ autoDelete: { unknownField: 1 } }, 'body.autoDelete.unknownField'],
      [{ autoRepost: { selection: { mode: 'top_n', minLikes: 3 } } }, 'body.autoRepost.selection.minLikes'],
      [{ autoDelete: { minAgeHours: 48, maxAgeDays: 1 } }, 'body.autoDelete.minAgeHours'],
      [{ autoDelete: { socialAccountId: randomUUID() } }, 'body.autoDelete.socialAccountId'],
      [{ autoRepost: null }, 'body.autoRepost'],
    ];
    for (const [body, path] of cases) {
      const res = await call('PUT', rulesPath(), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.json.error).toBe('string');
      expect(
        (res.json.details as Array<{ path: string }>).map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const run = await call('POST', runPath(), { kinds: ['auto_like'] });
    expect(run.status).toBe(400);
    expect((run.json.details as Array<{ path: string }>)[0]!.path).toMatch(/^body\.kinds/);
    expect((await call('POST', runPath(), { dryRun: 'yes' })).status).toBe(400);
    const runs = await call('GET', `${runsPath()}?limit=0`);
    expect(runs.status).toBe(400);
    expect((runs.json.details as Array<{ path: string }>)[0]!.path).toBe('query.limit');
    expect(await eventCount(service)).toBe(before);
  });

  test('roles: every member reads; only owners and admins save and run', async () => {
    expect((await call('GET', rulesPath(), undefined, ws.tokens.viewer)).status).toBe(200);
    expect((await call('GET', runsPath(), undefined, ws.tokens.viewer)).status).toBe(200);
    const before = await eventCount(service);
    for (const role of ['reviewer', 'editor', 'viewer'] as const) {
      expect((await call('PUT', rulesPath(), { autoRepost: {} }, ws.tokens[role])).status).toBe(403);
      expect((await call('POST', runPath(), {}, ws.tokens[role])).status).toBe(403);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test("another workspace's token is refused on every operation", async () => {
    const before = await eventCount(service);
    expect((await call('GET', rulesPath(), undefined, other.tokens.owner)).status).toBe(403);
    expect((await call('PUT', rulesPath(), { autoRepost: {} }, other.tokens.owner)).status).toBe(403);
    expect((await call('POST', runPath(), {}, other.tokens.owner)).status).toBe(403);
    expect((await call('GET', runsPath(), undefined, other.tokens.owner)).status).toBe(403);
    expect((await service.request('GET', rulesPath())).status).toBe(401);
    expect(await eventCount(service)).toBe(before);
  });
});

describe('runs', () => {
  test('nothing set up: the run says so and does nothing', async () => {
    const res = await call('POST', runPath(other), undefined, other.tokens.owner);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      kinds: [],
      actions: [],
      counts: { evaluated: 0, matched: 0, acted: 0, skipped: 0, failed: 0 },
    });
    expect((res.json.data.warnings as string[]).join(' ')).toMatch(/is off/);
  });

  test('dry run: planned actions, nothing touched on X, listed in the runs', async () => {
    const weak = await publishedXPost(ws, { impressions: 10, likes: 0 });
    const put = await call('PUT', rulesPath(), {
      autoDelete: {
        enabled: true,
        minAgeHours: 0,
        maxImpressions: 100,
        maxActionsPerDay: 5,
        skipIfRepliesGte: 3,
      },
    });
    expect(put.json.data.autoDelete).toMatchObject({ enabled: true, dryRun: true });
    const before = await eventCount(service);
    const res = await call('POST', runPath(), { kinds: ['auto_delete'] });
    expect(res.status).toBe(200);
    const data = res.json.data;
    expect(data.dryRun).toBe(true);
    expect(data.kinds).toEqual(['auto_delete']);
    expect(data.counts.acted).toBe(0);
    const mine = (data.actions as Array<Record<string, unknown>>).find((a) => a.sourcePostId === weak.id);
    expect(mine).toMatchObject({
      kind: 'auto_delete',
      status: 'planned',
      dryRun: true,
      externalTweetId: weak.publishedExternalId,
      socialAccountId: account.id,
      error: null,
    });
    expect((data.warnings as string[]).join(' ')).toMatch(/dry run/);
    // Untouched: still published here and on the platform.
    expect((await listedPost(weak.id))?.status).toBe('published');
    expect((await sandboxPublicationsOf(service.runtime.readModels, weak.id))[0]!.status).toBe('published');
    expect(await eventCount(service)).toBeGreaterThan(before);
    const listed = await call('GET', runsPath(), undefined, ws.tokens.viewer);
    expect((listed.json.data.items as Array<{ id: string }>).map((a) => a.id)).toContain(mine!.id);
    // A live rule asked for a dry run plans too.
    await call('PUT', rulesPath(), { autoDelete: { dryRun: false } });
    const asked = await call('POST', runPath(), { kinds: ['auto_delete'], dryRun: true });
    expect(asked.json.data.dryRun).toBe(true);
    expect(
      (asked.json.data.actions as Array<{ status: string }>).every(
        (a) => a.status === 'planned' || a.status === 'skipped',
      ),
    ).toBe(true);
    expect((await listedPost(weak.id))?.status).toBe('published');
    await rulesOff();
  });

  test('live delete: deleted on X and removed here; stale metrics and replies protect a post; members notified', async () => {
    const weak = await publishedXPost(ws, { impressions: 5, likes: 0 });
    const stale = await publishedXPost(ws, { impressions: 5, likes: 0 }, 60);
    const discussed = await publishedXPost(ws, { impressions: 5, likes: 0, replies: 4 });
    const strong = await publishedXPost(ws, { impressions: 5_000, likes: 80 });
    await call('PUT', rulesPath(), {
      autoDelete: {
        enabled: true,
        dryRun: false,
        minAgeHours: 0,
        maxImpressions: 100,
        metricsMaxAgeHours: 48,
        skipIfRepliesGte: 3,
        maxActionsPerDay: 50,
      },
    });
    const res = await call('POST', runPath(), { kinds: ['auto_delete'] });
    expect(res.status).toBe(200);
    const actions = res.json.data.actions as Loose[];
    const of = (p: PostView) => actions.find((a) => a.sourcePostId === p.id);
    expect(of(weak)).toMatchObject({ status: 'succeeded', dryRun: false });
    expect(of(discussed)).toMatchObject({ status: 'skipped' });
    expect(of(discussed)!.reason).toMatch(/skipIfRepliesGte 3/);
    expect(of(stale)).toBeUndefined();
    expect(of(strong)).toBeUndefined();
    expect((res.json.data.warnings as string[]).join(' ')).toMatch(/metrics are older than 48 h/);
    expect(res.json.data.dryRun).toBe(false);
    // Removed here as x-posts/delete does, and gone from the platform; the others stay.
    expect(await listedPost(weak.id)).toBeUndefined();
    expect((await sandboxPublicationsOf(service.runtime.readModels, weak.id))[0]!.status).toBe('deleted');
    for (const kept of [stale, discussed, strong])
      expect((await listedPost(kept.id))?.status).toBe('published');
    const listed = await call('GET', runsPath());
    expect(
      (listed.json.data.items as Array<{ id: string; status: string }>).find((a) => a.id === of(weak)!.id)
        ?.status,
    ).toBe('succeeded');
    // Members are told; the owner who ran it is not.
    const deleted = actions.filter((a) => a.status === 'succeeded').length;
    const title = `X automation deleted ${deleted} post${deleted === 1 ? '' : 's'}`;
    await waitUntil(
      async () => {
        const inbox = await call(
          'GET',
          `/v1/orgs/${ws.orgId}/notifications?unreadOnly=false`,
          undefined,
          ws.tokens.editor,
        );
        return (inbox.json.data.items as Array<{ type: string; title: string }>).some(
          (n) => n.type === 'x_automation_acted' && n.title === title,
        );
      },
      { what: "the editor's x_automation_acted notification" },
    );
    const ownerInbox = await call(
      'GET',
      `/v1/orgs/${ws.orgId}/notifications?unreadOnly=false`,
      undefined,
      ws.tokens.owner,
    );
    expect(
      (ownerInbox.json.data.items as Array<{ type: string }>).some((n) => n.type === 'x_automation_acted'),
    ).toBe(false);
    await rulesOff();
  });

  test('live repost: the best post reposted once, then in its cooldown', async () => {
    const best = await publishedXPost(ws, { impressions: 90_000, likes: 900 });
    await call('PUT', rulesPath(), {
      autoRepost: {
        enabled: true,
        dryRun: false,
        minAgeHours: 0,
        selection: { mode: 'top_n', n: 1, rankBy: 'impressions' },
        maxActionsPerDay: 5,
      },
    });
    const first = await call('POST', runPath(), { kinds: ['auto_repost'] });
    expect(first.json.data.counts).toMatchObject({ matched: 1, acted: 1, failed: 0 });
    expect(first.json.data.actions[0]).toMatchObject({
      kind: 'auto_repost',
      status: 'succeeded',
      sourcePostId: best.id,
    });
    expect(first.json.data.actions[0].reason).toMatch(/#1 of the top 1 by impressions/);
    const second = await call('POST', runPath(), { kinds: ['auto_repost'] });
    // The best post is in its cooldown: the next best is reposted instead.
    expect(
      (second.json.data.actions as Array<{ sourcePostId: string }>).map((a) => a.sourcePostId),
    ).not.toContain(best.id);
    await rulesOff();
  });

  test('a post gone from X fails its repost', async () => {
    const gone = await publishedXPost(ws, { impressions: 500_000, likes: 5_000 });
    const ref = { ...account, xSubscription: null };
    await service.runtime.accounts.withTokens(ref, (tokens) =>
      service.runtime.connectors
        .get('x')
        .delete(
          { account: ref, tokens, fetchMedia: () => Promise.reject(new Error()) },
          gone.publishedExternalId!,
        ),
    );
    await call('PUT', rulesPath(), {
      autoRepost: {
        enabled: true,
        dryRun: false,
        minAgeHours: 0,
        selection: { mode: 'top_n', n: 1, rankBy: 'impressions' },
        maxActionsPerDay: 10,
      },
    });
    const res = await call('POST', runPath(), { kinds: ['auto_repost'] });
    expect(res.json.data.actions[0]).toMatchObject({
      sourcePostId: gone.id,
      status: 'failed',
      error: 'X no longer has the post',
    });
    await rulesOff();
  });

  test('an Idempotency-Key replays the first run', async () => {
    const key = randomUUID();
    const first = await call('POST', runPath(), { dryRun: true }, ws.tokens.owner, {
      'Idempotency-Key': key,
    });
    const count = await eventCount(service);
    const again = await call('POST', runPath(), { dryRun: true }, ws.tokens.owner, {
      'Idempotency-Key': key,
    });
    expect(again.status).toBe(200);
    expect(again.res.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    expect(await eventCount(service)).toBe(count);
  });
});

describe('two instances at once', () => {
  test('runs on both never exceed maxActionsPerDay', async () => {
    const w = await createTestWorkspace(service, 'Concurrent');
    account = await connectSandboxAccount(service, { orgId: w.orgId, userId: w.userIds.owner }, 'x');
    const posts = [];
    for (let i = 0; i < 5; i++) posts.push(await publishedXPost(w, { impressions: 1, likes: 0 }));
    const put = await call(
      'PUT',
      rulesPath(w),
      {
        autoDelete: {
          enabled: true,
          dryRun: false,
          minAgeHours: 0,
          maxImpressions: 100,
          maxActionsPerDay: 2,
        },
      },
      w.tokens.owner,
    );
    expect(put.status).toBe(200);
    const second = await startAnotherInstance(service, { env });
    try {
      const request = (instance: TestService) =>
        instance.request('POST', runPath(w), { token: w.tokens.owner, body: { kinds: ['auto_delete'] } });
      const answers = await Promise.all([
        request(service),
        request(second),
        request(service),
        request(second),
      ]);
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<{
        data: { counts: { acted: number } };
      }>;
      expect(bodies.reduce((sum, b) => sum + b.data.counts.acted, 0)).toBe(2);
      let deleted = 0;
      for (const p of posts)
        if ((await sandboxPublicationsOf(service.runtime.readModels, p.id))[0]!.status === 'deleted')
          deleted++;
      expect(deleted).toBe(2);
    } finally {
      await second.stop();
    }
  });
});

describe('tools', () => {
  test('the four tools answer as the routes do; saving and running need posts:write', async () => {
    const reader = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['mcp:read'],
    });
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['get_x_automation_rules', 'list_x_automation_runs']));
    expect(names).not.toContain('update_x_automation_rules');
    expect(names).not.toContain('run_x_automation');

    const writer = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const saved = (await writer.client.callTool({
      name: 'update_x_automation_rules',
      arguments: { autoRepost: { maxActionsPerDay: 3 } },
    })) as CallToolResult;
    expect(saved.isError, JSON.stringify(saved)).toBeFalsy();
    expect(saved.structuredContent).toMatchObject({ autoRepost: { maxActionsPerDay: 3 } });
    const got = (await writer.client.callTool({
      name: 'get_x_automation_rules',
      arguments: {},
    })) as CallToolResult;
    expect(got.structuredContent).toEqual((await call('GET', rulesPath())).json.data);
    const ran = (await writer.client.callTool({
      name: 'run_x_automation',
      arguments: { dryRun: true },
    })) as CallToolResult;
    expect(ran.structuredContent).toMatchObject({ dryRun: true, counts: { acted: 0 } });
    const listed = (await writer.client.callTool({
      name: 'list_x_automation_runs',
      arguments: { limit: 5 },
    })) as CallToolResult;
    expect((listed.structuredContent as { items: unknown[] }).items.length).toBeLessThanOrEqual(5);
    const bad = (await writer.client.callTool({
      name: 'update_x_automation_rules',
      arguments: { autoRepost: { maxActionsPerDay: 0 } },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.structuredContent)).toMatch(/arguments\.autoRepost\.maxActionsPerDay/);
    // A viewer's connection is refused by the role even with the scope.
    const viewer = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const refused = (await viewer.client.callTool({
      name: 'run_x_automation',
      arguments: {},
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ status: 403 });
  });
});
