// The live X connector's reply-inbox side against a locally served X API v2: mentions with their expansions and
// pagination, recent search, a list's posts, a community's posts (lookup, then recent search filtered by
// `community_id`), rate-limit headers and 429, referenced posts X left out (deleted or withheld, in `errors[]`),
// the reply create (its body as documented), a lost answer after sending, and finding the reply again.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createXConnector } from '../../infra/connectors/x/x-connector.js';
import type { CallContext } from '../../infra/connectors/port.js';
import { callContext, connectorFailure, mediaByUrlOnly } from './support/connector-fixtures.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const tokens = { accessToken: 'access-secret', refreshToken: 'refresh-secret', expiresAt: null, scopes: [] };
const now = new Date('2026-11-20T10:00:00Z');
const reset = Math.floor(new Date('2026-11-20T10:15:00Z').getTime() / 1000);

let platform: FakePlatform;
beforeEach(async () => {
  platform = await startFakePlatform();
});
afterEach(async () => {
  await platform.close();
});

function connector(fetchOverride?: typeof fetch) {
  return createXConnector({
    clientId: 'client-id',
    clientSecret: 'client-secret',
    apiBaseUrl: platform.baseUrl,
    timeoutMs: 2_000,
    now: () => now,
    sleep: async () => {},
    ...(fetchOverride ? { fetch: fetchOverride } : {}),
  });
}

const context = (): CallContext =>
  callContext({
    platform: 'x',
    accountExternalId: '2244994945',
    accountHandle: 'XDevelopers',
    tokens,
    fetchMedia: mediaByUrlOnly('x'),
  });

// GET /2/users/:id/mentions as X documents it: data, includes.users and includes.tweets from the expansions,
// a partial error for a referenced post X could not return, and meta with next_token and newest_id.
const mentionsPage1 = {
  data: [
    {
      id: '1861000000000000003',
      text: '@XDevelopers does the v2 API support polls in replies? &amp; threads?',
      author_id: '101',
      conversation_id: '1861000000000000001',
      created_at: '2026-11-20T09:30:00.000Z',
      public_metrics: { like_count: 4, reply_count: 1, retweet_count: 0, quote_count: 0 },
      referenced_tweets: [{ type: 'replied_to', id: '1861000000000000001' }],
    },
    {
      id: '1861000000000000002',
      text: '@XDevelopers thanks for the changelog!',
      author_id: '102',
      conversation_id: '1861000000000000000',
      created_at: '2026-11-20T09:00:00.000Z',
      public_metrics: { like_count: 1, reply_count: 0 },
      referenced_tweets: [{ type: 'replied_to', id: '1861000000000000000' }],
    },
  ],
  includes: {
    users: [
      { id: '101', name: 'Maya Chen', username: 'maya_builds', public_metrics: { followers_count: 18420 } },
      { id: '102', name: 'Dan Okafor', username: 'devrel_dan', public_metrics: { followers_count: 7310 } },
    ],
    tweets: [
      { id: '1861000000000000001', text: 'We just shipped polls in the API.', author_id: '2244994945' },
    ],
  },
  errors: [
    {
      value: '1861000000000000000',
      detail: 'Could not find tweet with referenced_tweets.id: [1861000000000000000].',
      title: 'Not Found Error',
      resource_type: 'tweet',
      parameter: 'referenced_tweets.id',
      resource_id: '1861000000000000000',
      type: 'https://api.twitter.com/2/problems/resource-not-found',
    },
  ],
  meta: {
    result_count: 2,
    newest_id: '1861000000000000003',
    oldest_id: '1861000000000000002',
    next_token: '7140dibdnow9c7btw423x78lq9ia4q3cl1vs4flx2n2ag',
  },
};

const mentionsPage2 = {
  data: [
    {
      id: '1860000000000000009',
      text: '@XDevelopers is there a sandbox?',
      author_id: '103',
      created_at: '2026-11-19T18:00:00.000Z',
      public_metrics: { like_count: 0, reply_count: 0 },
    },
  ],
  includes: { users: [{ id: '103', name: 'Raj Patel', username: 'datadriven_raj' }] },
  meta: { result_count: 1, newest_id: '1860000000000000009', oldest_id: '1860000000000000009' },
};

describe('reading mentions', () => {
  it('asks GET /2/users/:id/mentions with the fields and expansions, and follows next_token', async () => {
    platform.on('GET', '/2/users/2244994945/mentions', (request) => ({
      headers: { 'x-rate-limit-remaining': '178', 'x-rate-limit-reset': String(reset) },
      body: request.query.get('pagination_token') ? mentionsPage2 : mentionsPage1,
    }));
    const x = connector();
    const first = await x.readEngagement!(context(), {
      source: 'x_mentions',
      sinceId: '1850000000000000000',
      nextToken: null,
      max: 50,
    });
    const [request] = platform.calls('GET', '/2/users/2244994945/mentions');
    expect(request!.headers.authorization).toBe('Bearer access-secret');
    expect(request!.query.get('since_id')).toBe('1850000000000000000');
    expect(request!.query.get('max_results')).toBe('50');
    expect(request!.query.get('expansions')!.split(',').sort()).toEqual([
      'author_id',
      'referenced_tweets.id',
    ]);
    expect(request!.query.get('user.fields')!.split(',')).toEqual(
      expect.arrayContaining(['public_metrics', 'username', 'name']),
    );
    expect(request!.query.get('tweet.fields')!.split(',')).toEqual(
      expect.arrayContaining(['created_at', 'public_metrics', 'conversation_id', 'referenced_tweets']),
    );
    expect(first.items).toEqual([
      {
        platform: 'x',
        kind: 'mention',
        externalId: '1861000000000000003',
        url: 'https://x.com/maya_builds/status/1861000000000000003',
        text: '@XDevelopers does the v2 API support polls in replies? & threads?',
        author: { handle: 'maya_builds', name: 'Maya Chen', followers: 18420 },
        postedAt: '2026-11-20T09:30:00.000Z',
        likeCount: 4,
        replyCount: 1,
        inReplyToText: 'We just shipped polls in the API.',
        title: null,
        community: null,
      },
      // Its parent was deleted: X names it in errors[] and leaves it out; the mention itself stays.
      expect.objectContaining({ externalId: '1861000000000000002', inReplyToText: null }),
    ]);
    expect(first.nextToken).toBe('7140dibdnow9c7btw423x78lq9ia4q3cl1vs4flx2n2ag');
    expect(first.newestId).toBe('1861000000000000003');
    expect(first.rateLimit).toEqual({ remaining: 178, resetAt: '2026-11-20T10:15:00.000Z' });

    const second = await x.readEngagement!(context(), {
      source: 'x_mentions',
      sinceId: null,
      nextToken: first.nextToken,
      max: 50,
    });
    expect(platform.calls('GET', '/2/users/2244994945/mentions')[1]!.query.get('pagination_token')).toBe(
      '7140dibdnow9c7btw423x78lq9ia4q3cl1vs4flx2n2ag',
    );
    expect(second.items.map((i) => i.url)).toEqual([
      'https://x.com/datadriven_raj/status/1860000000000000009',
    ]);
    expect(second.nextToken).toBeNull();
  });

  it('answers 429 as rate_limited with the time until x-rate-limit-reset', async () => {
    platform.on('GET', '/2/users/2244994945/mentions', {
      status: 429,
      headers: { 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(reset) },
      body: { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
    });
    const error = await connectorFailure(
      connector().readEngagement!(context(), {
        source: 'x_mentions',
        sinceId: null,
        nextToken: null,
        max: 10,
      }),
    );
    expect(error.kind).toBe('rate_limited');
    expect(error.details.retryAfterMs).toBe(15 * 60_000);
  });

  it('declares the documented read limits per source', () => {
    const limits = connector().engagementReadLimits!;
    expect(limits.x_mentions).toEqual([{ requests: 180, windowMs: 15 * 60_000, per: 'account' }]);
    expect(limits.x_search).toEqual([{ requests: 300, windowMs: 15 * 60_000, per: 'account' }]);
  });
});

describe('recent search, lists and communities', () => {
  it('searches recent posts with the query, since_id and next_token', async () => {
    platform.on('GET', '/2/tweets/search/recent', { body: { ...mentionsPage2, meta: { result_count: 1 } } });
    const page = await connector().readEngagement!(context(), {
      source: 'x_search',
      query: '(from:maya_builds OR "social scheduler") -is:retweet',
      sinceId: '1',
      nextToken: 'b26v89c19zqg8o3fpzbkk',
      max: 3,
    });
    const [request] = platform.calls('GET', '/2/tweets/search/recent');
    expect(request!.query.get('query')).toBe('(from:maya_builds OR "social scheduler") -is:retweet');
    expect(request!.query.get('next_token')).toBe('b26v89c19zqg8o3fpzbkk');
    expect(request!.query.get('since_id')).toBe('1');
    // X takes 10..100 on recent search.
    expect(request!.query.get('max_results')).toBe('10');
    expect(page.items).toHaveLength(1);
    expect(page.newestId).toBe('1860000000000000009');
  });

  it('reads a list’s posts with pagination_token', async () => {
    platform.on('GET', '/2/lists/1146654567674912769/tweets', { body: mentionsPage2 });
    await connector().readEngagement!(context(), {
      source: 'x_list',
      listId: '1146654567674912769',
      nextToken: 'next-list-page',
      max: 20,
    });
    const [request] = platform.calls('GET', '/2/lists/1146654567674912769/tweets');
    expect(request!.query.get('pagination_token')).toBe('next-list-page');
    expect(request!.query.get('expansions')).toContain('author_id');
  });

  it('reads a community’s posts: its name from GET /2/communities/:id, then its own posts from recent search', async () => {
    platform.on('GET', '/2/communities/1471580197908586507', {
      body: { data: { id: '1471580197908586507', name: 'Build in Public' } },
    });
    platform.on('GET', '/2/tweets/search/recent', {
      headers: { 'x-rate-limit-remaining': '299', 'x-rate-limit-reset': String(reset) },
      body: {
        data: [
          {
            id: '1861000000000000100',
            text: 'Week 12 of build in public: 40 paying customers. What should I focus on next?',
            author_id: '101',
            community_id: '1471580197908586507',
            created_at: '2026-11-20T08:00:00.000Z',
            public_metrics: { like_count: 12, reply_count: 3 },
          },
          {
            id: '1861000000000000101',
            text: 'I love build in public threads',
            author_id: '102',
            created_at: '2026-11-20T07:00:00.000Z',
          },
        ],
        includes: { users: mentionsPage1.includes.users },
        meta: { result_count: 2, next_token: 'community-next' },
      },
    });
    const page = await connector().readEngagement!(context(), {
      source: 'x_community',
      communityId: '1471580197908586507',
      nextToken: null,
      max: 25,
    });
    expect(platform.calls('GET', '/2/tweets/search/recent')[0]!.query.get('query')).toBe(
      '"Build in Public" -is:retweet',
    );
    expect(platform.calls('GET', '/2/tweets/search/recent')[0]!.query.get('tweet.fields')).toContain(
      'community_id',
    );
    expect(page.items).toEqual([
      expect.objectContaining({
        kind: 'community',
        externalId: '1861000000000000100',
        community: 'Build in Public',
        url: 'https://x.com/maya_builds/status/1861000000000000100',
        likeCount: 12,
      }),
    ]);
    expect(page.nextToken).toBe('community-next');
    expect(page.rateLimit?.remaining).toBe(299);
  });

  it('names the communities of community posts found by other reads; a community X will not describe stays nameless', async () => {
    const post = (id: string, community: string) => ({
      id,
      text: `post ${id}`,
      author_id: '101',
      community_id: community,
      created_at: '2026-11-20T08:00:00.000Z',
    });
    platform.on('GET', '/2/tweets/search/recent', {
      body: {
        data: [
          post('1861000000000000301', '1471580197908586507'),
          post('1861000000000000302', '1471580197908586507'),
          post('1861000000000000303', '1600000000000000001'),
        ],
        includes: { users: mentionsPage1.includes.users },
        meta: { result_count: 3 },
      },
    });
    platform.on('GET', '/2/communities/1471580197908586507', {
      body: { data: { id: '1471580197908586507', name: 'Build in Public' } },
    });
    platform.on('GET', '/2/communities/1600000000000000001', {
      status: 403,
      body: { title: 'Forbidden', detail: 'This community is private.', type: 'about:blank', status: 403 },
    });
    const page = await connector().readEngagement!(context(), {
      source: 'x_search',
      query: 'build',
      sinceId: null,
      nextToken: null,
      max: 10,
    });
    expect(page.items.map((i) => [i.kind, i.community])).toEqual([
      ['community', 'Build in Public'],
      ['community', 'Build in Public'],
      ['community', null],
    ]);
    // One lookup per community on the page.
    expect(platform.calls('GET', '/2/communities/1471580197908586507')).toHaveLength(1);
  });
});

describe('replying', () => {
  it('POSTs /2/tweets with exactly {text, reply: {in_reply_to_tweet_id}}', async () => {
    platform.on('POST', '/2/tweets', {
      status: 201,
      body: { data: { id: '1861000000000000200', text: 'Yes, polls work in replies too.' } },
    });
    const outcome = await connector().sendEngagementReply!(context(), {
      inReplyTo: '1861000000000000003',
      text: 'Yes, polls work in replies too.',
    });
    expect(platform.calls('POST', '/2/tweets')[0]!.json).toEqual({
      text: 'Yes, polls work in replies too.',
      reply: { in_reply_to_tweet_id: '1861000000000000003' },
    });
    expect(outcome).toEqual({
      externalId: '1861000000000000200',
      url: 'https://x.com/XDevelopers/status/1861000000000000200',
    });
  });

  it('a reset after sending is unknown_outcome; a refusal is permanent', async () => {
    platform.on('POST', '/2/tweets', { status: 201, body: { data: { id: '1', text: 'x' } } });
    // The request reaches X, then the connection is reset before the answer arrives.
    const resetAfterSending: typeof fetch = async (input, init) => {
      await fetch(input, init);
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    };
    const lost = await connectorFailure(
      connector(resetAfterSending).sendEngagementReply!(context(), {
        inReplyTo: '1861000000000000003',
        text: 'Hi',
      }),
    );
    expect(lost.kind).toBe('unknown_outcome');
    expect(platform.calls('POST', '/2/tweets')).toHaveLength(1);

    platform.on('POST', '/2/tweets', {
      status: 403,
      body: {
        detail: 'You are not allowed to reply to this Tweet.',
        type: 'about:blank',
        title: 'Forbidden',
        status: 403,
      },
    });
    const refused = await connectorFailure(
      connector().sendEngagementReply!(context(), { inReplyTo: '1861000000000000003', text: 'Hi' }),
    );
    expect(refused.kind).toBe('permanent');
    expect(refused.message).toContain('not allowed to reply');
  });

  it('a 503 on the create is unknown_outcome', async () => {
    platform.on('POST', '/2/tweets', { status: 503, body: { title: 'Service Unavailable' } });
    const error = await connectorFailure(
      connector().sendEngagementReply!(context(), { inReplyTo: '1861000000000000003', text: 'Hi' }),
    );
    expect(error.kind).toBe('unknown_outcome');
  });

  it('finds the reply again in the account’s own posts by the post answered and the exact text', async () => {
    platform.on('GET', '/2/users/2244994945/tweets', (request) => ({
      body: request.query.get('pagination_token')
        ? {
            data: [
              {
                id: '1861000000000000200',
                text: 'Yes, polls work in replies too: https://t.co/abc &amp; more',
                referenced_tweets: [{ type: 'replied_to', id: '1861000000000000003' }],
              },
            ],
            meta: { result_count: 1 },
          }
        : {
            data: [
              // Same text, another post answered: not it.
              {
                id: '1861000000000000199',
                text: 'Yes, polls work in replies too: https://t.co/xyz & more',
                referenced_tweets: [{ type: 'replied_to', id: '1861000000000000002' }],
              },
              // The post answered, other text: not it.
              {
                id: '1861000000000000198',
                text: 'Something else',
                referenced_tweets: [{ type: 'replied_to', id: '1861000000000000003' }],
              },
            ],
            meta: { result_count: 2, next_token: 'older' },
          },
    }));
    const reply = {
      inReplyTo: '1861000000000000003',
      text: 'Yes, polls work in replies too: https://example.com/polls & more',
    };
    expect(await connector().findEngagementReply!(context(), reply)).toEqual({
      externalId: '1861000000000000200',
      url: 'https://x.com/XDevelopers/status/1861000000000000200',
    });
    const [first] = platform.calls('GET', '/2/users/2244994945/tweets');
    expect(first!.query.get('tweet.fields')!.split(',')).toEqual(
      expect.arrayContaining(['referenced_tweets', 'note_tweet']),
    );
    expect(first!.query.get('exclude')).toBe('retweets');
    expect(await connector().findEngagementReply!(context(), { ...reply, text: 'Never sent' })).toBeNull();
  });
});
