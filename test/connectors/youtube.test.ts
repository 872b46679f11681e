// The live YouTube connector against a locally served YouTube: OAuth, channel, resumable uploads, processing
// polls, finding a lost upload, deletion, and how Google's errors map to connector failure kinds.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import {
  type CallContext,
  type MediaFile,
  type PublishRequest,
  type TokenSet,
} from '../../infra/connectors/port.js';
import {
  createYouTubeConnector,
  msUntilPacificMidnight,
} from '../../infra/connectors/youtube/youtube-connector.js';
import {
  callContext,
  connectorFailure,
  expectNotConfigured,
  fixtureReader,
  publishRequest,
} from './support/connector-fixtures.js';
import { bytesMediaFile } from '../../infra/connectors/media-file.js';
import { LocalObjectStorage } from '../../infra/object-storage/local-object-storage.js';
import { createMediaFetcher } from '../../processes/publishing/media-fetcher.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const fixture = fixtureReader('youtube');

const now = new Date('2026-11-23T10:00:00.000Z');
const videoBytes = new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 1, 2, 3, 4]);
const tokens: TokenSet = {
  accessToken: 'ya29.current-access',
  refreshToken: '1//current-refresh',
  expiresAt: '2026-11-23T11:00:00.000Z',
  scopes: ['https://www.googleapis.com/auth/youtube.upload'],
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

function connector(overrides: Record<string, unknown> = {}) {
  return createYouTubeConnector({
    clientId: 'google-client-id',
    clientSecret: 'google-client-secret',
    authorizeUrl: `${fake.baseUrl}/o/oauth2/v2/auth`,
    tokenUrl: `${fake.baseUrl}/token`,
    apiBaseUrl: fake.baseUrl,
    timeoutMs: 2_000,
    now: () => now,
    ...overrides,
  });
}

function context(): CallContext {
  return callContext({
    platform: 'youtube',
    accountExternalId: 'UC_x5XG1OV2P6uZZ5FSM9Ttw',
    accountHandle: 'acmestudio',
    tokens,
    fetchMedia: async (item) => {
      fetched.push(item.assetId);
      return bytesMediaFile(videoBytes, 'video/mp4', item.assetId);
    },
  });
}

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return publishRequest(
    {
      groupTitle: 'Launch day',
      contentText: 'We shipped.',
      media: {
        kind: 'video',
        assetId: 'asset-video',
        url: 'https://media.example/video.mp4',
        contentType: 'video/mp4',
        sizeBytes: videoBytes.byteLength,
        durationSeconds: 12,
        width: 1920,
        height: 1080,
      },
      attemptStartedAt: now.toISOString(),
    },
    overrides,
  );
}

/** The resumable session (Location header) and the upload that answers with a video resource. */
function serveUpload(
  upload: Parameters<FakePlatform['on']>[2] = { status: 200, body: fixture('video-uploaded') },
) {
  fake.on('POST', '/upload/youtube/v3/videos', {
    status: 200,
    headers: { location: `${fake.baseUrl}/upload/youtube/v3/videos?uploadType=resumable&upload_id=UP-123` },
  });
  fake.on('PUT', '/upload/youtube/v3/videos', upload);
}

const failure = connectorFailure;

describe('configuration and authorization', () => {
  it('names the missing environment variables and refuses to start without them', async () => {
    await expectNotConfigured(
      createYouTubeConnector({}),
      ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET'],
      'GOOGLE_CLIENT_ID',
    );
    expect(connector().missingConfiguration()).toEqual([]);
  });

  it('sends the user to Google with PKCE, offline access, forced consent and both YouTube scopes', async () => {
    const { authorizationUrl } = await connector().startAuthorization({
      state: 'state-1',
      callbackUrl: 'https://app.example/v1/marketing/oauth/youtube/callback',
      codeChallenge: 'challenge-1',
    });
    const url = new URL(authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'google-client-id',
      redirect_uri: 'https://app.example/v1/marketing/oauth/youtube/callback',
      response_type: 'code',
      scope:
        'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: 'state-1',
      code_challenge: 'challenge-1',
      code_challenge_method: 'S256',
    });
  });

  it('exchanges the code with the verifier and connects the authorized channel', async () => {
    fake.on('POST', '/token', { body: fixture('token') });
    fake.on('GET', '/youtube/v3/channels', { body: fixture('channels-mine') });
    const result = await connector().completeAuthorization({
      params: { code: '4/0code', state: 'state-1', scope: 'x' },
      callbackUrl: 'https://app.example/cb',
      codeVerifier: 'verifier-1',
    });

    const [token] = fake.calls('POST', '/token');
    expect(token!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(token!.text))).toEqual({
      grant_type: 'authorization_code',
      code: '4/0code',
      redirect_uri: 'https://app.example/cb',
      client_id: 'google-client-id',
      client_secret: 'google-client-secret',
      code_verifier: 'verifier-1',
    });
    const [channels] = fake.calls('GET', '/youtube/v3/channels');
    expect(channels!.headers.authorization).toBe('Bearer ya29.a0AfB-access-token');
    expect(Object.fromEntries(channels!.query)).toEqual({ part: 'snippet', mine: 'true' });

    expect(result).toEqual({
      kind: 'accounts',
      accounts: [
        {
          profile: {
            accountExternalId: 'UC_x5XG1OV2P6uZZ5FSM9Ttw',
            accountName: 'Acme Studio',
            accountHandle: 'acmestudio',
            profileImageUrl: 'https://yt3.ggpht.com/acme=s800',
            profileUrl: 'https://www.youtube.com/@acmestudio',
            accountBio: 'Short films from Acme.',
          },
          tokens: {
            accessToken: 'ya29.a0AfB-access-token',
            refreshToken: '1//0g-refresh-token',
            expiresAt: '2026-11-23T10:59:59.000Z',
            refreshTokenExpiresAt: null,
            scopes: [
              'https://www.googleapis.com/auth/youtube.upload',
              'https://www.googleapis.com/auth/youtube.readonly',
            ],
          },
        },
      ],
    });
  });

  it('refuses a denied consent, an expired code and an account without a channel', async () => {
    const yt = connector();
    const callback = { callbackUrl: 'https://app/cb', codeVerifier: 'v' };
    const denied = await failure(
      yt.completeAuthorization({ ...callback, params: { error: 'access_denied' } }),
    );
    expect(denied.kind).toBe('permanent');
    expect(denied.message).toContain('access_denied');
    expect(fake.requests).toHaveLength(0);

    fake.on('POST', '/token', {
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Bad Request' },
    });
    const expired = await failure(yt.completeAuthorization({ ...callback, params: { code: 'old' } }));
    expect(expired.kind).toBe('permanent');
    expect(expired.details.platformCode).toBe('invalid_grant');

    fake.on('POST', '/token', { body: fixture('token') });
    fake.on('GET', '/youtube/v3/channels', { body: { kind: 'youtube#channelListResponse', items: [] } });
    const noChannel = await failure(yt.completeAuthorization({ ...callback, params: { code: 'c' } }));
    expect(noChannel.kind).toBe('permanent');
    expect(noChannel.message).toContain('no YouTube channel');
  });

  it('refreshes, keeping the refresh token Google does not send again; a revoked grant is an auth failure', async () => {
    fake.on('POST', '/token', {
      body: {
        access_token: 'ya29.new',
        expires_in: 3599,
        scope: 'https://www.googleapis.com/auth/youtube.upload',
      },
    });
    const account = context().account;
    const refreshed = await connector().refresh(account, tokens);
    expect(Object.fromEntries(new URLSearchParams(fake.calls('POST', '/token')[0]!.text))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: '1//current-refresh',
      client_id: 'google-client-id',
      client_secret: 'google-client-secret',
    });
    expect(refreshed).toMatchObject({
      accessToken: 'ya29.new',
      refreshToken: '1//current-refresh',
      expiresAt: '2026-11-23T10:59:59.000Z',
    });

    fake.on('POST', '/token', {
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
    });
    const revoked = await failure(connector().refresh(account, tokens));
    expect(revoked.kind).toBe('auth');
    expect(revoked.message).not.toContain('current-refresh');
    expect(revoked.message).not.toContain('google-client-secret');

    const none = await failure(connector().refresh(account, { ...tokens, refreshToken: null }));
    expect(none.kind).toBe('auth');
  });
});

describe('publishing a video', () => {
  it('opens a resumable session with the metadata, then uploads the bytes; processing is pending', async () => {
    serveUpload();
    const outcome = await connector().publish(
      context(),
      request({
        platformPayload: { youtube: { title: 'Our launch', privacyStatus: 'unlisted', madeForKids: true } },
      }),
    );
    expect(outcome).toEqual({ kind: 'pending', reference: 'Ks-_Mh1QhMc', checkAfterMs: 30_000 });
    expect(fetched).toEqual(['asset-video']);

    const [session] = fake.calls('POST', '/upload/youtube/v3/videos');
    expect(Object.fromEntries(session!.query)).toEqual({ uploadType: 'resumable', part: 'snippet,status' });
    expect(session!.headers).toMatchObject({
      authorization: 'Bearer ya29.current-access',
      'content-type': 'application/json; charset=UTF-8',
      'x-upload-content-length': String(videoBytes.byteLength),
      'x-upload-content-type': 'video/mp4',
    });
    expect(session!.json).toEqual({
      snippet: { title: 'Our launch', description: 'We shipped.' },
      status: { privacyStatus: 'unlisted', selfDeclaredMadeForKids: true },
    });

    const [upload] = fake.calls('PUT', '/upload/youtube/v3/videos');
    expect(upload!.query.get('upload_id')).toBe('UP-123');
    expect(upload!.headers['content-type']).toBe('video/mp4');
    expect(new Uint8Array(upload!.raw)).toEqual(videoBytes);
  });

  it('sends a spooled video in its one PUT streamed from the file, with its length, never read whole', async () => {
    const size = 12 * 1024 * 1024 + 7;
    const bytes = randomBytes(size);
    fake.on('GET', '/cdn/long.mp4', { headers: { 'content-type': 'video/mp4' }, body: bytes });
    serveUpload();
    const tmpDir = await mkdtemp(path.join(os.tmpdir(), 'sp-youtube-media-'));
    try {
      const fetchMedia = createMediaFetcher({
        storage: new LocalObjectStorage({
          rootDir: tmpDir,
          publicBaseUrl: 'http://app.test',
          signingSecret: 'x'.repeat(32),
        }),
        publicBaseUrl: 'http://app.test',
        allowPrivate: [fake.baseUrl],
        tmpDir,
      });
      const files: MediaFile[] = [];
      const wholeReads: Array<MockInstance<MediaFile['bytes']>> = [];
      const base = context();
      await connector().publish(
        {
          ...base,
          fetchMedia: async (item) => {
            const file = await fetchMedia(item);
            files.push(file);
            wholeReads.push(vi.spyOn(file, 'bytes'));
            return file;
          },
        },
        request({
          media: {
            kind: 'video',
            assetId: 'long-video',
            url: `${fake.baseUrl}/cdn/long.mp4`,
            contentType: 'video/mp4',
            sizeBytes: size,
            durationSeconds: 60,
            width: 1920,
            height: 1080,
          },
        }),
      );
      expect(wholeReads[0]).not.toHaveBeenCalled();
      const [session] = fake.calls('POST', '/upload/youtube/v3/videos');
      expect(session!.headers['x-upload-content-length']).toBe(String(size));
      const [upload] = fake.calls('PUT', '/upload/youtube/v3/videos');
      expect(upload!.headers['content-length']).toBe(String(size));
      expect(upload!.raw.equals(bytes)).toBe(true);
      await files[0]!.dispose();
      expect(await readdir(tmpDir)).toEqual([]);
    } finally {
      await rm(tmpDir, { recursive: true, force: true });
    }
  });

  it('takes the group title (cut to 100 characters) when the payload has none, public and not for kids', async () => {
    serveUpload();
    const long = 'L'.repeat(120);
    await connector().publish(context(), request({ groupTitle: `  ${long}  ` }));
    expect(fake.calls('POST', '/upload/youtube/v3/videos')[0]!.json).toEqual({
      snippet: { title: 'L'.repeat(100), description: 'We shipped.' },
      status: { privacyStatus: 'public', selfDeclaredMadeForKids: false },
    });
  });

  it('answers published with the watch URL when the video is already processed', async () => {
    serveUpload({
      body: { ...(fixture('video-uploaded') as object), status: { uploadStatus: 'processed' } },
    });
    expect(await connector().publish(context(), request())).toEqual({
      kind: 'published',
      externalId: 'Ks-_Mh1QhMc',
      url: 'https://www.youtube.com/watch?v=Ks-_Mh1QhMc',
    });
  });

  it('refuses a post without a video before calling YouTube', async () => {
    const error = await failure(
      connector().publish(
        context(),
        request({
          media: {
            kind: 'image',
            assetId: 'img',
            url: 'https://media.example/a.png',
            contentType: 'image/png',
            sizeBytes: 10,
          },
        }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(fake.requests).toHaveLength(0);
    expect(fetched).toEqual([]);
  });

  it('a rejected upload fails for good with the reason', async () => {
    serveUpload({
      body: { id: 'vid-x', status: { uploadStatus: 'rejected', rejectionReason: 'duplicate' } },
    });
    const error = await failure(connector().publish(context(), request()));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('duplicate');
  });
});

describe('errors', () => {
  it('quotaExceeded is rate limited until the quota resets at midnight Pacific time', async () => {
    fake.on('POST', '/upload/youtube/v3/videos', { status: 403, body: fixture('error-quota') });
    const error = await failure(connector().publish(context(), request()));
    expect(error.kind).toBe('rate_limited');
    expect(error.details).toMatchObject({ status: 403, platformCode: 'quotaExceeded' });
    // 10:00 UTC on 23 November is 02:00 PST: 22 hours to go.
    expect(error.details.retryAfterMs).toBe(22 * 3_600_000);
    expect(fake.calls('PUT', '/upload/youtube/v3/videos')).toHaveLength(0);
  });

  it('midnight Pacific follows daylight saving time', () => {
    expect(msUntilPacificMidnight(new Date('2026-07-01T06:30:00Z'))).toBe(30 * 60_000);
    expect(msUntilPacificMidnight(new Date('2026-12-01T07:30:00Z'))).toBe(30 * 60_000);
  });

  it('rateLimitExceeded and 429 are rate limited with the platform retry time', async () => {
    fake.on('POST', '/upload/youtube/v3/videos', {
      status: 403,
      headers: { 'retry-after': '120' },
      body: { error: { code: 403, message: 'Too many', errors: [{ reason: 'rateLimitExceeded' }] } },
    });
    const limited = await failure(connector().publish(context(), request()));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.retryAfterMs).toBe(120_000);

    fake.on('GET', '/youtube/v3/channels', { status: 429, headers: { 'retry-after': '7' }, body: {} });
    const tooMany = await failure(connector().accountInfo(context()));
    expect(tooMany.kind).toBe('rate_limited');
    expect(tooMany.details.retryAfterMs).toBe(7_000);
  });

  it('401 and authError are auth failures; 400, 403 and 404 are permanent', async () => {
    fake.on('GET', '/youtube/v3/channels', { status: 401, body: fixture('error-auth') });
    expect((await failure(connector().accountInfo(context()))).kind).toBe('auth');

    fake.on('POST', '/upload/youtube/v3/videos', { status: 400, body: fixture('error-invalid-metadata') });
    const invalid = await failure(connector().publish(context(), request()));
    expect(invalid.kind).toBe('permanent');
    expect(invalid.details.platformCode).toBe('invalidTitle');
    expect(invalid.message).toContain('invalid video title');

    fake.on('POST', '/upload/youtube/v3/videos', {
      status: 403,
      body: { error: { code: 403, message: 'Forbidden', errors: [{ reason: 'forbidden' }] } },
    });
    expect((await failure(connector().publish(context(), request()))).kind).toBe('permanent');

    fake.on('GET', '/youtube/v3/channels', { status: 404, body: fixture('error-not-found') });
    expect((await failure(connector().accountInfo(context()))).kind).toBe('permanent');
  });

  it('a 500 while opening the session can be retried; a 500 on the upload has an unknown outcome', async () => {
    fake.on('POST', '/upload/youtube/v3/videos', {
      status: 500,
      body: { error: { code: 500, message: 'Backend' } },
    });
    expect((await failure(connector().publish(context(), request()))).kind).toBe('retryable');

    serveUpload({ status: 503, body: { error: { code: 503, message: 'Backend Error' } } });
    const lost = await failure(connector().publish(context(), request()));
    expect(lost.kind).toBe('unknown_outcome');
    expect(lost.details.status).toBe(503);
  });

  it('an upload that never answers has an unknown outcome', async () => {
    serveUpload({ hang: true });
    const error = await failure(connector({ uploadTimeoutMs: 200 }).publish(context(), request()));
    expect(error.kind).toBe('unknown_outcome');
    expect(error.message).toContain('timed out');
  });
});

describe('status checks', () => {
  it('polls processing by video id until processed', async () => {
    const yt = connector();
    const query = {
      postId: 'post-1',
      idempotencyKey: 'publish:post-1:1',
      reference: 'Ks-_Mh1QhMc',
      contentText: 'We shipped.',
      attemptStartedAt: now.toISOString(),
    };
    fake.on('GET', '/youtube/v3/videos', { body: fixture('videos-processing') });
    expect(await yt.checkStatus(context(), query)).toEqual({ kind: 'pending', checkAfterMs: 45_000 });
    const [poll] = fake.calls('GET', '/youtube/v3/videos');
    expect(Object.fromEntries(poll!.query)).toEqual({ part: 'status,processingDetails', id: 'Ks-_Mh1QhMc' });
    expect(poll!.headers.authorization).toBe('Bearer ya29.current-access');

    fake.on('GET', '/youtube/v3/videos', { body: fixture('videos-processed') });
    expect(await yt.checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: 'Ks-_Mh1QhMc',
      url: 'https://www.youtube.com/watch?v=Ks-_Mh1QhMc',
    });

    fake.on('GET', '/youtube/v3/videos', {
      body: { items: [{ id: 'Ks-_Mh1QhMc', status: { uploadStatus: 'failed', failureReason: 'codec' } }] },
    });
    expect(await yt.checkStatus(context(), query)).toEqual({
      kind: 'failed',
      message: 'YouTube could not process the video (codec)',
    });

    fake.on('GET', '/youtube/v3/videos', { body: { items: [] } });
    expect((await yt.checkStatus(context(), query)).kind).toBe('failed');
  });

  it('without a reference, finds the upload by its title among uploads since the attempt started', async () => {
    fake.on('GET', '/youtube/v3/channels', { body: fixture('channels-content-details') });
    fake.on('GET', '/youtube/v3/playlistItems', { body: fixture('playlist-items') });
    fake.on('GET', '/youtube/v3/videos', { body: fixture('videos-processed') });
    const query = {
      postId: 'post-1',
      idempotencyKey: 'publish:post-1:1',
      reference: null,
      contentText: 'We shipped.',
      attemptStartedAt: now.toISOString(),
      groupTitle: 'Launch day',
      platformPayload: null,
    };
    expect(await connector().checkStatus(context(), query)).toMatchObject({
      kind: 'published',
      externalId: 'Ks-_Mh1QhMc',
    });
    expect(Object.fromEntries(fake.calls('GET', '/youtube/v3/channels')[0]!.query)).toEqual({
      part: 'contentDetails',
      mine: 'true',
    });
    expect(fake.calls('GET', '/youtube/v3/playlistItems')[0]!.query.get('playlistId')).toBe(
      'UU_x5XG1OV2P6uZZ5FSM9Ttw',
    );
    expect(fake.calls('GET', '/youtube/v3/videos')[0]!.query.get('id')).toBe('Ks-_Mh1QhMc');

    // The same title uploaded before this attempt is not this post.
    const later = { ...query, attemptStartedAt: '2026-11-24T00:00:00.000Z' };
    expect(await connector().checkStatus(context(), later)).toEqual({ kind: 'not_found' });
    const otherTitle = { ...query, platformPayload: { youtube: { title: 'Something else' } } };
    expect(await connector().checkStatus(context(), otherTitle)).toEqual({ kind: 'not_found' });
    // Without a title to go by, the description decides.
    const { groupTitle: _, platformPayload: __, ...bare } = query;
    expect(await connector().checkStatus(context(), bare)).toMatchObject({ kind: 'published' });
    expect(await connector().checkStatus(context(), { ...bare, contentText: 'Other' })).toEqual({
      kind: 'not_found',
    });
  });
});

describe('deletion and account info', () => {
  it('deletes by id; a missing video is not_found', async () => {
    fake.on('DELETE', '/youtube/v3/videos', { status: 204 });
    expect(await connector().delete(context(), 'Ks-_Mh1QhMc')).toEqual({ kind: 'deleted' });
    const [call] = fake.calls('DELETE', '/youtube/v3/videos');
    expect(call!.query.get('id')).toBe('Ks-_Mh1QhMc');
    expect(call!.headers.authorization).toBe('Bearer ya29.current-access');

    fake.on('DELETE', '/youtube/v3/videos', { status: 404, body: fixture('error-not-found') });
    expect(await connector().delete(context(), 'gone')).toEqual({ kind: 'not_found' });
  });

  it('reads the channel as the account profile', async () => {
    fake.on('GET', '/youtube/v3/channels', { body: fixture('channels-mine') });
    expect(await connector().accountInfo(context())).toMatchObject({
      accountExternalId: 'UC_x5XG1OV2P6uZZ5FSM9Ttw',
      accountHandle: 'acmestudio',
    });
  });
});
