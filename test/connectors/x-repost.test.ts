// The live X connector's repost (X automation) against a locally served X API, answering with X's documented
// responses: POST /2/users/:id/retweets with the tweet id and the user's bearer token, an earlier repost undone
// first (DELETE /2/users/:id/retweets/:source_tweet_id) when asked, a tweet X no longer has as not_found, and
// X's refusals, rate limits and lost answers as the ConnectorError kinds the automation settles by.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createXConnector } from '../../infra/connectors/x/x-connector.js';
import { ConnectorError, type CallContext } from '../../infra/connectors/port.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/x/${name}.json`, import.meta.url), 'utf8'));

const context: CallContext = {
  account: {
    id: '0b5e7c1e-0000-4000-8000-000000000001',
    orgId: '0b5e7c1e-0000-4000-8000-000000000002',
    platform: 'x',
    accountExternalId: '2244994945',
    accountHandle: 'XDevelopers',
    xSubscription: null,
  },
  tokens: { accessToken: 'access-secret', refreshToken: 'refresh-secret', expiresAt: null, scopes: [] },
  fetchMedia: () => Promise.reject(new Error('no media')),
};
const tweet = '1228393702244134912';

let platform: FakePlatform;
const connector = () =>
  createXConnector({ clientId: 'id', clientSecret: 'secret', apiBaseUrl: platform.baseUrl, timeoutMs: 500 });

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

beforeEach(async () => {
  platform = await startFakePlatform();
});
afterEach(async () => platform.close());

describe('repost', () => {
  it('retweets with the account and its token', async () => {
    platform.on('POST', '/2/users/2244994945/retweets', { body: fixture('retweet') });
    expect(await connector().repost!(context, { externalId: tweet, undoFirst: false })).toEqual({
      kind: 'reposted',
    });
    const [request] = platform.calls('POST', '/2/users/2244994945/retweets');
    expect(request!.json).toEqual({ tweet_id: tweet });
    expect(request!.headers.authorization).toBe('Bearer access-secret');
    expect(platform.calls('DELETE', /retweets/)).toHaveLength(0);
  });

  it('a repost again undoes the earlier one first', async () => {
    platform.on('DELETE', `/2/users/2244994945/retweets/${tweet}`, { body: fixture('unretweet') });
    platform.on('POST', '/2/users/2244994945/retweets', { body: fixture('retweet') });
    expect(await connector().repost!(context, { externalId: tweet, undoFirst: true })).toEqual({
      kind: 'reposted',
    });
    expect(platform.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /2/users/2244994945/retweets/${tweet}`,
      'POST /2/users/2244994945/retweets',
    ]);
  });

  it('a tweet X no longer has is not_found (404, or 200 with only a Not Found error)', async () => {
    platform.on('POST', '/2/users/2244994945/retweets', { body: fixture('error-tweet-not-found') });
    expect(await connector().repost!(context, { externalId: tweet, undoFirst: false })).toEqual({
      kind: 'not_found',
    });
    platform.on('POST', '/2/users/2244994945/retweets', {
      status: 404,
      body: fixture('error-tweet-not-found'),
    });
    expect(await connector().repost!(context, { externalId: tweet, undoFirst: false })).toEqual({
      kind: 'not_found',
    });
    platform.on('DELETE', `/2/users/2244994945/retweets/${tweet}`, {
      status: 404,
      body: fixture('error-tweet-not-found'),
    });
    expect(await connector().repost!(context, { externalId: tweet, undoFirst: true })).toEqual({
      kind: 'not_found',
    });
  });

  it("X's refusals: 401 auth, 429 rate limited with its reset time, 403 permanent, an unconfirmed retweet permanent", async () => {
    platform.on('POST', '/2/users/2244994945/retweets', { status: 401, body: fixture('error-unauthorized') });
    expect((await failure(connector().repost!(context, { externalId: tweet, undoFirst: false }))).kind).toBe(
      'auth',
    );
    platform.on('POST', '/2/users/2244994945/retweets', {
      status: 429,
      headers: { 'retry-after': '90' },
      body: fixture('error-too-many-requests'),
    });
    const limited = await failure(connector().repost!(context, { externalId: tweet, undoFirst: false }));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.retryAfterMs).toBe(90_000);
    platform.on('POST', '/2/users/2244994945/retweets', {
      status: 403,
      body: fixture('error-client-forbidden'),
    });
    expect((await failure(connector().repost!(context, { externalId: tweet, undoFirst: false }))).kind).toBe(
      'permanent',
    );
    platform.on('POST', '/2/users/2244994945/retweets', { body: fixture('unretweet') });
    const unconfirmed = await failure(connector().repost!(context, { externalId: tweet, undoFirst: false }));
    expect(unconfirmed.kind).toBe('permanent');
    expect(unconfirmed.message).toMatch(/not confirmed/);
  });

  it('a lost answer may have reposted: unknown_outcome (the automation counts it); a failed undo did nothing', async () => {
    const repost = (undoFirst: boolean) => connector().repost!(context, { externalId: tweet, undoFirst });
    platform.on('POST', '/2/users/2244994945/retweets', {
      status: 503,
      body: { title: 'Service Unavailable' },
    });
    expect((await failure(repost(false))).kind).toBe('unknown_outcome');
    platform.on('POST', '/2/users/2244994945/retweets', { hang: true });
    expect((await failure(repost(false))).kind).toBe('unknown_outcome');
    platform.on('DELETE', `/2/users/2244994945/retweets/${tweet}`, {
      status: 503,
      body: { title: 'Service Unavailable' },
    });
    expect((await failure(repost(true))).kind).toBe('retryable');
    // The undo failed, so no retweet was attempted after it.
    expect(platform.calls('POST', '/2/users/2244994945/retweets')).toHaveLength(2);
  });
});
