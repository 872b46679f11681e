// The live Reddit connector against a locally served Reddit: OAuth with HTTP Basic, submissions of each kind,
// Reddit's in-body errors and rate-limit headers, finding an unconfirmed post, and deletion.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CallContext,
  type PublishRequest,
  type StatusQuery,
  type TokenSet,
} from '../../infra/connectors/port.js';
import {
  createRedditConnector,
  redditRateLimitWait,
  type RedditConnectorConfig,
} from '../../infra/connectors/reddit/reddit-connector.js';
import {
  callContext,
  connectorFailure,
  expectNotConfigured,
  fixtureReader,
  publishRequest,
} from './support/connector-fixtures.js';
import { bytesMediaFile } from '../../infra/connectors/media-file.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const fixture = fixtureReader('reddit');

const now = new Date('2026-11-23T10:00:00.000Z');
const userAgent = 'web:com.example.publisher:v1.0 (by /u/acme_dev)';
const imageBytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const tokens: TokenSet = {
  accessToken: 'reddit-current-access',
  refreshToken: 'reddit-current-refresh',
  expiresAt: '2026-11-24T10:00:00.000Z',
  scopes: ['identity', 'submit', 'read', 'edit'],
};

let fake: FakePlatform;
let clock: Date;

beforeEach(async () => {
  fake = await startFakePlatform();
  clock = now;
});
afterEach(async () => {
  await fake.close();
});

function connector(overrides: Partial<RedditConnectorConfig> = {}) {
  return createRedditConnector({
    clientId: 'reddit-client-id',
    clientSecret: 'reddit-client-secret',
    userAgent,
    authorizeUrl: `${fake.baseUrl}/api/v1/authorize`,
    tokenUrl: `${fake.baseUrl}/api/v1/access_token`,
    apiBaseUrl: fake.baseUrl,
    timeoutMs: 2_000,
    now: () => clock,
    ...overrides,
  });
}

function context(): CallContext {
  return callContext({
    platform: 'reddit',
    accountExternalId: '1w72',
    accountHandle: 'acme_studio',
    tokens,
    fetchMedia: async (item) => bytesMediaFile(imageBytes, 'image/png', item.assetId),
  });
}

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return publishRequest(
    {
      groupTitle: 'Launch',
      contentText: 'We shipped.',
      media: null,
      platformPayload: { reddit: { subreddit: 'r/test', title: 'Launch day & friends' } },
      attemptStartedAt: now.toISOString(),
    },
    overrides,
  );
}

function status(overrides: Partial<StatusQuery> = {}): StatusQuery {
  return {
    postId: 'post-1',
    idempotencyKey: 'publish:post-1:1',
    reference: null,
    contentText: 'We shipped.',
    attemptStartedAt: now.toISOString(),
    platformPayload: { reddit: { subreddit: 'r/Test', title: 'Launch day & friends' } },
    ...overrides,
  };
}

const image = (n: number) => ({
  assetId: `img-${n}`,
  url: `https://media.example/${n}.png`,
  contentType: 'image/png',
  sizeBytes: imageBytes.byteLength,
  altText: `Picture ${n}`,
});

/** Reddit's media lease pointing at a locally served storage host that answers like S3. */
function serveMediaUpload() {
  const lease = fixture('media-asset');
  fake.on('POST', '/api/media/asset.json', {
    body: { ...lease, args: { ...(lease.args as object), action: `${fake.baseUrl}/s3-upload` } },
  });
  fake.on('POST', '/s3-upload', {
    status: 201,
    headers: { 'content-type': 'application/xml' },
    body: `<?xml version="1.0" encoding="UTF-8"?><PostResponse><Location>https://reddit-uploaded-media.s3-accelerate.amazonaws.com/rte_images%2Fabc123</Location><Key>rte_images/abc123</Key></PostResponse>`,
  });
}

const failure = connectorFailure;

const form = (text: string) => Object.fromEntries(new URLSearchParams(text));

describe('configuration and OAuth', () => {
  it('names the missing environment variables, the user agent included', async () => {
    expect(createRedditConnector({}).missingConfiguration()).toEqual([
      'REDDIT_CLIENT_ID',
      'REDDIT_CLIENT_SECRET',
      'REDDIT_USER_AGENT',
    ]);
    await expectNotConfigured(
      connector({ userAgent: undefined }),
      ['REDDIT_USER_AGENT'],
      'REDDIT_USER_AGENT',
    );
  });

  it('asks for a permanent grant with the four scopes', async () => {
    const { authorizationUrl } = await connector().startAuthorization({
      state: 'state-1',
      callbackUrl: 'https://app.example/v1/marketing/oauth/reddit/callback',
      codeChallenge: 'ignored',
    });
    const url = new URL(authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/api/v1/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'reddit-client-id',
      response_type: 'code',
      state: 'state-1',
      redirect_uri: 'https://app.example/v1/marketing/oauth/reddit/callback',
      duration: 'permanent',
      scope: 'identity submit read edit',
    });
  });

  it('exchanges the code with HTTP Basic and the user agent, and connects the user', async () => {
    fake.on('POST', '/api/v1/access_token', { body: fixture('token') });
    fake.on('GET', '/api/v1/me', { body: fixture('me') });
    const result = await connector().completeAuthorization({
      params: { code: 'code-1', state: 'state-1' },
      callbackUrl: 'https://app.example/cb',
      codeVerifier: 'unused',
    });
    const [token] = fake.calls('POST', '/api/v1/access_token');
    expect(token!.headers.authorization).toBe(
      `Basic ${Buffer.from('reddit-client-id:reddit-client-secret').toString('base64')}`,
    );
    expect(token!.headers['user-agent']).toBe(userAgent);
    expect(form(token!.text)).toEqual({
      grant_type: 'authorization_code',
      code: 'code-1',
      redirect_uri: 'https://app.example/cb',
    });
    const [me] = fake.calls('GET', '/api/v1/me');
    expect(me!.headers.authorization).toBe(`Bearer ${fixture('token').access_token as string}`);
    expect(me!.headers['user-agent']).toBe(userAgent);

    expect(result).toEqual({
      kind: 'accounts',
      accounts: [
        {
          profile: {
            accountExternalId: '1w72',
            accountName: 'Acme Studio',
            accountHandle: 'acme_studio',
            profileImageUrl:
              'https://styles.redditmedia.com/t5_2q1w3/styles/profileIcon_snoo.png?width=256&height=256&crop=256:256,smart&s=abc',
            profileUrl: 'https://www.reddit.com/user/acme_studio',
            accountBio: 'Short films and launch notes.',
          },
          tokens: {
            accessToken: fixture('token').access_token,
            refreshToken: '122640982348-reddit-refresh',
            expiresAt: '2026-11-24T10:00:00.000Z',
            scopes: ['edit', 'identity', 'read', 'submit'],
          },
        },
      ],
    });
  });

  it('refuses a denied grant, an expired code and wrong app credentials', async () => {
    const callback = { callbackUrl: 'https://app/cb', codeVerifier: 'v' };
    const denied = await failure(
      connector().completeAuthorization({ ...callback, params: { error: 'access_denied', state: 's' } }),
    );
    expect(denied.kind).toBe('permanent');
    expect(fake.requests).toHaveLength(0);

    // Reddit reports a bad code in a 200 answer.
    fake.on('POST', '/api/v1/access_token', { body: { error: 'invalid_grant' } });
    const expired = await failure(
      connector().completeAuthorization({ ...callback, params: { code: 'old' } }),
    );
    expect(expired.kind).toBe('permanent');
    expect(expired.details.platformCode).toBe('invalid_grant');

    fake.on('POST', '/api/v1/access_token', { status: 401, body: { message: 'Unauthorized', error: 401 } });
    const wrongApp = await failure(connector().completeAuthorization({ ...callback, params: { code: 'c' } }));
    expect(wrongApp.kind).toBe('permanent');
    expect(wrongApp.message).not.toContain('reddit-client-secret');
  });

  it('refreshes, keeping the refresh token; a revoked one is an auth failure', async () => {
    fake.on('POST', '/api/v1/access_token', {
      body: {
        access_token: 'reddit-new-access',
        token_type: 'bearer',
        expires_in: 86400,
        scope: 'identity submit',
      },
    });
    const refreshed = await connector().refresh(context().account, tokens);
    expect(form(fake.calls('POST', '/api/v1/access_token')[0]!.text)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'reddit-current-refresh',
    });
    expect(refreshed).toEqual({
      accessToken: 'reddit-new-access',
      refreshToken: 'reddit-current-refresh',
      expiresAt: '2026-11-24T10:00:00.000Z',
      scopes: ['identity', 'submit'],
    });

    fake.on('POST', '/api/v1/access_token', { status: 400, body: { error: 'invalid_grant' } });
    const revoked = await failure(connector().refresh(context().account, tokens));
    expect(revoked.kind).toBe('auth');
    expect(revoked.message).not.toContain('reddit-current-refresh');
  });
});

describe('submitting', () => {
  it('submits a text post form-encoded and answers with the post URL and t3 id', async () => {
    fake.on('POST', '/api/submit', { body: fixture('submit-ok') });
    const outcome = await connector().publish(
      context(),
      request({
        platformPayload: {
          reddit: {
            subreddit: 'r/test',
            title: 'Launch day & friends',
            flairId: 'flair-1',
            nsfw: true,
            spoiler: false,
          },
        },
      }),
    );
    expect(outcome).toEqual({
      kind: 'published',
      externalId: 't3_1h2x9qz',
      url: 'https://www.reddit.com/r/test/comments/1h2x9qz/launch_day/',
    });
    const [submit] = fake.calls('POST', '/api/submit');
    expect(submit!.headers.authorization).toBe('Bearer reddit-current-access');
    expect(submit!.headers['user-agent']).toBe(userAgent);
    expect(submit!.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(form(submit!.text)).toEqual({
      api_type: 'json',
      sr: 'test',
      title: 'Launch day & friends',
      nsfw: 'true',
      spoiler: 'false',
      sendreplies: 'true',
      flair_id: 'flair-1',
      kind: 'self',
      text: 'We shipped.',
    });
  });

  it('a text that is only a link becomes a link post', async () => {
    fake.on('POST', '/api/submit', { body: fixture('submit-ok') });
    await connector().publish(context(), request({ contentText: ' https://acme.example/launch ' }));
    expect(form(fake.calls('POST', '/api/submit')[0]!.text)).toMatchObject({
      kind: 'link',
      url: 'https://acme.example/launch',
      resubmit: 'true',
    });
  });

  it('uploads an image to Reddit storage without the token, submits it, and waits for it to appear', async () => {
    serveMediaUpload();
    fake.on('POST', '/api/submit', { body: fixture('submit-image-ok') });
    const outcome = await connector().publish(context(), request({ media: { kind: 'image', ...image(1) } }));
    expect(outcome).toEqual({ kind: 'pending', reference: 'image:abc123', checkAfterMs: 10_000 });

    expect(form(fake.calls('POST', '/api/media/asset.json')[0]!.text)).toEqual({
      filepath: 'img-1.png',
      mimetype: 'image/png',
    });
    const [upload] = fake.calls('POST', '/s3-upload');
    expect(upload!.headers.authorization).toBeUndefined();
    expect(upload!.headers['content-type']).toContain('multipart/form-data');
    expect(upload!.text).toContain('name="key"\r\n\r\nrte_images/abc123');
    expect(upload!.text).toContain('name="X-Amz-Signature"\r\n\r\n0123456789abcdef');
    expect(upload!.raw.includes(Buffer.from(imageBytes))).toBe(true);
    expect(form(fake.calls('POST', '/api/submit')[0]!.text)).toMatchObject({
      kind: 'image',
      url: 'https://reddit-uploaded-media.s3-accelerate.amazonaws.com/rte_images/abc123',
    });
  });

  it('posts several images as a gallery of uploaded media', async () => {
    serveMediaUpload();
    fake.on('POST', '/api/submit_gallery_post.json', {
      body: {
        json: { errors: [], data: { id: 't3_1h2xgal', url: 'https://www.reddit.com/gallery/1h2xgal' } },
      },
    });
    const outcome = await connector().publish(
      context(),
      request({ media: { kind: 'images', images: [image(1), image(2)] } }),
    );
    expect(outcome).toEqual({
      kind: 'published',
      externalId: 't3_1h2xgal',
      url: 'https://www.reddit.com/gallery/1h2xgal',
    });
    expect(fake.calls('POST', '/s3-upload')).toHaveLength(2);
    expect(fake.calls('POST', '/api/submit_gallery_post.json')[0]!.json).toEqual({
      api_type: 'json',
      show_error_list: true,
      sr: 'test',
      title: 'Launch day & friends',
      text: 'We shipped.',
      items: [
        { media_id: 'abc123', caption: 'Picture 1', outbound_url: '' },
        { media_id: 'abc123', caption: 'Picture 2', outbound_url: '' },
      ],
      nsfw: false,
      spoiler: false,
      sendreplies: true,
    });
  });

  it('refuses a post without subreddit and title, and video, before calling Reddit', async () => {
    expect((await failure(connector().publish(context(), request({ platformPayload: null })))).kind).toBe(
      'permanent',
    );
    const videoPost = request({
      media: {
        kind: 'video',
        assetId: 'v',
        url: 'https://media.example/v.mp4',
        contentType: 'video/mp4',
        sizeBytes: 1,
        durationSeconds: 1,
        width: 1,
        height: 1,
      },
    });
    expect((await failure(connector().publish(context(), videoPost))).kind).toBe('permanent');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('errors', () => {
  it('maps json.errors in a 200 answer: RATELIMIT with its wait, SUBREDDIT_NOEXIST permanent', async () => {
    fake.on('POST', '/api/submit', { body: fixture('submit-ratelimit-classic') });
    const limited = await failure(connector().publish(context(), request()));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details).toMatchObject({ platformCode: 'RATELIMIT', retryAfterMs: 9 * 60_000 });

    fake.on('POST', '/api/submit', { body: fixture('submit-ratelimit') });
    expect((await failure(connector().publish(context(), request()))).details.retryAfterMs).toBe(9 * 60_000);

    fake.on('POST', '/api/submit', { body: fixture('submit-noexist') });
    const missing = await failure(connector().publish(context(), request()));
    expect(missing.kind).toBe('permanent');
    expect(missing.details.platformCode).toBe('SUBREDDIT_NOEXIST');
    expect(missing.message).toContain("that subreddit doesn't exist");

    expect(redditRateLimitWait('try again in 45 seconds.')).toBe(45_000);
    expect(redditRateLimitWait('try again in 1 minute.')).toBe(60_000);
    expect(redditRateLimitWait('slow down')).toBeUndefined();
  });

  it('maps HTTP failures: 401 auth, 403 and 404 permanent, 429 with reset, 500 on submit unknown', async () => {
    fake.on('POST', '/api/submit', { status: 401, body: { message: 'Unauthorized', error: 401 } });
    expect((await failure(connector().publish(context(), request()))).kind).toBe('auth');

    fake.on('POST', '/api/submit', { status: 403, body: { message: 'Forbidden', error: 403 } });
    expect((await failure(connector().publish(context(), request()))).kind).toBe('permanent');

    fake.on('GET', '/api/v1/me', { status: 404, body: { message: 'Not Found', error: 404 } });
    expect((await failure(connector().accountInfo(context()))).kind).toBe('permanent');

    fake.on('POST', '/api/submit', {
      status: 429,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '42', 'x-ratelimit-used': '100' },
      body: { message: 'Too Many Requests', error: 429 },
    });
    const tooMany = await failure(connector().publish(context(), request()));
    expect(tooMany.kind).toBe('rate_limited');
    expect(tooMany.details.retryAfterMs).toBe(42_000);

    fake.on('POST', '/api/submit', { status: 500, body: 'Internal Server Error' });
    expect((await failure(connector().publish(context(), request()))).kind).toBe('unknown_outcome');

    fake.on('GET', '/api/v1/me', { status: 503, body: 'busy' });
    expect((await failure(connector().accountInfo(context()))).kind).toBe('retryable');
  });

  it('a submit that never answers has an unknown outcome', async () => {
    fake.on('POST', '/api/submit', { hang: true });
    const error = await failure(connector({ timeoutMs: 200 }).publish(context(), request()));
    expect(error.kind).toBe('unknown_outcome');
    expect(error.message).toContain('timed out');
  });

  it('waits out a used-up rate-limit window without calling Reddit', async () => {
    const rd = connector();
    fake.on('GET', '/api/v1/me', {
      headers: { 'x-ratelimit-remaining': '0.0', 'x-ratelimit-reset': '30', 'x-ratelimit-used': '1000' },
      body: fixture('me'),
    });
    await rd.accountInfo(context());
    fake.on('POST', '/api/submit', { body: fixture('submit-ok') });
    const held = await failure(rd.publish(context(), request()));
    expect(held.kind).toBe('rate_limited');
    expect(held.details.retryAfterMs).toBe(30_000);
    expect(fake.calls('POST', '/api/submit')).toHaveLength(0);

    clock = new Date(now.getTime() + 30_000);
    expect(await rd.publish(context(), request())).toMatchObject({ kind: 'published' });
  });
});

describe('status checks and deletion', () => {
  it("finds the post among the user's submissions since the attempt, by subreddit and title", async () => {
    fake.on('GET', '/user/acme_studio/submitted', { body: fixture('submitted') });
    expect(await connector().checkStatus(context(), status())).toEqual({
      kind: 'published',
      externalId: 't3_1h2x9qz',
      url: 'https://www.reddit.com/r/test/comments/1h2x9qz/launch_day_friends/',
    });
    const [listing] = fake.calls('GET', '/user/acme_studio/submitted');
    expect(Object.fromEntries(listing!.query)).toEqual({ sort: 'new', limit: '25', raw_json: '1' });
    expect(listing!.headers.authorization).toBe('Bearer reddit-current-access');

    // Another subreddit, another title, or a post from before the attempt is not this one.
    const elsewhere = status({
      platformPayload: { reddit: { subreddit: 'nothere', title: 'Launch day & friends' } },
    });
    expect(await connector().checkStatus(context(), elsewhere)).toEqual({ kind: 'not_found' });
    const retitled = status({ platformPayload: { reddit: { subreddit: 'test', title: 'Launch day' } } });
    expect(await connector().checkStatus(context(), retitled)).toEqual({ kind: 'not_found' });
    expect(
      await connector().checkStatus(context(), status({ attemptStartedAt: '2026-11-24T00:00:00Z' })),
    ).toEqual({
      kind: 'not_found',
    });
    // Without the payload, a text post is recognised by its body.
    expect(await connector().checkStatus(context(), status({ platformPayload: undefined }))).toMatchObject({
      externalId: 't3_1h2x9qz',
    });
  });

  it('an image post still processing stays pending', async () => {
    fake.on('GET', '/user/acme_studio/submitted', { body: { kind: 'Listing', data: { children: [] } } });
    expect(await connector().checkStatus(context(), status({ reference: 'image:abc123' }))).toEqual({
      kind: 'pending',
      checkAfterMs: 10_000,
    });
  });

  it('deletes by fullname; a post that is gone is not_found', async () => {
    fake.on('GET', '/api/info', { body: fixture('info') });
    fake.on('POST', '/api/del', { body: {} });
    expect(await connector().delete(context(), '1h2x9qz')).toEqual({ kind: 'deleted' });
    expect(fake.calls('GET', '/api/info')[0]!.query.get('id')).toBe('t3_1h2x9qz');
    const [del] = fake.calls('POST', '/api/del');
    expect(form(del!.text)).toEqual({ id: 't3_1h2x9qz' });
    expect(del!.headers['user-agent']).toBe(userAgent);

    fake.on('GET', '/api/info', {
      body: { kind: 'Listing', data: { children: [{ kind: 't3', data: { id: 'x', author: '[deleted]' } }] } },
    });
    expect(await connector().delete(context(), 't3_x')).toEqual({ kind: 'not_found' });
    fake.on('GET', '/api/info', { body: { kind: 'Listing', data: { children: [] } } });
    expect(await connector().delete(context(), 't3_y')).toEqual({ kind: 'not_found' });
    expect(fake.calls('POST', '/api/del')).toHaveLength(1);
  });
});
