// fetchMetrics of every live connector against a locally served platform: the read it sends (path, fields,
// auth), how it reads the platform's documented answer into likes, reposts, replies, quotes, bookmarks and
// impressions, a post gone from the platform as `not_found`, and refusals as the usual ConnectorError kinds.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Platform } from '../../domain/shared/platforms.js';
import { createBlueskyConnector } from '../../infra/connectors/bluesky/bluesky-connector.js';
import { createFacebookConnector } from '../../infra/connectors/facebook/facebook-connector.js';
import { createInstagramConnector } from '../../infra/connectors/instagram/instagram-connector.js';
import { createLinkedInConnector } from '../../infra/connectors/linkedin/linkedin-connector.js';
import type { CallContext, MetricsRequest, TokenSet } from '../../infra/connectors/port.js';
import { createRedditConnector } from '../../infra/connectors/reddit/reddit-connector.js';
import { createThreadsConnector } from '../../infra/connectors/threads/threads-connector.js';
import { createTikTokConnector } from '../../infra/connectors/tiktok/tiktok-connector.js';
import { createXConnector } from '../../infra/connectors/x/x-connector.js';
import { createYouTubeConnector } from '../../infra/connectors/youtube/youtube-connector.js';
import {
  callContext,
  connectorFailure,
  fixtureReader,
  mediaByUrlOnly,
} from './support/connector-fixtures.js';
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

function contextFor(
  platform: Platform,
  accountExternalId: string,
  extra: Partial<TokenSet> = {},
  accountHandle: string | null = null,
): CallContext {
  return callContext({
    platform,
    accountExternalId,
    accountHandle,
    tokens: { ...tokens, ...extra },
    fetchMedia: mediaByUrlOnly(platform),
  });
}

function request(externalId: string, publishedAt = '2024-05-01T10:00:00Z'): MetricsRequest {
  return { externalId, url: null, publishedAt, timezone: 'Europe/Berlin' };
}

describe('x', () => {
  const fixture = fixtureReader('x');
  const tweet = '1460323737035677698';
  const x = () =>
    createXConnector({
      clientId: 'client-id',
      clientSecret: 'client-secret',
      apiBaseUrl: fake.baseUrl,
      timeoutMs: 2_000,
      now: () => now,
    });
  const context = () => contextFor('x', '2244994945', {}, 'XDevelopers');

  it("reads a recent tweet's public and non-public metrics, impressions from the non-public ones", async () => {
    fake.on('GET', `/2/tweets/${tweet}`, { body: fixture('tweet-metrics') });
    expect(await x().fetchMetrics(context(), request(tweet))).toEqual({
      kind: 'metrics',
      metrics: { likes: 480, reposts: 102, replies: 25, quotes: 12, bookmarks: 31, impressions: 21004 },
    });
    const [call] = fake.calls('GET', `/2/tweets/${tweet}`);
    expect(call!.query.get('tweet.fields')).toBe('public_metrics,non_public_metrics');
    expect(call!.headers.authorization).toBe('Bearer access-secret');
  });

  it('asks for public metrics only after 30 days, and falls back to them when non-public ones are refused', async () => {
    fake.on('GET', `/2/tweets/${tweet}`, (r) =>
      r.query.get('tweet.fields')!.includes('non_public')
        ? { status: 403, body: fixture('error-client-forbidden') }
        : { body: fixture('tweet-public-metrics') },
    );
    const metrics = { likes: 480, reposts: 102, replies: 25, quotes: 12, bookmarks: 31, impressions: 20931 };
    expect(await x().fetchMetrics(context(), request(tweet))).toEqual({ kind: 'metrics', metrics });
    expect(fake.calls('GET', `/2/tweets/${tweet}`).map((c) => c.query.get('tweet.fields'))).toEqual([
      'public_metrics,non_public_metrics',
      'public_metrics',
    ]);
    expect(await x().fetchMetrics(context(), request(tweet, '2024-03-01T10:00:00Z'))).toEqual({
      kind: 'metrics',
      metrics,
    });
    expect(fake.calls('GET', `/2/tweets/${tweet}`).at(-1)!.query.get('tweet.fields')).toBe('public_metrics');
  });

  it('answers not_found for a deleted tweet (200 with a Not Found error, or 404) and rate_limited on 429', async () => {
    fake.on('GET', `/2/tweets/${tweet}`, { body: fixture('error-tweet-not-found') });
    expect(await x().fetchMetrics(context(), request(tweet))).toEqual({ kind: 'not_found' });
    fake.on('GET', `/2/tweets/${tweet}`, { status: 404, body: fixture('error-tweet-not-found') });
    expect(await x().fetchMetrics(context(), request(tweet))).toEqual({ kind: 'not_found' });
    fake.on('GET', `/2/tweets/${tweet}`, {
      status: 429,
      headers: { 'x-rate-limit-reset': String(now.getTime() / 1000 + 60) },
      body: { title: 'Too Many Requests', detail: 'Too Many Requests', status: 429 },
    });
    const error = await connectorFailure(x().fetchMetrics(context(), request(tweet)));
    expect(error.kind).toBe('rate_limited');
  });
});

describe('linkedin', () => {
  const fixture = fixtureReader('linkedin');
  const share = 'urn:li:share:7150000000000000001';
  const socialPath = `/rest/socialActions/${encodeURIComponent(share)}`;
  const linkedin = () =>
    createLinkedInConnector({
      clientId: 'li-client',
      clientSecret: 'li-secret-value',
      apiVersion: '202601',
      apiBaseUrl: fake.baseUrl,
      now: () => now,
    });

  it("reads a member's post likes and comments from its social actions", async () => {
    fake.on('GET', socialPath, { body: fixture('social-actions') });
    const context = contextFor('linkedin', 'urn:li:person:abc123', {
      extra: { authorUrn: 'urn:li:person:abc123' },
    });
    expect(await linkedin().fetchMetrics(context, request(share))).toEqual({
      kind: 'metrics',
      metrics: { likes: 37, reposts: 0, replies: 6, quotes: 0, bookmarks: null, impressions: null },
    });
    const [call] = fake.calls('GET', socialPath);
    expect(call!.headers['linkedin-version']).toBe('202601');
    expect(call!.headers.authorization).toBe('Bearer access-secret');
    expect(fake.calls('GET', '/rest/organizationalEntityShareStatistics')).toHaveLength(0);
  });

  it("adds a page post's reshares and impressions from the organization's share statistics", async () => {
    fake.on('GET', socialPath, { body: fixture('social-actions') });
    fake.on('GET', '/rest/organizationalEntityShareStatistics', { body: fixture('share-statistics') });
    const context = contextFor('linkedin', 'urn:li:organization:2414183');
    expect(await linkedin().fetchMetrics(context, request(share))).toEqual({
      kind: 'metrics',
      metrics: { likes: 39, reposts: 5, replies: 7, quotes: 0, bookmarks: null, impressions: 1290 },
    });
    const [stats] = fake.calls('GET', '/rest/organizationalEntityShareStatistics');
    expect(stats!.query.get('q')).toBe('organizationalEntity');
    expect(stats!.query.get('organizationalEntity')).toBe('urn:li:organization:2414183');
    expect(stats!.query.get('shares')).toBe(`List(${share})`);
  });

  it('keeps likes and comments when the statistics are refused, and answers not_found for a deleted post', async () => {
    fake.on('GET', socialPath, { body: fixture('social-actions') });
    fake.on('GET', '/rest/organizationalEntityShareStatistics', {
      status: 403,
      body: { status: 403, serviceErrorCode: 100, message: 'Not enough permissions to access' },
    });
    const context = contextFor('linkedin', 'urn:li:organization:2414183');
    expect(await linkedin().fetchMetrics(context, request(share))).toMatchObject({
      kind: 'metrics',
      metrics: { likes: 37, replies: 6, impressions: null },
    });
    fake.on('GET', socialPath, { status: 404, body: { status: 404, message: 'Not Found' } });
    expect(await linkedin().fetchMetrics(context, request(share))).toEqual({ kind: 'not_found' });
  });
});

describe('facebook', () => {
  const fixture = fixtureReader('facebook');
  const post = '1350000000000001_2000000000000002';
  const facebook = () =>
    createFacebookConnector({
      appId: 'fb-app',
      appSecret: 'fb-secret-value',
      graphVersion: 'v21.0',
      graphBaseUrl: fake.baseUrl,
      now: () => now,
    });
  const context = () => contextFor('facebook', '1350000000000001');

  it('reads reactions, comments and shares with summaries, and impressions from the post insights (its views)', async () => {
    fake.on('GET', `/v21.0/${post}`, { body: fixture('post-engagement') });
    fake.on('GET', `/v21.0/${post}/insights`, { body: fixture('post-insights') });
    expect(await facebook().fetchMetrics(context(), request(post))).toEqual({
      kind: 'metrics',
      metrics: { likes: 42, reposts: 3, replies: 7, quotes: 0, bookmarks: null, impressions: 1835 },
    });
    const [read] = fake.calls('GET', `/v21.0/${post}`);
    expect(read!.query.get('fields')).toBe(
      'reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0),shares',
    );
    // post_impressions was retired on 15 November 2025 in favour of post_media_view.
    expect(fake.calls('GET', `/v21.0/${post}/insights`)[0]!.query.get('metric')).toBe('post_media_view');
  });

  it('leaves impressions out without the insights permission, and answers not_found for a deleted post', async () => {
    fake.on('GET', `/v21.0/${post}`, { body: { ...fixture('post-engagement'), shares: undefined } });
    fake.on('GET', `/v21.0/${post}/insights`, { status: 400, body: fixture('error-permission') });
    expect(await facebook().fetchMetrics(context(), request(post))).toEqual({
      kind: 'metrics',
      metrics: { likes: 42, reposts: 0, replies: 7, quotes: 0, bookmarks: null, impressions: null },
    });
    fake.on('GET', `/v21.0/${post}`, { status: 400, body: fixture('error-not-found') });
    expect(await facebook().fetchMetrics(context(), request(post))).toEqual({ kind: 'not_found' });
  });

  it("reads a video post's counts without shares and its impressions from the video insights", async () => {
    fake.on('GET', '/v21.0/990000000000001', { body: fixture('post-engagement') });
    fake.on('GET', '/v21.0/990000000000001/video_insights', {
      body: { data: [{ name: 'total_video_impressions', period: 'lifetime', values: [{ value: 640 }] }] },
    });
    expect(await facebook().fetchMetrics(context(), request('990000000000001'))).toMatchObject({
      kind: 'metrics',
      metrics: { likes: 42, replies: 7, impressions: 640 },
    });
    expect(fake.calls('GET', '/v21.0/990000000000001')[0]!.query.get('fields')).not.toContain('shares');
  });
});

describe('instagram', () => {
  const fixture = fixtureReader('instagram');
  const media = '17895695668004550';
  const instagram = () =>
    createInstagramConnector({
      appId: 'ig-app',
      appSecret: 'ig-secret-value',
      graphBaseUrl: fake.baseUrl,
      graphVersion: 'v21.0',
      now: () => now,
    });
  const context = () => contextFor('instagram', '17841400000000001');

  it('reads like and comment counts, and views, shares and saves from the media insights', async () => {
    fake.on('GET', `/v21.0/${media}`, { body: fixture('media-counts') });
    fake.on('GET', `/v21.0/${media}/insights`, { body: fixture('media-insights') });
    expect(await instagram().fetchMetrics(context(), request(media))).toEqual({
      kind: 'metrics',
      metrics: { likes: 128, reposts: 9, replies: 14, quotes: 0, bookmarks: 21, impressions: 3120 },
    });
    expect(fake.calls('GET', `/v21.0/${media}`)[0]!.query.get('fields')).toBe('like_count,comments_count');
    expect(fake.calls('GET', `/v21.0/${media}/insights`)[0]!.query.get('metric')).toBe('views,shares,saved');
  });

  it('keeps the counts when insights are refused, and answers not_found for a deleted post', async () => {
    fake.on('GET', `/v21.0/${media}`, { body: fixture('media-counts') });
    fake.on('GET', `/v21.0/${media}/insights`, { status: 400, body: fixture('error-insights-permission') });
    expect(await instagram().fetchMetrics(context(), request(media))).toEqual({
      kind: 'metrics',
      metrics: { likes: 128, reposts: 0, replies: 14, quotes: 0, bookmarks: null, impressions: null },
    });
    fake.on('GET', `/v21.0/${media}`, { status: 400, body: fixture('error-not-found') });
    expect(await instagram().fetchMetrics(context(), request(media))).toEqual({ kind: 'not_found' });
  });
});

describe('threads', () => {
  const fixture = fixtureReader('threads');
  const media = '18031214167043221';
  const threads = () =>
    createThreadsConnector({
      appId: 'th-app',
      appSecret: 'th-secret-value',
      apiBaseUrl: fake.baseUrl,
      now: () => now,
    });
  const context = () => contextFor('threads', '7000000000000001');

  it('reads views, likes, replies, reposts and quotes from the media insights', async () => {
    fake.on('GET', `/v1.0/${media}/insights`, { body: fixture('media-insights') });
    expect(await threads().fetchMetrics(context(), request(media))).toEqual({
      kind: 'metrics',
      metrics: { likes: 61, reposts: 4, replies: 8, quotes: 2, bookmarks: null, impressions: 2450 },
    });
    const [call] = fake.calls('GET', `/v1.0/${media}/insights`);
    expect(call!.query.get('metric')).toBe('views,likes,replies,reposts,quotes');
    expect(call!.headers.authorization).toBe('Bearer access-secret');
  });

  it('answers not_found for a deleted post and rate_limited when throttled', async () => {
    fake.on('GET', `/v1.0/${media}/insights`, { status: 400, body: fixture('error-not-found') });
    expect(await threads().fetchMetrics(context(), request(media))).toEqual({ kind: 'not_found' });
    fake.on('GET', `/v1.0/${media}/insights`, { status: 400, body: fixture('error-rate-limit') });
    expect((await connectorFailure(threads().fetchMetrics(context(), request(media)))).kind).toBe(
      'rate_limited',
    );
  });
});

describe('youtube', () => {
  const fixture = fixtureReader('youtube');
  const youtube = () =>
    createYouTubeConnector({
      clientId: 'google-client-id',
      clientSecret: 'google-client-secret',
      apiBaseUrl: fake.baseUrl,
      timeoutMs: 2_000,
      now: () => now,
    });
  const context = () => contextFor('youtube', 'UC_x5XG1OV2P6uZZ5FSM9Ttw');

  it("reads a video's statistics: views as impressions, likes and comments", async () => {
    fake.on('GET', '/youtube/v3/videos', { body: fixture('videos-statistics') });
    expect(await youtube().fetchMetrics(context(), request('Ks-_Mh1QhMc'))).toEqual({
      kind: 'metrics',
      metrics: { likes: 512, reposts: 0, replies: 48, quotes: 0, bookmarks: null, impressions: 10234 },
    });
    const [call] = fake.calls('GET', '/youtube/v3/videos');
    expect(call!.query.get('part')).toBe('statistics');
    expect(call!.query.get('id')).toBe('Ks-_Mh1QhMc');
  });

  it('answers not_found for a deleted video and rate_limited when the quota is spent', async () => {
    fake.on('GET', '/youtube/v3/videos', { body: fixture('videos-none') });
    expect(await youtube().fetchMetrics(context(), request('Ks-_Mh1QhMc'))).toEqual({ kind: 'not_found' });
    fake.on('GET', '/youtube/v3/videos', { status: 403, body: fixture('error-quota') });
    expect((await connectorFailure(youtube().fetchMetrics(context(), request('x')))).kind).toBe(
      'rate_limited',
    );
  });
});

describe('tiktok', () => {
  const fixture = fixtureReader('tiktok');
  const tiktok = () =>
    createTikTokConnector({
      clientKey: 'tiktok-client-key',
      clientSecret: 'tiktok-client-secret',
      apiBaseUrl: fake.baseUrl,
      timeoutMs: 2_000,
      now: () => now,
    });
  const context = () => contextFor('tiktok', 'afd97af1-b87b-48b9-ac98-410aghda5344');

  it('queries the video by id and reads its likes, comments, shares and views', async () => {
    fake.on('POST', '/v2/video/query/', { body: fixture('video-query') });
    expect(await tiktok().fetchMetrics(context(), request('7080213458555737000'))).toEqual({
      kind: 'metrics',
      metrics: { likes: 350, reposts: 12, replies: 21, quotes: 0, bookmarks: null, impressions: 9870 },
    });
    const [call] = fake.calls('POST', '/v2/video/query/');
    expect(call!.query.get('fields')).toBe('id,like_count,comment_count,share_count,view_count');
    expect(call!.json).toEqual({ filters: { video_ids: ['7080213458555737000'] } });
  });

  it('answers not_found for a video TikTok no longer has, and a missing scope is permanent, not auth', async () => {
    fake.on('POST', '/v2/video/query/', { body: fixture('video-query-empty') });
    expect(await tiktok().fetchMetrics(context(), request('7080213458555737000'))).toEqual({
      kind: 'not_found',
    });
    fake.on('POST', '/v2/video/query/', { status: 401, body: fixture('error-scope-not-authorized') });
    const error = await connectorFailure(tiktok().fetchMetrics(context(), request('7080213458555737000')));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/video\.list/);
  });
});

describe('reddit', () => {
  const fixture = fixtureReader('reddit');
  const reddit = () =>
    createRedditConnector({
      clientId: 'reddit-client-id',
      clientSecret: 'reddit-client-secret',
      userAgent: 'web:social-publishing-test:1.0 (by /u/acme_studio)',
      apiBaseUrl: fake.baseUrl,
      timeoutMs: 2_000,
      now: () => now,
    });
  const context = () => contextFor('reddit', 't2_abc123', {}, 'acme_studio');

  it("reads a submission's score, comments and crossposts from /api/info", async () => {
    fake.on('GET', '/api/info', { body: fixture('info-metrics') });
    expect(await reddit().fetchMetrics(context(), request('t3_1h2x9qz'))).toEqual({
      kind: 'metrics',
      metrics: { likes: 87, reposts: 2, replies: 23, quotes: 0, bookmarks: null, impressions: null },
    });
    const [call] = fake.calls('GET', '/api/info');
    expect(call!.query.get('id')).toBe('t3_1h2x9qz');
    expect(call!.headers['user-agent']).toContain('social-publishing-test');
  });

  it('answers not_found for a submission its author deleted or Reddit does not list', async () => {
    fake.on('GET', '/api/info', { body: fixture('info-deleted') });
    expect(await reddit().fetchMetrics(context(), request('1h2x9qz'))).toEqual({ kind: 'not_found' });
    fake.on('GET', '/api/info', { body: { kind: 'Listing', data: { children: [] } } });
    expect(await reddit().fetchMetrics(context(), request('1h2x9qz'))).toEqual({ kind: 'not_found' });
  });
});

describe('bluesky', () => {
  const fixture = fixtureReader('bluesky');
  const DID = 'did:plc:z72i7hdynmk6r22z27h6tvur';
  const uri = `at://${DID}/app.bsky.feed.post/3kxuaxwbbr22k`;
  const bluesky = () =>
    createBlueskyConnector({
      publicBaseUrl: 'https://app.example.test',
      serviceUrl: fake.baseUrl,
      allowHttp: true,
      allowPrivate: [fake.baseUrl],
      timeoutMs: 2_000,
      now: () => now,
    });
  const context = () =>
    contextFor(
      'bluesky',
      DID,
      { extra: { did: DID, service: fake.baseUrl, auth: 'app_password' } },
      'alice.test',
    );

  it("reads a post's likes, reposts, replies, quotes and bookmarks through getPosts", async () => {
    fake.on('GET', '/xrpc/app.bsky.feed.getPosts', { body: fixture('get-posts') });
    expect(await bluesky().fetchMetrics(context(), request(uri))).toEqual({
      kind: 'metrics',
      metrics: { likes: 24, reposts: 3, replies: 5, quotes: 1, bookmarks: 2, impressions: null },
    });
    const [call] = fake.calls('GET', '/xrpc/app.bsky.feed.getPosts');
    expect(call!.query.getAll('uris')).toEqual([uri]);
    expect(call!.headers.authorization).toBe('Bearer access-secret');
  });

  it('answers not_found for a deleted post (left out of the answer) and auth for an expired session', async () => {
    fake.on('GET', '/xrpc/app.bsky.feed.getPosts', { body: fixture('get-posts-none') });
    expect(await bluesky().fetchMetrics(context(), request(uri))).toEqual({ kind: 'not_found' });
    fake.on('GET', '/xrpc/app.bsky.feed.getPosts', { status: 400, body: fixture('error-expired-token') });
    expect((await connectorFailure(bluesky().fetchMetrics(context(), request(uri)))).kind).toBe('auth');
  });
});
