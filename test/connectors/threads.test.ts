// The live Threads connector against a locally served Threads API: OAuth and long-lived tokens, refresh,
// publishing by container (text, image, video, carousel, thread replies), pending containers, errors.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createThreadsConnector,
  type ThreadsConnectorConfig,
} from '../../infra/connectors/threads/threads-connector.js';
import type { CallContext, PlatformConnector, PublishRequest } from '../../infra/connectors/port.js';
import {
  callContext,
  connectorFailure,
  fixtureReader,
  formFields,
  mediaByUrlOnly,
  publishRequest,
} from './support/connector-fixtures.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const now = new Date('2026-01-01T00:00:00.000Z');
const user = '17841400000000001';
let fake: FakePlatform;
let connector: PlatformConnector;

const fixture = fixtureReader('threads');

function make(overrides: Partial<ThreadsConnectorConfig> = {}): PlatformConnector {
  return createThreadsConnector({
    appId: 'th-app',
    appSecret: 'th-secret-value',
    apiBaseUrl: fake.baseUrl,
    authorizeUrl: `${fake.baseUrl}/oauth/authorize`,
    now: () => now,
    ...overrides,
  });
}

function context(): CallContext {
  return callContext({
    platform: 'threads',
    accountExternalId: user,
    accountHandle: 'acme.threads',
    tokens: { accessToken: 'THLong', refreshToken: null, expiresAt: null, scopes: [] },
    fetchMedia: mediaByUrlOnly('Threads'),
  });
}

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return publishRequest(
    { groupTitle: 'Hello', contentText: 'Hello Threads', attemptStartedAt: now.toISOString() },
    overrides,
  );
}

const failure = connectorFailure;

const form = formFields;
const v = (path: string) => `/v1.0/${path}`;

/** A Threads API where containers are made in order (c1, c2, …), each with a status the test controls. */
function threadsApi(statuses: Record<string, string> = {}) {
  let containers = 0;
  let media = 0;
  fake.on('POST', v(`${user}/threads`), () => ({ body: { id: `c${(containers += 1)}` } }));
  fake.on('POST', v(`${user}/threads_publish`), () => ({ body: { id: `m${(media += 1)}` } }));
  fake.on('GET', /^\/v1\.0\/c\d+$/, (req) => ({
    body: { id: req.path.slice(6), status: statuses[req.path.slice(6)] ?? 'FINISHED' },
  }));
  fake.on('GET', /^\/v1\.0\/m\d+$/, (req) => ({
    body: {
      id: req.path.slice(6),
      permalink: `https://www.threads.net/@acme.threads/post/${req.path.slice(6)}`,
    },
  }));
  return statuses;
}

beforeEach(async () => {
  fake = await startFakePlatform();
  connector = make();
});
afterEach(async () => {
  await fake.close();
});

describe('OAuth and tokens', () => {
  it('authorizes at threads.net with the publishing scopes, no PKCE', async () => {
    expect(createThreadsConnector({}).missingConfiguration()).toEqual([
      'THREADS_APP_ID',
      'THREADS_APP_SECRET',
    ]);
    const url = new URL(
      (
        await connector.startAuthorization({
          state: 's1',
          callbackUrl: 'https://app.test/cb',
          codeChallenge: 'c',
        })
      ).authorizationUrl,
    );
    expect(url.pathname).toBe('/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'th-app',
      redirect_uri: 'https://app.test/cb',
      scope: 'threads_basic,threads_content_publish,threads_delete',
      response_type: 'code',
      state: 's1',
    });
  });

  it('exchanges the code, then the short-lived token for a long-lived one, and reads the profile', async () => {
    fake.on('POST', '/oauth/access_token', { body: { access_token: 'THShort', user_id: Number(user) } });
    fake.on('GET', '/access_token', {
      body: { access_token: 'THLong', token_type: 'bearer', expires_in: 5184000 },
    });
    fake.on('GET', v('me'), { body: fixture('me') });
    const result = await connector.completeAuthorization({
      params: { code: 'the-code' },
      callbackUrl: 'https://app.test/cb',
      codeVerifier: 'v',
    });
    expect(form(fake.calls('POST', '/oauth/access_token')[0]!)).toEqual({
      client_id: 'th-app',
      client_secret: 'th-secret-value',
      grant_type: 'authorization_code',
      redirect_uri: 'https://app.test/cb',
      code: 'the-code',
    });
    expect(Object.fromEntries(fake.calls('GET', '/access_token')[0]!.query)).toEqual({
      grant_type: 'th_exchange_token',
      client_secret: 'th-secret-value',
      access_token: 'THShort',
    });
    expect(fake.calls('GET', v('me'))[0]!.headers['authorization']).toBe('Bearer THLong');
    expect(result).toEqual({
      kind: 'accounts',
      accounts: [
        {
          profile: {
            accountExternalId: user,
            accountName: 'Acme',
            accountHandle: 'acme.threads',
            profileImageUrl: 'https://scontent.cdninstagram.com/acme.jpg',
            profileUrl: 'https://www.threads.net/@acme.threads',
            accountBio: 'Coffee people.',
          },
          tokens: {
            accessToken: 'THLong',
            refreshToken: null,
            expiresAt: '2026-03-02T00:00:00.000Z',
            scopes: ['threads_basic', 'threads_content_publish', 'threads_delete'],
          },
        },
      ],
    });
  });

  it('refreshes the long-lived token with th_refresh_token; an expired token is auth', async () => {
    fake.on('GET', '/refresh_access_token', {
      body: { access_token: 'THLong2', token_type: 'bearer', expires_in: 5184000 },
    });
    const renewed = await connector.refresh(context().account, {
      ...context().tokens,
      scopes: ['threads_basic'],
    });
    expect(Object.fromEntries(fake.calls('GET', '/refresh_access_token')[0]!.query)).toEqual({
      grant_type: 'th_refresh_token',
      access_token: 'THLong',
    });
    expect(renewed).toEqual({
      accessToken: 'THLong2',
      refreshToken: null,
      expiresAt: '2026-03-02T00:00:00.000Z',
      scopes: ['threads_basic'],
    });
    fake.on('GET', '/refresh_access_token', {
      status: 400,
      body: {
        error: {
          message: 'Error validating access token: Session has expired',
          type: 'OAuthException',
          code: 190,
        },
      },
    });
    expect((await failure(connector.refresh(context().account, context().tokens))).kind).toBe('auth');
    fake.on('GET', '/refresh_access_token', {
      status: 400,
      body: { error: { message: 'Invalid OAuth access token', code: 100 } },
    });
    expect((await failure(connector.refresh(context().account, context().tokens))).kind).toBe('auth');
  });
});

describe('publishing', () => {
  it('publishes text: a TEXT container, then threads_publish with its id, then the permalink', async () => {
    threadsApi();
    const outcome = await connector.publish(context(), request());
    const [container] = fake.calls('POST', v(`${user}/threads`));
    expect(container!.headers['authorization']).toBe('Bearer THLong');
    expect(form(container!)).toEqual({ media_type: 'TEXT', text: 'Hello Threads' });
    expect(form(fake.calls('POST', v(`${user}/threads_publish`))[0]!)).toEqual({ creation_id: 'c1' });
    expect(fake.calls('GET', v('c1'))[0]!.query.get('fields')).toBe('status,error_message');
    expect(fake.calls('GET', v('m1'))[0]!.query.get('fields')).toBe('permalink');
    expect(outcome).toEqual({
      kind: 'published',
      externalId: 'm1',
      url: 'https://www.threads.net/@acme.threads/post/m1',
    });
  });

  it('publishes an image by its public URL and a carousel of image items', async () => {
    threadsApi();
    await connector.publish(
      context(),
      request({
        media: {
          kind: 'image',
          assetId: 'a',
          url: 'https://cdn.test/a.jpg',
          contentType: 'image/jpeg',
          sizeBytes: 1,
          altText: 'Cup',
        },
      }),
    );
    expect(form(fake.calls('POST', v(`${user}/threads`))[0]!)).toEqual({
      media_type: 'IMAGE',
      image_url: 'https://cdn.test/a.jpg',
      text: 'Hello Threads',
      alt_text: 'Cup',
    });
    const image = (id: string) => ({
      assetId: id,
      url: `https://cdn.test/${id}.jpg`,
      contentType: 'image/jpeg',
      sizeBytes: 1,
    });
    const outcome = await connector.publish(
      context(),
      request({ media: { kind: 'images', images: [image('x'), image('y')] } }),
    );
    const [, child1, child2, carousel] = fake.calls('POST', v(`${user}/threads`)).map(form);
    expect(child1).toEqual({
      media_type: 'IMAGE',
      image_url: 'https://cdn.test/x.jpg',
      is_carousel_item: 'true',
    });
    expect(child2).toEqual({
      media_type: 'IMAGE',
      image_url: 'https://cdn.test/y.jpg',
      is_carousel_item: 'true',
    });
    expect(carousel).toEqual({ media_type: 'CAROUSEL', children: 'c2,c3', text: 'Hello Threads' });
    expect(form(fake.calls('POST', v(`${user}/threads_publish`))[1]!)).toEqual({ creation_id: 'c4' });
    expect(outcome).toMatchObject({ kind: 'published', externalId: 'm2' });
  });

  it('posts thread items as a chain of replies', async () => {
    threadsApi();
    const outcome = await connector.publish(
      context(),
      request({ platformPayload: { thread: ['Second', 'Third'] } }),
    );
    expect(fake.calls('POST', v(`${user}/threads`)).map(form)).toEqual([
      { media_type: 'TEXT', text: 'Hello Threads' },
      { media_type: 'TEXT', text: 'Second', reply_to_id: 'm1' },
      { media_type: 'TEXT', text: 'Third', reply_to_id: 'm2' },
    ]);
    expect(outcome).toMatchObject({ kind: 'published', externalId: 'm1' });
  });

  it('a reply that fails after the first post is out ends permanent and names what is online', async () => {
    threadsApi();
    let publishes = 0;
    fake.on('POST', v(`${user}/threads_publish`), () =>
      (publishes += 1) === 1 ? { body: { id: 'm1' } } : { status: 400, body: fixture('error-rate-limit') },
    );
    const error = await failure(
      connector.publish(context(), request({ platformPayload: { thread: ['Second'] } })),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('https://www.threads.net/@acme.threads/post/m1');
    expect(error.message).toContain('reply 1 of 1');
  });

  it('a video still processing is pending with the container id; checkStatus publishes it once FINISHED', async () => {
    const statuses = threadsApi({ c1: 'IN_PROGRESS' });
    const video = {
      kind: 'video' as const,
      assetId: 'v',
      url: 'https://cdn.test/v.mp4',
      contentType: 'video/mp4',
      sizeBytes: 9,
      durationSeconds: 4,
      width: 720,
      height: 1280,
    };
    const outcome = await connector.publish(
      context(),
      request({ media: video, platformPayload: { thread: ['More'] } }),
    );
    expect(form(fake.calls('POST', v(`${user}/threads`))[0]!)).toEqual({
      media_type: 'VIDEO',
      video_url: 'https://cdn.test/v.mp4',
      text: 'Hello Threads',
    });
    expect(fake.calls('POST', v(`${user}/threads_publish`))).toHaveLength(0);
    if (outcome.kind !== 'pending') throw new Error('expected pending');
    expect(outcome.reference.startsWith('c1#')).toBe(true);

    const query = {
      postId: 'post-1',
      idempotencyKey: 'k',
      reference: outcome.reference,
      contentText: 'Hello Threads',
      attemptStartedAt: now.toISOString(),
    };
    expect(await connector.checkStatus(context(), query)).toMatchObject({ kind: 'pending' });
    expect(fake.calls('POST', v(`${user}/threads_publish`))).toHaveLength(0);
    statuses.c1 = 'FINISHED';
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: 'm1',
      url: 'https://www.threads.net/@acme.threads/post/m1',
    });
    expect(form(fake.calls('POST', v(`${user}/threads_publish`))[0]!)).toEqual({ creation_id: 'c1' });
    // the thread item waited for its parent
    expect(form(fake.calls('POST', v(`${user}/threads`))[1]!)).toEqual({
      media_type: 'TEXT',
      text: 'More',
      reply_to_id: 'm1',
    });
  });

  it('a container that failed processing fails with its message; an unknown container is not_found', async () => {
    fake.on('GET', v('c9'), { body: { id: 'c9', status: 'ERROR', error_message: 'MEDIA_FETCH_FAILED' } });
    const query = {
      postId: 'p',
      idempotencyKey: 'k',
      reference: 'c9',
      contentText: 'x',
      attemptStartedAt: now.toISOString(),
    };
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'failed',
      message: 'threads: the media could not be processed (MEDIA_FETCH_FAILED)',
    });
    fake.on('GET', v('c8'), {
      status: 400,
      body: { error: { message: 'Object does not exist', code: 100, error_subcode: 33 } },
    });
    expect(await connector.checkStatus(context(), { ...query, reference: 'c8' })).toEqual({
      kind: 'not_found',
    });
  });

  it('without a reference, finds the post by its text since the attempt started', async () => {
    fake.on('GET', v(`${user}/threads`), { body: fixture('user-threads') });
    const query = {
      postId: 'p',
      idempotencyKey: 'k',
      reference: null,
      contentText: 'Hello Threads',
      attemptStartedAt: now.toISOString(),
    };
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: '18000000000000002',
      url: 'https://www.threads.net/@acme.threads/post/C2bQf',
    });
    expect(fake.calls('GET', v(`${user}/threads`))[0]!.query.get('since')).toBe(String(now.getTime() / 1000));
    expect(
      await connector.checkStatus(context(), { ...query, attemptStartedAt: '2026-01-01T00:10:00.000Z' }),
    ).toEqual({ kind: 'not_found' });
  });

  it('an image-only post (no text) whose answer was lost is found, not sent again', async () => {
    fake.on('GET', v(`${user}/threads`), {
      body: {
        data: [
          {
            id: '18000000000000009',
            timestamp: new Date(now.getTime() + 1000).toISOString().replace('.000Z', '+0000'),
            permalink: 'https://www.threads.net/@acme.threads/post/Img',
          },
        ],
      },
    });
    const found = await connector.checkStatus(context(), {
      postId: 'p',
      idempotencyKey: 'k',
      reference: null,
      contentText: '',
      attemptStartedAt: now.toISOString(),
    });
    expect(found).toEqual({
      kind: 'published',
      externalId: '18000000000000009',
      url: 'https://www.threads.net/@acme.threads/post/Img',
    });
  });

  it('deletes a post; an already deleted one is not_found', async () => {
    fake.on('DELETE', v('m1'), { body: { success: true, deleted_id: 'm1' } });
    expect(await connector.delete(context(), 'm1')).toEqual({ kind: 'deleted' });
    fake.on('DELETE', v('m2'), { status: 404, body: { error: { message: 'Not found', code: 100 } } });
    expect(await connector.delete(context(), 'm2')).toEqual({ kind: 'not_found' });
  });
});

describe('errors', () => {
  it('maps 190 to auth, rate-limit codes to rate_limited, 500 on publish to unknown_outcome, and a timeout', async () => {
    threadsApi();
    fake.on('POST', v(`${user}/threads`), {
      status: 400,
      body: {
        error: {
          message: 'Invalid OAuth access token - Cannot parse access token',
          type: 'OAuthException',
          code: 190,
        },
      },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('auth');
    fake.on('POST', v(`${user}/threads`), { status: 400, body: fixture('error-rate-limit') });
    const limited = await failure(connector.publish(context(), request()));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.platformCode).toBe('4');
    fake.on('POST', v(`${user}/threads`), {
      status: 400,
      body: { error: { message: 'The parameter text is too long', code: 100 } },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('permanent');

    fake.on('POST', v(`${user}/threads`), { body: { id: 'c1' } });
    fake.on('POST', v(`${user}/threads_publish`), {
      status: 500,
      body: { error: { message: 'Please reduce the amount of data', code: 1 } },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('unknown_outcome');
    fake.on('POST', v(`${user}/threads_publish`), { hang: true });
    expect((await failure(make({ timeoutMs: 100 }).publish(context(), request()))).kind).toBe(
      'unknown_outcome',
    );
  });
});
