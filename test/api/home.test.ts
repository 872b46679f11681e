// GET ORG/home (get_home_summary): posts waiting for approval by group (longest waiting first), the next scheduled
// posts and how many are ahead or failed, the last 7 days' results against the 7 before (as the performance
// summary counts them), and the credits left (as GET ORG/billing shows them). Every member reads it; other
// workspaces are refused; the tool answers what the route answers.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createHomeSlice } from '../../api/home/slice.js';
import { createPerformanceSlice } from '../../api/performance/slice.js';
import { slices } from '../../api/slices.js';
import { roles } from '../../domain/workspaces/roles.js';
import { connectAssistant } from '../support/assistant.js';
import { PublishedPosts } from '../support/published-posts.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Monday 5 April 2027, 09:00 UTC. */
const now = new Date('2027-04-05T09:00:00.000Z');
const clock = () => now;

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
const ids: Record<string, string> = {};

beforeAll(async () => {
  service = await startTestService({
    slices: slices.map((s) =>
      s.name === 'performance'
        ? createPerformanceSlice({ now: clock })
        : s.name === 'home'
          ? createHomeSlice({ now: clock })
          : s,
    ),
    publishing: { sweep: false, work: false },
  });
  ws = await createTestWorkspace(service);
  other = await createTestWorkspace(service, 'Other');
  const f = new PublishedPosts(service.runtime.commands, ws.orgId, ws.userIds.owner);

  // Waiting for approval: "Older" since 1 April (two posts), "Newer" since 3 April (one).
  const older = await f.pendingGroup({
    title: 'Older',
    topic: 'launch',
    posts: [{ platform: 'x' }, { platform: 'linkedin' }],
    at: '2027-04-01T08:00:00.000Z',
  });
  const newer = await f.pendingGroup({
    title: 'Newer',
    posts: [{ platform: 'x' }],
    at: '2027-04-03T08:00:00.000Z',
  });
  ids.older = older.groupId;
  ids.newer = newer.groupId;

  // Scheduled: one on 6 April and one on 7 April (ahead), one on 4 April (behind "now", not published).
  const plan = await f.approvedGroup({
    title: 'Plan',
    posts: [
      { platform: 'x', contentText: 'Tomorrow' },
      { platform: 'linkedin', contentText: 'The day after' },
      { platform: 'bluesky', contentText: 'Yesterday' },
    ],
    at: '2027-04-01T08:00:00.000Z',
  });
  await f.schedule(plan, plan.postIds[1]!, '2027-04-07T09:00:00.000Z', '2027-04-01T08:00:00.000Z');
  await f.schedule(plan, plan.postIds[0]!, '2027-04-06T09:00:00.000Z', '2027-04-01T08:00:00.000Z');
  await f.schedule(plan, plan.postIds[2]!, '2027-04-04T09:00:00.000Z', '2027-04-01T08:00:00.000Z');
  ids.tomorrow = plan.postIds[0]!;
  ids.dayAfter = plan.postIds[1]!;
  ids.plan = plan.groupId;
  // Failed for good.
  const failed = await f.approvedGroup({ posts: [{ platform: 'x' }], at: '2027-04-01T08:00:00.000Z' });
  await f.failPublishing(failed, failed.postIds[0]!, '2027-04-02T08:00:00.000Z');

  // Results: one post in the last 7 days (30 March – 5 April, UTC), one in the 7 before.
  const recent = await f.approvedGroup({
    topic: 'launch',
    posts: [{ platform: 'x', contentText: 'Recent' }],
    at: '2027-03-20T08:00:00.000Z',
  });
  await f.publish(recent, recent.postIds[0]!, '2027-04-02T10:00:00.000Z');
  await f.reading(
    {
      groupId: recent.groupId,
      postId: recent.postIds[0]!,
      platform: 'x',
      publishedAt: '2027-04-02T10:00:00.000Z',
    },
    { likes: 20, replies: 2, impressions: 400 },
    '2027-04-02T11:00:00.000Z',
  );
  ids.recent = recent.postIds[0]!;
  const earlier = await f.approvedGroup({
    posts: [{ platform: 'linkedin' }],
    at: '2027-03-20T08:00:00.000Z',
  });
  await f.publish(earlier, earlier.postIds[0]!, '2027-03-25T10:00:00.000Z');
  await f.reading(
    {
      groupId: earlier.groupId,
      postId: earlier.postIds[0]!,
      platform: 'linkedin',
      publishedAt: '2027-03-25T10:00:00.000Z',
    },
    { likes: 5 },
    '2027-03-25T11:00:00.000Z',
  );
});
afterAll(async () => service.stop());

async function home(token = ws.tokens.owner, orgId = ws.orgId): Promise<{ status: number; body: Loose }> {
  const res = await service.request('GET', `/v1/orgs/${orgId}/home`, { token });
  return { status: res.status, body: (await res.json()) as Loose };
}

describe('GET ORG/home', () => {
  test('approvals, the schedule, the last week and the credits', async () => {
    const { status, body } = await home();
    expect(status).toBe(200);
    const billing = await service.request('GET', `/v1/orgs/${ws.orgId}/billing`, { token: ws.tokens.owner });
    const { creditBalance, usageSummary } = ((await billing.json()) as Loose).data as Loose;
    expect(body.data).toEqual({
      generatedAt: '2027-04-05T09:00:00.000Z',
      timezone: 'UTC',
      approvals: {
        postsPending: 3,
        groupsPending: 2,
        groups: [
          {
            groupId: ids.older,
            title: 'Older',
            topic: 'launch',
            platforms: ['linkedin', 'x'],
            postsPending: 2,
            waitingSince: '2027-04-01T08:00:00.000Z',
          },
          {
            groupId: ids.newer,
            title: 'Newer',
            topic: null,
            platforms: ['x'],
            postsPending: 1,
            waitingSince: '2027-04-03T08:00:00.000Z',
          },
        ],
      },
      scheduled: {
        postsUpcoming: 2,
        postsFailed: 1,
        next: [
          {
            postId: ids.tomorrow,
            groupId: ids.plan,
            title: 'Plan',
            platform: 'x',
            contentText: 'Tomorrow',
            scheduledForUtc: '2027-04-06T09:00:00.000Z',
          },
          {
            postId: ids.dayAfter,
            groupId: ids.plan,
            title: 'Plan',
            platform: 'linkedin',
            contentText: 'The day after',
            scheduledForUtc: '2027-04-07T09:00:00.000Z',
          },
        ],
      },
      results: {
        windowDays: 7,
        postsPublished: 1,
        impressions: 400,
        engagements: 22,
        engagementRate: 0.055,
        previousWindow: { postsPublished: 1, impressions: null, engagements: 5 },
        topPost: expect.objectContaining({
          postId: ids.recent,
          platform: 'x',
          contentText: 'Recent',
          likes: 20,
          replies: 2,
          // 20 + 3 × 2
          engagementScore: 26,
          topic: 'launch',
        }),
      },
      credits: {
        total: creditBalance.total,
        monthly: creditBalance.monthly,
        purchased: creditBalance.purchased,
        periodUsedCredits: usageSummary.periodUsedCredits,
        periodBudgetCredits: usageSummary.periodBudgetCredits,
        usagePercent: usageSummary.usagePercent,
        periodEnd: usageSummary.periodEnd,
      },
    });
    expect(body.data.credits.total).toBeGreaterThan(0);
  });

  test('the results are the performance summary of the last 7 days', async () => {
    const res = await service.request('GET', `/v1/orgs/${ws.orgId}/marketing/analytics/performance?days=7`, {
      token: ws.tokens.owner,
    });
    const summary = ((await res.json()) as Loose).data as Loose;
    const { results } = (await home()).body.data as Loose;
    expect(results).toMatchObject({
      postsPublished: summary.summary.postsPublished,
      engagements: summary.summary.engagements,
      impressions: summary.summary.impressions,
      engagementRate: summary.summary.engagementRate,
      previousWindow: summary.previousWindow,
      topPost: summary.topPosts[0],
    });
  });

  test('every role reads it; another workspace is refused, no token is 401, unknown parameters 400', async () => {
    const owner = (await home()).body;
    for (const role of roles) {
      const answer = await home(ws.tokens[role]);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(owner);
    }
    expect((await home(other.tokens.owner)).status).toBe(403);
    expect((await service.request('GET', `/v1/orgs/${ws.orgId}/home`)).status).toBe(401);
    const bad = await service.request('GET', `/v1/orgs/${ws.orgId}/home?days=3`, { token: ws.tokens.owner });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Loose).details).toEqual([expect.objectContaining({ path: 'query.days' })]);
  });

  test("another workspace's home shows none of this one's posts", async () => {
    const theirs = (await home(other.tokens.viewer, other.orgId)).body.data as Loose;
    expect(theirs.approvals).toEqual({ postsPending: 0, groupsPending: 0, groups: [] });
    expect(theirs.scheduled).toEqual({ postsUpcoming: 0, postsFailed: 0, next: [] });
    expect(theirs.results).toMatchObject({ postsPublished: 0, engagements: 0, topPost: null });
  });

  test('get_home_summary (mcp:read) answers what the route answers', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: [],
    });
    try {
      const result = (await assistant.client.callTool({
        name: 'get_home_summary',
        arguments: {},
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual((await home()).body.data);
      const text = (result.content as Array<{ text: string }>)[0]!.text;
      expect(text).toMatch(
        /^3 post\(s\) waiting for approval in 2 group\(s\); 2 scheduled ahead \(next 2027-04-06T09:00:00.000Z\), 1 failed; last 7 days: 1 published, 22 engagements; \d+ credits left\.$/,
      );
    } finally {
      await assistant.client.close();
    }
  });
});
