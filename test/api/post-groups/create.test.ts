// POST ORG/marketing/post-groups, POST ORG/marketing/drafts and GET ORG/marketing/post-groups/{groupId} through
// the whole service: the spec's shapes, drafts waiting for review with their platform settings kept, the
// bad-input battery (each a 400 naming the field and appending nothing), Idempotency-Key and read-your-writes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { recordMediaFixtures } from '../../support/media.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  badRequestPaths,
  connectPremiumXAccount,
  data,
  failure,
  uuidPattern,
  video,
  workspaceClient,
  type GroupWithPosts,
  type WorkspaceClient,
} from './support.js';

let service: TestService;
let ws: TestWorkspace;
let api: WorkspaceClient;
/** Sandbox accounts: an X and a LinkedIn account of this workspace. */
let accounts: { x: string; linkedin: string };

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  api = workspaceClient(service, ws);
  accounts = { x: await connect(ws, 'x'), linkedin: await connect(ws, 'linkedin') };
  await recordMediaFixtures(service, ws.orgId, video);
});
afterAll(async () => service.stop());

const hourAhead = () => new Date(Date.now() + 3_600_000).toISOString();

/** Connects a sandbox account (`account` picks another one of the platform) and answers its id. */
async function connect(w: TestWorkspace, platform: 'x' | 'linkedin', account?: string): Promise<string> {
  const ref = { orgId: w.orgId, userId: w.userIds.owner };
  return (await connectSandboxAccount(service, ref, platform, account ? { account } : {})).id;
}

async function createTag(name: string): Promise<string> {
  const tag = await data<{ id: string }>(await api.call('POST', '/tags', { body: { name } }));
  return tag.id;
}

/** Events of one group's stream, oldest first. */
async function streamEvents(
  groupId: string,
): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const res = await service.runtime.database.pool.query<{ type: string; data: Record<string, unknown> }>(
    'select type, data from es_events where stream_name = $1 order by revision',
    [`postGroup-${groupId}`],
  );
  return res.rows;
}

function basePost(over: Record<string, unknown>) {
  return {
    id: expect.stringMatching(uuidPattern),
    orgId: ws.orgId,
    groupId: expect.stringMatching(uuidPattern),
    socialAccountId: null,
    scheduledForUtc: null,
    media: null,
    platformPayload: null,
    publishedExternalId: null,
    publishedUrl: null,
    attemptCount: 0,
    lastAttemptAt: null,
    nextRetryAt: null,
    lastError: null,
    idempotencyKey: null,
    createdAt: expect.any(String),
    updatedAt: expect.any(String),
    scheduleReason: null,
    ...over,
  };
}

describe('POST ORG/marketing/post-groups', () => {
  test('creates a draft group with one post per platform: the spec’s shapes, and GET answers the same', async () => {
    const tagId = await createTag('Launch');
    const strategyId = '5d0f5d7e-1e4c-4b8a-9a41-2f3c4d5e6f70';
    const scheduledFor = hourAhead();
    const res = await api.call('POST', '/post-groups', {
      as: 'editor',
      body: {
        title: '  Scheduler launch ',
        topic: 'launch',
        objective: 'awareness',
        timezone: 'Europe/Berlin',
        scheduledFor,
        tagIds: [tagId, tagId],
        strategyId,
        strategyVersion: 3,
        pillarId: 'product',
        priorityId: 'p1',
        contentType: 'announcement',
        opportunityId: 'opp-7',
        posts: [
          { platform: 'x', contentText: 'It is live', replySettings: 'following' },
          {
            platform: 'linkedin',
            contentText: 'Today we open the scheduler.',
            socialAccountId: accounts.linkedin,
          },
          {
            platform: 'bluesky',
            contentText: 'Live now',
            platformPayload: { thread: ['and one more thing'] },
          },
        ],
      },
    });
    const created = await data<GroupWithPosts>(res);
    const { group, posts } = created;
    expect(group).toEqual({
      id: expect.stringMatching(uuidPattern),
      orgId: ws.orgId,
      title: 'Scheduler launch',
      topic: 'launch',
      objective: 'awareness',
      status: 'draft',
      timezone: 'Europe/Berlin',
      scheduledFor,
      approvedBy: null,
      approvedAt: null,
      createdAt: expect.any(String),
      updatedAt: group.createdAt,
      scheduleReason: null,
      tagIds: [tagId],
      approvals: [],
      strategyId,
      strategyVersion: 3,
      pillarId: 'product',
      priorityId: 'p1',
      contentType: 'announcement',
      opportunityId: 'opp-7',
    });
    expect(Number.isNaN(Date.parse(group.createdAt))).toBe(false);
    expect(posts).toEqual([
      basePost({
        groupId: group.id,
        platform: 'x',
        status: 'draft',
        contentText: 'It is live',
        platformPayload: { replySettings: 'following' },
        createdAt: group.createdAt,
        updatedAt: group.createdAt,
        approvals: [],
      }),
      basePost({
        groupId: group.id,
        platform: 'linkedin',
        socialAccountId: accounts.linkedin,
        status: 'draft',
        contentText: 'Today we open the scheduler.',
        createdAt: group.createdAt,
        updatedAt: group.createdAt,
        approvals: [],
      }),
      basePost({
        groupId: group.id,
        platform: 'bluesky',
        status: 'draft',
        contentText: 'Live now',
        platformPayload: { thread: ['and one more thing'] },
        createdAt: group.createdAt,
        updatedAt: group.createdAt,
        approvals: [],
      }),
    ]);
    expect(new Set(posts.map((p) => p.id)).size).toBe(3);

    // GET answers the same group and posts (any role that reads posts).
    for (const role of ['viewer', 'editor', 'reviewer', 'admin', 'owner'] as const) {
      const read = await api.get(group.id, role);
      expect(read.group).toEqual(group);
      expect(read.posts).toHaveLength(3);
      for (const post of posts) expect(read.posts).toContainEqual(post);
    }
    // Read-your-writes: the posts list shows the new posts right after the POST answered.
    const listed = await api.posts();
    for (const post of posts) expect(listed).toContainEqual(post);
  });

  test('a group drafted after the workspace’s time zone was set is in that zone; its own zone wins', async () => {
    const zoned = await createTestWorkspace(service, 'Zoned workspace');
    const client = workspaceClient(service, zoned);
    const set = await service.request('PATCH', `/v1/orgs/${zoned.orgId}/timezone`, {
      token: zoned.tokens.owner,
      body: { timezone: 'America/Los_Angeles' },
    });
    expect(set.status).toBe(200);
    const composed = await client.compose({
      title: 'Planned in LA',
      posts: [{ platform: 'linkedin', contentText: 'Hi' }],
    });
    expect(composed.group.timezone).toBe('America/Los_Angeles');
    const drafted = await client.draft({
      title: 'Drafted in LA',
      posts: [{ platform: 'linkedin', contentText: 'Hi' }],
    });
    expect(drafted.group.timezone).toBe('America/Los_Angeles');
    expect((await client.get(drafted.group.id)).group.timezone).toBe('America/Los_Angeles');
    const own = await client.compose({
      title: 'Planned in Tokyo',
      timezone: 'Asia/Tokyo',
      posts: [{ platform: 'linkedin', contentText: 'Hi' }],
    });
    expect(own.group.timezone).toBe('Asia/Tokyo');
  });

  test('defaults: timezone UTC, no topic/objective/time/tags/strategy', async () => {
    const { group, posts } = await api.compose({
      title: 'Minimal',
      posts: [{ platform: 'linkedin', contentText: 'Hi' }],
    });
    expect(group).toMatchObject({
      status: 'draft',
      topic: null,
      objective: null,
      timezone: 'UTC',
      scheduledFor: null,
      tagIds: [],
      approvals: [],
      strategyId: null,
      strategyVersion: null,
      pillarId: null,
      priorityId: null,
      contentType: null,
      opportunityId: null,
    });
    expect(posts.map((p) => [p.platform, p.status, p.platformPayload])).toEqual([
      ['linkedin', 'draft', null],
    ]);
  });
  // Found by this test: the read model listed a group's posts by id (they share created_at); it keeps the
  // creation order since projections/post-groups/queries.ts orders them by the aggregate state.
  test('GET lists the posts in the order they were created, like the create answer', async () => {
    // Eight variants (X on eight accounts): the chance that id order matches by luck is 1 in 40,320.
    const xAccounts: string[] = [];
    for (let i = 0; i < 8; i++) xAccounts.push(await connect(ws, 'x', `order_${i}`));
    const created = await api.compose({
      title: 'Order',
      posts: xAccounts.map((socialAccountId, i) => ({
        platform: 'x',
        contentText: `#${i}`,
        socialAccountId,
      })),
    });
    expect(created.posts.map((p) => p.contentText)).toEqual(xAccounts.map((_, i) => `#${i}`));
    expect(created.posts.map((p) => p.socialAccountId)).toEqual(xAccounts);
    const read = await api.get(created.group.id);
    expect(read.posts.map((p) => p.id)).toEqual(created.posts.map((p) => p.id));
  });
});

describe('POST ORG/marketing/drafts', () => {
  test('one group, one post per platform, all pending_approval with a submission record; settings kept in platformPayload', async () => {
    const before = await eventCount(service);
    const res = await api.call('POST', '/drafts', {
      as: 'editor',
      body: {
        title: 'Launch week',
        topic: 'launch',
        objective: 'signups',
        posts: [
          {
            platform: 'x',
            contentText: 'Launch week starts now',
            thread: ['Day 1: the scheduler', 'Day 2: analytics'],
            quoteTweetUrl: 'https://x.com/acme/status/1234567890',
            communityUrl: 'https://x.com/i/communities/1500000000000000000',
            replySettings: 'mentionedUsers',
          },
          {
            platform: 'reddit',
            contentText: 'We built a scheduler; feedback welcome.',
            reddit: { subreddit: 'r/typescript', title: 'A scheduler written in TypeScript' },
          },
          {
            platform: 'youtube',
            contentText: 'A walkthrough of the scheduler',
            media: video,
            youtube: { title: 'Scheduler walkthrough', privacyStatus: 'unlisted', madeForKids: false },
          },
          {
            platform: 'tiktok',
            contentText: 'Scheduling in 30 seconds',
            media: video,
            tiktok: { title: 'Scheduling', isAigc: false },
          },
        ],
      },
    });
    const { group, posts } = await data<GroupWithPosts>(res);
    const submission = {
      id: expect.stringMatching(uuidPattern),
      level: 'group',
      groupId: group.id,
      postId: null,
      approvedByUserId: ws.userIds.editor,
      approvedAt: group.createdAt,
      action: 'submit_for_approval',
    };
    expect(group).toEqual({
      id: expect.stringMatching(uuidPattern),
      orgId: ws.orgId,
      title: 'Launch week',
      topic: 'launch',
      objective: 'signups',
      status: 'pending_approval',
      timezone: 'UTC',
      scheduledFor: null,
      approvedBy: null,
      approvedAt: null,
      createdAt: expect.any(String),
      updatedAt: group.createdAt,
      scheduleReason: null,
      tagIds: [],
      approvals: [submission],
      strategyId: null,
      strategyVersion: null,
      pillarId: null,
      priorityId: null,
      contentType: null,
      opportunityId: null,
    });
    const common = {
      groupId: group.id,
      status: 'pending_approval',
      createdAt: group.createdAt,
      updatedAt: group.createdAt,
      approvals: [group.approvals[0]],
    };
    expect(posts).toEqual([
      basePost({
        ...common,
        platform: 'x',
        contentText: 'Launch week starts now',
        platformPayload: {
          thread: ['Day 1: the scheduler', 'Day 2: analytics'],
          quoteTweetUrl: 'https://x.com/acme/status/1234567890',
          communityUrl: 'https://x.com/i/communities/1500000000000000000',
          replySettings: 'mentionedUsers',
        },
      }),
      basePost({
        ...common,
        platform: 'reddit',
        contentText: 'We built a scheduler; feedback welcome.',
        platformPayload: {
          reddit: { subreddit: 'r/typescript', title: 'A scheduler written in TypeScript' },
        },
      }),
      basePost({
        ...common,
        platform: 'youtube',
        contentText: 'A walkthrough of the scheduler',
        media: video,
        platformPayload: {
          youtube: { title: 'Scheduler walkthrough', privacyStatus: 'unlisted', madeForKids: false },
        },
      }),
      basePost({
        ...common,
        platform: 'tiktok',
        contentText: 'Scheduling in 30 seconds',
        media: video,
        platformPayload: { tiktok: { title: 'Scheduling', isAigc: false } },
      }),
    ]);

    // Drafting never schedules or publishes: exactly a creation and a submission were appended.
    expect(await eventCount(service)).toBe(before + 2);
    expect((await streamEvents(group.id)).map((e) => e.type)).toEqual([
      'PostGroupCreated',
      'PostGroupSubmittedForApproval',
    ]);
    const read = await api.get(group.id);
    expect(read.group).toEqual(group);
    for (const post of posts) expect(read.posts).toContainEqual(post);
    const listed = await api.posts(`?filter[status]=pending_approval&limit=100`);
    for (const post of posts) expect(listed).toContainEqual(post);
    const sent = await api.posts(
      '?filter[status]=scheduled,publishing,published&filterOp[status]=in&limit=100',
    );
    expect(sent.filter((p) => p.groupId === group.id)).toEqual([]);
  });

  test('an X poll is kept in platformPayload', async () => {
    const { posts } = await api.draft({
      title: 'Poll',
      posts: [
        {
          platform: 'x',
          contentText: 'Which feature next?',
          poll: { options: ['Analytics', 'Inbox'], durationMinutes: 1440 },
        },
      ],
    });
    expect(posts[0]).toMatchObject({
      status: 'pending_approval',
      platformPayload: { poll: { options: ['Analytics', 'Inbox'], durationMinutes: 1440 } },
    });
  });
});

describe('bad input: 400 naming each field, nothing appended', () => {
  const x281 = 'a'.repeat(281);
  const cases: Array<{ name: string; path: string; body: unknown; paths: string[] }> = [
    {
      name: 'post-groups: a 281-character X text',
      path: '/post-groups',
      body: { title: 'T', posts: [{ platform: 'x', contentText: x281 }] },
      paths: ['body.posts.0.contentText'],
    },
    {
      name: 'post-groups: an unknown field at the top and in a post',
      path: '/post-groups',
      body: { title: 'T', colour: 'red', posts: [{ platform: 'x', contentText: 'Hi', reddit: {} }] },
      paths: ['body.colour', 'body.posts.0.reddit'],
    },
    {
      name: 'post-groups: missing title and posts',
      path: '/post-groups',
      body: {},
      paths: ['body.title', 'body.posts'],
    },
    {
      name: 'post-groups: an empty posts list, a blank title',
      path: '/post-groups',
      body: { title: '   ', posts: [] },
      paths: ['body.title', 'body.posts'],
    },
    {
      name: 'post-groups: an unknown platform, a non-string text, a bad account id',
      path: '/post-groups',
      body: {
        title: 'T',
        posts: [{ platform: 'myspace', contentText: 1, socialAccountId: 'nope' }],
      },
      paths: ['body.posts.0.platform', 'body.posts.0.contentText', 'body.posts.0.socialAccountId'],
    },
    {
      name: 'post-groups: bad timezone, scheduledFor not a timestamp, tagIds not uuids',
      path: '/post-groups',
      body: {
        title: 'T',
        timezone: 'Mars/Olympus',
        scheduledFor: 'tomorrow',
        tagIds: ['x'],
        posts: [{ platform: 'x', contentText: 'Hi' }],
      },
      paths: ['body.timezone', 'body.scheduledFor', 'body.tagIds.0'],
    },
    {
      name: 'post-groups: scheduledFor in the past',
      path: '/post-groups',
      body: {
        title: 'T',
        scheduledFor: '2020-01-01T09:00:00Z',
        posts: [{ platform: 'x', contentText: 'Hi' }],
      },
      paths: ['body.scheduledFor'],
    },
    {
      name: 'post-groups: unknown tag ids (named by index)',
      path: '/post-groups',
      body: {
        title: 'T',
        tagIds: ['0f0f0f0f-0000-4000-8000-000000000001'],
        posts: [{ platform: 'x', contentText: 'Hi' }],
      },
      paths: ['body.tagIds.0'],
    },
    {
      name: 'post-groups: two variants for one platform and account',
      path: '/post-groups',
      body: {
        title: 'T',
        posts: [
          { platform: 'x', contentText: 'A' },
          { platform: 'x', contentText: 'B' },
        ],
      },
      paths: ['body.posts.1.platform'],
    },
    {
      name: 'post-groups: a setting on the wrong platform (platformPayload)',
      path: '/post-groups',
      body: {
        title: 'T',
        posts: [
          {
            platform: 'linkedin',
            contentText: 'Hi',
            platformPayload: { poll: { options: ['a', 'b'], durationMinutes: 60 } },
          },
        ],
      },
      paths: ['body.posts.0.platformPayload.poll'],
    },
    {
      name: 'drafts: a Reddit post with a bad subreddit',
      path: '/drafts',
      body: {
        title: 'T',
        posts: [
          { platform: 'reddit', contentText: 'Hi', reddit: { subreddit: 'no spaces allowed', title: 'T' } },
        ],
      },
      paths: ['body.posts.0.reddit.subreddit'],
    },
    {
      name: 'drafts: a Reddit post without reddit settings',
      path: '/drafts',
      body: { title: 'T', posts: [{ platform: 'reddit', contentText: 'Hi' }] },
      paths: ['body.posts.0.platformPayload.reddit'],
    },
    {
      name: 'drafts: a poll with one option',
      path: '/drafts',
      body: {
        title: 'T',
        posts: [{ platform: 'x', contentText: 'Hi', poll: { options: ['Only'], durationMinutes: 60 } }],
      },
      paths: ['body.posts.0.poll.options'],
    },
    {
      name: 'drafts: a 281-character X text and a YouTube post without a video',
      path: '/drafts',
      body: {
        title: 'T',
        posts: [
          { platform: 'x', contentText: x281 },
          { platform: 'youtube', contentText: 'Hi' },
        ],
      },
      paths: ['body.posts.0.contentText', 'body.posts.1.media'],
    },
    {
      name: 'drafts: fields drafts do not take (platformPayload, scheduledFor, tagIds)',
      path: '/drafts',
      body: {
        title: 'T',
        scheduledFor: '2099-01-01T00:00:00Z',
        tagIds: [],
        posts: [{ platform: 'x', contentText: 'Hi', platformPayload: {} }],
      },
      paths: ['body.scheduledFor', 'body.tagIds', 'body.posts.0.platformPayload'],
    },
    {
      name: 'drafts: a bad youtube privacyStatus',
      path: '/drafts',
      body: {
        title: 'T',
        posts: [
          { platform: 'youtube', contentText: 'Hi', media: video, youtube: { privacyStatus: 'secret' } },
        ],
      },
      paths: ['body.posts.0.youtube.privacyStatus'],
    },
    {
      name: 'drafts: quoteTweetUrl that is not a link to an X post',
      path: '/drafts',
      body: {
        title: 'T',
        posts: [{ platform: 'x', contentText: 'Hi', quoteTweetUrl: 'https://example.org/not-x' }],
      },
      paths: ['body.posts.0.quoteTweetUrl'],
    },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const before = await eventCount(service);
      const res = await api.call('POST', c.path, { as: 'editor', body: c.body });
      const paths = await badRequestPaths(res);
      expect([...paths].sort()).toEqual([...c.paths].sort());
      expect(await eventCount(service)).toBe(before);
    });
  }

  test('a body that is not JSON, and no body at all', async () => {
    const before = await eventCount(service);
    for (const path of ['/post-groups', '/drafts']) {
      await failure(await api.call('POST', path, { body: '{"title": ' }), 400);
      await failure(await api.call('POST', path, {}), 400);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('GET with a group id that is not a uuid', async () => {
    expect(await badRequestPaths(await api.call('GET', '/post-groups/not-a-uuid'))).toEqual([
      'param.groupId',
    ]);
  });
});

describe('socialAccountId names an account of the workspace and of the post’s platform', () => {
  const unknown = 'No such social account in this workspace';
  let theirX: string;
  beforeAll(async () => {
    const other = await createTestWorkspace(service, 'Other');
    theirX = await connect(other, 'x');
  });

  test('accounts of the workspace are taken on post groups and drafts, and shown on the posts', async () => {
    const posts = [
      { platform: 'x', contentText: 'On our X account', socialAccountId: accounts.x },
      { platform: 'linkedin', contentText: 'On our LinkedIn account', socialAccountId: accounts.linkedin },
    ];
    const composed = await api.compose({ title: 'Accounts', posts });
    expect(composed.posts.map((p) => [p.platform, p.socialAccountId])).toEqual([
      ['x', accounts.x],
      ['linkedin', accounts.linkedin],
    ]);
    const drafted = await api.draft({ title: 'Accounts', posts });
    expect(drafted.posts.map((p) => [p.platform, p.socialAccountId, p.status])).toEqual([
      ['x', accounts.x, 'pending_approval'],
      ['linkedin', accounts.linkedin, 'pending_approval'],
    ]);
  });

  const cases: Array<{
    name: string;
    posts: () => Array<Record<string, unknown>>;
    details: () => Array<{ path: string; message: unknown }>;
  }> = [
    {
      name: 'an id that is no account',
      posts: () => [
        { platform: 'x', contentText: 'Fine', socialAccountId: accounts.x },
        { platform: 'linkedin', contentText: 'Unknown', socialAccountId: randomUUID() },
      ],
      details: () => [{ path: 'body.posts.1.socialAccountId', message: unknown }],
    },
    {
      name: 'an account of another workspace',
      posts: () => [{ platform: 'x', contentText: 'Theirs', socialAccountId: theirX }],
      details: () => [{ path: 'body.posts.0.socialAccountId', message: unknown }],
    },
    {
      name: 'an account of another platform (each named)',
      posts: () => [
        { platform: 'x', contentText: 'On LinkedIn’s account', socialAccountId: accounts.linkedin },
        { platform: 'linkedin', contentText: 'On X’s account', socialAccountId: accounts.x },
      ],
      details: () => [
        {
          path: 'body.posts.0.socialAccountId',
          message: expect.stringMatching(/linkedin account .* x post/),
        },
        {
          path: 'body.posts.1.socialAccountId',
          message: expect.stringMatching(/x account .* linkedin post/),
        },
      ],
    },
  ];
  for (const path of ['/post-groups', '/drafts']) {
    for (const c of cases) {
      test(`${path.slice(1)}: ${c.name}: 400 naming the post, nothing appended`, async () => {
        const before = await eventCount(service);
        const res = await api.call('POST', path, { as: 'editor', body: { title: 'T', posts: c.posts() } });
        expect((await failure(res, 400)).details).toEqual(c.details());
        expect(await eventCount(service)).toBe(before);
      });
    }
  }

  test('a deleted account: 400', async () => {
    const doomed = await connect(ws, 'x', 'create_doomed');
    const res = await api.call('DELETE', `/accounts/${doomed}`, { as: 'admin' });
    expect(res.status, await res.text()).toBe(200);
    await waitUntil(
      async () => {
        const listed = await data<Array<{ id: string }>>(
          await api.call('GET', '/accounts', { as: 'viewer' }),
        );
        return !listed.some((a) => a.id === doomed);
      },
      { what: 'the deleted account to leave the list' },
    );
    const before = await eventCount(service);
    const body = { title: 'T', posts: [{ platform: 'x', contentText: 'Hi', socialAccountId: doomed }] };
    for (const path of ['/post-groups', '/drafts']) {
      const refused = await failure(await api.call('POST', path, { as: 'editor', body }), 400);
      expect(refused.details).toEqual([{ path: 'body.posts.0.socialAccountId', message: unknown }]);
    }
    expect(await eventCount(service)).toBe(before);
  });
});

describe('an X account with X Premium allows 25,000 characters (xPremiumTextLimit)', () => {
  let premium: string;
  beforeAll(async () => {
    premium = await connectPremiumXAccount(service, ws);
  });
  const long = 'p'.repeat(25_000);

  for (const path of ['/post-groups', '/drafts']) {
    test(`${path.slice(1)}: 25,000 characters on the Premium account are taken, 25,001 are not`, async () => {
      const post = { platform: 'x', contentText: long, socialAccountId: premium };
      const created = await data<GroupWithPosts>(
        await api.call('POST', path, { as: 'editor', body: { title: 'Long', posts: [post] } }),
      );
      expect(created.posts[0]!.contentText).toHaveLength(25_000);
      const before = await eventCount(service);
      const tooLong = { title: 'Too long', posts: [{ ...post, contentText: `${long}p` }] };
      expect(await badRequestPaths(await api.call('POST', path, { as: 'editor', body: tooLong }))).toEqual([
        'body.posts.0.contentText',
      ]);
      expect(await eventCount(service)).toBe(before);
    });

    test(`${path.slice(1)}: in the same group, a post of another X account or of none keeps the 280`, async () => {
      const before = await eventCount(service);
      const body = {
        title: 'Mixed',
        posts: [
          { platform: 'x', contentText: long, socialAccountId: premium },
          { platform: 'x', contentText: 'a'.repeat(281), socialAccountId: accounts.x },
          { platform: 'x', contentText: 'b'.repeat(281) },
        ],
      };
      expect(await badRequestPaths(await api.call('POST', path, { as: 'editor', body }))).toEqual([
        'body.posts.1.contentText',
        'body.posts.2.contentText',
      ]);
      expect(await eventCount(service)).toBe(before);
    });
  }
});

describe('Idempotency-Key', () => {
  test('the same key and body replays the first answer and appends nothing; another body is a 422', async () => {
    const body = { title: 'Once', posts: [{ platform: 'x', contentText: 'Only once' }] };
    for (const path of ['/post-groups', '/drafts']) {
      const key = `create-${path}-${Date.now()}`;
      const first = await api.call('POST', path, { as: 'editor', body, headers: { 'Idempotency-Key': key } });
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const created = await data<GroupWithPosts>(first);
      const after = await eventCount(service);

      const again = await api.call('POST', path, { as: 'editor', body, headers: { 'Idempotency-Key': key } });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await data<GroupWithPosts>(again)).toEqual(created);
      expect(await eventCount(service)).toBe(after);

      const other = await api.call('POST', path, {
        as: 'editor',
        body: { ...body, title: 'Twice' },
        headers: { 'Idempotency-Key': key },
      });
      await failure(other, 422);
      expect(await eventCount(service)).toBe(after);
      // One group was created under the key.
      const listed = await api.posts();
      expect(listed.filter((p) => p.groupId === created.group.id)).toHaveLength(1);
    }
  });
});
