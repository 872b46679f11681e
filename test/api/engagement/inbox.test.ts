// The reply inbox through the whole service (issue 30) with a fake of the connectors' engagement methods
// (test/support/fake-engagement.ts): refresh reading every source the settings name (X mentions, watched handles
// and keywords, feeds, Reddit with exclude terms), de-duplicated by the post's id (an item found again untouched),
// scored, a failing source a warning, X reads charged per post returned; the list's filters (open by default,
// sent, dismissed, kind, platform, feedId), newest first, paged; PATCH per the state table (never posting).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConnectorError } from '../../../infra/connectors/port.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { waitUntil } from '../../support/wait.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { candidate, installFakeEngagement, type FakeEngagement } from '../../support/fake-engagement.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
let fake: FakeEngagement;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  fake = installFakeEngagement(service);
  ws = await createTestWorkspace(service);
  other = await createTestWorkspace(service, 'Other');
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'reddit');
}, 120_000);
afterAll(async () => service?.stop());

async function call(
  target: TestWorkspace,
  method: string,
  rest: string,
  body?: unknown,
  role: keyof TestWorkspace['tokens'] = 'owner',
) {
  const res = await service.request(method, `/v1/orgs/${target.orgId}/engagement${rest}`, {
    token: target.tokens[role],
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, json: (await res.json()) as Loose };
}
const data = (res: { status: number; json: Loose }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json.data as Loose;
};
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

const mention = candidate({
  text: '@acme how do you schedule threads? We use buffer',
  postedAt: hoursAgo(1),
});
const watched = candidate({
  text: 'Thread scheduling is hard',
  author: { handle: 'alex', name: 'Alex', followers: 90_000 },
  postedAt: hoursAgo(3),
});
const community = candidate({
  kind: 'community',
  community: 'Builders',
  text: 'Who builds schedulers?',
  postedAt: hoursAgo(2),
});
const listPost = candidate({ text: 'From the list', postedAt: hoursAgo(5) });
const thread = candidate({
  platform: 'reddit',
  externalId: 't3_abc',
  url: 'https://reddit.com/r/saas/comments/abc',
  title: 'Best social scheduler?',
  text: 'Looking for a scheduler',
  community: 'saas',
  postedAt: hoursAgo(4),
});
const excludedThread = candidate({
  platform: 'reddit',
  externalId: 't3_def',
  title: 'Scheduler job offer',
  text: 'hiring now',
  community: 'saas',
  postedAt: hoursAgo(4),
});

describe('refresh', () => {
  test('reads every source, de-duplicates, scores, answers counts; found again changes nothing', async () => {
    data(
      await call(ws, 'PATCH', '/settings', {
        watchHandles: ['alex'],
        keywords: ['scheduler'],
        redditKeywords: ['scheduler'],
        subreddits: ['saas'],
        redditExcludeTerms: ['hiring'],
        feeds: [{ id: 'friends', name: 'Friends', source: 'list', listId: '123' }],
      }),
    );
    // The mention comes back from the search too: one item.
    fake.posts = {
      x_mentions: [mention],
      x_search: [watched, community, mention],
      x_list: [listPost],
      reddit_search: [thread, excludedThread],
    };
    const r = data(await call(ws, 'POST', '/refresh', {}));
    expect(r).toMatchObject({
      added: 5,
      drafted: 0,
      mentionsFound: 2,
      communityFound: 1,
      redditFound: 1,
      feedsFound: 1,
      warnings: [],
    });
    const byPost = new Map((r.items as Loose[]).map((i) => [i.externalPostId, i]));
    expect(byPost.has('t3_def')).toBe(false);
    expect(byPost.get(mention.externalId)).toMatchObject({
      status: 'new',
      matchedBy: 'mention',
      kind: 'mention',
      canSendFromApp: true,
      replyOnXUrl: `https://x.com/intent/post?in_reply_to=${mention.externalId}`,
    });
    expect(byPost.get(community.externalId)).toMatchObject({ kind: 'community', canSendFromApp: false });
    expect(byPost.get(listPost.externalId)).toMatchObject({ feedId: 'friends', matchedBy: 'list:123' });
    expect(byPost.get('t3_abc')).toMatchObject({
      platform: 'reddit',
      title: 'Best social scheduler?',
      replyOnXUrl: thread.url,
    });
    for (const i of r.items as Loose[]) expect(i.relevance).toBeGreaterThanOrEqual(0);
    // The search asked X for the watched handle and the keyword; Reddit for the keywords in the subreddits.
    const search = fake.reads.find((q) => q.query.source === 'x_search')!.query as Loose;
    expect(search.query).toBe('(from:alex OR @alex OR scheduler) -is:retweet');
    expect(fake.reads.find((q) => q.query.source === 'reddit_search')!.query).toMatchObject({
      subreddits: ['saas'],
    });

    const id = byPost.get(mention.externalId)!.id;
    data(await call(ws, 'PATCH', `/${id}`, { draftText: 'We schedule threads natively!' }));
    const again = data(await call(ws, 'POST', '/refresh', {}));
    expect(again).toMatchObject({ added: 0, mentionsFound: 2, items: [] });
    const item = (data(await call(ws, 'GET', '?status=all&limit=100')).items as Loose[]).find(
      (i) => i.id === id,
    )!;
    expect(item).toMatchObject({ status: 'drafted', draftText: 'We schedule threads natively!' });
    expect(fake.sends).toEqual([]);
  });

  test('one feed only with feedId; an unknown feed is 400', async () => {
    fake.reads = [];
    data(await call(ws, 'POST', '/refresh', { feedId: 'friends' }));
    expect(fake.reads.map((r) => r.query.source)).toEqual(['x_list']);
    expect((await call(ws, 'POST', '/refresh', { feedId: 'nope' })).status).toBe(400);
  });

  test('a failing source is a warning; the others are read', async () => {
    fake.failing = {
      x_mentions: new ConnectorError('rate_limited', 'Too Many Requests', { retryAfterMs: 60_000 }),
    };
    const fresh = candidate({
      platform: 'reddit',
      externalId: 't3_new',
      title: 'scheduler question',
      text: 'any tips?',
    });
    fake.posts.reddit_search = [fresh];
    const r = data(await call(ws, 'POST', '/refresh', {}));
    expect(r.warnings).toEqual([expect.stringMatching(/X mentions: rate limited.*60 s/)]);
    expect(r.added).toBe(1);
    fake.failing = {};
  });

  test('without accounts: warnings, nothing read', async () => {
    data(await call(other, 'PATCH', '/settings', { redditKeywords: ['x'] }));
    const before = fake.reads.length;
    const r = data(await call(other, 'POST', '/refresh', {}));
    expect(r.added).toBe(0);
    expect(r.warnings).toHaveLength(2);
    expect(fake.reads.length).toBe(before);
  });

  test('viewers may not refresh', async () => {
    expect((await call(ws, 'POST', '/refresh', {}, 'viewer')).status).toBe(403);
  });
});

describe('list and PATCH', () => {
  test('open by default, newest post first; filters by status, kind, platform, feedId; paged', async () => {
    const open = data(await call(ws, 'GET', '', undefined, 'viewer'));
    const times = (open.items as Loose[]).map((i) => i.postedAt as string);
    expect([...times].sort().reverse()).toEqual(times);
    expect(open.total).toBe(6);
    expect(data(await call(ws, 'GET', '?kind=community')).total).toBe(1);
    expect(data(await call(ws, 'GET', '?platform=reddit')).total).toBe(2);
    expect(data(await call(ws, 'GET', '?feedId=friends')).total).toBe(1);
    const page = data(await call(ws, 'GET', '?limit=2&page=2'));
    expect(page).toMatchObject({ page: 2, limit: 2, total: 6, hasMore: true });
    expect((await call(ws, 'GET', '?status=bogus')).status).toBe(400);
  });

  test('dismissed, brought back with drafted, marked sent by hand: nothing posted', async () => {
    const first = (data(await call(ws, 'GET', '?platform=reddit')).items as Loose[])[0]!;
    expect(data(await call(ws, 'PATCH', `/${first.id}`, { status: 'dismissed' })).status).toBe('dismissed');
    expect(data(await call(ws, 'GET', '?status=dismissed')).total).toBe(1);
    expect(data(await call(ws, 'GET', '')).total).toBe(5);
    expect(data(await call(ws, 'PATCH', `/${first.id}`, { status: 'drafted' })).status).toBe('drafted');
    const sent = data(await call(ws, 'PATCH', `/${first.id}`, { status: 'sent' }));
    expect(sent).toMatchObject({ status: 'sent', sentUrl: null });
    expect(sent.sentAt).toBeTruthy();
    expect(data(await call(ws, 'GET', '?status=sent')).total).toBe(1);
    expect((await call(ws, 'PATCH', `/${first.id}`, { status: 'dismissed' })).status).toBe(409);
    expect(fake.sends).toEqual([]);
  });

  test('an X draft over 280 is 400; viewers 403; another workspace 404', async () => {
    const item = (data(await call(ws, 'GET', '?platform=x&kind=mention')).items as Loose[])[0]!;
    expect((await call(ws, 'PATCH', `/${item.id}`, { draftText: 'a'.repeat(281) })).status).toBe(400);
    expect((await call(ws, 'PATCH', `/${item.id}`, { status: 'dismissed' }, 'viewer')).status).toBe(403);
    expect((await call(other, 'PATCH', `/${item.id}`, { status: 'dismissed' })).status).toBe(404);
    expect(data(await call(other, 'GET', '?status=all')).total).toBe(0);
  });
});

describe('notifications', () => {
  test('a new item of high relevance notifies members (routine), once; a low one does not', async () => {
    const hot = candidate({
      text: '@acme is there a scheduler that handles threads? scheduler recommendations please',
      author: { handle: 'bigaccount', name: 'Big', followers: 500_000 },
      likeCount: 300,
      replyCount: 40,
    });
    const cold = candidate({
      text: 'lunch',
      author: { handle: 'quiet', name: null, followers: 0 },
      likeCount: 0,
      replyCount: 0,
      postedAt: hoursAgo(200),
    });
    fake.posts = { x_mentions: [hot, cold] };
    const r = data(await call(ws, 'POST', '/refresh', {}));
    fake.posts = {};
    const items = new Map((r.items as Loose[]).map((i) => [i.externalPostId, i]));
    expect(items.get(hot.externalId)!.relevance).toBeGreaterThanOrEqual(70);
    expect(items.get(cold.externalId)!.relevance).toBeLessThan(70);
    const mine = async () => {
      const res = await service.request('GET', `/v1/orgs/${ws.orgId}/notifications?unreadOnly=false`, {
        token: ws.tokens.viewer,
      });
      return (((await res.json()) as Loose).data.items as Loose[]).filter(
        (n) => n.type === 'reply_inbox_relevant',
      );
    };
    await waitUntil(async () => (await mine()).some((n) => String(n.title).includes('@bigaccount')), {
      what: 'the viewer is notified',
    });
    const notes = await mine();
    expect(notes.filter((n) => String(n.title).includes('@bigaccount'))).toHaveLength(1);
    expect(notes[0]).toMatchObject({ tier: 'routine' });
    expect(notes.some((n) => String(n.title).includes('@quiet'))).toBe(false);
  });
});
