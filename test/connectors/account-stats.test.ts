// accountStats of every live connector against a locally served platform: the documented read it sends (path,
// fields, auth), how it reads the documented answer into followers, following and posts, and a refusal for a
// permission the grant lacks as `needs_permission` (the reader then records the account as needing it).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Platform } from '../../domain/shared/platforms.js';
import { createBlueskyConnector } from '../../infra/connectors/bluesky/bluesky-connector.js';
import { createFacebookConnector } from '../../infra/connectors/facebook/facebook-connector.js';
import { createInstagramConnector } from '../../infra/connectors/instagram/instagram-connector.js';
import { createLinkedInConnector } from '../../infra/connectors/linkedin/linkedin-connector.js';
import type { CallContext, TokenSet } from '../../infra/connectors/port.js';
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

  it("reads the user's public metrics: followers, following and tweets", async () => {
    fake.on('GET', '/2/users/me', { body: fixture('users-me-public-metrics') });
    expect(await x().accountStats(contextFor('x', '2244994945'))).toEqual({
      followers: 507902,
      following: 1863,
      posts: 3561,
    });
    const [call] = fake.calls('GET', '/2/users/me');
    expect(call!.query.get('user.fields')).toBe('public_metrics');
    expect(call!.headers.authorization).toBe('Bearer access-secret');
  });

  it('an answer without the metrics is worth another try; a 401 is auth', async () => {
    fake.on('GET', '/2/users/me', { body: fixture('users-me') });
    expect((await connectorFailure(x().accountStats(contextFor('x', '2244994945')))).kind).toBe('retryable');
    fake.on('GET', '/2/users/me', { status: 401, body: fixture('error-unauthorized') });
    expect((await connectorFailure(x().accountStats(contextFor('x', '2244994945')))).kind).toBe('auth');
  });
});

describe('linkedin', () => {
  const fixture = fixtureReader('linkedin');
  const linkedin = () =>
    createLinkedInConnector({
      clientId: 'li-client',
      clientSecret: 'li-secret-value',
      apiVersion: '202601',
      apiBaseUrl: fake.baseUrl,
      now: () => now,
    });
  const networkPath = `/rest/networkSizes/${encodeURIComponent('urn:li:organization:2414183')}`;

  it("reads a page's followers from its network size", async () => {
    fake.on('GET', networkPath, { body: fixture('network-size') });
    expect(await linkedin().accountStats(contextFor('linkedin', 'urn:li:organization:2414183'))).toEqual({
      followers: 219145,
      following: null,
      posts: null,
    });
    const [call] = fake.calls('GET', networkPath);
    expect(call!.query.get('edgeType')).toBe('COMPANY_FOLLOWED_BY_MEMBER');
    expect(call!.headers['linkedin-version']).toBe('202601');
  });

  it("reads a member's followers, and a refusal is needs_permission naming the permission", async () => {
    fake.on('GET', '/rest/memberFollowersCount', { body: fixture('member-followers-count') });
    const member = contextFor('linkedin', 'urn:li:person:abc123');
    expect(await linkedin().accountStats(member)).toEqual({ followers: 1342, following: null, posts: null });
    expect(fake.calls('GET', '/rest/memberFollowersCount')[0]!.query.get('q')).toBe('me');
    fake.on('GET', '/rest/memberFollowersCount', {
      status: 403,
      body: { status: 403, serviceErrorCode: 100, message: 'Not enough permissions to access' },
    });
    const error = await connectorFailure(linkedin().accountStats(member));
    expect(error).toMatchObject({ kind: 'permanent', details: { platformCode: 'needs_permission' } });
    expect(error.message).toMatch(/r_member_profileAnalytics/);
  });
});

describe('bluesky', () => {
  const fixture = fixtureReader('bluesky');
  const DID = 'did:plc:z72i7hdynmk6r22z27h6tvur';

  it("reads the profile's followers, follows and posts", async () => {
    fake.on('GET', '/xrpc/app.bsky.actor.getProfile', { body: fixture('get-profile') });
    const bluesky = createBlueskyConnector({
      publicBaseUrl: 'https://app.example.test',
      serviceUrl: fake.baseUrl,
      allowHttp: true,
      allowPrivate: [fake.baseUrl],
      timeoutMs: 2_000,
      now: () => now,
    });
    const context = contextFor(
      'bluesky',
      DID,
      { extra: { did: DID, service: fake.baseUrl, auth: 'app_password' } },
      'alice.test',
    );
    expect(await bluesky.accountStats(context)).toEqual({ followers: 10, following: 5, posts: 3 });
    expect(fake.calls('GET', '/xrpc/app.bsky.actor.getProfile')[0]!.query.get('actor')).toBe(DID);
  });
});

describe('threads', () => {
  const fixture = fixtureReader('threads');
  const threads = () =>
    createThreadsConnector({
      appId: 'th-app',
      appSecret: 'th-secret-value',
      apiBaseUrl: fake.baseUrl,
      now: () => now,
    });
  const path = '/v1.0/7000000000000001/threads_insights';

  it("reads the user insights' followers_count", async () => {
    fake.on('GET', path, { body: fixture('user-insights-followers') });
    expect(await threads().accountStats(contextFor('threads', '7000000000000001'))).toEqual({
      followers: 2480,
      following: null,
      posts: null,
    });
    expect(fake.calls('GET', path)[0]!.query.get('metric')).toBe('followers_count');
  });

  it('without threads_manage_insights: needs_permission', async () => {
    fake.on('GET', path, { status: 400, body: fixture('error-insights-permission') });
    const error = await connectorFailure(threads().accountStats(contextFor('threads', '7000000000000001')));
    expect(error.details.platformCode).toBe('needs_permission');
    expect(error.message).toMatch(/threads_manage_insights/);
  });
});

describe('instagram', () => {
  const fixture = fixtureReader('instagram');
  const instagram = () =>
    createInstagramConnector({
      appId: 'ig-app',
      appSecret: 'ig-secret-value',
      graphBaseUrl: fake.baseUrl,
      graphVersion: 'v21.0',
      now: () => now,
    });

  it("reads the professional account's followers, follows and media counts", async () => {
    fake.on('GET', '/v21.0/me', { body: fixture('me-counts') });
    expect(await instagram().accountStats(contextFor('instagram', '17841400000000001'))).toEqual({
      followers: 1520,
      following: 310,
      posts: 87,
    });
    expect(fake.calls('GET', '/v21.0/me')[0]!.query.get('fields')).toBe(
      'followers_count,follows_count,media_count',
    );
  });

  it('a permission refusal is needs_permission', async () => {
    fake.on('GET', '/v21.0/me', { status: 400, body: fixture('error-insights-permission') });
    const error = await connectorFailure(
      instagram().accountStats(contextFor('instagram', '17841400000000001')),
    );
    expect(error.details.platformCode).toBe('needs_permission');
  });
});

describe('facebook', () => {
  const fixture = fixtureReader('facebook');
  const facebook = () =>
    createFacebookConnector({
      appId: 'fb-app',
      appSecret: 'fb-secret-value',
      graphVersion: 'v21.0',
      graphBaseUrl: fake.baseUrl,
      now: () => now,
    });
  const page = '1350000000000001';

  it("reads the page's followers (its likes only when Graph leaves followers out)", async () => {
    fake.on('GET', `/v21.0/${page}`, { body: fixture('page-followers') });
    expect(await facebook().accountStats(contextFor('facebook', page))).toEqual({
      followers: 4821,
      following: null,
      posts: null,
    });
    expect(fake.calls('GET', `/v21.0/${page}`)[0]!.query.get('fields')).toBe('followers_count,fan_count');
    fake.on('GET', `/v21.0/${page}`, { body: { fan_count: 4702, id: page } });
    expect(await facebook().accountStats(contextFor('facebook', page))).toMatchObject({ followers: 4702 });
  });

  it('a permission refusal is needs_permission', async () => {
    fake.on('GET', `/v21.0/${page}`, { status: 400, body: fixture('error-permission') });
    expect(
      (await connectorFailure(facebook().accountStats(contextFor('facebook', page)))).details.platformCode,
    ).toBe('needs_permission');
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

  it("reads the channel's subscribers and videos", async () => {
    fake.on('GET', '/youtube/v3/channels', { body: fixture('channels-statistics') });
    expect(await youtube().accountStats(context())).toEqual({
      followers: 2460000,
      following: null,
      posts: 6941,
    });
    const [call] = fake.calls('GET', '/youtube/v3/channels');
    expect(call!.query.get('part')).toBe('statistics');
    expect(call!.query.get('mine')).toBe('true');
  });

  it('a channel hiding its subscriber count has none to read', async () => {
    const hidden = fixture('channels-statistics') as {
      items: Array<{ statistics: Record<string, unknown> }>;
    };
    hidden.items[0]!.statistics = { viewCount: '10', hiddenSubscriberCount: true, videoCount: '3' };
    fake.on('GET', '/youtube/v3/channels', { body: hidden });
    expect((await connectorFailure(youtube().accountStats(context()))).details.platformCode).toBe(
      'hidden_subscriber_count',
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

  it("reads the user's follower, following and video counts", async () => {
    fake.on('GET', '/v2/user/info/', { body: fixture('user-info-stats') });
    expect(await tiktok().accountStats(context())).toEqual({ followers: 12840, following: 188, posts: 96 });
    expect(fake.calls('GET', '/v2/user/info/')[0]!.query.get('fields')).toBe(
      'open_id,follower_count,following_count,video_count',
    );
  });

  it('without user.info.stats: needs_permission, not auth', async () => {
    fake.on('GET', '/v2/user/info/', { status: 401, body: fixture('error-scope-not-authorized') });
    const error = await connectorFailure(tiktok().accountStats(context()));
    expect(error).toMatchObject({ kind: 'permanent', details: { platformCode: 'needs_permission' } });
    expect(error.message).toMatch(/user\.info\.stats/);
  });
});

describe('reddit', () => {
  const fixture = fixtureReader('reddit');

  it("reads the profile subreddit's subscribers as followers", async () => {
    fake.on('GET', '/api/v1/me', { body: fixture('me-followers') });
    const reddit = createRedditConnector({
      clientId: 'reddit-client-id',
      clientSecret: 'reddit-client-secret',
      userAgent: 'web:social-publishing-test:1.0 (by /u/acme_studio)',
      apiBaseUrl: fake.baseUrl,
      timeoutMs: 2_000,
      now: () => now,
    });
    expect(await reddit.accountStats(contextFor('reddit', 't2_abc123', {}, 'acme_studio'))).toEqual({
      followers: 389,
      following: null,
      posts: null,
    });
    fake.on('GET', '/api/v1/me', { body: fixture('me') });
    expect(
      (await connectorFailure(reddit.accountStats(contextFor('reddit', 't2_abc123', {}, 'acme_studio'))))
        .kind,
    ).toBe('retryable');
  });
});
