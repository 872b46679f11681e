// The live Reddit connector's reply-inbox side against a locally served Reddit: search (site-wide and restricted
// to subreddits) read into inbox candidates with `after` paging and Reddit's rate-limit headers, removed and
// deleted threads left out, 429; a comment (POST /api/comment) with Reddit's in-body errors and a lost answer;
// finding the comment again in the account's own comments.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallContext, TokenSet } from '../../infra/connectors/port.js';
import { createRedditConnector } from '../../infra/connectors/reddit/reddit-connector.js';
import { callContext, connectorFailure, formFields, mediaByUrlOnly } from './support/connector-fixtures.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const now = new Date('2026-11-23T10:00:00.000Z');
const tokens: TokenSet = {
  accessToken: 'reddit-current-access',
  refreshToken: 'reddit-current-refresh',
  expiresAt: '2026-11-24T10:00:00.000Z',
  scopes: ['identity', 'submit', 'read', 'edit'],
};

let fake: FakePlatform;
beforeEach(async () => {
  fake = await startFakePlatform();
});
afterEach(async () => {
  await fake.close();
});

function connector(fetchOverride?: typeof fetch) {
  return createRedditConnector({
    clientId: 'reddit-client-id',
    clientSecret: 'reddit-client-secret',
    userAgent: 'web:com.example.publisher:v1.0 (by /u/acme_dev)',
    apiBaseUrl: fake.baseUrl,
    timeoutMs: 2_000,
    now: () => now,
    ...(fetchOverride ? { fetch: fetchOverride } : {}),
  });
}

const context = (): CallContext =>
  callContext({
    platform: 'reddit',
    accountExternalId: '1w72',
    accountHandle: 'acme_studio',
    tokens,
    fetchMedia: mediaByUrlOnly('reddit'),
  });

const thread = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: 't3',
  data: {
    id,
    name: `t3_${id}`,
    title: `Which scheduler do you use for ${id}?`,
    selftext: 'Looking for something that handles X and Reddit together.',
    subreddit: 'SaaS',
    author: 'curious_founder',
    permalink: `/r/SaaS/comments/${id}/which_scheduler/`,
    score: 17,
    num_comments: 9,
    created_utc: 1_795_000_000,
    removed_by_category: null,
    ...extra,
  },
});

// A search listing as Reddit answers it: kind Listing, children t3, `after` for the next page.
const listing = (children: unknown[], after: string | null) => ({
  kind: 'Listing',
  data: { after, dist: children.length, before: null, children },
});

describe('search', () => {
  it('searches the chosen subreddits, newest first, and reads threads into candidates', async () => {
    fake.on('GET', '/r/saas+startups/search', (request) => ({
      headers: { 'x-ratelimit-remaining': '597.0', 'x-ratelimit-reset': '120', 'x-ratelimit-used': '3' },
      body: request.query.get('after')
        ? listing([thread('1h3c')], null)
        : listing(
            [
              thread('1h3a'),
              // Removed by the moderators and deleted by the author: nothing to answer.
              thread('1h3r', { removed_by_category: 'moderator', selftext: '[removed]' }),
              thread('1h3d', { author: '[deleted]', selftext: '[deleted]' }),
              thread('1h3b', { subreddit: 'startups', selftext: '' }),
            ],
            't3_1h3b',
          ),
    }));
    const reddit = connector();
    const page = await reddit.readEngagement!(context(), {
      source: 'reddit_search',
      query: 'social media scheduler',
      subreddits: ['r/SaaS', 'startups'],
      nextToken: null,
      max: 25,
    });
    const [request] = fake.calls('GET', '/r/saas+startups/search');
    expect(request!.headers.authorization).toBe('Bearer reddit-current-access');
    expect(Object.fromEntries(request!.query)).toEqual({
      q: 'social media scheduler',
      sort: 'new',
      type: 'link',
      limit: '25',
      restrict_sr: 'true',
      raw_json: '1',
    });
    expect(page.items).toEqual([
      {
        platform: 'reddit',
        kind: 'mention',
        externalId: 't3_1h3a',
        url: 'https://www.reddit.com/r/SaaS/comments/1h3a/which_scheduler/',
        text: 'Looking for something that handles X and Reddit together.',
        author: { handle: 'curious_founder', name: null, followers: null },
        postedAt: new Date(1_795_000_000 * 1000).toISOString(),
        likeCount: 17,
        replyCount: 9,
        inReplyToText: null,
        title: 'Which scheduler do you use for 1h3a?',
        community: 'SaaS',
      },
      expect.objectContaining({ externalId: 't3_1h3b', community: 'startups', text: '' }),
    ]);
    expect(page.nextToken).toBe('t3_1h3b');
    expect(page.newestId).toBe('t3_1h3a');
    expect(page.rateLimit).toEqual({ remaining: 597, resetAt: '2026-11-23T10:02:00.000Z' });

    const next = await reddit.readEngagement!(context(), {
      source: 'reddit_search',
      query: 'social media scheduler',
      subreddits: ['r/SaaS', 'startups'],
      nextToken: page.nextToken,
      max: 25,
    });
    expect(fake.calls('GET', '/r/saas+startups/search')[1]!.query.get('after')).toBe('t3_1h3b');
    expect(next.items.map((i) => i.externalId)).toEqual(['t3_1h3c']);
    expect(next.nextToken).toBeNull();
  });

  it('searches all of Reddit without subreddits; 429 is rate_limited with Reddit’s reset', async () => {
    fake.on('GET', '/search', { body: listing([], null) });
    const empty = await connector().readEngagement!(context(), {
      source: 'reddit_search',
      query: 'acme',
      subreddits: [],
      nextToken: null,
      max: 500,
    });
    expect(empty).toEqual({ items: [], nextToken: null, newestId: null, rateLimit: null });
    expect(fake.calls('GET', '/search')[0]!.query.get('restrict_sr')).toBeNull();
    expect(fake.calls('GET', '/search')[0]!.query.get('limit')).toBe('100');

    fake.on('GET', '/search', {
      status: 429,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '42' },
      body: { message: 'Too Many Requests', error: 429 },
    });
    const error = await connectorFailure(
      connector().readEngagement!(context(), {
        source: 'reddit_search',
        query: 'acme',
        subreddits: [],
        nextToken: null,
        max: 10,
      }),
    );
    expect(error.kind).toBe('rate_limited');
    expect(error.details.retryAfterMs).toBe(42_000);
  });
});

describe('commenting', () => {
  const created = {
    json: {
      errors: [],
      data: {
        things: [
          {
            kind: 't1',
            data: {
              id: 'lx9k2a1',
              name: 't1_lx9k2a1',
              parent_id: 't3_1h3a',
              body: 'We built exactly this. Happy to share notes.',
              permalink: '/r/SaaS/comments/1h3a/which_scheduler/lx9k2a1/',
            },
          },
        ],
      },
    },
  };

  it('POSTs /api/comment with thing_id, text and api_type=json, and answers the comment’s id and link', async () => {
    fake.on('POST', '/api/comment', { body: created });
    const outcome = await connector().sendEngagementReply!(context(), {
      inReplyTo: 't3_1h3a',
      text: 'We built exactly this. Happy to share notes.',
    });
    expect(formFields(fake.calls('POST', '/api/comment')[0]!)).toEqual({
      api_type: 'json',
      thing_id: 't3_1h3a',
      text: 'We built exactly this. Happy to share notes.',
    });
    expect(outcome).toEqual({
      externalId: 't1_lx9k2a1',
      url: 'https://www.reddit.com/r/SaaS/comments/1h3a/which_scheduler/lx9k2a1/',
    });
  });

  it('Reddit’s in-body errors are permanent (RATELIMIT is rate_limited); a reset after sending is unknown_outcome', async () => {
    fake.on('POST', '/api/comment', {
      body: { json: { errors: [['THREAD_LOCKED', 'Comments are locked.', 'parent']] } },
    });
    const locked = await connectorFailure(
      connector().sendEngagementReply!(context(), { inReplyTo: 't3_1h3a', text: 'Hello' }),
    );
    expect(locked.kind).toBe('permanent');
    expect(locked.details.platformCode).toBe('THREAD_LOCKED');

    fake.on('POST', '/api/comment', {
      body: {
        json: { errors: [['RATELIMIT', 'Take a break for 45 seconds before trying again.', 'ratelimit']] },
      },
    });
    const limited = await connectorFailure(
      connector().sendEngagementReply!(context(), { inReplyTo: 't3_1h3a', text: 'Hello' }),
    );
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.retryAfterMs).toBe(45_000);

    fake.on('POST', '/api/comment', { body: created });
    const resetAfterSending: typeof fetch = async (input, init) => {
      await fetch(input, init);
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    };
    const lost = await connectorFailure(
      connector(resetAfterSending).sendEngagementReply!(context(), { inReplyTo: 't3_1h3a', text: 'Hello' }),
    );
    expect(lost.kind).toBe('unknown_outcome');
  });

  it('finds the comment again by its parent and exact body among the account’s comments', async () => {
    fake.on('GET', '/user/acme_studio/comments', {
      body: listing(
        [
          {
            kind: 't1',
            data: { id: 'a1', name: 't1_a1', parent_id: 't3_other', body: 'Hello', permalink: '/r/x/a1/' },
          },
          {
            kind: 't1',
            data: {
              id: 'a2',
              name: 't1_a2',
              parent_id: 't3_1h3a',
              body: 'Hello there',
              permalink: '/r/x/a2/',
            },
          },
          {
            kind: 't1',
            data: { id: 'a3', name: 't1_a3', parent_id: 't3_1h3a', body: 'Hello', permalink: '/r/SaaS/a3/' },
          },
        ],
        null,
      ),
    });
    expect(
      await connector().findEngagementReply!(context(), { inReplyTo: 't3_1h3a', text: 'Hello' }),
    ).toEqual({
      externalId: 't1_a3',
      url: 'https://www.reddit.com/r/SaaS/a3/',
    });
    expect(fake.calls('GET', '/user/acme_studio/comments')[0]!.query.get('sort')).toBe('new');
    expect(
      await connector().findEngagementReply!(context(), { inReplyTo: 't3_1h3z', text: 'Hello' }),
    ).toBeNull();
  });
});
