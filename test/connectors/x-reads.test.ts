// The live X connector's reads against a locally served X API v2: post lookup by id and by ids with expansions
// and fields (the spec's X post shape from X's tweet, users, media and referenced tweets), missing and hidden
// posts, conversation search (the author's thread and everyone else's replies, paged), the account's own timeline
// with public and private numbers (and the public ones alone when X refuses the private), its audience, and
// X's errors. Fixtures are X's documented responses.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createXConnector } from '../../infra/connectors/x/x-connector.js';
import type { CallContext } from '../../infra/connectors/port.js';
import {
  callContext,
  connectorFailure,
  fixtureReader,
  mediaByUrlOnly,
} from './support/connector-fixtures.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const fixture = fixtureReader('x');
const tokens = { accessToken: 'access-secret', refreshToken: 'refresh-secret', expiresAt: null, scopes: [] };

let platform: FakePlatform;
beforeEach(async () => {
  platform = await startFakePlatform();
});
afterEach(async () => {
  await platform.close();
});

function connector() {
  return createXConnector({
    clientId: 'client-id',
    clientSecret: 'client-secret',
    apiBaseUrl: platform.baseUrl,
    timeoutMs: 2_000,
    now: () => new Date('2021-11-20T10:00:00Z'),
    sleep: async () => {},
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

describe('reading posts by id', () => {
  it('asks GET /2/tweets/:id with the fields and expansions, and reads X’s answer into the X post shape', async () => {
    platform.on('GET', '/2/tweets/1460323737035677698', { body: fixture('tweet-lookup-expanded') });
    const result = await connector().readXPosts!(context(), {
      ids: ['1460323737035677698'],
      includeMedia: true,
    });
    const [request] = platform.calls('GET', '/2/tweets/1460323737035677698');
    expect(request!.headers.authorization).toBe('Bearer access-secret');
    expect(request!.query.get('tweet.fields')!.split(',')).toEqual(
      expect.arrayContaining([
        'attachments',
        'author_id',
        'conversation_id',
        'created_at',
        'entities',
        'lang',
        'note_tweet',
        'possibly_sensitive',
        'public_metrics',
        'referenced_tweets',
      ]),
    );
    expect(request!.query.get('expansions')!.split(',').sort()).toEqual([
      'attachments.media_keys',
      'author_id',
      'referenced_tweets.id',
      'referenced_tweets.id.author_id',
    ]);
    expect(request!.query.get('user.fields')).toContain('public_metrics');
    expect(request!.query.get('media.fields')!.split(',')).toEqual(
      expect.arrayContaining(['variants', 'duration_ms', 'preview_image_url', 'alt_text']),
    );

    expect(result.missing).toEqual([]);
    const post = result.posts[0]!;
    expect(post).toMatchObject({
      id: '1460323737035677698',
      url: 'https://x.com/XDevelopers/status/1460323737035677698',
      createdAt: '2021-11-15T19:08:05.000Z',
      lang: 'en',
      author: {
        id: '2244994945',
        handle: 'XDevelopers',
        name: 'Developers',
        verified: true,
        followers: 570842,
        profileImageUrl: 'https://pbs.twimg.com/profile_images/1445764922474827784/W2zEPN7U_normal.jpg',
        bio: 'The voice of the X Dev team and your official source for updates.',
      },
      metrics: { likes: 480, reposts: 102, replies: 25, quotes: 12, bookmarks: 31, impressions: 20931 },
      conversationId: '1460323737035677698',
      inReplyToPostId: null,
      hashtags: ['TwitterAPI'],
      mentions: ['TwitterDev'],
      cashtags: ['TWTR'],
      possiblySensitive: false,
      mediaCount: 1,
    });
    // The video's own pic link is not a link to anywhere else.
    expect(post.links).toEqual([
      {
        url: 'https://t.co/Hrm15bkBWJ',
        expandedUrl:
          'https://blog.twitter.com/developer/en_us/topics/tools/2021/build-whats-next-with-the-new-twitter-api-v2',
        title: 'Build what’s next with the new Twitter API v2',
        description: 'Today, we’re launching the new Twitter API v2 as the primary API.',
      },
    ]);
    expect(post.media).toEqual([
      {
        key: '7_1460322142680072196',
        type: 'video',
        url: null,
        previewImageUrl:
          'https://pbs.twimg.com/ext_tw_video_thumb/1460322142680072196/pu/img/8B8zs4W6uUhmUfJ8.jpg',
        altText: null,
        width: 1920,
        height: 1080,
        durationMs: 46947,
        variants: [
          {
            url: 'https://video.twimg.com/ext_tw_video/1460322142680072196/pu/vid/1280x720/a2sFJQxMR9DLJ7yL.mp4?tag=12',
            contentType: 'video/mp4',
            bitRate: 2176000,
          },
          {
            url: 'https://video.twimg.com/ext_tw_video/1460322142680072196/pu/pl/lSvT9DsNGMnBwrGh.m3u8?tag=12&container=fmp4',
            contentType: 'application/x-mpegURL',
            bitRate: null,
          },
          {
            url: 'https://video.twimg.com/ext_tw_video/1460322142680072196/pu/vid/480x270/6CV_ZyWsUmO9ebgC.mp4?tag=12',
            contentType: 'video/mp4',
            bitRate: 256000,
          },
        ],
      },
    ]);
    // The quoted post, expanded with its own author, and without references of its own.
    expect(post.referencedPosts).toHaveLength(1);
    expect(post.referencedPosts[0]).toMatchObject({
      type: 'quoted',
      id: '1445880548472328192',
      post: {
        id: '1445880548472328192',
        url: 'https://x.com/X/status/1445880548472328192',
        author: { handle: 'X', verified: true, followers: 68492163 },
        metrics: { likes: 301, impressions: 120443 },
        links: [
          {
            url: 'https://t.co/MPlsX1VabN',
            expandedUrl: 'https://developer.twitter.com/en/products/twitter-api/academic-research',
            title: null,
            description: null,
          },
        ],
        referencedPosts: [],
      },
    });
  });

  it('without includeMedia: no media expansion, mediaCount still says how many', async () => {
    platform.on('GET', '/2/tweets/1460323737035677698', { body: fixture('tweet-lookup-expanded') });
    const { posts } = await connector().readXPosts!(context(), {
      ids: ['1460323737035677698'],
      includeMedia: false,
    });
    const [request] = platform.calls('GET', '/2/tweets/1460323737035677698');
    expect(request!.query.get('expansions')).not.toContain('attachments.media_keys');
    expect(request!.query.has('media.fields')).toBe(false);
    expect(posts[0]).toMatchObject({ mediaCount: 1, media: [] });
  });

  it('several ids: GET /2/tweets?ids=, in the order asked; missing and hidden ones said apart', async () => {
    platform.on('GET', '/2/tweets', { body: fixture('tweets-lookup-partial') });
    const result = await connector().readXPosts!(context(), {
      ids: ['1293593516040269825', '1460323737035677698', '1212092628029698048'],
      includeMedia: false,
    });
    const [request] = platform.calls('GET', '/2/tweets');
    expect(request!.query.get('ids')).toBe('1293593516040269825,1460323737035677698,1212092628029698048');
    expect(result.posts.map((p) => p.id)).toEqual(['1460323737035677698']);
    expect(result.missing).toEqual([
      { id: '1293593516040269825', reason: 'not_found' },
      { id: '1212092628029698048', reason: 'not_authorized' },
    ]);
  });

  it('a deleted post (200 with a Not Found error, or a 404) is missing, not a failure', async () => {
    platform.on('GET', '/2/tweets/1460323737035677698', { body: fixture('error-tweet-not-found') });
    expect(
      await connector().readXPosts!(context(), { ids: ['1460323737035677698'], includeMedia: false }),
    ).toEqual({ posts: [], missing: [{ id: '1460323737035677698', reason: 'not_found' }] });
    platform.on('GET', '/2/tweets/1460323737035677698', {
      status: 404,
      body: fixture('error-tweet-not-found'),
    });
    expect(
      (await connector().readXPosts!(context(), { ids: ['1460323737035677698'], includeMedia: false }))
        .missing,
    ).toEqual([{ id: '1460323737035677698', reason: 'not_found' }]);
  });

  it('X’s errors keep their kinds: 401 auth, 429 rate limited with its reset, 403 permanent, 503 retryable', async () => {
    const read = () => connector().readXPosts!(context(), { ids: ['1'], includeMedia: false });
    platform.on('GET', '/2/tweets/1', { status: 401, body: fixture('error-unauthorized') });
    expect((await connectorFailure(read())).kind).toBe('auth');
    platform.on('GET', '/2/tweets/1', {
      status: 429,
      headers: { 'x-rate-limit-reset': String(Math.floor(Date.parse('2021-11-20T10:15:00Z') / 1000)) },
      body: fixture('error-too-many-requests'),
    });
    const limited = await connectorFailure(read());
    expect(limited.kind).toBe('rate_limited');
    platform.on('GET', '/2/tweets/1', { status: 403, body: fixture('error-client-forbidden') });
    const forbidden = await connectorFailure(read());
    expect(forbidden.kind).toBe('permanent');
    expect(forbidden.message).toContain('not authorized');
    platform.on('GET', '/2/tweets/1', { status: 503, body: { title: 'Service Unavailable' } });
    expect((await connectorFailure(read())).kind).toBe('retryable');
  });

  it('refuses ids that are not X post ids before asking X', async () => {
    const failure = await connectorFailure(
      connector().readXPosts!(context(), { ids: ['12a'], includeMedia: false }),
    );
    expect(failure.kind).toBe('permanent');
    expect(platform.requests).toHaveLength(0);
  });
});

describe('reading a conversation', () => {
  it('the author’s thread from `conversation_id: from:`, oldest first; replies from `-from:`, paged', async () => {
    platform.on('GET', '/2/tweets/search/recent', (request) => {
      const query = request.query.get('query')!;
      if (query.includes(' from:')) return { body: fixture('search-conversation') };
      return {
        body: request.query.get('next_token') ? fixture('search-replies-page-2') : fixture('search-replies'),
      };
    });
    const result = await connector().readXConversation!(context(), {
      conversationId: '1460323737035677698',
      authorId: '2244994945',
      includeReplies: true,
      includeMedia: false,
      limit: 10,
    });
    const searches = platform.calls('GET', '/2/tweets/search/recent');
    expect(searches.map((r) => r.query.get('query'))).toEqual([
      'conversation_id:1460323737035677698 from:2244994945',
      'conversation_id:1460323737035677698 -from:2244994945',
      'conversation_id:1460323737035677698 -from:2244994945',
    ]);
    expect(searches[2]!.query.get('next_token')).toBe('b26v89c19zqg8o3fpzbkk4euqa6b3ywl8w4fdy7u0qo59');
    expect(searches[0]!.query.get('max_results')).toBe('100');
    expect(result.thread.map((p) => p.text)).toEqual([
      '2/ The new v2 endpoints replace most of v1.1.',
      '3/ And a new Academic Research track is coming soon.',
    ]);
    // Everyone else's replies and the author's answers to them, oldest first.
    expect(result.replies.map((p) => p.id)).toEqual([
      '1460323800000000003',
      '1460324000000000001',
      '1460324050000000005',
      '1460325000000000002',
    ]);
    expect(result.replies[1]!.author).toMatchObject({ handle: 'sam_dev', followers: 95, verified: false });
    expect(result.hasMore).toBe(false);
  });

  it('without replies only the author’s search is made; `limit` cuts the thread first, then says hasMore', async () => {
    platform.on('GET', '/2/tweets/search/recent', { body: fixture('search-conversation') });
    const result = await connector().readXConversation!(context(), {
      conversationId: '1460323737035677698',
      authorId: '2244994945',
      includeReplies: false,
      includeMedia: false,
      limit: 1,
    });
    expect(platform.calls('GET', '/2/tweets/search/recent')).toHaveLength(1);
    expect(result.thread.map((p) => p.id)).toEqual(['1460323938580209664']);
    expect(result.replies).toEqual([]);
    expect(result.hasMore).toBe(true);
  });
});

describe("reading the account's own timeline", () => {
  it('GET /2/users/:id for the audience, GET /2/users/:id/tweets with private numbers, every page', async () => {
    platform.on('GET', '/2/users/2244994945', { body: fixture('user-public-metrics') });
    platform.on('GET', '/2/users/2244994945/tweets', (request) => ({
      body: request.query.get('pagination_token')
        ? fixture('user-tweets-metrics-page-2')
        : fixture('user-tweets-metrics'),
    }));
    const activity = await connector().readXAccountActivity!(context(), {
      since: '2021-11-01T00:00:00.123Z',
      timezone: 'Europe/Berlin',
    });
    const [user] = platform.calls('GET', '/2/users/2244994945');
    expect(user!.query.get('user.fields')).toBe('public_metrics');
    const pages = platform.calls('GET', '/2/users/2244994945/tweets');
    expect(pages).toHaveLength(2);
    expect(pages[0]!.query.get('start_time')).toBe('2021-11-01T00:00:00Z');
    expect(pages[0]!.query.get('exclude')).toBe('retweets');
    expect(pages[0]!.query.get('tweet.fields')).toContain('non_public_metrics');
    expect(pages[1]!.query.get('pagination_token')).toBe('7140dibdnow9c7btw3z2vwioavpvutgzrzm9icis4ndix');
    expect(activity.audience).toEqual({ followers: 570842, following: 2048, postCount: 14052 });
    expect(activity.truncated).toBe(false);
    expect(activity.posts).toEqual([
      {
        id: '1460323737035677698',
        createdAt: '2021-11-15T19:08:05.000Z',
        kind: 'post',
        likes: 480,
        reposts: 102,
        replies: 25,
        quotes: 12,
        bookmarks: 31,
        impressions: 21004,
        profileVisits: 19,
        linkClicks: 45,
      },
      // Answering one's own post continues a thread: a post.
      expect.objectContaining({ id: '1460323938580209664', kind: 'post', impressions: 6900 }),
      // Answering someone else: a reply sent.
      expect.objectContaining({ id: '1460322000000000009', kind: 'reply', profileVisits: 1 }),
    ]);
  });

  it('when X refuses the private numbers, the timeline is read again with the public ones', async () => {
    platform.on('GET', '/2/users/2244994945', { body: fixture('user-public-metrics') });
    platform.on('GET', '/2/users/2244994945/tweets', (request) =>
      request.query.get('tweet.fields')!.includes('non_public_metrics')
        ? { status: 403, body: fixture('error-client-forbidden') }
        : { body: fixture('user-tweets') },
    );
    const activity = await connector().readXAccountActivity!(context(), {
      since: '2020-01-01T00:00:00Z',
      timezone: 'UTC',
    });
    expect(activity.posts.map((p) => [p.id, p.impressions, p.profileVisits, p.linkClicks])).toEqual([
      ['1460323737035677698', null, null, null],
      ['1293593516040269825', null, null, null],
    ]);
    expect(platform.calls('GET', '/2/users/2244994945/tweets')).toHaveLength(2);
  });

  it('a rate limit is not mistaken for a refusal of the private numbers', async () => {
    platform.on('GET', '/2/users/2244994945', { body: fixture('user-public-metrics') });
    platform.on('GET', '/2/users/2244994945/tweets', {
      status: 429,
      body: fixture('error-too-many-requests'),
    });
    const failure = await connectorFailure(
      connector().readXAccountActivity!(context(), { since: '2021-11-01T00:00:00Z', timezone: 'UTC' }),
    );
    expect(failure.kind).toBe('rate_limited');
    expect(platform.calls('GET', '/2/users/2244994945/tweets')).toHaveLength(1);
  });
});
