// fetchMetricsBatch of the connectors whose platform takes a list of ids in one read (X 100, Reddit 100, YouTube
// 50, Bluesky 25, TikTok 20), against a locally served platform: the list sent, one answer per post in the order
// asked, posts the platform no longer has as `not_found`, and an error of one post kept to that post.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Platform } from '../../domain/shared/platforms.js';
import { createBlueskyConnector } from '../../infra/connectors/bluesky/bluesky-connector.js';
import type { CallContext, MetricsRequest, TokenSet } from '../../infra/connectors/port.js';
import { createRedditConnector } from '../../infra/connectors/reddit/reddit-connector.js';
import { createTikTokConnector } from '../../infra/connectors/tiktok/tiktok-connector.js';
import { createXConnector } from '../../infra/connectors/x/x-connector.js';
import { createYouTubeConnector } from '../../infra/connectors/youtube/youtube-connector.js';
import { callContext, fixtureReader, mediaByUrlOnly } from './support/connector-fixtures.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const now = new Date('2024-05-03T10:00:00Z');
const tokens: TokenSet = { accessToken: 'access-secret', refreshToken: null, expiresAt: null, scopes: [] };

let fake: FakePlatform;
beforeEach(async () => {
  fake = await startFakePlatform();
});
afterEach(async () => {
  await fake.close();
});

const contextFor = (
  platform: Platform,
  accountExternalId: string,
  extra: Partial<TokenSet> = {},
): CallContext =>
  callContext({
    platform,
    accountExternalId,
    accountHandle: null,
    tokens: { ...tokens, ...extra },
    fetchMedia: mediaByUrlOnly(platform),
  });

const request = (externalId: string, publishedAt = '2024-05-01T10:00:00Z'): MetricsRequest => ({
  externalId,
  url: null,
  publishedAt,
  timezone: 'UTC',
});

describe('x', () => {
  const fixture = fixtureReader('x');
  const x = () =>
    createXConnector({
      clientId: 'client-id',
      clientSecret: 'client-secret',
      apiBaseUrl: fake.baseUrl,
      timeoutMs: 2_000,
      now: () => now,
    });

  it('reads up to 100 tweets a request, non-public metrics for the young ones; gone and refused ids on their own', async () => {
    fake.on('GET', '/2/tweets', { body: fixture('tweets-metrics') });
    const answers = await x().fetchMetricsBatch!(contextFor('x', '2244994945'), [
      request('1460323737035677699'),
      request('1460323737035677698'),
      request('1293593516040269825'),
      request('1460323737035677700'),
    ]);
    expect(answers).toEqual([
      { kind: 'not_found' },
      {
        kind: 'metrics',
        metrics: { likes: 480, reposts: 102, replies: 25, quotes: 12, bookmarks: 31, impressions: 21004 },
      },
      {
        kind: 'metrics',
        metrics: { likes: 3287, reposts: 911, replies: 173, quotes: 242, bookmarks: 18, impressions: 96402 },
      },
      { kind: 'error', message: expect.stringMatching(/^x: Sorry, you are not authorized/) },
    ]);
    const [call] = fake.calls('GET', '/2/tweets');
    expect(call!.query.get('ids')).toBe(
      '1460323737035677699,1460323737035677698,1293593516040269825,1460323737035677700',
    );
    expect(call!.query.get('tweet.fields')).toBe('public_metrics,non_public_metrics');
    expect(call!.headers.authorization).toBe('Bearer access-secret');
  });

  it('asks for public metrics only for tweets older than 30 days, in a read of their own, and 100 ids at most', async () => {
    fake.on('GET', '/2/tweets', { body: { data: [] } });
    const young = Array.from({ length: 150 }, (_, i) => request(`17${String(i).padStart(17, '0')}`));
    const old = request('1293593516040269825', '2024-03-01T10:00:00Z');
    await x().fetchMetricsBatch!(contextFor('x', '2244994945'), [...young, old]);
    const calls = fake.calls('GET', '/2/tweets');
    expect(calls.map((c) => [c.query.get('ids')!.split(',').length, c.query.get('tweet.fields')])).toEqual([
      [100, 'public_metrics,non_public_metrics'],
      [50, 'public_metrics,non_public_metrics'],
      [1, 'public_metrics'],
    ]);
  });

  it('falls back to public metrics when the non-public ones are refused', async () => {
    fake.on('GET', '/2/tweets', (r) =>
      r.query.get('tweet.fields')!.includes('non_public')
        ? { status: 403, body: fixture('error-client-forbidden') }
        : { body: fixture('tweets-metrics') },
    );
    const [answer] = await x().fetchMetricsBatch!(contextFor('x', '2244994945'), [
      request('1460323737035677698'),
    ]);
    expect(answer).toMatchObject({ kind: 'metrics', metrics: { likes: 480 } });
    expect(fake.calls('GET', '/2/tweets')).toHaveLength(2);
  });
});

describe('youtube', () => {
  it('reads up to 50 videos a request; a deleted one is not among the items', async () => {
    fake.on('GET', '/youtube/v3/videos', { body: fixtureReader('youtube')('videos-statistics-many') });
    const youtube = createYouTubeConnector({
      clientId: 'google-client-id',
      clientSecret: 'google-client-secret',
      apiBaseUrl: fake.baseUrl,
      timeoutMs: 2_000,
      now: () => now,
    });
    const answers = await youtube.fetchMetricsBatch!(contextFor('youtube', 'UC_x5XG1OV2P6uZZ5FSM9Ttw'), [
      request('dQw4w9WgXcQ'),
      request('gone0000000'),
      request('Ks-_Mh1QhMc'),
    ]);
    expect(answers).toEqual([
      {
        kind: 'metrics',
        metrics: { likes: 41, reposts: 0, replies: 7, quotes: 0, bookmarks: null, impressions: 880 },
      },
      { kind: 'not_found' },
      {
        kind: 'metrics',
        metrics: { likes: 512, reposts: 0, replies: 48, quotes: 0, bookmarks: null, impressions: 10234 },
      },
    ]);
    const [call] = fake.calls('GET', '/youtube/v3/videos');
    expect(call!.query.get('part')).toBe('statistics');
    expect(call!.query.get('id')).toBe('dQw4w9WgXcQ,gone0000000,Ks-_Mh1QhMc');
  });
});

describe('reddit', () => {
  it('reads up to 100 submissions through /api/info; a deleted or missing one is gone', async () => {
    fake.on('GET', '/api/info', { body: fixtureReader('reddit')('info-metrics-many') });
    const reddit = createRedditConnector({
      clientId: 'reddit-client-id',
      clientSecret: 'reddit-client-secret',
      userAgent: 'web:social-publishing-test:1.0 (by /u/acme_studio)',
      apiBaseUrl: fake.baseUrl,
      timeoutMs: 2_000,
      now: () => now,
    });
    const answers = await reddit.fetchMetricsBatch!(contextFor('reddit', 't2_abc123'), [
      request('1h2y0ab'),
      request('t3_1h2x9qz'),
      request('t3_1h2zzzz'),
    ]);
    expect(answers).toEqual([
      { kind: 'not_found' },
      {
        kind: 'metrics',
        metrics: { likes: 87, reposts: 2, replies: 23, quotes: 0, bookmarks: null, impressions: null },
      },
      { kind: 'not_found' },
    ]);
    expect(fake.calls('GET', '/api/info')[0]!.query.get('id')).toBe('t3_1h2y0ab,t3_1h2x9qz,t3_1h2zzzz');
  });
});

describe('bluesky', () => {
  it('reads up to 25 posts through getPosts; a post no longer there is gone', async () => {
    const DID = 'did:plc:z72i7hdynmk6r22z27h6tvur';
    const first = `at://${DID}/app.bsky.feed.post/3kxuaxwbbr22k`;
    const second = `at://${DID}/app.bsky.feed.post/3kxuc4wqlbn2s`;
    const gone = `at://${DID}/app.bsky.feed.post/3kxuzzzzzzz2a`;
    fake.on('GET', '/xrpc/app.bsky.feed.getPosts', { body: fixtureReader('bluesky')('get-posts-two') });
    const bluesky = createBlueskyConnector({
      publicBaseUrl: 'https://app.example.test',
      serviceUrl: fake.baseUrl,
      allowHttp: true,
      allowPrivate: [fake.baseUrl],
      timeoutMs: 2_000,
      now: () => now,
    });
    const context = contextFor('bluesky', DID, {
      extra: { did: DID, service: fake.baseUrl, auth: 'app_password' },
    });
    const answers = await bluesky.fetchMetricsBatch!(context, [
      request(second),
      request(gone),
      request(first),
    ]);
    expect(answers).toEqual([
      {
        kind: 'metrics',
        metrics: { likes: 9, reposts: 1, replies: 0, quotes: 0, bookmarks: null, impressions: null },
      },
      { kind: 'not_found' },
      {
        kind: 'metrics',
        metrics: { likes: 24, reposts: 3, replies: 5, quotes: 1, bookmarks: 2, impressions: null },
      },
    ]);
    expect(fake.calls('GET', '/xrpc/app.bsky.feed.getPosts')[0]!.query.getAll('uris')).toEqual([
      second,
      gone,
      first,
    ]);
  });
});

describe('tiktok', () => {
  it('queries up to 20 videos at once; one TikTok no longer has is gone', async () => {
    fake.on('POST', '/v2/video/query/', { body: fixtureReader('tiktok')('video-query-many') });
    const tiktok = createTikTokConnector({
      clientKey: 'tiktok-client-key',
      clientSecret: 'tiktok-client-secret',
      apiBaseUrl: fake.baseUrl,
      timeoutMs: 2_000,
      now: () => now,
    });
    const ids = Array.from({ length: 21 }, (_, i) => `70802134585557370${String(i).padStart(2, '0')}`);
    const answers = await tiktok.fetchMetricsBatch!(
      contextFor('tiktok', 'afd97af1-b87b-48b9-ac98-410aghda5344'),
      ids.map((id) => request(id)),
    );
    expect(answers[0]).toEqual({
      kind: 'metrics',
      metrics: { likes: 350, reposts: 12, replies: 21, quotes: 0, bookmarks: null, impressions: 9870 },
    });
    expect(answers[1]).toMatchObject({ kind: 'metrics', metrics: { likes: 12, impressions: 640 } });
    expect(answers.slice(2).every((a) => a.kind === 'not_found')).toBe(true);
    const calls = fake.calls('POST', '/v2/video/query/');
    expect(
      calls.map((c) => (c.json as { filters: { video_ids: string[] } }).filters.video_ids.length),
    ).toEqual([20, 1]);
    expect(calls[0]!.query.get('fields')).toBe('id,like_count,comment_count,share_count,view_count');
  });
});
