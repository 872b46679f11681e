// The live TikTok connector against a locally served TikTok: Login Kit, creator info, direct video and photo
// posts, chunked uploads, publish-status polls, and TikTok's error envelope mapped to connector failure kinds.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CallContext,
  type PublishRequest,
  type StatusQuery,
  type TokenSet,
} from '../../infra/connectors/port.js';
import {
  createTikTokConnector,
  type TikTokConnectorConfig,
} from '../../infra/connectors/tiktok/tiktok-connector.js';
import {
  callContext,
  connectorFailure,
  expectNotConfigured,
  publishRequest,
} from './support/connector-fixtures.js';
import { bytesMediaFile } from '../../infra/connectors/media-file.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const fixtureText = (name: string) =>
  readFileSync(new URL(`./fixtures/tiktok/${name}.json`, import.meta.url), 'utf8');
const fixture = (name: string) => JSON.parse(fixtureText(name)) as Record<string, unknown>;

const now = new Date('2026-11-23T10:00:00.000Z');
const videoBytes = new Uint8Array(Array.from({ length: 10 }, (_, i) => i + 1));
const tokens: TokenSet = {
  accessToken: 'act.current-access',
  refreshToken: 'rft.current-refresh',
  expiresAt: '2026-11-24T10:00:00.000Z',
  scopes: ['user.info.basic', 'video.publish', 'video.upload'],
  extra: { openId: 'afd97af1-b87b-48b9-ac98-410aghda5344' },
};

let fake: FakePlatform;
let fetched: string[];

beforeEach(async () => {
  fake = await startFakePlatform();
  fetched = [];
});
afterEach(async () => {
  await fake.close();
});

function connector(overrides: Partial<TikTokConnectorConfig> = {}) {
  return createTikTokConnector({
    clientKey: 'tiktok-client-key',
    clientSecret: 'tiktok-client-secret',
    authorizeUrl: `${fake.baseUrl}/v2/auth/authorize/`,
    apiBaseUrl: fake.baseUrl,
    timeoutMs: 2_000,
    now: () => now,
    ...overrides,
  });
}

function context(handle: string | null = 'acmestudio'): CallContext {
  return callContext({
    platform: 'tiktok',
    accountExternalId: 'afd97af1-b87b-48b9-ac98-410aghda5344',
    accountHandle: handle,
    tokens,
    fetchMedia: async (item) => {
      fetched.push(item.assetId);
      return bytesMediaFile(videoBytes, 'video/mp4', item.assetId);
    },
  });
}

const video = {
  kind: 'video' as const,
  assetId: 'asset-video',
  url: 'https://media.example/clip.mp4',
  contentType: 'video/mp4',
  sizeBytes: videoBytes.byteLength,
  durationSeconds: 42,
  width: 1080,
  height: 1920,
};

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return publishRequest(
    {
      groupTitle: 'Launch',
      contentText: 'Launch day #acme',
      media: video,
      attemptStartedAt: now.toISOString(),
    },
    overrides,
  );
}

function status(reference: string | null): StatusQuery {
  return {
    postId: 'post-1',
    idempotencyKey: 'publish:post-1:1',
    reference,
    contentText: 'Launch day #acme',
    attemptStartedAt: now.toISOString(),
  };
}

function serveCreatorInfo(body: unknown = fixture('creator-info')) {
  fake.on('POST', '/v2/post/publish/creator_info/query/', { body });
}

function serveVideoInit() {
  const init = fixture('video-init');
  fake.on('POST', '/v2/post/publish/video/init/', {
    body: {
      ...init,
      data: { ...(init.data as object), upload_url: `${fake.baseUrl}/upload/?upload_id=67890` },
    },
  });
  fake.on('PUT', '/upload/', (req) => ({
    status: req.headers['content-range']?.endsWith(`-${videoBytes.byteLength - 1}/${videoBytes.byteLength}`)
      ? 201
      : 206,
  }));
}

const failure = connectorFailure;

describe('configuration and Login Kit', () => {
  it('names the missing environment variables', async () => {
    await expectNotConfigured(
      createTikTokConnector({}),
      ['TIKTOK_CLIENT_KEY', 'TIKTOK_CLIENT_SECRET'],
      'TIKTOK_CLIENT_KEY',
    );
    expect(connector().missingConfiguration()).toEqual([]);
  });

  it('sends the user to TikTok with the client key, comma-separated scopes and PKCE', async () => {
    const { authorizationUrl } = await connector().startAuthorization({
      state: 'state-1',
      callbackUrl: 'https://app.example/v1/marketing/oauth/tiktok/callback',
      codeChallenge: 'challenge-1',
    });
    const url = new URL(authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/v2/auth/authorize/`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_key: 'tiktok-client-key',
      scope: 'user.info.basic,video.publish,video.upload',
      response_type: 'code',
      redirect_uri: 'https://app.example/v1/marketing/oauth/tiktok/callback',
      state: 'state-1',
      code_challenge: 'challenge-1',
      code_challenge_method: 'S256',
    });
  });

  it('exchanges the code and connects the user, with the username from creator info', async () => {
    fake.on('POST', '/v2/oauth/token/', { body: fixture('token') });
    fake.on('GET', '/v2/user/info/', { body: fixture('user-info') });
    serveCreatorInfo();
    const result = await connector().completeAuthorization({
      params: { code: 'code-1', state: 'state-1', scopes: 'user.info.basic,video.publish' },
      callbackUrl: 'https://app.example/cb',
      codeVerifier: 'verifier-1',
    });

    const [token] = fake.calls('POST', '/v2/oauth/token/');
    expect(token!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(token!.text))).toEqual({
      client_key: 'tiktok-client-key',
      client_secret: 'tiktok-client-secret',
      code: 'code-1',
      grant_type: 'authorization_code',
      redirect_uri: 'https://app.example/cb',
      code_verifier: 'verifier-1',
    });
    const [user] = fake.calls('GET', '/v2/user/info/');
    expect(user!.query.get('fields')).toBe('open_id,union_id,avatar_url,display_name');
    expect(user!.headers.authorization).toBe(`Bearer ${fixture('token').access_token as string}`);

    expect(result).toEqual({
      kind: 'accounts',
      accounts: [
        {
          profile: {
            accountExternalId: 'afd97af1-b87b-48b9-ac98-410aghda5344',
            accountName: 'Acme Studio',
            accountHandle: 'acmestudio',
            profileImageUrl: 'https://p16-sign.tiktokcdn-us.com/tos-useast5-avt-0068-tx/acme~c5_168x168.jpeg',
            profileUrl: 'https://www.tiktok.com/@acmestudio',
            accountBio: null,
          },
          tokens: {
            accessToken: fixture('token').access_token,
            refreshToken: fixture('token').refresh_token,
            expiresAt: '2026-11-24T10:00:00.000Z',
            refreshTokenExpiresAt: '2027-11-23T10:00:00.000Z',
            scopes: ['user.info.basic', 'video.publish', 'video.upload'],
            extra: { openId: 'afd97af1-b87b-48b9-ac98-410aghda5344' },
          },
        },
      ],
    });
  });

  it('refuses a denied login and an expired code without echoing secrets', async () => {
    const callback = { callbackUrl: 'https://app/cb', codeVerifier: 'v' };
    const denied = await failure(
      connector().completeAuthorization({ ...callback, params: { error: 'access_denied', state: 's' } }),
    );
    expect(denied.kind).toBe('permanent');
    expect(fake.requests).toHaveLength(0);

    // TikTok answers OAuth errors with 200 and an error body.
    fake.on('POST', '/v2/oauth/token/', { body: fixture('token-error') });
    const expired = await failure(
      connector().completeAuthorization({ ...callback, params: { code: 'old' } }),
    );
    expect(expired.kind).toBe('permanent');
    expect(expired.message).toContain('Authorization code is expired');
    expect(expired.message).not.toContain('tiktok-client-secret');
  });

  it('refreshes with the refresh token; a refused refresh token is an auth failure', async () => {
    fake.on('POST', '/v2/oauth/token/', {
      body: { ...fixture('token'), access_token: 'act.new', refresh_token: 'rft.new', open_id: undefined },
    });
    const refreshed = await connector().refresh(context().account, tokens);
    expect(Object.fromEntries(new URLSearchParams(fake.calls('POST', '/v2/oauth/token/')[0]!.text))).toEqual({
      client_key: 'tiktok-client-key',
      client_secret: 'tiktok-client-secret',
      grant_type: 'refresh_token',
      refresh_token: 'rft.current-refresh',
    });
    expect(refreshed).toMatchObject({
      accessToken: 'act.new',
      refreshToken: 'rft.new',
      expiresAt: '2026-11-24T10:00:00.000Z',
      extra: { openId: 'afd97af1-b87b-48b9-ac98-410aghda5344' },
    });

    fake.on('POST', '/v2/oauth/token/', {
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Refresh token is invalid or expired.' },
    });
    const revoked = await failure(connector().refresh(context().account, tokens));
    expect(revoked.kind).toBe('auth');
    expect(revoked.message).not.toContain('rft.current-refresh');
  });
});

describe('creator info', () => {
  it('maps the creator info query', async () => {
    serveCreatorInfo();
    expect(await connector().creatorInfo!(context())).toEqual({
      creatorAvatarUrl: 'https://lf16-tt4d.tiktokcdn.com/obj/tiktok-open-platform/acme.jpeg',
      creatorUsername: 'acmestudio',
      creatorNickname: 'Acme Studio',
      privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      commentDisabled: false,
      duetDisabled: false,
      stitchDisabled: true,
      maxVideoPostDurationSec: 300,
      directPostEnabled: true,
    });
    const [query] = fake.calls('POST', '/v2/post/publish/creator_info/query/');
    expect(query!.headers.authorization).toBe('Bearer act.current-access');
    expect(query!.headers['content-type']).toBe('application/json; charset=UTF-8');
  });

  it('reports direct posting as not enabled while TikTok holds the creator back', async () => {
    serveCreatorInfo(fixture('creator-info-spam-risk'));
    expect(await connector().creatorInfo!(context())).toMatchObject({
      directPostEnabled: false,
      privacyLevelOptions: [],
    });
  });
});

describe('publishing', () => {
  it('posts a video by chunked upload: init with the post info, then PUTs with byte ranges', async () => {
    serveCreatorInfo();
    serveVideoInit();
    const outcome = await connector({ chunkBytes: 4 }).publish(
      context(),
      request({ platformPayload: { tiktok: { title: 'Launch day caption', isAigc: true } } }),
    );
    expect(outcome).toEqual({
      kind: 'pending',
      reference: 'v_pub_file~v2-1.7296453648297362434',
      checkAfterMs: 10_000,
    });
    expect(fetched).toEqual(['asset-video']);

    const [init] = fake.calls('POST', '/v2/post/publish/video/init/');
    expect(init!.headers.authorization).toBe('Bearer act.current-access');
    expect(init!.json).toEqual({
      post_info: {
        title: 'Launch day caption',
        privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_comment: false,
        disable_duet: false,
        disable_stitch: true,
        is_aigc: true,
      },
      // 10 bytes in chunks of 4: two chunks, the last one holding the remainder.
      source_info: { source: 'FILE_UPLOAD', video_size: 10, chunk_size: 4, total_chunk_count: 2 },
    });
    const chunks = fake.calls('PUT', '/upload/');
    expect(chunks.map((c) => c.headers['content-range'])).toEqual(['bytes 0-3/10', 'bytes 4-9/10']);
    expect(chunks.map((c) => c.headers['content-type'])).toEqual(['video/mp4', 'video/mp4']);
    expect(chunks.every((c) => c.query.get('upload_id') === '67890')).toBe(true);
    expect(new Uint8Array(Buffer.concat(chunks.map((c) => c.raw)))).toEqual(videoBytes);
  });

  it('sends a small video in one chunk, captioned with the text when the payload has no title', async () => {
    serveCreatorInfo({
      ...fixture('creator-info'),
      data: {
        ...(fixture('creator-info').data as object),
        privacy_level_options: ['SELF_ONLY', 'FOLLOWER_OF_CREATOR'],
      },
    });
    serveVideoInit();
    await connector().publish(context(), request());
    const [init] = fake.calls('POST', '/v2/post/publish/video/init/');
    expect(init!.json).toMatchObject({
      post_info: { title: 'Launch day #acme', privacy_level: 'FOLLOWER_OF_CREATOR' },
      source_info: { source: 'FILE_UPLOAD', video_size: 10, chunk_size: 10, total_chunk_count: 1 },
    });
    expect((init!.json as { post_info: object }).post_info).not.toHaveProperty('is_aigc');
    expect(fake.calls('PUT', '/upload/').map((c) => c.headers['content-range'])).toEqual(['bytes 0-9/10']);
  });

  it('lets TikTok pull the video from its URL when so configured', async () => {
    serveCreatorInfo();
    fake.on('POST', '/v2/post/publish/video/init/', {
      body: { ...fixture('video-init'), data: { publish_id: 'v_pub_url~v2-1.1' } },
    });
    const outcome = await connector({ videoSource: 'PULL_FROM_URL' }).publish(context(), request());
    expect(outcome).toMatchObject({ kind: 'pending', reference: 'v_pub_url~v2-1.1' });
    expect(fake.calls('POST', '/v2/post/publish/video/init/')[0]!.json).toMatchObject({
      source_info: { source: 'PULL_FROM_URL', video_url: 'https://media.example/clip.mp4' },
    });
    expect(fetched).toEqual([]);
    expect(fake.calls('PUT', '/upload/')).toHaveLength(0);
  });

  it('posts photos by URL with title, description and cover index', async () => {
    serveCreatorInfo();
    fake.on('POST', '/v2/post/publish/content/init/', { body: fixture('content-init') });
    const image = (n: number) => ({
      assetId: `img-${n}`,
      url: `https://media.example/${n}.jpg`,
      contentType: 'image/jpeg',
      sizeBytes: 100,
    });
    const outcome = await connector().publish(
      context(),
      request({
        media: { kind: 'images', images: [image(1), image(2), image(3)] },
        contentText: 'Three photos from launch day',
        platformPayload: { tiktok: { title: 'Launch in photos', photoCoverIndex: 2 } },
      }),
    );
    expect(outcome).toMatchObject({ kind: 'pending', reference: 'p_pub_url~v2.7296453648297362435' });
    expect(fake.calls('POST', '/v2/post/publish/content/init/')[0]!.json).toEqual({
      post_info: {
        title: 'Launch in photos',
        description: 'Three photos from launch day',
        privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_comment: false,
        auto_add_music: true,
      },
      source_info: {
        source: 'PULL_FROM_URL',
        photo_cover_index: 2,
        photo_images: [
          'https://media.example/1.jpg',
          'https://media.example/2.jpg',
          'https://media.example/3.jpg',
        ],
      },
      post_mode: 'DIRECT_POST',
      media_type: 'PHOTO',
    });
  });

  it('refuses what TikTok would refuse before posting: no media, a video over the creator limit, a held-back creator', async () => {
    const noMedia = await failure(connector().publish(context(), request({ media: null })));
    expect(noMedia.kind).toBe('permanent');
    expect(fake.requests).toHaveLength(0);

    serveCreatorInfo();
    const tooLong = await failure(
      connector().publish(context(), request({ media: { ...video, durationSeconds: 301 } })),
    );
    expect(tooLong.kind).toBe('permanent');
    expect(tooLong.message).toContain('300 s');
    expect(fake.calls('POST', '/v2/post/publish/video/init/')).toHaveLength(0);

    serveCreatorInfo(fixture('creator-info-spam-risk'));
    const held = await failure(connector().publish(context(), request()));
    expect(held.kind).toBe('permanent');
    expect(held.details.platformCode).toBe('spam_risk_too_many_posts');
    expect(fake.calls('POST', '/v2/post/publish/video/init/')).toHaveLength(0);
  });
});

describe('errors', () => {
  it('maps the error envelope: access_token_invalid → auth, rate_limit_exceeded → rate_limited, others permanent', async () => {
    fake.on('POST', '/v2/post/publish/creator_info/query/', {
      status: 401,
      body: fixture('error-access-token-invalid'),
    });
    const auth = await failure(connector().publish(context(), request()));
    expect(auth.kind).toBe('auth');
    expect(auth.details.platformCode).toBe('access_token_invalid');

    fake.on('POST', '/v2/post/publish/creator_info/query/', {
      status: 429,
      headers: { 'retry-after': '30' },
      body: fixture('error-rate-limit'),
    });
    const limited = await failure(connector().creatorInfo!(context()));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.retryAfterMs).toBe(30_000);

    serveCreatorInfo();
    fake.on('POST', '/v2/post/publish/video/init/', { status: 400, body: fixture('error-invalid-params') });
    const invalid = await failure(connector().publish(context(), request()));
    expect(invalid.kind).toBe('permanent');
    expect(invalid.details).toMatchObject({ status: 400, platformCode: 'invalid_params' });
    expect(invalid.message).toContain('privacy level');

    fake.on('POST', '/v2/post/publish/video/init/', {
      status: 403,
      body: { error: { code: 'spam_risk_too_many_posts', message: 'Daily cap', log_id: 'x' } },
    });
    expect((await failure(connector().publish(context(), request()))).kind).toBe('permanent');

    fake.on('POST', '/v2/post/publish/video/init/', { status: 404, body: { error: { code: 'not_found' } } });
    expect((await failure(connector().publish(context(), request()))).kind).toBe('permanent');
  });

  it('an error code in a 200 answer is still an error', async () => {
    fake.on('POST', '/v2/post/publish/creator_info/query/', { body: fixture('error-access-token-invalid') });
    expect((await failure(connector().creatorInfo!(context()))).kind).toBe('auth');
  });

  it('a 500 on the upload init can be retried; on the last chunk or a URL pull the outcome is unknown', async () => {
    serveCreatorInfo();
    fake.on('POST', '/v2/post/publish/video/init/', {
      status: 500,
      body: { error: { code: 'internal_error', message: 'Something went wrong' } },
    });
    expect((await failure(connector().publish(context(), request()))).kind).toBe('retryable');
    expect(
      (await failure(connector({ videoSource: 'PULL_FROM_URL' }).publish(context(), request()))).kind,
    ).toBe('unknown_outcome');

    serveVideoInit();
    fake.on('PUT', '/upload/', (req) =>
      req.headers['content-range'] === 'bytes 4-9/10' ? { status: 502 } : { status: 206 },
    );
    const lost = await failure(connector({ chunkBytes: 4 }).publish(context(), request()));
    expect(lost.kind).toBe('unknown_outcome');
    expect(fake.calls('PUT', '/upload/')).toHaveLength(2);
  });

  it('a photo post that never answers has an unknown outcome', async () => {
    serveCreatorInfo();
    fake.on('POST', '/v2/post/publish/content/init/', { hang: true });
    const error = await failure(
      connector({ timeoutMs: 200 }).publish(
        context(),
        request({
          media: {
            kind: 'images',
            images: [
              { assetId: 'a', url: 'https://media.example/a.jpg', contentType: 'image/jpeg', sizeBytes: 1 },
            ],
          },
        }),
      ),
    );
    expect(error.kind).toBe('unknown_outcome');
    expect(error.message).toContain('timed out');
  });
});

describe('status polls and deletion', () => {
  it('polls the publish status until complete, keeping the 64-bit post id exact', async () => {
    const tt = connector();
    fake.on('POST', '/v2/post/publish/status/fetch/', { body: fixture('status-processing') });
    expect(await tt.checkStatus(context(), status('v_pub_file~v2-1.7'))).toEqual({
      kind: 'pending',
      checkAfterMs: 10_000,
    });
    const [poll] = fake.calls('POST', '/v2/post/publish/status/fetch/');
    expect(poll!.json).toEqual({ publish_id: 'v_pub_file~v2-1.7' });
    expect(poll!.headers.authorization).toBe('Bearer act.current-access');

    fake.on('POST', '/v2/post/publish/status/fetch/', {
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: fixtureText('status-complete'),
    });
    expect(await tt.checkStatus(context(), status('v_pub_file~v2-1.7'))).toEqual({
      kind: 'published',
      externalId: '7296453648297362437',
      url: 'https://www.tiktok.com/@acmestudio/video/7296453648297362437',
    });

    fake.on('POST', '/v2/post/publish/status/fetch/', { body: fixture('status-failed') });
    expect(await tt.checkStatus(context(), status('v_pub_file~v2-1.7'))).toEqual({
      kind: 'failed',
      message: 'TikTok could not publish the post (file_format_check_failed)',
    });
  });

  it('a completed post without a public id (private, in moderation) points at the profile', async () => {
    serveCreatorInfo();
    fake.on('POST', '/v2/post/publish/status/fetch/', {
      body: { data: { status: 'PUBLISH_COMPLETE' }, error: { code: 'ok', message: '', log_id: 'x' } },
    });
    expect(await connector().checkStatus(context(null), status('v_pub_file~v2-1.7'))).toEqual({
      kind: 'published',
      externalId: 'v_pub_file~v2-1.7',
      url: 'https://www.tiktok.com/@acmestudio',
    });
  });

  it('cannot look a post up without its publish id, and cannot delete', async () => {
    expect(await connector().checkStatus(context(), status(null))).toEqual({ kind: 'unsupported' });
    const error = await failure(connector().delete(context(), '7296453648297362437'));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('does not offer deleting');
    expect(fake.requests).toHaveLength(0);
  });
});
