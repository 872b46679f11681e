// The X connector's trends read (issue 31, part 3) against a locally served X API v2: GET
// /2/users/personalized_trends with the documented fields and the user's bearer token, X's answer (counts in words,
// "Trending now") read into numbers, an empty answer (accounts X lists no trends for), 429 as rate_limited and 401 as
// auth; and the sandbox's trends, deterministic within the hour.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createXConnector } from '../../infra/connectors/x/x-connector.js';
import { createSandboxXTrends } from '../../infra/connectors/sandbox/x-trends.js';
import type { CallContext } from '../../infra/connectors/port.js';
import { callContext, connectorFailure, mediaByUrlOnly } from './support/connector-fixtures.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const tokens = { accessToken: 'access-secret', refreshToken: 'refresh-secret', expiresAt: null, scopes: [] };
const now = new Date('2026-11-20T10:00:00Z');

let platform: FakePlatform;
beforeEach(async () => {
  platform = await startFakePlatform();
});
afterEach(async () => {
  await platform.close();
});

const connector = () =>
  createXConnector({
    clientId: 'client-id',
    clientSecret: 'client-secret',
    apiBaseUrl: platform.baseUrl,
    timeoutMs: 2_000,
    now: () => now,
    sleep: async () => {},
  });

const context = (): CallContext =>
  callContext({
    platform: 'x',
    accountExternalId: '2244994945',
    accountHandle: 'XDevelopers',
    tokens,
    fetchMedia: mediaByUrlOnly('x'),
  });

describe('personalized trends (live)', () => {
  it('asks with the documented fields and reads X’s answer', async () => {
    // The response as docs.x.com documents it (Personalized Trends).
    platform.on('GET', '/2/users/personalized_trends', {
      body: {
        data: [
          {
            category: 'Bitcoin',
            post_count: '42K posts',
            trend_name: "MicroStrategy's $42 Billion Bitcoin Investment",
            trending_since: '5 hours ago',
          },
          {
            category: 'Music',
            post_count: '2K posts',
            trend_name: "Drake's 'No Face' Music Video Release",
            trending_since: 'Trending now',
          },
          {
            category: 'Weather',
            post_count: '1.2K posts',
            trend_name: 'Super Typhoon Leon Impacts Taiwan and Batanes',
            trending_since: 'Trending now',
          },
          { trend_name: '  ' },
        ],
      },
    });
    const result = await connector().readXTrends!(context());
    expect(result.trends).toEqual([
      {
        name: "MicroStrategy's $42 Billion Bitcoin Investment",
        category: 'Bitcoin',
        postCount: 42_000,
        trendingSince: '5 hours ago',
      },
      {
        name: "Drake's 'No Face' Music Video Release",
        category: 'Music',
        postCount: 2_000,
        trendingSince: 'Trending now',
      },
      {
        name: 'Super Typhoon Leon Impacts Taiwan and Batanes',
        category: 'Weather',
        postCount: 1_200,
        trendingSince: 'Trending now',
      },
    ]);
    const [request] = platform.calls('GET', '/2/users/personalized_trends');
    expect(request!.query.get('personalized_trend.fields')).toBe(
      'category,post_count,trend_name,trending_since',
    );
    expect(request!.headers.authorization).toBe('Bearer access-secret');
  });

  it('an account X lists no trends for answers none', async () => {
    platform.on('GET', '/2/users/personalized_trends', { body: { data: [] } });
    expect(await connector().readXTrends!(context())).toEqual({ trends: [] });
    platform.on('GET', '/2/users/personalized_trends', { body: {} });
    expect(await connector().readXTrends!(context())).toEqual({ trends: [] });
  });

  it('429 is rate_limited, 401 is auth', async () => {
    platform.on('GET', '/2/users/personalized_trends', {
      status: 429,
      headers: {
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(Math.floor(now.getTime() / 1000) + 900),
      },
      body: { title: 'Too Many Requests', status: 429 },
    });
    const limited = await connectorFailure(connector().readXTrends!(context()));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.retryAfterMs).toBe(900_000);
    platform.on('GET', '/2/users/personalized_trends', {
      status: 401,
      body: { title: 'Unauthorized', status: 401 },
    });
    expect((await connectorFailure(connector().readXTrends!(context()))).kind).toBe('auth');
  });
});

describe('personalized trends (sandbox)', () => {
  it('deterministic within the hour, distinct names, counts as numbers', async () => {
    let clock = new Date('2026-11-20T10:05:00Z');
    const sandbox = createSandboxXTrends({ now: () => clock, authorize: async () => {} });
    const first = await sandbox.readXTrends(context());
    clock = new Date('2026-11-20T10:55:00Z');
    expect(await sandbox.readXTrends(context())).toEqual(first);
    expect(first.trends.length).toBeGreaterThanOrEqual(5);
    expect(new Set(first.trends.map((t) => t.name)).size).toBe(first.trends.length);
    for (const t of first.trends) expect(t.postCount).toBeGreaterThan(0);
  });
});
