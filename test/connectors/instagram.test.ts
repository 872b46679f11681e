// The live Instagram connector against a locally served Instagram API: Instagram Login and long-lived tokens,
// refresh, publishing by container (image, reel, carousel), pending containers, refusals and errors.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createInstagramConnector,
  type InstagramConnectorConfig,
} from '../../infra/connectors/instagram/instagram-connector.js';
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
const user = '17841405822304914';
let fake: FakePlatform;
let connector: PlatformConnector;

const fixture = fixtureReader('instagram');

function make(overrides: Partial<InstagramConnectorConfig> = {}): PlatformConnector {
  return createInstagramConnector({
    appId: 'ig-app',
    appSecret: 'ig-secret-value',
    authorizeUrl: `${fake.baseUrl}/oauth/authorize`,
    tokenBaseUrl: `${fake.baseUrl}/api-host`,
    graphBaseUrl: fake.baseUrl,
    graphVersion: 'v21.0',
    now: () => now,
    ...overrides,
  });
}

function context(): CallContext {
  return callContext({
    platform: 'instagram',
    accountExternalId: user,
    accountHandle: 'acme.coffee',
    tokens: { accessToken: 'IGLong', refreshToken: null, expiresAt: null, scopes: [] },
    fetchMedia: mediaByUrlOnly('Instagram'),
  });
}

const image = (id: string, altText?: string) => ({
  kind: 'image' as const,
  assetId: id,
  url: `https://cdn.test/${id}.jpg`,
  contentType: 'image/jpeg',
  sizeBytes: 1,
  ...(altText ? { altText } : {}),
});

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return publishRequest(
    {
      groupTitle: 'Beans',
      contentText: 'Fresh beans',
      media: image('a'),
      attemptStartedAt: now.toISOString(),
    },
    overrides,
  );
}

const failure = connectorFailure;

const form = formFields;
const v = (path: string) => `/v21.0/${path}`;

function instagramApi(statuses: Record<string, string> = {}) {
  let containers = 0;
  fake.on('POST', v(`${user}/media`), () => ({ body: { id: `c${(containers += 1)}` } }));
  fake.on('POST', v(`${user}/media_publish`), { body: { id: '17900000000000002' } });
  fake.on('GET', /^\/v21\.0\/c\d+$/, (req) => ({
    body: { id: req.path.slice(7), status_code: statuses[req.path.slice(7)] ?? 'FINISHED' },
  }));
  fake.on('GET', v('17900000000000002'), {
    body: { id: '17900000000000002', permalink: 'https://www.instagram.com/p/DAbCdEf/' },
  });
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
  it('authorizes with Instagram Login scopes, exchanges the code, makes it long-lived and reads the profile', async () => {
    expect(createInstagramConnector({}).missingConfiguration()).toEqual([
      'INSTAGRAM_APP_ID',
      'INSTAGRAM_APP_SECRET',
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
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'ig-app',
      redirect_uri: 'https://app.test/cb',
      response_type: 'code',
      scope: 'instagram_business_basic,instagram_business_content_publish',
      state: 's1',
    });

    fake.on('POST', '/api-host/oauth/access_token', { body: fixture('token') });
    fake.on('GET', '/access_token', {
      body: { access_token: 'IGLong', token_type: 'bearer', expires_in: 5184000 },
    });
    fake.on('GET', v('me'), { body: fixture('me') });
    const result = await connector.completeAuthorization({
      params: { code: 'the-code#_' },
      callbackUrl: 'https://app.test/cb',
      codeVerifier: 'v',
    });
    expect(form(fake.calls('POST', '/api-host/oauth/access_token')[0]!)).toEqual({
      client_id: 'ig-app',
      client_secret: 'ig-secret-value',
      grant_type: 'authorization_code',
      redirect_uri: 'https://app.test/cb',
      code: 'the-code',
    });
    expect(Object.fromEntries(fake.calls('GET', '/access_token')[0]!.query)).toEqual({
      grant_type: 'ig_exchange_token',
      client_secret: 'ig-secret-value',
      access_token: 'IGShort',
    });
    expect(fake.calls('GET', v('me'))[0]!.headers['authorization']).toBe('Bearer IGLong');
    expect(result).toEqual({
      kind: 'accounts',
      accounts: [
        {
          profile: {
            accountExternalId: user,
            accountName: 'Acme Coffee',
            accountHandle: 'acme.coffee',
            profileImageUrl: 'https://scontent.cdninstagram.com/acme.jpg',
            profileUrl: 'https://www.instagram.com/acme.coffee/',
            accountBio: 'Roasted daily.',
          },
          tokens: {
            accessToken: 'IGLong',
            refreshToken: null,
            expiresAt: '2026-03-02T00:00:00.000Z',
            scopes: ['instagram_business_basic', 'instagram_business_content_publish'],
          },
        },
      ],
    });
  });

  it('a denied authorization is permanent with the reason', async () => {
    const error = await failure(
      connector.completeAuthorization({
        params: {
          error: 'access_denied',
          error_reason: 'user_denied',
          error_description: 'The user denied your request',
        },
        callbackUrl: 'https://a.test',
        codeVerifier: 'v',
      }),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('The user denied your request');
  });

  it('refreshes with ig_refresh_token; a refused refresh is auth', async () => {
    fake.on('GET', '/refresh_access_token', {
      body: { access_token: 'IGLong2', token_type: 'bearer', expires_in: 5184000 },
    });
    const renewed = await connector.refresh(context().account, context().tokens);
    expect(Object.fromEntries(fake.calls('GET', '/refresh_access_token')[0]!.query)).toEqual({
      grant_type: 'ig_refresh_token',
      access_token: 'IGLong',
    });
    expect(renewed).toMatchObject({ accessToken: 'IGLong2', expiresAt: '2026-03-02T00:00:00.000Z' });
    fake.on('GET', '/refresh_access_token', {
      status: 400,
      body: { error: { message: 'Session has expired', type: 'OAuthException', code: 190 } },
    });
    expect((await failure(connector.refresh(context().account, context().tokens))).kind).toBe('auth');
  });
});

describe('publishing', () => {
  it('publishes an image: container with image_url and caption, media_publish, permalink', async () => {
    instagramApi();
    const outcome = await connector.publish(context(), request({ media: image('a', 'A cup') }));
    const [container] = fake.calls('POST', v(`${user}/media`));
    expect(container!.headers['authorization']).toBe('Bearer IGLong');
    expect(form(container!)).toEqual({
      image_url: 'https://cdn.test/a.jpg',
      caption: 'Fresh beans',
      alt_text: 'A cup',
    });
    expect(fake.calls('GET', v('c1'))[0]!.query.get('fields')).toBe('status_code,status');
    expect(form(fake.calls('POST', v(`${user}/media_publish`))[0]!)).toEqual({ creation_id: 'c1' });
    expect(outcome).toEqual({
      kind: 'published',
      externalId: '17900000000000002',
      url: 'https://www.instagram.com/p/DAbCdEf/',
    });
  });

  it('publishes a carousel: children with is_carousel_item, then a CAROUSEL container', async () => {
    instagramApi();
    await connector.publish(
      context(),
      request({ media: { kind: 'images', images: [image('x'), image('y')] } }),
    );
    expect(fake.calls('POST', v(`${user}/media`)).map(form)).toEqual([
      { image_url: 'https://cdn.test/x.jpg', is_carousel_item: 'true' },
      { image_url: 'https://cdn.test/y.jpg', is_carousel_item: 'true' },
      { media_type: 'CAROUSEL', children: 'c1,c2', caption: 'Fresh beans' },
    ]);
    expect(form(fake.calls('POST', v(`${user}/media_publish`))[0]!)).toEqual({ creation_id: 'c3' });
  });

  it('a carousel whose children are still processing is pending on the children; checkStatus finishes it', async () => {
    const statuses = instagramApi({ c2: 'IN_PROGRESS' });
    const outcome = await connector.publish(
      context(),
      request({ media: { kind: 'images', images: [image('x'), image('y')] } }),
    );
    expect(outcome).toMatchObject({ kind: 'pending', reference: 'carousel:c1,c2' });
    expect(fake.calls('POST', v(`${user}/media`))).toHaveLength(2);
    statuses.c2 = 'FINISHED';
    const query = {
      postId: 'p',
      idempotencyKey: 'k',
      reference: 'carousel:c1,c2',
      contentText: 'Fresh beans',
      attemptStartedAt: now.toISOString(),
    };
    expect(await connector.checkStatus(context(), query)).toMatchObject({
      kind: 'published',
      externalId: '17900000000000002',
    });
    expect(form(fake.calls('POST', v(`${user}/media`))[2]!)).toEqual({
      media_type: 'CAROUSEL',
      children: 'c1,c2',
      caption: 'Fresh beans',
    });
  });

  it('a reel still processing is pending with the container id; checkStatus publishes it once FINISHED', async () => {
    const statuses = instagramApi({ c1: 'IN_PROGRESS' });
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
    const outcome = await connector.publish(context(), request({ media: video }));
    expect(form(fake.calls('POST', v(`${user}/media`))[0]!)).toEqual({
      media_type: 'REELS',
      video_url: 'https://cdn.test/v.mp4',
      caption: 'Fresh beans',
    });
    expect(outcome).toMatchObject({ kind: 'pending', reference: 'c1' });
    const query = {
      postId: 'p',
      idempotencyKey: 'k',
      reference: 'c1',
      contentText: 'Fresh beans',
      attemptStartedAt: now.toISOString(),
    };
    expect(await connector.checkStatus(context(), query)).toMatchObject({ kind: 'pending' });
    expect(fake.calls('POST', v(`${user}/media_publish`))).toHaveLength(0);
    statuses.c1 = 'FINISHED';
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: '17900000000000002',
      url: 'https://www.instagram.com/p/DAbCdEf/',
    });
    statuses.c1 = 'ERROR';
    expect(await connector.checkStatus(context(), query)).toMatchObject({ kind: 'failed' });
  });

  it('a container already published (its answer lost) is found by caption', async () => {
    instagramApi({ c1: 'PUBLISHED' });
    fake.on('GET', v(`${user}/media`), { body: fixture('user-media') });
    const query = {
      postId: 'p',
      idempotencyKey: 'k',
      reference: 'c1',
      contentText: 'Fresh beans',
      attemptStartedAt: now.toISOString(),
    };
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: '17900000000000002',
      url: 'https://www.instagram.com/p/DAbCdEf/',
    });
    expect(fake.calls('POST', v(`${user}/media_publish`))).toHaveLength(0);
    expect(
      await connector.checkStatus(context(), { ...query, reference: null, contentText: 'Other' }),
    ).toEqual({ kind: 'not_found' });
  });

  it('refuses a text-only post and a document without calling Instagram', async () => {
    const text = await failure(connector.publish(context(), request({ media: null })));
    expect(text.kind).toBe('permanent');
    expect(text.message).toContain('text-only');
    const document = await failure(
      connector.publish(
        context(),
        request({
          media: {
            kind: 'document',
            assetId: 'd',
            url: 'https://cdn.test/d.pdf',
            contentType: 'application/pdf',
            sizeBytes: 1,
            title: 'Deck',
          },
        }),
      ),
    );
    expect(document.kind).toBe('permanent');
    expect(fake.requests).toHaveLength(0);
  });

  it('delete is refused as permanent: the API offers no deletion', async () => {
    const error = await failure(connector.delete(context(), '17900000000000002'));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('no way to delete');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('errors', () => {
  it('maps Graph codes and statuses, and a timeout on media_publish', async () => {
    instagramApi();
    fake.on('POST', v(`${user}/media`), {
      status: 400,
      body: { error: { message: 'Error validating access token', type: 'OAuthException', code: 190 } },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('auth');
    fake.on('POST', v(`${user}/media`), {
      status: 400,
      body: { error: { message: 'Application request limit reached', code: 4 } },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('rate_limited');
    fake.on('POST', v(`${user}/media`), {
      status: 400,
      body: {
        error: {
          message: 'The aspect ratio is not supported.',
          type: 'OAuthException',
          code: 36003,
          error_subcode: 2207009,
        },
      },
    });
    const invalid = await failure(connector.publish(context(), request()));
    expect(invalid.kind).toBe('permanent');
    expect(invalid.details.platformCode).toBe('36003:2207009');
    fake.on('POST', v(`${user}/media`), {
      status: 403,
      body: { error: { message: 'Permissions error', code: 10 } },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('permanent');

    fake.on('POST', v(`${user}/media`), { body: { id: 'c1' } });
    fake.on('POST', v(`${user}/media_publish`), { status: 502, body: 'Bad Gateway' });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('unknown_outcome');
    fake.on('POST', v(`${user}/media_publish`), { hang: true });
    expect((await failure(make({ timeoutMs: 100 }).publish(context(), request()))).kind).toBe(
      'unknown_outcome',
    );
  });
});
