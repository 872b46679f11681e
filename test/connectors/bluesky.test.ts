// The live Bluesky connector against a locally served PDS, PLC directory and authorization server: app-password
// sessions, posts (facets, images, threads, derived record keys), status, deletion, errors and OAuth with DPoP.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { XRPCError } from '@atproto/api';
import {
  blueskyClientMetadata,
  blueskyFailure,
  blueskyOAuthMigrations,
  blueskyRecordKey,
  createBlueskyConnector,
  type BlueskyConnectorConfig,
} from '../../infra/connectors/bluesky/bluesky-connector.js';
import { ConnectorError, type CallContext, type PublishRequest } from '../../infra/connectors/port.js';
import { TokenCipher } from '../../infra/crypto/token-cipher.js';
import { UnsafeUrlError } from '../../infra/http/safe-fetch.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { bytesMediaFile } from '../../infra/connectors/media-file.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/bluesky/${name}.json`, import.meta.url), 'utf8'));

const DID = 'did:plc:z72i7hdynmk6r22z27h6tvur';
const POST_CID = 'bafyreihffwofbdcqendtitmma6wzds6wa2fpy5p7mkjpayvatsrydse6oe';
const PUBLIC = 'https://app.example.test';

const jwt = (exp: number, tag: string) =>
  [
    Buffer.from('{"alg":"ES256K","typ":"at+jwt"}').toString('base64url'),
    Buffer.from(JSON.stringify({ scope: 'com.atproto.appPass', sub: DID, exp, tag })).toString('base64url'),
    'c2lnbmF0dXJl',
  ].join('.');
const accessJwt = jwt(1714564800, 'access'); // 2024-05-01T12:00:00Z
const refreshJwt = jwt(1719748800, 'refresh');

let platform: FakePlatform;
let db: TestDatabase<unknown>;
const cipher = new TokenCipher([{ version: 1, key: randomBytes(32) }]);

function didDocument() {
  return {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: DID,
    alsoKnownAs: ['at://alice.test'],
    verificationMethod: [],
    service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: platform.baseUrl }],
  };
}

function connector(overrides: Partial<BlueskyConnectorConfig> = {}) {
  return createBlueskyConnector({
    publicBaseUrl: PUBLIC,
    serviceUrl: platform.baseUrl,
    db: db.db,
    cipher,
    plcDirectoryUrl: platform.baseUrl,
    allowHttp: true,
    // Tests only: the locally served PLC directory, PDS and authorization server, and nothing else on loopback.
    allowPrivate: [platform.baseUrl],
    timeoutMs: 2_000,
    now: () => new Date('2024-05-01T10:00:00Z'),
    ...overrides,
  });
}

const account = {
  id: '0b5e7c1e-0000-4000-8000-000000000001',
  orgId: '0b5e7c1e-0000-4000-8000-000000000002',
  platform: 'bluesky' as const,
  accountExternalId: DID,
  accountHandle: 'alice.test',
  xSubscription: null,
};

function context(): CallContext {
  return {
    account,
    tokens: {
      accessToken: accessJwt,
      refreshToken: refreshJwt,
      expiresAt: null,
      scopes: [],
      extra: { did: DID, service: platform.baseUrl, auth: 'app_password' },
    },
    fetchMedia: async (item) =>
      bytesMediaFile(new Uint8Array([137, 80, 78, 71]), item.contentType, item.assetId),
  };
}

function publishRequest(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postId: '0b5e7c1e-0000-4000-8000-000000000003',
    idempotencyKey: 'publish:0b5e7c1e-0000-4000-8000-000000000003:1',
    groupTitle: 'Launch',
    contentText: 'Hello from the garden',
    media: null,
    platformPayload: null,
    attemptStartedAt: '2024-05-01T10:00:00Z',
    ...overrides,
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

/** createRecord answers like a PDS; a key already used answers as a PDS refuses a duplicate. */
function servePosts() {
  const records = new Map<string, unknown>();
  platform.on('POST', '/xrpc/com.atproto.repo.createRecord', (r) => {
    const body = r.json as { repo: string; rkey: string; record: unknown };
    if (records.has(body.rkey))
      return { status: 400, body: { error: 'InvalidRequest', message: 'Record already exists' } };
    records.set(body.rkey, body.record);
    return {
      body: {
        uri: `at://${body.repo}/app.bsky.feed.post/${body.rkey}`,
        cid: POST_CID,
        commit: { cid: POST_CID, rev: '3l3qo2vutsw2b' },
        validationStatus: 'valid',
      },
    };
  });
  platform.on('GET', '/xrpc/com.atproto.repo.getRecord', (r) => {
    const rkey = r.query.get('rkey')!;
    const value = records.get(rkey);
    return value
      ? { body: { uri: `at://${DID}/app.bsky.feed.post/${rkey}`, cid: POST_CID, value } }
      : { status: 400, body: fixture('error-record-not-found') };
  });
  return records;
}

beforeAll(async () => {
  db = await createTestDatabase(blueskyOAuthMigrations);
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  platform = await startFakePlatform();
  platform.on('GET', '/xrpc/app.bsky.actor.getProfile', { body: fixture('get-profile') });
  platform.on('GET', '/xrpc/com.atproto.identity.resolveHandle', (r) =>
    r.query.get('handle') === 'bob.test'
      ? { body: { did: 'did:plc:bobbobbobbobbobbobbobbob' } }
      : r.query.get('handle') === 'alice.test'
        ? { body: { did: DID } }
        : { status: 400, body: { error: 'InvalidRequest', message: 'Unable to resolve handle' } },
  );
});
afterEach(async () => {
  await platform.close();
});

describe('client metadata', () => {
  it('is the document an AT Protocol authorization server expects, under our public URL', () => {
    expect(blueskyClientMetadata('https://app.example.test/')).toEqual({
      client_id: 'https://app.example.test/v1/marketing/oauth/bluesky/client-metadata',
      client_name: 'Social publishing',
      client_uri: 'https://app.example.test',
      redirect_uris: ['https://app.example.test/v1/marketing/oauth/bluesky/callback'],
      scope: 'atproto transition:generic',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type: 'web',
      token_endpoint_auth_method: 'none',
      dpop_bound_access_tokens: true,
    });
  });

  it('asks for an https public URL, which OAuth needs for its client id', () => {
    expect(createBlueskyConnector({ publicBaseUrl: 'http://localhost:3000' }).missingConfiguration()).toEqual(
      ['PUBLIC_BASE_URL'],
    );
    expect(connector().missingConfiguration()).toEqual([]);
  });
});

describe('app passwords', () => {
  it('creates a session, reads the profile and keeps no password', async () => {
    platform.on('POST', '/xrpc/com.atproto.server.createSession', {
      body: { accessJwt, refreshJwt, handle: 'alice.test', did: DID, didDoc: didDocument(), active: true },
    });
    const connected = await connector().connectWithAppPassword!('@alice.test', 'abcd-efgh-ijkl-mnop');
    expect(platform.calls('POST', '/xrpc/com.atproto.server.createSession')[0]!.json).toEqual({
      identifier: 'alice.test',
      password: 'abcd-efgh-ijkl-mnop',
    });
    const [profile] = platform.calls('GET', '/xrpc/app.bsky.actor.getProfile');
    expect(profile!.query.get('actor')).toBe(DID);
    expect(profile!.headers.authorization).toBe(`Bearer ${accessJwt}`);
    expect(connected).toEqual({
      profile: {
        accountExternalId: DID,
        accountName: 'Alice',
        accountHandle: 'alice.test',
        profileImageUrl: (fixture('get-profile') as { avatar: string }).avatar,
        profileUrl: 'https://bsky.app/profile/alice.test',
        accountBio: 'Writes about gardens.',
      },
      tokens: {
        accessToken: accessJwt,
        refreshToken: refreshJwt,
        expiresAt: '2024-05-01T12:00:00.000Z',
        refreshTokenExpiresAt: '2024-06-30T12:00:00.000Z',
        scopes: ['com.atproto.appPass'],
        extra: { did: DID, service: platform.baseUrl, handle: 'alice.test', auth: 'app_password' },
      },
    });
    expect(JSON.stringify(connected)).not.toContain('abcd-efgh-ijkl-mnop');
  });

  it('refuses a wrong app password without echoing it', async () => {
    platform.on('POST', '/xrpc/com.atproto.server.createSession', {
      status: 401,
      body: fixture('error-auth-factor'),
    });
    const error = await failure(connector().connectWithAppPassword!('alice.test', 'wxyz-wxyz-wxyz-wxyz'));
    expect(error.kind).toBe('permanent');
    expect(error.message).not.toContain('wxyz-wxyz-wxyz-wxyz');
    expect(JSON.stringify(error.details)).not.toContain('wxyz');
  });

  it('refreshes with the refresh JWT', async () => {
    const newAccess = jwt(1714572000, 'access-2');
    platform.on('POST', '/xrpc/com.atproto.server.refreshSession', {
      body: {
        accessJwt: newAccess,
        refreshJwt: 'refresh-2',
        handle: 'alice.test',
        did: DID,
        didDoc: didDocument(),
      },
    });
    const refreshed = await connector().refresh(account, context().tokens);
    expect(platform.calls('POST', '/xrpc/com.atproto.server.refreshSession')[0]!.headers.authorization).toBe(
      `Bearer ${refreshJwt}`,
    );
    expect(refreshed).toMatchObject({
      accessToken: newAccess,
      refreshToken: 'refresh-2',
      expiresAt: '2024-05-01T14:00:00.000Z',
      extra: { did: DID, service: platform.baseUrl, auth: 'app_password' },
    });
  });

  it('turns an expired refresh token into an auth failure', async () => {
    platform.on('POST', '/xrpc/com.atproto.server.refreshSession', {
      status: 400,
      body: fixture('error-expired-token'),
    });
    const error = await failure(connector().refresh(account, context().tokens));
    expect(error.kind).toBe('auth');
    expect(error.details.platformCode).toBe('ExpiredToken');
  });
});

describe('publishing', () => {
  it('creates a post with link and mention facets under a key derived from the idempotency key', async () => {
    servePosts();
    const text = 'Hi @bob.test and @nobody.test, see https://example.com/garden';
    const request = publishRequest({ contentText: text });
    const outcome = await connector().publish(context(), request);
    const rkey = blueskyRecordKey(request.idempotencyKey);
    expect(rkey).toMatch(/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/);
    expect(outcome).toEqual({
      kind: 'published',
      externalId: `at://${DID}/app.bsky.feed.post/${rkey}`,
      url: `https://bsky.app/profile/alice.test/post/${rkey}`,
    });
    const [create] = platform.calls('POST', '/xrpc/com.atproto.repo.createRecord');
    expect(create!.headers.authorization).toBe(`Bearer ${accessJwt}`);
    const bytes = (s: string) => Buffer.byteLength(s);
    expect(create!.json).toEqual({
      repo: DID,
      collection: 'app.bsky.feed.post',
      rkey,
      record: {
        $type: 'app.bsky.feed.post',
        text,
        createdAt: '2024-05-01T10:00:00.000Z',
        facets: [
          {
            $type: 'app.bsky.richtext.facet',
            index: { byteStart: bytes('Hi '), byteEnd: bytes('Hi @bob.test') },
            features: [{ $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:bobbobbobbobbobbobbobbob' }],
          },
          {
            index: { byteStart: bytes('Hi @bob.test and @nobody.test, see '), byteEnd: bytes(text) },
            features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/garden' }],
          },
        ],
      },
    });
    // Mentions resolved through the configured service, not the internet.
    expect(
      platform
        .calls('GET', '/xrpc/com.atproto.identity.resolveHandle')
        .map((r) => r.query.get('handle'))
        .sort(),
    ).toEqual(['bob.test', 'nobody.test']);
  });

  it('never makes a second copy when the same attempt is retried', async () => {
    const records = servePosts();
    const first = await connector().publish(context(), publishRequest());
    const again = await connector().publish(context(), publishRequest());
    expect(again).toEqual(first);
    expect(records.size).toBe(1);
    expect(blueskyRecordKey('publish:p:2')).not.toBe(blueskyRecordKey('publish:p:1'));
  });

  it('uploads up to four images with alt text and aspect ratio', async () => {
    servePosts();
    platform.on('POST', '/xrpc/com.atproto.repo.uploadBlob', { body: fixture('upload-blob') });
    await connector().publish(
      context(),
      publishRequest({
        media: {
          kind: 'images',
          images: [
            {
              assetId: 'a1',
              url: 'u1',
              contentType: 'image/png',
              sizeBytes: 4,
              width: 1200,
              height: 800,
              altText: 'Tomatoes',
            },
            { assetId: 'a2', url: 'u2', contentType: 'image/png', sizeBytes: 4 },
          ],
        },
      }),
    );
    const uploads = platform.calls('POST', '/xrpc/com.atproto.repo.uploadBlob');
    expect(uploads).toHaveLength(2);
    expect(uploads[0]!.headers['content-type']).toBe('image/png');
    expect([...uploads[0]!.raw]).toEqual([137, 80, 78, 71]);
    const blob = (fixture('upload-blob') as { blob: unknown }).blob;
    expect(
      (
        platform.calls('POST', '/xrpc/com.atproto.repo.createRecord')[0]!.json as {
          record: { embed: unknown };
        }
      ).record.embed,
    ).toEqual({
      $type: 'app.bsky.embed.images',
      images: [
        { image: blob, alt: 'Tomatoes', aspectRatio: { width: 1200, height: 800 } },
        { image: blob, alt: '' },
      ],
    });
    const tooMany = Array.from({ length: 5 }, (_, i) => ({
      assetId: `a${i}`,
      url: 'u',
      contentType: 'image/png',
      sizeBytes: 1,
    }));
    const error = await failure(
      connector().publish(
        context(),
        publishRequest({ idempotencyKey: 'k5', media: { kind: 'images', images: tooMany } }),
      ),
    );
    expect(error.kind).toBe('permanent');
  });

  it('publishes a thread with root and parent references', async () => {
    servePosts();
    const request = publishRequest({ platformPayload: { thread: ['second', 'third'] } });
    await connector().publish(context(), request);
    const creates = platform
      .calls('POST', '/xrpc/com.atproto.repo.createRecord')
      .map((r) => r.json as { rkey: string; record: { text: string; reply?: unknown } });
    const uri = (i: number) =>
      `at://${DID}/app.bsky.feed.post/${blueskyRecordKey(request.idempotencyKey, i)}`;
    expect(creates.map((c) => c.rkey)).toEqual(
      [0, 1, 2].map((i) => blueskyRecordKey(request.idempotencyKey, i)),
    );
    expect(creates.map((c) => [c.record.text, c.record.reply])).toEqual([
      ['Hello from the garden', undefined],
      ['second', { root: { uri: uri(0), cid: POST_CID }, parent: { uri: uri(0), cid: POST_CID } }],
      ['third', { root: { uri: uri(0), cid: POST_CID }, parent: { uri: uri(1), cid: POST_CID } }],
    ]);
  });

  it('says what was posted when a thread fails half way, with a kind that is never retried blindly', async () => {
    servePosts();
    platform.on('POST', '/xrpc/com.atproto.repo.createRecord', (r) =>
      (r.json as { record: { text: string } }).record.text === 'second'
        ? { status: 400, body: fixture('error-invalid-request') }
        : {
            body: {
              uri: `at://${DID}/app.bsky.feed.post/${(r.json as { rkey: string }).rkey}`,
              cid: POST_CID,
            },
          },
    );
    const request = publishRequest({ platformPayload: { thread: ['second', 'third'] } });
    const error = await failure(connector().publish(context(), request));
    expect(error.kind).toBe('unknown_outcome');
    expect(error.details.platformCode).toBe('thread_incomplete');
    expect(error.message).toContain(
      `first post at://${DID}/app.bsky.feed.post/${blueskyRecordKey(request.idempotencyKey)}`,
    );
    expect(error.message).toContain('0 of 2 replies are posted');
    expect(error.message).toContain('300 graphemes');
  });

  it('refuses documents before calling Bluesky', async () => {
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
            title: 'T',
          },
        }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(platform.calls('POST', '/xrpc/com.atproto.repo.createRecord')).toHaveLength(0);
  });
});

describe('errors', () => {
  it('maps ExpiredToken to auth', async () => {
    platform.on('POST', '/xrpc/com.atproto.repo.createRecord', {
      status: 400,
      body: fixture('error-expired-token'),
    });
    expect((await failure(connector().publish(context(), publishRequest()))).kind).toBe('auth');
  });

  it('maps a 429 to rate_limited until ratelimit-reset', async () => {
    const reset = Math.floor(new Date('2024-05-01T10:05:00Z').getTime() / 1000);
    platform.on('POST', '/xrpc/com.atproto.repo.createRecord', {
      status: 429,
      headers: { 'ratelimit-limit': '5000', 'ratelimit-remaining': '0', 'ratelimit-reset': String(reset) },
      body: fixture('error-rate-limit'),
    });
    const error = await failure(
      connector({ now: () => new Date('2024-05-01T10:00:00Z') }).publish(context(), publishRequest()),
    );
    expect(error.kind).toBe('rate_limited');
    expect(error.details.platformCode).toBe('RateLimitExceeded');
    expect(error.details.retryAfterMs).toBe(5 * 60_000);
  });

  it('maps InvalidRequest to permanent with the PDS message', async () => {
    platform.on('POST', '/xrpc/com.atproto.repo.createRecord', {
      status: 400,
      body: fixture('error-invalid-request'),
    });
    const error = await failure(connector().publish(context(), publishRequest()));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('300 graphemes');
  });

  it('treats a 503 or a lost answer on a create as an unknown outcome, and on a read as retryable', async () => {
    platform.on('POST', '/xrpc/com.atproto.repo.createRecord', {
      status: 503,
      body: { error: 'InternalServerError', message: 'down' },
    });
    expect((await failure(connector().publish(context(), publishRequest()))).kind).toBe('unknown_outcome');
    platform.on('POST', '/xrpc/com.atproto.repo.createRecord', { hang: true });
    expect((await failure(connector({ timeoutMs: 200 }).publish(context(), publishRequest()))).kind).toBe(
      'unknown_outcome',
    );
    platform.on('GET', '/xrpc/app.bsky.actor.getProfile', {
      status: 503,
      body: { error: 'InternalServerError', message: 'down' },
    });
    expect((await failure(connector().accountInfo(context()))).kind).toBe('retryable');
  });
});

describe('status, deletion and profile', () => {
  it('finds the post by its derived key, or says not_found', async () => {
    servePosts();
    const query = {
      postId: 'p',
      idempotencyKey: 'publish:p:1',
      reference: null,
      contentText: 'x',
      attemptStartedAt: '2024-05-01T10:00:00Z',
    };
    expect(await connector().checkStatus(context(), query)).toEqual({ kind: 'not_found' });
    await connector().publish(context(), publishRequest({ idempotencyKey: 'publish:p:1' }));
    const rkey = blueskyRecordKey('publish:p:1');
    expect(await connector().checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: `at://${DID}/app.bsky.feed.post/${rkey}`,
      url: `https://bsky.app/profile/alice.test/post/${rkey}`,
    });
    const lookup = platform.calls('GET', '/xrpc/com.atproto.repo.getRecord').at(-1)!;
    expect(Object.fromEntries(lookup.query)).toEqual({ repo: DID, collection: 'app.bsky.feed.post', rkey });
  });

  it('deletes a post, and says not_found when it is gone', async () => {
    servePosts();
    const published = await connector().publish(context(), publishRequest());
    platform.on('POST', '/xrpc/com.atproto.repo.deleteRecord', {
      body: { commit: { cid: POST_CID, rev: '3l3qo2vutsw2c' } },
    });
    expect(
      await connector().delete(context(), published.kind === 'published' ? published.externalId : ''),
    ).toEqual({ kind: 'deleted' });
    const [deletion] = platform.calls('POST', '/xrpc/com.atproto.repo.deleteRecord');
    expect(deletion!.json).toEqual({
      repo: DID,
      collection: 'app.bsky.feed.post',
      rkey: blueskyRecordKey(publishRequest().idempotencyKey),
    });
    expect(await connector().delete(context(), `at://${DID}/app.bsky.feed.post/3jzfcijpj2z2a`)).toEqual({
      kind: 'not_found',
    });
  });

  it('reads the profile', async () => {
    expect(await connector().accountInfo(context())).toMatchObject({
      accountExternalId: DID,
      accountHandle: 'alice.test',
    });
  });
});

describe('OAuth', () => {
  function serveAuthorizationServer() {
    const issuer = platform.baseUrl;
    platform.on('GET', `/${encodeURIComponent(DID)}`, { body: didDocument() });
    platform.on('GET', '/.well-known/oauth-protected-resource', {
      body: {
        resource: issuer,
        authorization_servers: [issuer],
        scopes_supported: [],
        bearer_methods_supported: ['header'],
      },
    });
    platform.on('GET', '/.well-known/oauth-authorization-server', {
      body: {
        issuer,
        authorization_endpoint: `${issuer}/oauth/authorize`,
        token_endpoint: `${issuer}/oauth/token`,
        pushed_authorization_request_endpoint: `${issuer}/oauth/par`,
        require_pushed_authorization_requests: true,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
        token_endpoint_auth_signing_alg_values_supported: ['ES256'],
        scopes_supported: ['atproto', 'transition:generic'],
        authorization_response_iss_parameter_supported: true,
        dpop_signing_alg_values_supported: ['ES256'],
        client_id_metadata_document_supported: true,
        protected_resources: [issuer],
      },
    });
    platform.on('POST', '/oauth/par', {
      status: 201,
      body: { request_uri: 'urn:ietf:params:oauth:request_uri:req-1', expires_in: 299 },
    });
  }

  it('pushes the authorization request with our state, PKCE challenge and DPoP, and answers the authorize URL', async () => {
    serveAuthorizationServer();
    const start = await connector().startAuthorization({
      state: 'route-state-1',
      callbackUrl: `${PUBLIC}/v1/marketing/oauth/bluesky/callback`,
      codeChallenge: 'challenge-1',
      blueskyHandle: 'alice.test',
    });
    const url = new URL(start.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${platform.baseUrl}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: `${PUBLIC}/v1/marketing/oauth/bluesky/client-metadata`,
      request_uri: 'urn:ietf:params:oauth:request_uri:req-1',
    });
    const [par] = platform.calls('POST', '/oauth/par');
    expect(typeof par!.headers.dpop).toBe('string');
    expect(Object.fromEntries(new URLSearchParams(par!.text))).toMatchObject({
      client_id: `${PUBLIC}/v1/marketing/oauth/bluesky/client-metadata`,
      redirect_uri: `${PUBLIC}/v1/marketing/oauth/bluesky/callback`,
      code_challenge: 'challenge-1',
      code_challenge_method: 'S256',
      state: 'route-state-1',
      response_type: 'code',
      scope: 'atproto transition:generic',
      login_hint: 'alice.test',
    });
    // The pending authorization (DPoP key and issuer) is stored sealed, under a hash of the state.
    const { rows } = await db.pool.query<{ key_hash: string; sealed: string }>(
      'select key_hash, sealed from bluesky_oauth_states',
    );
    expect(rows.some((r) => r.key_hash === 'route-state-1' || r.sealed.includes('"d"'))).toBe(false);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('without a handle, starts at the entryway (serviceUrl): its authorization server, no login hint', async () => {
    serveAuthorizationServer();
    const start = await connector().startAuthorization({
      state: 'route-state-entryway',
      callbackUrl: `${PUBLIC}/v1/marketing/oauth/bluesky/callback`,
      codeChallenge: 'challenge-e',
    });
    const url = new URL(start.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${platform.baseUrl}/oauth/authorize`);
    expect(url.searchParams.get('request_uri')).toBe('urn:ietf:params:oauth:request_uri:req-1');
    // No identity was resolved: the user names their account on the authorization server's own page.
    expect(platform.calls('GET', '/xrpc/com.atproto.identity.resolveHandle')).toHaveLength(0);
    const [par] = platform.calls('POST', '/oauth/par');
    const pushed = Object.fromEntries(new URLSearchParams(par!.text));
    expect(pushed).toMatchObject({
      redirect_uri: `${PUBLIC}/v1/marketing/oauth/bluesky/callback`,
      code_challenge: 'challenge-e',
      state: 'route-state-entryway',
    });
    expect(pushed).not.toHaveProperty('login_hint');
  });

  it('reports a handle that does not resolve as the caller’s input', async () => {
    const error = await failure(
      connector().startAuthorization({
        state: 's',
        callbackUrl: `${PUBLIC}/cb`,
        codeChallenge: 'c',
        blueskyHandle: 'nobody.test',
      }),
    );
    expect(error.kind).toBe('permanent');
  });

  it('reports a denied callback, and a state used twice', async () => {
    serveAuthorizationServer();
    const callbackUrl = `${PUBLIC}/v1/marketing/oauth/bluesky/callback`;
    await connector().startAuthorization({
      state: 'route-state-2',
      callbackUrl,
      codeChallenge: 'c',
      blueskyHandle: 'alice.test',
    });
    const denied = await failure(
      connector().completeAuthorization({
        params: {
          state: 'route-state-2',
          iss: platform.baseUrl,
          error: 'access_denied',
          error_description: 'Access denied',
        },
        callbackUrl,
        codeVerifier: 'v',
      }),
    );
    expect(denied.kind).toBe('permanent');
    expect(denied.details.platformCode).toBe('access_denied');
    expect(denied.message).toContain('Access denied');
    const replay = await failure(
      connector().completeAuthorization({
        params: { state: 'route-state-2', iss: platform.baseUrl, code: 'code-1' },
        callbackUrl,
        codeVerifier: 'v',
      }),
    );
    expect(replay.message).toContain('unknown or already used');
    expect(platform.calls('POST', '/oauth/token')).toHaveLength(0);
  });

  it('exchanges the code with the route’s verifier and DPoP, keeps the session, and publishes with it', async () => {
    serveAuthorizationServer();
    platform.on('POST', '/oauth/token', {
      body: {
        access_token: 'oauth-access',
        token_type: 'DPoP',
        expires_in: 3600,
        refresh_token: 'oauth-refresh',
        scope: 'atproto transition:generic',
        sub: DID,
      },
    });
    const callbackUrl = `${PUBLIC}/v1/marketing/oauth/bluesky/callback`;
    await connector().startAuthorization({
      state: 'route-state-3',
      callbackUrl,
      codeChallenge: 'c',
      blueskyHandle: 'alice.test',
    });
    const wrongIssuer = await failure(
      connector().completeAuthorization({
        params: { state: 'route-state-3', iss: 'https://elsewhere.example', code: 'x' },
        callbackUrl,
        codeVerifier: 'v',
      }),
    );
    expect(wrongIssuer.message).toContain('another issuer');

    await connector().startAuthorization({
      state: 'route-state-4',
      callbackUrl,
      codeChallenge: 'c',
      blueskyHandle: 'alice.test',
    });
    const result = await connector().completeAuthorization({
      params: { state: 'route-state-4', iss: platform.baseUrl, code: 'code-1' },
      callbackUrl,
      codeVerifier: 'verifier-1',
    });
    const [token] = platform.calls('POST', '/oauth/token');
    expect(typeof token!.headers.dpop).toBe('string');
    expect(Object.fromEntries(new URLSearchParams(token!.text))).toMatchObject({
      grant_type: 'authorization_code',
      code: 'code-1',
      code_verifier: 'verifier-1',
      redirect_uri: callbackUrl,
    });
    expect(result).toMatchObject({
      kind: 'accounts',
      accounts: [
        {
          profile: { accountExternalId: DID, accountHandle: 'alice.test' },
          tokens: {
            accessToken: 'oauth-access',
            refreshToken: 'oauth-refresh',
            extra: { did: DID, auth: 'oauth' },
          },
        },
      ],
    });
    const profileCall = platform.calls('GET', '/xrpc/app.bsky.actor.getProfile').at(-1)!;
    expect(profileCall.headers.authorization).toBe('DPoP oauth-access');
    expect(typeof profileCall.headers.dpop).toBe('string');

    servePosts();
    const oauthContext = {
      ...context(),
      tokens: result.kind === 'accounts' ? result.accounts[0]!.tokens : context().tokens,
    };
    await connector().publish(oauthContext, publishRequest());
    expect(platform.calls('POST', '/xrpc/com.atproto.repo.createRecord')[0]!.headers.authorization).toBe(
      'DPoP oauth-access',
    );
    const { rows } = await db.pool.query<{ sealed: string }>('select sealed from bluesky_oauth_sessions');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed).not.toContain('oauth-access');
  });
});

describe('SSRF: only public https servers, whatever a handle, DID or DID document names', () => {
  /** A server inside our network (loopback, another port): nothing may reach it. */
  let internal: FakePlatform;
  const MALLORY = 'did:plc:mallorymallorymallorymal';
  beforeEach(async () => {
    internal = await startFakePlatform();
    internal.on('GET', /.*/, { body: {} });
    internal.on('POST', /.*/, { body: {} });
  });
  afterEach(async () => {
    await internal.close();
  });

  const start = (blueskyHandle: string) =>
    connector().startAuthorization({
      state: 's',
      callbackUrl: `${PUBLIC}/cb`,
      codeChallenge: 'c',
      blueskyHandle,
    });

  it('a DID document naming an internal PDS: OAuth start fails without sending it a request', async () => {
    platform.on('GET', '/xrpc/com.atproto.identity.resolveHandle', { body: { did: MALLORY } });
    platform.on('GET', `/${encodeURIComponent(MALLORY)}`, {
      body: {
        ...didDocument(),
        id: MALLORY,
        alsoKnownAs: ['at://mallory.test'],
        service: [{ ...didDocument().service[0], serviceEndpoint: internal.baseUrl }],
      },
    });
    const error = await failure(start('mallory.test'));
    expect(error.kind).toBe('permanent');
    expect(internal.requests).toHaveLength(0);
  });

  it('a did:web with a port, an IP address or localhost is refused before anything is fetched', async () => {
    const port = new URL(internal.baseUrl).port;
    for (const did of [
      `did:web:localhost%3A${port}`,
      `did:web:127.0.0.1%3A${port}`,
      'did:web:localhost',
      'did:web:10.0.0.1',
      'did:web:a.test:user',
    ]) {
      const error = await failure(start(did));
      expect(error.kind, did).toBe('permanent');
    }
    expect(internal.requests).toHaveLength(0);
    expect(platform.requests).toHaveLength(0);
  });

  it('an app-password session whose DID document names an internal PDS: refused, the token sent nowhere', async () => {
    platform.on('POST', '/xrpc/com.atproto.server.createSession', {
      body: {
        accessJwt,
        refreshJwt,
        handle: 'alice.test',
        did: DID,
        didDoc: {
          ...didDocument(),
          service: [{ ...didDocument().service[0], serviceEndpoint: internal.baseUrl }],
        },
      },
    });
    const error = await failure(connector().connectWithAppPassword!('alice.test', 'abcd-efgh-ijkl-mnop'));
    expect(error.kind).toBe('permanent');
    expect(internal.requests).toHaveLength(0);
  });

  it('outside tests the PDS must be https on a public name (checked by the connector, whatever fetch it has)', async () => {
    // As in production (no allowHttp, no allow-list), with an https entryway served by the local platform.
    const entryway = 'https://entryway.example.com';
    const routed: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      return fetch(new URL(`${url.pathname}${url.search}`, platform.baseUrl), init);
    };
    const production = (pds: string) => {
      platform.on('POST', '/xrpc/com.atproto.server.createSession', {
        body: {
          accessJwt,
          refreshJwt,
          handle: 'alice.test',
          did: DID,
          didDoc: { ...didDocument(), service: [{ ...didDocument().service[0], serviceEndpoint: pds }] },
        },
      });
      return createBlueskyConnector({
        publicBaseUrl: PUBLIC,
        serviceUrl: entryway,
        fetch: routed,
        timeoutMs: 2_000,
      });
    };
    for (const pds of [
      'http://pds.example.com',
      'https://10.0.0.5',
      'https://[::1]',
      'https://localhost',
      'https://pds.example.com:8443',
      'ftp://pds.example.com',
    ]) {
      const error = await failure(
        production(pds).connectWithAppPassword!('alice.test', 'abcd-efgh-ijkl-mnop'),
      );
      expect(error.kind, pds).toBe('permanent');
      expect(error.message, pds).toContain('public https');
    }
    expect(platform.calls('GET', '/xrpc/app.bsky.actor.getProfile')).toHaveLength(0);
    const connected = await production('https://pds.example.com').connectWithAppPassword!(
      'alice.test',
      'abcd-efgh-ijkl-mnop',
    );
    expect(connected.tokens.extra).toMatchObject({ service: 'https://pds.example.com' });
    expect(platform.calls('GET', '/xrpc/app.bsky.actor.getProfile')).toHaveLength(1);
  });

  it('a call the safe fetch refused is a permanent failure, not an unknown outcome (nothing was sent)', () => {
    const refused = XRPCError.from(new UnsafeUrlError('pds.example.com resolves to a private address'));
    expect(blueskyFailure(refused, 'create')).toMatchObject({
      kind: 'permanent',
      message: 'bluesky: not sent: pds.example.com resolves to a private address',
    });
  });

  it('stored tokens naming a non-public service are refused before the call', async () => {
    const tokens = {
      ...context().tokens,
      extra: { did: DID, service: internal.baseUrl, auth: 'app_password' },
    };
    const error = await failure(connector().accountInfo({ ...context(), tokens }));
    expect(error.kind).toBe('permanent');
    expect(internal.requests).toHaveLength(0);
  });
});
