// The live Facebook Pages connector against a locally served Graph API: Login, one account per page, every
// kind of post, video processing, status checks, deletion, and Graph error codes mapped to ConnectorError kinds.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createFacebookConnector,
  type FacebookConnectorConfig,
} from '../../infra/connectors/facebook/facebook-connector.js';
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
const page = '1350000000000001';
let fake: FakePlatform;
let connector: PlatformConnector;

const fixture = fixtureReader('facebook');

function make(overrides: Partial<FacebookConnectorConfig> = {}): PlatformConnector {
  return createFacebookConnector({
    appId: 'fb-app',
    appSecret: 'fb-secret-value',
    graphVersion: 'v21.0',
    graphBaseUrl: fake.baseUrl,
    dialogBaseUrl: `${fake.baseUrl}/dialog-host`,
    now: () => now,
    ...overrides,
  });
}

function context(): CallContext {
  return callContext({
    platform: 'facebook',
    accountExternalId: page,
    accountHandle: 'acmecoffee',
    tokens: { accessToken: 'EAAPage1Token', refreshToken: null, expiresAt: null, scopes: [] },
    fetchMedia: mediaByUrlOnly('Facebook'),
  });
}

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return publishRequest(
    { groupTitle: 'Beans', contentText: 'Fresh beans today', attemptStartedAt: now.toISOString() },
    overrides,
  );
}

const failure = connectorFailure;

const form = formFields;
const v = (path: string) => `/v21.0/${path}`;

beforeEach(async () => {
  fake = await startFakePlatform();
  connector = make();
});
afterEach(async () => {
  await fake.close();
});

describe('OAuth', () => {
  it('sends the user to the Login dialog with the page scopes and a PKCE S256 challenge; no refresh', async () => {
    expect(connector.supportsRefresh).toBe(false);
    expect(createFacebookConnector({}).missingConfiguration()).toEqual([
      'FACEBOOK_APP_ID',
      'FACEBOOK_APP_SECRET',
    ]);
    const url = new URL(
      (
        await connector.startAuthorization({
          state: 's1',
          callbackUrl: 'https://app.test/cb',
          codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        })
      ).authorizationUrl,
    );
    expect(url.pathname).toBe('/dialog-host/v21.0/dialog/oauth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'fb-app',
      redirect_uri: 'https://app.test/cb',
      state: 's1',
      response_type: 'code',
      scope: 'pages_show_list,pages_read_engagement,pages_manage_posts',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
  });

  it('exchanges the code, makes the user token long-lived, and connects every page with its own token', async () => {
    fake.on('GET', v('oauth/access_token'), (req) =>
      req.query.get('grant_type') === 'fb_exchange_token'
        ? { body: { access_token: 'EAAUserLong', token_type: 'bearer', expires_in: 5183944 } }
        : { body: { access_token: 'EAAUserShort', token_type: 'bearer', expires_in: 5400 } },
    );
    fake.on('GET', v('me/accounts'), (req) =>
      req.query.get('after') === 'QVFIUmAfter1'
        ? { body: fixture('me-accounts-page-2') }
        : { body: fixture('me-accounts') },
    );
    const result = await connector.completeAuthorization({
      params: { code: 'the-code', state: 's1' },
      callbackUrl: 'https://app.test/cb',
      codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    });
    const [exchange, longLived] = fake.calls('GET', v('oauth/access_token'));
    // The code is only redeemed with the verifier of the challenge the dialog was given (PKCE).
    expect(Object.fromEntries(exchange!.query)).toEqual({
      client_id: 'fb-app',
      client_secret: 'fb-secret-value',
      redirect_uri: 'https://app.test/cb',
      code: 'the-code',
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    });
    expect(Object.fromEntries(longLived!.query)).toEqual({
      grant_type: 'fb_exchange_token',
      client_id: 'fb-app',
      client_secret: 'fb-secret-value',
      fb_exchange_token: 'EAAUserShort',
    });
    const [first, second] = fake.calls('GET', v('me/accounts'));
    expect(first!.headers['authorization']).toBe('Bearer EAAUserLong');
    expect(first!.query.get('fields')).toContain('access_token');
    expect(second!.query.get('after')).toBe('QVFIUmAfter1');
    if (result.kind !== 'accounts') throw new Error('expected accounts');
    expect(result.accounts).toEqual([
      {
        profile: {
          accountExternalId: page,
          accountName: 'Acme Coffee',
          accountHandle: 'acmecoffee',
          profileImageUrl: 'https://scontent.xx.fbcdn.net/acme.jpg',
          profileUrl: 'https://www.facebook.com/acmecoffee',
          accountBio: 'Coffee, roasted daily.',
        },
        tokens: {
          accessToken: 'EAAPage1Token',
          refreshToken: null,
          expiresAt: null,
          scopes: ['pages_show_list', 'pages_read_engagement', 'pages_manage_posts'],
          extra: { pageId: page },
        },
      },
      expect.objectContaining({
        profile: expect.objectContaining({
          accountExternalId: '1350000000000002',
          profileUrl: 'https://www.facebook.com/1350000000000002',
        }),
        tokens: expect.objectContaining({ accessToken: 'EAAPage2Token' }),
      }),
    ]);
  });

  it('a user who shared no page gets a clear permanent error; a denial is permanent too', async () => {
    fake.on('GET', v('oauth/access_token'), { body: { access_token: 'EAAUser' } });
    fake.on('GET', v('me/accounts'), { body: { data: [] } });
    const none = await failure(
      connector.completeAuthorization({
        params: { code: 'c' },
        callbackUrl: 'https://a.test',
        codeVerifier: 'v',
      }),
    );
    expect(none.kind).toBe('permanent');
    expect(none.message).toContain('no Facebook Page');
    const denied = await failure(
      connector.completeAuthorization({
        params: {
          error: 'access_denied',
          error_reason: 'user_denied',
          error_description: 'Permissions error',
        },
        callbackUrl: 'https://a.test',
        codeVerifier: 'v',
      }),
    );
    expect(denied.kind).toBe('permanent');
    expect(denied.message).toContain('Permissions error');
  });

  it('refresh checks the page token and keeps it; an expired one is auth', async () => {
    fake.on('GET', v(page), { body: { id: page } });
    const tokens = context().tokens;
    expect(await connector.refresh(context().account, tokens)).toBe(tokens);
    expect(fake.calls('GET', v(page))[0]!.headers['authorization']).toBe('Bearer EAAPage1Token');
    fake.on('GET', v(page), { status: 400, body: fixture('error-expired-token') });
    const error = await failure(connector.refresh(context().account, tokens));
    expect(error.kind).toBe('auth');
    expect(error.details.platformCode).toBe('190:463');
  });
});

describe('publishing', () => {
  it('posts text to the feed, with the first link as the link, and returns the permalink', async () => {
    fake.on('POST', v(`${page}/feed`), { body: { id: `${page}_222` } });
    fake.on('GET', v(`${page}_222`), {
      body: { id: `${page}_222`, permalink_url: 'https://www.facebook.com/acmecoffee/posts/pfbid0222' },
    });
    const outcome = await connector.publish(
      context(),
      request({ contentText: 'Read this: https://acme.test/beans.' }),
    );
    const [post] = fake.calls('POST', v(`${page}/feed`));
    expect(post!.headers['authorization']).toBe('Bearer EAAPage1Token');
    expect(post!.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(form(post!.text)).toEqual({
      message: 'Read this: https://acme.test/beans.',
      link: 'https://acme.test/beans',
    });
    expect(fake.calls('GET', v(`${page}_222`))[0]!.query.get('fields')).toBe('permalink_url');
    expect(outcome).toEqual({
      kind: 'published',
      externalId: `${page}_222`,
      url: 'https://www.facebook.com/acmecoffee/posts/pfbid0222',
    });
  });

  it('a permalink lookup that fails after the post exists still answers published', async () => {
    fake.on('POST', v(`${page}/feed`), { body: { id: `${page}_222` } });
    fake.on('GET', v(`${page}_222`), {
      status: 500,
      body: { error: { message: 'An unknown error occurred', code: 1 } },
    });
    expect(await connector.publish(context(), request())).toEqual({
      kind: 'published',
      externalId: `${page}_222`,
      url: `https://www.facebook.com/${page}_222`,
    });
  });

  it('posts one photo by URL with its caption and alt text', async () => {
    fake.on('POST', v(`${page}/photos`), { body: { id: '77', post_id: `${page}_333` } });
    fake.on('GET', v(`${page}_333`), { body: { permalink_url: 'https://www.facebook.com/photo/?fbid=77' } });
    const outcome = await connector.publish(
      context(),
      request({
        media: {
          kind: 'image',
          assetId: 'a',
          url: 'https://cdn.test/a.jpg',
          contentType: 'image/jpeg',
          sizeBytes: 1,
          altText: 'Beans',
        },
      }),
    );
    expect(form(fake.calls('POST', v(`${page}/photos`))[0]!.text)).toEqual({
      url: 'https://cdn.test/a.jpg',
      message: 'Fresh beans today',
      alt_text_custom: 'Beans',
    });
    expect(outcome).toMatchObject({ kind: 'published', externalId: `${page}_333` });
  });

  it('posts several photos as unpublished photos attached to one feed post', async () => {
    let n = 0;
    fake.on('POST', v(`${page}/photos`), () => ({ body: { id: `photo-${(n += 1)}` } }));
    fake.on('POST', v(`${page}/feed`), { body: { id: `${page}_444` } });
    fake.on('GET', v(`${page}_444`), {
      body: { permalink_url: 'https://www.facebook.com/acmecoffee/posts/pfbid0444' },
    });
    const image = (id: string) => ({
      assetId: id,
      url: `https://cdn.test/${id}.jpg`,
      contentType: 'image/jpeg',
      sizeBytes: 1,
    });
    await connector.publish(
      context(),
      request({ media: { kind: 'images', images: [image('a'), image('b')] } }),
    );
    const photos = fake.calls('POST', v(`${page}/photos`)).map((r) => form(r.text));
    expect(photos).toEqual([
      { url: 'https://cdn.test/a.jpg', published: 'false' },
      { url: 'https://cdn.test/b.jpg', published: 'false' },
    ]);
    expect(form(fake.calls('POST', v(`${page}/feed`))[0]!.text)).toEqual({
      message: 'Fresh beans today',
      'attached_media[0]': '{"media_fbid":"photo-1"}',
      'attached_media[1]': '{"media_fbid":"photo-2"}',
    });
  });

  it('posts a video by file_url; processing → pending; checkStatus polls until it is published', async () => {
    fake.on('POST', v(`${page}/videos`), { body: { id: '990000000000001' } });
    fake.on('GET', v('990000000000001'), { body: fixture('video-processing') });
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
    expect(form(fake.calls('POST', v(`${page}/videos`))[0]!.text)).toEqual({
      file_url: 'https://cdn.test/v.mp4',
      description: 'Fresh beans today',
    });
    expect(outcome).toMatchObject({ kind: 'pending', reference: '990000000000001' });
    const query = {
      postId: 'post-1',
      idempotencyKey: 'k',
      reference: '990000000000001',
      contentText: 'Fresh beans today',
      attemptStartedAt: now.toISOString(),
    };
    expect(await connector.checkStatus(context(), query)).toMatchObject({ kind: 'pending' });
    expect(fake.calls('GET', v('990000000000001')).at(-1)!.query.get('fields')).toBe('status,permalink_url');
    fake.on('GET', v('990000000000001'), { body: fixture('video-ready') });
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: '990000000000001',
      url: 'https://www.facebook.com/acmecoffee/videos/990000000000001/',
    });
    fake.on('GET', v('990000000000001'), {
      body: {
        status: {
          video_status: 'error',
          processing_phase: { status: 'error', errors: [{ code: 1363008, message: 'Video too short' }] },
        },
      },
    });
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'failed',
      message: 'facebook: the video could not be processed (Video too short)',
    });
  });

  it('refuses a PDF document before calling Facebook', async () => {
    const error = await failure(
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
    expect(error.kind).toBe('permanent');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('status checks and deletion', () => {
  const query = {
    postId: 'post-1',
    idempotencyKey: 'k',
    reference: null,
    contentText: 'Fresh beans today',
    attemptStartedAt: now.toISOString(),
  };

  it("finds the page's post with the same text since the attempt started", async () => {
    fake.on('GET', v(`${page}/posts`), { body: fixture('page-posts') });
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: `${page}_222`,
      url: 'https://www.facebook.com/acmecoffee/posts/pfbid0222',
    });
    expect(fake.calls('GET', v(`${page}/posts`))[0]!.query.get('since')).toBe(String(now.getTime() / 1000));
    expect(await connector.checkStatus(context(), { ...query, contentText: 'Other' })).toEqual({
      kind: 'not_found',
    });
  });

  it('deletes a post; an object that does not exist is not_found', async () => {
    fake.on('DELETE', v(`${page}_222`), { body: { success: true } });
    expect(await connector.delete(context(), `${page}_222`)).toEqual({ kind: 'deleted' });
    expect(fake.calls('DELETE', v(`${page}_222`))[0]!.headers['authorization']).toBe('Bearer EAAPage1Token');
    fake.on('DELETE', v(`${page}_999`), { status: 400, body: fixture('error-not-found') });
    expect(await connector.delete(context(), `${page}_999`)).toEqual({ kind: 'not_found' });
  });

  it('reads the page as account info', async () => {
    fake.on('GET', v(page), { body: (fixture('me-accounts').data as unknown[])[0] });
    expect(await connector.accountInfo(context())).toMatchObject({
      accountExternalId: page,
      accountHandle: 'acmecoffee',
    });
  });
});

describe('Graph errors', () => {
  it('maps code 190 to auth, rate-limit codes to rate_limited with the usage header wait, others to permanent', async () => {
    fake.on('POST', v(`${page}/feed`), { status: 400, body: fixture('error-expired-token') });
    const auth = await failure(connector.publish(context(), request()));
    expect(auth.kind).toBe('auth');
    expect(auth.message).toBe(
      'facebook: Error validating access token: Session has expired on Thursday, 01-Jan-26 00:00:00 PST. (code 190/463, HTTP 400)',
    );
    expect(auth.message).not.toContain('EAAPage1Token');

    fake.on('POST', v(`${page}/feed`), {
      status: 400,
      headers: {
        'x-business-use-case-usage': JSON.stringify({
          [page]: [{ type: 'pages', call_count: 100, estimated_time_to_regain_access: 7 }],
        }),
      },
      body: fixture('error-rate-limit'),
    });
    const limited = await failure(connector.publish(context(), request()));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.retryAfterMs).toBe(7 * 60_000);

    fake.on('POST', v(`${page}/feed`), {
      status: 403,
      body: { error: { message: '(#4) Application request limit reached', code: 4 } },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('rate_limited');

    fake.on('POST', v(`${page}/feed`), {
      status: 429,
      headers: { 'retry-after': '30' },
      body: { error: { message: 'Too many' } },
    });
    const http429 = await failure(connector.publish(context(), request()));
    expect(http429.kind).toBe('rate_limited');
    expect(http429.details.retryAfterMs).toBe(30_000);

    fake.on('POST', v(`${page}/feed`), { status: 400, body: fixture('error-invalid-parameter') });
    const invalid = await failure(connector.publish(context(), request()));
    expect(invalid.kind).toBe('permanent');
    expect(invalid.details).toEqual({ status: 400, platformCode: '100' });

    fake.on('POST', v(`${page}/feed`), {
      status: 404,
      body: { error: { message: 'Unknown path components', code: 2500 } },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('permanent');

    fake.on('POST', v(`${page}/feed`), { status: 401, body: 'Unauthorized' });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('auth');
  });

  it('a transient Graph error or a 500 on a create has an unknown outcome; on a read it is retryable', async () => {
    fake.on('POST', v(`${page}/feed`), {
      status: 400,
      body: { error: { message: 'Service temporarily unavailable', code: 2, is_transient: true } },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('unknown_outcome');
    fake.on('POST', v(`${page}/feed`), {
      status: 500,
      body: { error: { message: 'An unexpected error has occurred.', code: 1 } },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('unknown_outcome');
    fake.on('GET', v(page), { status: 500, body: { error: { message: 'oops', code: 1 } } });
    expect((await failure(connector.accountInfo(context()))).kind).toBe('retryable');
  });

  it('a create that gets no answer in time has an unknown outcome', async () => {
    fake.on('POST', v(`${page}/feed`), { hang: true });
    const error = await failure(make({ timeoutMs: 100 }).publish(context(), request()));
    expect(error.kind).toBe('unknown_outcome');
    expect(error.message).toContain('timed out');
  });
});
