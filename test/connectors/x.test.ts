// The live X connector against a locally served X API: the requests it sends (paths, auth, bodies) and how
// it reads X's answers, errors and rate limits; fixtures are X's documented responses.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { createXConnector, type XConnectorConfig } from '../../infra/connectors/x/x-connector.js';
import {
  ConnectorError,
  type CallContext,
  type MediaFile,
  type PublishRequest,
} from '../../infra/connectors/port.js';
import { LocalObjectStorage } from '../../infra/object-storage/local-object-storage.js';
import { createMediaFetcher } from '../../processes/publishing/media-fetcher.js';
import { bytesMediaFile } from '../../infra/connectors/media-file.js';
import { startFakePlatform, type FakePlatform, type RecordedRequest } from './support/fake-platform.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/x/${name}.json`, import.meta.url), 'utf8'));

const tokens = { accessToken: 'access-secret', refreshToken: 'refresh-secret', expiresAt: null, scopes: [] };
const account = {
  id: '0b5e7c1e-0000-4000-8000-000000000001',
  orgId: '0b5e7c1e-0000-4000-8000-000000000002',
  platform: 'x' as const,
  accountExternalId: '2244994945',
  accountHandle: 'XDevelopers',
  xSubscription: null,
};

async function formOf(request: RecordedRequest): Promise<FormData> {
  return new Request('http://local/', {
    method: 'POST',
    headers: { 'content-type': String(request.headers['content-type']) },
    body: request.raw,
  }).formData();
}

function publishRequest(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postId: '0b5e7c1e-0000-4000-8000-000000000003',
    idempotencyKey: 'publish:0b5e7c1e-0000-4000-8000-000000000003:1',
    groupTitle: 'Launch',
    contentText: 'Are you excited for the weekend?',
    media: null,
    platformPayload: null,
    attemptStartedAt: '2024-05-01T10:00:00.123Z',
    ...overrides,
  };
}

let platform: FakePlatform;
let fetched: string[];

function connector(overrides: Partial<XConnectorConfig> = {}) {
  return createXConnector({
    clientId: 'client-id',
    clientSecret: 'client-secret',
    apiBaseUrl: platform.baseUrl,
    authorizeUrl: `${platform.baseUrl}/i/oauth2/authorize`,
    timeoutMs: 2_000,
    now: () => new Date('2024-05-01T10:00:00Z'),
    sleep: async () => {},
    ...overrides,
  });
}

function context(): CallContext {
  return {
    account,
    tokens,
    fetchMedia: async (item) => {
      fetched.push(item.assetId);
      const data = item.contentType.startsWith('video/')
        ? new TextEncoder().encode('0123456789')
        : new Uint8Array([137, 80, 78, 71]);
      return bytesMediaFile(data, item.contentType, item.assetId);
    },
  };
}

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
  fetched = [];
});
afterEach(async () => {
  await platform.close();
});

describe('configuration and authorization', () => {
  it('names the environment variables it still needs', () => {
    expect(createXConnector({}).missingConfiguration()).toEqual(['X_CLIENT_ID', 'X_CLIENT_SECRET']);
    expect(createXConnector({ clientId: 'id' }).missingConfiguration()).toEqual(['X_CLIENT_SECRET']);
    expect(connector().missingConfiguration()).toEqual([]);
    expect(connector().supportsRefresh).toBe(true);
  });

  it('builds the authorization URL with PKCE S256 and the scopes it needs', async () => {
    const start = await connector().startAuthorization({
      state: 'state-1',
      callbackUrl: 'https://app.example/v1/marketing/oauth/x/callback',
      codeChallenge: 'challenge-1',
    });
    const url = new URL(start.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${platform.baseUrl}/i/oauth2/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'client-id',
      redirect_uri: 'https://app.example/v1/marketing/oauth/x/callback',
      scope: 'tweet.read tweet.write users.read offline.access media.write',
      state: 'state-1',
      code_challenge: 'challenge-1',
      code_challenge_method: 'S256',
    });
    const real = await createXConnector({ clientId: 'c' }).startAuthorization({
      state: 's',
      callbackUrl: 'https://app.example/cb',
      codeChallenge: 'c',
    });
    expect(real.authorizationUrl.startsWith('https://x.com/i/oauth2/authorize?')).toBe(true);
  });

  it('exchanges the code as a confidential client and reads the account', async () => {
    platform.on('POST', '/2/oauth2/token', { body: fixture('token') });
    platform.on('GET', '/2/users/me', { body: fixture('users-me') });
    const result = await connector().completeAuthorization({
      params: { code: 'code-1', state: 'state-1' },
      callbackUrl: 'https://app.example/v1/marketing/oauth/x/callback',
      codeVerifier: 'verifier-1',
    });

    const [exchange] = platform.calls('POST', '/2/oauth2/token');
    expect(exchange!.headers.authorization).toBe(
      `Basic ${Buffer.from('client-id:client-secret').toString('base64')}`,
    );
    expect(exchange!.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(exchange!.text))).toEqual({
      grant_type: 'authorization_code',
      code: 'code-1',
      redirect_uri: 'https://app.example/v1/marketing/oauth/x/callback',
      code_verifier: 'verifier-1',
      client_id: 'client-id',
    });
    const [me] = platform.calls('GET', '/2/users/me');
    expect(me!.query.get('user.fields')).toBe(
      'profile_image_url,description,verified_type,subscription_type',
    );
    expect(me!.headers.authorization).toBe(
      `Bearer ${(fixture('token') as { access_token: string }).access_token}`,
    );

    expect(result).toEqual({
      kind: 'accounts',
      accounts: [
        {
          profile: {
            accountExternalId: '2244994945',
            accountName: 'Developers',
            accountHandle: 'XDevelopers',
            profileImageUrl: 'https://pbs.twimg.com/profile_images/1445764922474827784/W2zEPN7U_normal.jpg',
            profileUrl: 'https://x.com/XDevelopers',
            accountBio: 'The voice of the X Dev team and your official source for updates.',
            xSubscription: 'premium_plus',
          },
          tokens: {
            accessToken: (fixture('token') as { access_token: string }).access_token,
            refreshToken: (fixture('token') as { refresh_token: string }).refresh_token,
            expiresAt: '2024-05-01T12:00:00.000Z',
            scopes: ['tweet.read', 'tweet.write', 'users.read', 'offline.access', 'media.write'],
          },
        },
      ],
    });
  });

  it('reports a denied authorization without calling X', async () => {
    const error = await failure(
      connector().completeAuthorization({
        params: { error: 'access_denied', state: 's' },
        callbackUrl: 'https://app.example/cb',
        codeVerifier: 'v',
      }),
    );
    expect(error.kind).toBe('permanent');
    expect(error.details.platformCode).toBe('access_denied');
    expect(platform.requests).toHaveLength(0);
  });

  it('refreshes with the refresh token and keeps the old one when X sends none', async () => {
    platform.on('POST', '/2/oauth2/token', {
      body: { token_type: 'bearer', expires_in: 7200, access_token: 'new-access', scope: 'tweet.read' },
    });
    const refreshed = await connector().refresh(account, tokens);
    const [request] = platform.calls('POST', '/2/oauth2/token');
    expect(Object.fromEntries(new URLSearchParams(request!.text))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'refresh-secret',
      client_id: 'client-id',
    });
    expect(request!.headers.authorization).toMatch(/^Basic /);
    expect(refreshed).toEqual({
      accessToken: 'new-access',
      refreshToken: 'refresh-secret',
      expiresAt: '2024-05-01T12:00:00.000Z',
      scopes: ['tweet.read'],
    });
  });

  it('turns a refused refresh token into an auth failure without echoing it', async () => {
    platform.on('POST', '/2/oauth2/token', { status: 400, body: fixture('error-invalid-grant') });
    const error = await failure(connector().refresh(account, tokens));
    expect(error.kind).toBe('auth');
    expect(error.message).toContain('Value passed for the token was invalid');
    expect(error.message).not.toContain('refresh-secret');
  });
});

describe('publishing', () => {
  it('posts a text tweet and answers its URL', async () => {
    platform.on('POST', '/2/tweets', { status: 201, body: fixture('create-tweet') });
    const outcome = await connector().publish(context(), publishRequest());
    expect(outcome).toEqual({
      kind: 'published',
      externalId: '1445880548472328192',
      url: 'https://x.com/XDevelopers/status/1445880548472328192',
    });
    const [tweet] = platform.calls('POST', '/2/tweets');
    expect(tweet!.headers.authorization).toBe('Bearer access-secret');
    expect(tweet!.headers['content-type']).toContain('application/json');
    expect(tweet!.json).toEqual({ text: 'Are you excited for the weekend?' });
  });

  it('sends poll, quote, reply settings and community from the payload', async () => {
    platform.on('POST', '/2/tweets', { status: 201, body: fixture('create-tweet') });
    await connector().publish(
      context(),
      publishRequest({
        platformPayload: {
          poll: { options: ['yes', 'no'], durationMinutes: 1440 },
          quoteTweetUrl: 'https://twitter.com/XDevelopers/status/1460323737035677698?s=20',
          replySettings: 'mentionedUsers',
          communityUrl: 'https://x.com/i/communities/1493446837214187523',
        },
      }),
    );
    expect(platform.calls('POST', '/2/tweets')[0]!.json).toEqual({
      text: 'Are you excited for the weekend?',
      poll: { options: ['yes', 'no'], duration_minutes: 1440 },
      quote_tweet_id: '1460323737035677698',
      reply_settings: 'mentionedUsers',
      community_id: '1493446837214187523',
    });
  });

  it('maps reply settings: everyone is left out, following and verified are sent as they are', async () => {
    platform.on('POST', '/2/tweets', { status: 201, body: fixture('create-tweet') });
    for (const replySettings of ['everyone', 'following', 'verified'] as const)
      await connector().publish(context(), publishRequest({ platformPayload: { replySettings } }));
    expect(
      platform.calls('POST', '/2/tweets').map((r) => (r.json as { reply_settings?: string }).reply_settings),
    ).toEqual([undefined, 'following', 'verified']);
  });

  it('refuses a quote link that is not a tweet before posting anything', async () => {
    const error = await failure(
      connector().publish(
        context(),
        publishRequest({ platformPayload: { quoteTweetUrl: 'https://example.com/x' } }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(platform.requests).toHaveLength(0);
  });

  it('publishes a thread as a reply chain', async () => {
    let next = 100;
    platform.on('POST', '/2/tweets', () => ({
      status: 201,
      body: { data: { id: String(next++), text: '…' } },
    }));
    const outcome = await connector().publish(
      context(),
      publishRequest({
        platformPayload: { thread: ['second', 'third'], poll: { options: ['a', 'b'], durationMinutes: 60 } },
      }),
    );
    expect(outcome).toMatchObject({ kind: 'published', externalId: '100' });
    expect(platform.calls('POST', '/2/tweets').map((r) => r.json)).toEqual([
      { text: 'Are you excited for the weekend?', poll: { options: ['a', 'b'], duration_minutes: 60 } },
      { text: 'second', reply: { in_reply_to_tweet_id: '100' } },
      { text: 'third', reply: { in_reply_to_tweet_id: '101' } },
    ]);
  });

  it('says what was posted when a thread fails half way, with a kind the pipeline never retries blindly', async () => {
    let next = 100;
    platform.on('POST', '/2/tweets', (request) =>
      (request.json as { text: string }).text === 'third'
        ? { status: 503, body: { title: 'Service Unavailable', detail: 'Service Unavailable', status: 503 } }
        : { status: 201, body: { data: { id: String(next++), text: '…' } } },
    );
    const error = await failure(
      connector().publish(
        context(),
        publishRequest({ platformPayload: { thread: ['second', 'third', 'fourth'] } }),
      ),
    );
    expect(error.kind).toBe('unknown_outcome');
    expect(error.details.platformCode).toBe('thread_incomplete');
    expect(error.message).toContain('first tweet 100');
    expect(error.message).toContain('https://x.com/XDevelopers/status/100');
    expect(error.message).toContain('1 of 3 replies are posted (last 101); reply 2 failed');
    expect(platform.calls('POST', '/2/tweets')).toHaveLength(3);
  });

  it('uploads images with the simple upload, sets alt text and attaches them', async () => {
    let next = 1;
    platform.on('POST', '/2/media/upload', () => ({
      body: { data: { ...(fixture('media-upload') as { data: object }).data, id: `m${next++}` } },
    }));
    platform.on('POST', '/2/media/metadata', (r) => ({
      body: { data: { id: (r.json as { id: string }).id } },
    }));
    platform.on('POST', '/2/tweets', { status: 201, body: fixture('create-tweet') });
    await connector().publish(
      context(),
      publishRequest({
        media: {
          kind: 'images',
          images: [
            {
              assetId: 'a1',
              url: 'https://cdn.example/a1.png',
              contentType: 'image/png',
              sizeBytes: 4,
              altText: 'A chart',
            },
            { assetId: 'a2', url: 'https://cdn.example/a2.png', contentType: 'image/png', sizeBytes: 4 },
          ],
        },
      }),
    );
    expect(fetched).toEqual(['a1', 'a2']);
    const uploads = platform.calls('POST', '/2/media/upload');
    expect(uploads).toHaveLength(2);
    expect(uploads[0]!.headers.authorization).toBe('Bearer access-secret');
    expect(String(uploads[0]!.headers['content-type'])).toContain('multipart/form-data');
    const form = await formOf(uploads[0]!);
    expect(form.get('media_category')).toBe('tweet_image');
    expect(form.get('media_type')).toBe('image/png');
    const file = form.get('media') as File;
    expect([...new Uint8Array(await file.arrayBuffer())]).toEqual([137, 80, 78, 71]);
    expect(platform.calls('POST', '/2/media/metadata').map((r) => r.json)).toEqual([
      { id: 'm1', metadata: { alt_text: { text: 'A chart' } } },
    ]);
    expect(platform.calls('POST', '/2/tweets')[0]!.json).toEqual({
      text: 'Are you excited for the weekend?',
      media: { media_ids: ['m1', 'm2'] },
    });
  });

  it('uploads a video in chunks, polls STATUS until processed, then posts', async () => {
    const id = '1880028106020515841';
    platform.on('POST', '/2/media/upload/initialize', { body: fixture('media-initialize') });
    platform.on('POST', `/2/media/upload/${id}/append`, { status: 204 });
    platform.on('POST', `/2/media/upload/${id}/finalize`, { body: fixture('media-finalize-pending') });
    let polls = 0;
    platform.on('GET', '/2/media/upload', () =>
      polls++ === 0
        ? {
            body: {
              data: {
                id,
                processing_info: { state: 'in_progress', check_after_secs: 1, progress_percent: 50 },
              },
            },
          }
        : { body: fixture('media-status-succeeded') },
    );
    platform.on('POST', '/2/tweets', { status: 201, body: fixture('create-tweet') });
    await connector({ chunkSizeBytes: 4 }).publish(
      context(),
      publishRequest({
        media: {
          kind: 'video',
          assetId: 'v1',
          url: 'https://cdn.example/v1.mp4',
          contentType: 'video/mp4',
          sizeBytes: 10,
          durationSeconds: 3,
          width: 1280,
          height: 720,
        },
      }),
    );
    expect(platform.calls('POST', '/2/media/upload/initialize')[0]!.json).toEqual({
      media_type: 'video/mp4',
      total_bytes: 10,
      media_category: 'tweet_video',
    });
    const appends = platform.calls('POST', `/2/media/upload/${id}/append`);
    const chunks = await Promise.all(
      appends.map(async (r) => {
        const form = await formOf(r);
        return [form.get('segment_index'), await (form.get('media') as File).text()];
      }),
    );
    expect(chunks).toEqual([
      ['0', '0123'],
      ['1', '4567'],
      ['2', '89'],
    ]);
    expect(platform.calls('POST', `/2/media/upload/${id}/finalize`)).toHaveLength(1);
    const statuses = platform.calls('GET', '/2/media/upload');
    expect(statuses).toHaveLength(2);
    expect(Object.fromEntries(statuses[0]!.query)).toEqual({ command: 'STATUS', media_id: id });
    expect(platform.calls('POST', '/2/tweets')[0]!.json).toEqual({
      text: 'Are you excited for the weekend?',
      media: { media_ids: [id] },
    });
  });

  it('fails for good when X rejects the video, posting nothing', async () => {
    const id = '1880028106020515841';
    platform.on('POST', '/2/media/upload/initialize', { body: fixture('media-initialize') });
    platform.on('POST', `/2/media/upload/${id}/append`, { status: 204 });
    platform.on('POST', `/2/media/upload/${id}/finalize`, {
      body: { data: { id, processing_info: { state: 'failed', error: { message: 'InvalidMedia' } } } },
    });
    const error = await failure(
      connector().publish(
        context(),
        publishRequest({
          media: {
            kind: 'video',
            assetId: 'v1',
            url: 'u',
            contentType: 'video/mp4',
            sizeBytes: 10,
            durationSeconds: 1,
            width: 1,
            height: 1,
          },
        }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('InvalidMedia');
    expect(platform.calls('POST', '/2/tweets')).toHaveLength(0);
  });

  it('refuses documents, which X does not take', async () => {
    const error = await failure(
      connector().publish(
        context(),
        publishRequest({
          media: {
            kind: 'document',
            assetId: 'd',
            url: 'u',
            contentType: 'application/pdf',
            sizeBytes: 1,
            title: 'Deck',
          },
        }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(platform.requests).toHaveLength(0);
  });
});

describe('media spooled to disk', () => {
  const MiB = 1024 * 1024;
  let tmpDir: string;
  beforeEach(async () => {
    tmpDir = await mkdtemp(path.join(os.tmpdir(), 'sp-x-media-'));
  });
  afterEach(async () => {
    await rm(tmpDir, { recursive: true, force: true });
  });

  /**
   * The production media fetcher, spooling into `tmpDir` from the fake platform's host, with every file it
   * hands out watched: which pieces the connector reads, and whether it ever asks for the whole file.
   */
  function spoolingContext() {
    const fetchMedia = createMediaFetcher({
      storage: new LocalObjectStorage({
        rootDir: tmpDir,
        publicBaseUrl: 'http://app.test',
        signingSecret: 'x'.repeat(32),
      }),
      publicBaseUrl: 'http://app.test',
      allowPrivate: [platform.baseUrl],
      tmpDir,
    });
    const files: MediaFile[] = [];
    const spies: Array<{ read: MockInstance<MediaFile['read']>; bytes: MockInstance<MediaFile['bytes']> }> =
      [];
    const context: CallContext = {
      account,
      tokens,
      fetchMedia: async (item) => {
        const file = await fetchMedia(item);
        files.push(file);
        spies.push({ read: vi.spyOn(file, 'read'), bytes: vi.spyOn(file, 'bytes') });
        return file;
      },
    };
    return { context, files, spies };
  }

  it('uploads a 30 MiB video APPEND by APPEND, each chunk read from the spooled file', async () => {
    const size = 30 * MiB + 123;
    const videoBytes = randomBytes(size);
    platform.on('GET', '/cdn/big.mp4', { headers: { 'content-type': 'video/mp4' }, body: videoBytes });
    const id = '1880028106020515841';
    platform.on('POST', '/2/media/upload/initialize', { body: fixture('media-initialize') });
    platform.on('POST', `/2/media/upload/${id}/append`, { status: 204 });
    platform.on('POST', `/2/media/upload/${id}/finalize`, { body: fixture('media-status-succeeded') });
    platform.on('POST', '/2/tweets', { status: 201, body: fixture('create-tweet') });
    const { context, files, spies } = spoolingContext();

    await connector().publish(
      context,
      publishRequest({
        media: {
          kind: 'video',
          assetId: 'big-video',
          url: `${platform.baseUrl}/cdn/big.mp4`,
          contentType: 'video/mp4',
          sizeBytes: size,
          durationSeconds: 30,
          width: 1280,
          height: 720,
        },
      }),
    );

    expect(files).toHaveLength(1);
    expect(platform.calls('POST', '/2/media/upload/initialize')[0]!.json).toMatchObject({
      total_bytes: size,
    });
    // X's default 4 MiB segments, each one read from the file right before its APPEND; never the whole file.
    const chunk = 4 * MiB;
    const expectedReads = Array.from({ length: Math.ceil(size / chunk) }, (_, i) => [
      i * chunk,
      Math.min(chunk, size - i * chunk),
    ]);
    expect(spies[0]!.read.mock.calls).toEqual(expectedReads);
    expect(spies[0]!.bytes).not.toHaveBeenCalled();
    const appends = platform.calls('POST', `/2/media/upload/${id}/append`);
    expect(appends).toHaveLength(expectedReads.length);
    const received: Buffer[] = [];
    for (const [index, request] of appends.entries()) {
      const form = await formOf(request);
      expect(form.get('segment_index')).toBe(String(index));
      const part = Buffer.from(await (form.get('media') as File).arrayBuffer());
      // What was sent is what was read for that segment.
      const read = (await spies[0]!.read.mock.results[index]!.value) as Uint8Array;
      expect(part.equals(Buffer.from(read))).toBe(true);
      received.push(part);
    }
    const all = Buffer.concat(received);
    expect(all.byteLength).toBe(size);
    expect(createHash('sha256').update(all).digest('hex')).toBe(
      createHash('sha256').update(videoBytes).digest('hex'),
    );
    expect(platform.calls('POST', '/2/tweets')[0]!.json).toEqual({
      text: 'Are you excited for the weekend?',
      media: { media_ids: [id] },
    });
    await files[0]!.dispose();
    expect(await readdir(tmpDir)).toEqual([]);
  });

  it('uploads an image from the spooled file as its form part', async () => {
    const png = randomBytes(200_000);
    platform.on('GET', '/cdn/photo.png', { headers: { 'content-type': 'image/png' }, body: png });
    platform.on('POST', '/2/media/upload', { body: { data: { id: 'm1', media_key: '3_m1' } } });
    platform.on('POST', '/2/tweets', { status: 201, body: fixture('create-tweet') });
    const { context, files } = spoolingContext();
    await connector().publish(
      context,
      publishRequest({
        media: {
          kind: 'image',
          assetId: 'photo',
          url: `${platform.baseUrl}/cdn/photo.png`,
          contentType: 'image/png',
          sizeBytes: png.byteLength,
        },
      }),
    );
    const form = await formOf(platform.calls('POST', '/2/media/upload')[0]!);
    const media = form.get('media') as File;
    expect(media.type).toBe('image/png');
    expect(Buffer.from(await media.arrayBuffer()).equals(png)).toBe(true);
    await files[0]!.dispose();
  });

  it('refuses a video over the cap before anything reaches X', async () => {
    platform.on('GET', '/cdn/huge.mp4', {
      headers: { 'content-type': 'video/mp4' },
      body: Buffer.alloc(3 * MiB),
    });
    const fetchMedia = createMediaFetcher({
      storage: new LocalObjectStorage({
        rootDir: tmpDir,
        publicBaseUrl: 'http://app.test',
        signingSecret: 'x'.repeat(32),
      }),
      publicBaseUrl: 'http://app.test',
      allowPrivate: [platform.baseUrl],
      tmpDir,
      limits: { video: 2 * MiB },
    });
    const error = await failure(
      connector().publish(
        { account, tokens, fetchMedia },
        publishRequest({
          media: {
            kind: 'video',
            assetId: 'huge-video',
            url: `${platform.baseUrl}/cdn/huge.mp4`,
            contentType: 'video/mp4',
            sizeBytes: 3 * MiB,
            durationSeconds: 30,
            width: 1280,
            height: 720,
          },
        }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe(
      'Media huge-video is larger than 2 MiB, the most a video may be here; nothing was uploaded',
    );
    expect(platform.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /cdn/huge.mp4']);
    expect(await readdir(tmpDir)).toEqual([]);
  });
});

describe('errors', () => {
  it('names what X said about an invalid request (errors[])', async () => {
    platform.on('POST', '/2/tweets', { status: 400, body: fixture('error-invalid-request') });
    const error = await failure(connector().publish(context(), publishRequest()));
    expect(error.kind).toBe('permanent');
    expect(error.details).toEqual({
      status: 400,
      platformCode: 'https://api.twitter.com/2/problems/invalid-request',
    });
    expect(error.message).toContain('is not between 5 and 10080');
  });

  it('names what X said about a forbidden tweet (problem detail)', async () => {
    platform.on('POST', '/2/tweets', { status: 403, body: fixture('error-duplicate') });
    const error = await failure(connector().publish(context(), publishRequest()));
    expect(error.kind).toBe('permanent');
    expect(error.details.status).toBe(403);
    expect(error.message).toContain('duplicate content');
  });

  it('maps 401 to auth without echoing the token', async () => {
    platform.on('POST', '/2/tweets', { status: 401, body: fixture('error-unauthorized') });
    const error = await failure(connector().publish(context(), publishRequest()));
    expect(error.kind).toBe('auth');
    expect(error.message).not.toContain('access-secret');
  });

  it('maps 429 to rate_limited with the time until x-rate-limit-reset', async () => {
    const reset = Math.floor(new Date('2024-05-01T10:15:00Z').getTime() / 1000);
    platform.on('POST', '/2/tweets', {
      status: 429,
      headers: { 'x-rate-limit-reset': String(reset), 'x-rate-limit-remaining': '0' },
      body: fixture('error-too-many-requests'),
    });
    const error = await failure(connector().publish(context(), publishRequest()));
    expect(error.kind).toBe('rate_limited');
    expect(error.details.retryAfterMs).toBe(15 * 60_000);
  });

  it('treats a 503 on a create as an unknown outcome and on a read as retryable', async () => {
    const unavailable = {
      status: 503,
      body: { title: 'Service Unavailable', detail: 'Service Unavailable', status: 503 },
    };
    platform.on('POST', '/2/tweets', unavailable);
    platform.on('GET', '/2/users/me', unavailable);
    expect((await failure(connector().publish(context(), publishRequest()))).kind).toBe('unknown_outcome');
    expect((await failure(connector().accountInfo(context()))).kind).toBe('retryable');
  });

  it('treats a tweet whose answer never comes as an unknown outcome', async () => {
    platform.on('POST', '/2/tweets', { hang: true });
    const error = await failure(connector({ timeoutMs: 200 }).publish(context(), publishRequest()));
    expect(error.kind).toBe('unknown_outcome');
    expect(error.message).toContain('timed out');
  });
});

describe('status checks, deletion and account info', () => {
  it('finds the tweet among the account tweets since the attempt started', async () => {
    platform.on('GET', '/2/users/2244994945/tweets', { body: fixture('user-tweets') });
    const check = await connector().checkStatus(context(), {
      postId: 'p',
      idempotencyKey: 'k',
      reference: null,
      contentText: 'Introducing a new era for the X Developer Platform! https://developer.x.com/en',
      attemptStartedAt: '2024-05-01T10:00:00.123Z',
    });
    expect(check).toEqual({
      kind: 'published',
      externalId: '1460323737035677698',
      url: 'https://x.com/XDevelopers/status/1460323737035677698',
    });
    const [lookup] = platform.calls('GET', '/2/users/2244994945/tweets');
    expect(lookup!.query.get('start_time')).toBe('2024-05-01T10:00:00Z');
    expect(lookup!.headers.authorization).toBe('Bearer access-secret');
  });

  it('matches text X escaped, follows pages, and says not_found when nothing matches', async () => {
    platform.on('GET', '/2/users/2244994945/tweets', (r) =>
      r.query.get('pagination_token') === 'p2'
        ? { body: fixture('user-tweets') }
        : { body: { data: [{ id: '1', text: 'other' }], meta: { result_count: 1, next_token: 'p2' } } },
    );
    const query = {
      postId: 'p',
      idempotencyKey: 'k',
      reference: null,
      attemptStartedAt: '2024-05-01T10:00:00Z',
    };
    expect(
      await connector().checkStatus(context(), { ...query, contentText: 'Tips & tricks for the new API' }),
    ).toMatchObject({
      kind: 'published',
      externalId: '1293593516040269825',
    });
    platform.on('GET', '/2/users/2244994945/tweets', { body: { meta: { result_count: 0 } } });
    expect(await connector().checkStatus(context(), { ...query, contentText: 'never posted' })).toEqual({
      kind: 'not_found',
    });
  });

  it('deletes a tweet, and says not_found when it is gone', async () => {
    platform.on('DELETE', '/2/tweets/1445880548472328192', { body: { data: { deleted: true } } });
    expect(await connector().delete(context(), '1445880548472328192')).toEqual({ kind: 'deleted' });
    expect(platform.calls('DELETE', '/2/tweets/1445880548472328192')[0]!.headers.authorization).toBe(
      'Bearer access-secret',
    );
    platform.on('DELETE', /^\/2\/tweets\/\d+$/, {
      status: 404,
      body: {
        title: 'Not Found Error',
        detail: 'Could not find tweet',
        type: 'https://api.twitter.com/2/problems/resource-not-found',
      },
    });
    expect(await connector().delete(context(), '1')).toEqual({ kind: 'not_found' });
  });

  it('reads the account with its subscription', async () => {
    platform.on('GET', '/2/users/me', {
      body: { data: { id: '1', username: 'someone', subscription_type: 'None' } },
    });
    expect(await connector().accountInfo(context())).toEqual({
      accountExternalId: '1',
      accountName: null,
      accountHandle: 'someone',
      profileImageUrl: null,
      profileUrl: 'https://x.com/someone',
      accountBio: null,
      xSubscription: 'none',
    });
  });
});
