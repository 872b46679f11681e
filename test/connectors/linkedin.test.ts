// The live LinkedIn connector against a locally served LinkedIn: OAuth for profiles and pages, the Posts API
// with uploads, status checks, deletion, and how LinkedIn's failures map to ConnectorError kinds.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createLinkedInConnector,
  type LinkedInConnectorConfig,
} from '../../infra/connectors/linkedin/linkedin-connector.js';
import { toLittleText } from '../../infra/connectors/linkedin/little-text.js';
import {
  ConnectorError,
  type CallContext,
  type PlatformConnector,
  type PublishRequest,
} from '../../infra/connectors/port.js';
import { bytesMediaFile } from '../../infra/connectors/media-file.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const now = new Date('2026-01-01T00:00:00.000Z');
let fake: FakePlatform;
let connector: PlatformConnector;

function fixture(name: string): Record<string, unknown> {
  const text = readFileSync(new URL(`./fixtures/linkedin/${name}.json`, import.meta.url), 'utf8');
  return JSON.parse(text.replaceAll('UPLOAD_BASE', fake.baseUrl)) as Record<string, unknown>;
}

function make(overrides: Partial<LinkedInConnectorConfig> = {}): PlatformConnector {
  return createLinkedInConnector({
    clientId: 'li-client',
    clientSecret: 'li-secret-value',
    apiVersion: '202601',
    apiBaseUrl: fake.baseUrl,
    authBaseUrl: `${fake.baseUrl}/oauth/v2`,
    now: () => now,
    ...overrides,
  });
}

const media: Record<string, Uint8Array> = {
  'img-1': new Uint8Array([1, 2, 3]),
  'img-2': new Uint8Array([4, 5]),
  'doc-1': new Uint8Array([37, 80, 68, 70]),
  'vid-1': new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
};

function context(accountExternalId = 'urn:li:person:782bbtaQ'): CallContext {
  return {
    account: {
      id: 'acc-1',
      orgId: 'org-1',
      platform: 'linkedin',
      accountExternalId,
      accountHandle: null,
      xSubscription: null,
    },
    tokens: { accessToken: 'li-access', refreshToken: 'li-refresh', expiresAt: null, scopes: [] },
    fetchMedia: async (item) => bytesMediaFile(media[item.assetId]!, item.contentType, item.assetId),
  };
}

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postId: 'post-1',
    idempotencyKey: 'publish:post-1:1',
    groupTitle: 'Launch',
    contentText: 'Launch day (finally)',
    media: null,
    platformPayload: null,
    attemptStartedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

function expectRestHeaders(headers: Record<string, unknown>) {
  expect(headers['authorization']).toBe('Bearer li-access');
  expect(headers['linkedin-version']).toBe('202601');
  expect(headers['x-restli-protocol-version']).toBe('2.0.0');
}

function acceptPost(id = 'urn:li:share:7000000000000000002') {
  fake.on('POST', '/rest/posts', { status: 201, headers: { 'x-restli-id': id } });
}

beforeEach(async () => {
  fake = await startFakePlatform();
  connector = make();
});
afterEach(async () => {
  await fake.close();
});

describe('little text', () => {
  it('escapes every reserved character and keeps hashtags as hashtag templates', () => {
    expect(toLittleText('a (b) [c] {d} <e> @f *g* _h_ ~i~ | \\ #tag x#y')).toBe(
      'a \\(b\\) \\[c\\] \\{d\\} \\<e\\> \\@f \\*g\\* \\_h\\_ \\~i\\~ \\| \\\\ {hashtag|\\#|tag} x\\#y',
    );
    expect(toLittleText('#first_one')).toBe('{hashtag|\\#|first\\_one}');
  });
});

describe('configuration and OAuth', () => {
  it('names the missing environment variables', () => {
    expect(createLinkedInConnector({}).missingConfiguration()).toEqual([
      'LINKEDIN_CLIENT_ID',
      'LINKEDIN_CLIENT_SECRET',
    ]);
    expect(connector.missingConfiguration()).toEqual([]);
  });

  it('asks for member scopes for a profile and organization scopes for pages, without PKCE', async () => {
    const profile = new URL(
      (
        await connector.startAuthorization({
          state: 's1',
          callbackUrl: 'https://app.test/cb',
          codeChallenge: 'ch',
        })
      ).authorizationUrl,
    );
    expect(profile.pathname).toBe('/oauth/v2/authorization');
    expect(Object.fromEntries(profile.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'li-client',
      redirect_uri: 'https://app.test/cb',
      state: 's1',
      scope: 'openid profile w_member_social',
    });
    const page = new URL(
      (
        await connector.startAuthorization({
          state: 's2',
          callbackUrl: 'https://app.test/pages',
          codeChallenge: 'ch',
          linkedinTarget: 'page',
        })
      ).authorizationUrl,
    );
    expect(page.searchParams.get('scope')).toBe(
      'r_organization_social w_organization_social rw_organization_admin',
    );
  });

  it('exchanges the code and connects the member as urn:li:person', async () => {
    fake.on('POST', '/oauth/v2/accessToken', { body: fixture('token') });
    fake.on('GET', '/v2/userinfo', { body: fixture('userinfo') });
    const result = await connector.completeAuthorization({
      params: { code: 'the-code', state: 's1' },
      callbackUrl: 'https://app.test/cb',
      codeVerifier: 'v',
    });
    const [exchange] = fake.calls('POST', '/oauth/v2/accessToken');
    expect(exchange!.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(exchange!.text))).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: 'https://app.test/cb',
      client_id: 'li-client',
      client_secret: 'li-secret-value',
    });
    expect(fake.calls('GET', '/v2/userinfo')[0]!.headers['authorization']).toBe(
      'Bearer AQV-live-access-token',
    );
    expect(result).toEqual({
      kind: 'accounts',
      accounts: [
        {
          profile: {
            accountExternalId: 'urn:li:person:782bbtaQ',
            accountName: 'John Doe',
            accountHandle: null,
            profileImageUrl:
              'https://media.licdn.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/',
            profileUrl: null,
            accountBio: null,
          },
          tokens: {
            accessToken: 'AQV-live-access-token',
            refreshToken: 'AQX-live-refresh-token',
            expiresAt: '2026-03-02T00:00:00.000Z',
            refreshTokenExpiresAt: '2027-01-01T00:00:00.000Z',
            scopes: ['openid', 'profile', 'w_member_social'],
            extra: { authorUrn: 'urn:li:person:782bbtaQ' },
          },
        },
      ],
    });
  });

  it('a refused code exchange is permanent and does not echo the client secret', async () => {
    fake.on('POST', '/oauth/v2/accessToken', {
      status: 400,
      body: {
        error: 'invalid_request',
        error_description:
          'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code',
      },
    });
    const error = await failure(
      connector.completeAuthorization({
        params: { code: 'bad' },
        callbackUrl: 'https://app.test/cb',
        codeVerifier: 'v',
      }),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('does not match authorization code');
    expect(error.message).not.toContain('li-secret-value');
  });

  it('for pages, offers the organizations the member administers, then connects the chosen ones', async () => {
    fake.on('POST', '/oauth/v2/accessToken', { body: fixture('token') });
    fake.on('GET', '/rest/organizationAcls', { body: fixture('organization-acls') });
    fake.on('GET', '/rest/organizations', { body: fixture('organizations') });
    const result = await connector.completeAuthorization({
      params: { code: 'c', state: 's' },
      callbackUrl: 'https://app.test/pages',
      codeVerifier: 'v',
      linkedinTarget: 'page',
    });
    const [acls] = fake.calls('GET', '/rest/organizationAcls');
    expect(Object.fromEntries(acls!.query)).toEqual({
      q: 'roleAssignee',
      role: 'ADMINISTRATOR',
      state: 'APPROVED',
      count: '100',
    });
    expect(acls!.headers['linkedin-version']).toBe('202601');
    expect(acls!.headers['x-restli-protocol-version']).toBe('2.0.0');
    expect(fake.calls('GET', '/rest/organizations')[0]!.query.get('ids')).toBe('List(2414183,5515715)');
    expect(fake.calls('GET', '/v2/userinfo')).toHaveLength(0);
    if (result.kind !== 'choice') throw new Error('expected a choice');
    expect(result.choice.options).toEqual([
      { id: '2414183', name: 'Devtestco', vanityName: 'devtestco' },
      { id: '5515715', name: 'Example Widgets', vanityName: null },
    ]);
    expect(result.choice.tokens.accessToken).toBe('AQV-live-access-token');

    const accounts = await connector.connectChoice!(result.choice.tokens, ['2414183']);
    expect(fake.calls('GET', '/rest/organizations')[1]!.query.get('ids')).toBe('List(2414183)');
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.profile).toEqual({
      accountExternalId: 'urn:li:organization:2414183',
      accountName: 'Devtestco',
      accountHandle: 'devtestco',
      profileImageUrl: null,
      profileUrl: 'https://www.linkedin.com/company/devtestco/',
      accountBio: null,
    });
    expect(accounts[0]!.tokens.extra).toEqual({ authorUrn: 'urn:li:organization:2414183' });

    const refused = await failure(connector.connectChoice!(result.choice.tokens, ['999']));
    expect(refused.kind).toBe('permanent');
    expect(refused.message).toContain('999');
  });

  it('refreshes with the refresh token; a refused refresh is auth; no refresh token is auth without a call', async () => {
    fake.on('POST', '/oauth/v2/accessToken', {
      body: { access_token: 'new-access', expires_in: 3600, scope: 'openid,profile,w_member_social' },
    });
    const account = context().account;
    const tokens = { ...context().tokens, extra: { authorUrn: 'urn:li:person:782bbtaQ' } };
    const renewed = await connector.refresh(account, tokens);
    expect(
      Object.fromEntries(new URLSearchParams(fake.calls('POST', '/oauth/v2/accessToken')[0]!.text)),
    ).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'li-refresh',
      client_id: 'li-client',
      client_secret: 'li-secret-value',
    });
    expect(renewed).toMatchObject({
      accessToken: 'new-access',
      refreshToken: 'li-refresh',
      expiresAt: '2026-01-01T01:00:00.000Z',
      extra: { authorUrn: 'urn:li:person:782bbtaQ' },
    });

    fake.on('POST', '/oauth/v2/accessToken', {
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description:
          'The provided authorization grant or refresh token is invalid, expired or revoked.',
      },
    });
    expect((await failure(connector.refresh(account, tokens))).kind).toBe('auth');

    const before = fake.requests.length;
    const missing = await failure(connector.refresh(account, { ...tokens, refreshToken: null }));
    expect(missing.kind).toBe('auth');
    expect(missing.message).toContain('reconnect');
    expect(fake.requests.length).toBe(before);
  });
});

describe('publishing', () => {
  it('creates a text post with the Posts API headers and body and reads the id from x-restli-id', async () => {
    acceptPost();
    const outcome = await connector.publish(
      context(),
      request({ contentText: 'Launch day (finally) #news' }),
    );
    const [post] = fake.calls('POST', '/rest/posts');
    expectRestHeaders(post!.headers);
    expect(post!.headers['content-type']).toContain('application/json');
    expect(post!.json).toEqual({
      author: 'urn:li:person:782bbtaQ',
      commentary: 'Launch day \\(finally\\) {hashtag|\\#|news}',
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
    });
    expect(outcome).toEqual({
      kind: 'published',
      externalId: 'urn:li:share:7000000000000000002',
      url: 'https://www.linkedin.com/feed/update/urn:li:share:7000000000000000002',
    });
  });

  it('posts as the organization for a page account', async () => {
    acceptPost();
    await connector.publish(context('urn:li:organization:2414183'), request());
    expect((fake.calls('POST', '/rest/posts')[0]!.json as { author: string }).author).toBe(
      'urn:li:organization:2414183',
    );
  });

  it('uploads an image (initialize, PUT the bytes) and attaches its urn with the alt text', async () => {
    fake.on('POST', '/rest/images', { body: fixture('images-initialize') });
    fake.on('PUT', '/upload/image/1', { status: 201 });
    acceptPost();
    await connector.publish(
      context(),
      request({
        media: {
          kind: 'image',
          assetId: 'img-1',
          url: 'https://cdn.test/1.png',
          contentType: 'image/png',
          sizeBytes: 3,
          altText: 'A chart',
        },
      }),
    );
    const [init] = fake.calls('POST', '/rest/images');
    expect(init!.query.get('action')).toBe('initializeUpload');
    expectRestHeaders(init!.headers);
    expect(init!.json).toEqual({ initializeUploadRequest: { owner: 'urn:li:person:782bbtaQ' } });
    const [put] = fake.calls('PUT', '/upload/image/1');
    expect([...put!.raw]).toEqual([1, 2, 3]);
    expect(put!.headers['content-type']).toBe('image/png');
    expect((fake.calls('POST', '/rest/posts')[0]!.json as { content: unknown }).content).toEqual({
      media: { id: 'urn:li:image:C4E10AQFoyyAjHPMQuQ', altText: 'A chart' },
    });
  });

  it('does not send the member token to an upload host outside LinkedIn', async () => {
    fake.on('POST', '/rest/images', {
      body: {
        value: {
          uploadUrl: fake.baseUrl.replace('127.0.0.1', 'localhost') + '/upload/image/1',
          image: 'urn:li:image:1',
        },
      },
    });
    fake.on('PUT', '/upload/image/1', { status: 201 });
    acceptPost();
    await connector.publish(
      context(),
      request({
        media: {
          kind: 'image',
          assetId: 'img-1',
          url: 'https://cdn.test/1.png',
          contentType: 'image/png',
          sizeBytes: 3,
        },
      }),
    );
    expect(fake.calls('PUT', '/upload/image/1')[0]!.headers['authorization']).toBeUndefined();
  });

  it('sends several images as multiImage', async () => {
    let n = 0;
    fake.on('POST', '/rest/images', () => {
      n += 1;
      return {
        body: { value: { uploadUrl: `${fake.baseUrl}/upload/image/${n}`, image: `urn:li:image:${n}` } },
      };
    });
    fake.on('PUT', /^\/upload\/image\/\d$/, { status: 201 });
    acceptPost();
    const image = (assetId: string) => ({
      assetId,
      url: `https://cdn.test/${assetId}`,
      contentType: 'image/jpeg',
      sizeBytes: 2,
    });
    await connector.publish(
      context(),
      request({ media: { kind: 'images', images: [image('img-1'), { ...image('img-2'), altText: 'two' }] } }),
    );
    expect([...fake.calls('PUT', '/upload/image/2')[0]!.raw]).toEqual([4, 5]);
    expect((fake.calls('POST', '/rest/posts')[0]!.json as { content: unknown }).content).toEqual({
      multiImage: { images: [{ id: 'urn:li:image:1' }, { id: 'urn:li:image:2', altText: 'two' }] },
    });
  });

  it('uploads a PDF through the Documents API and attaches it with its title', async () => {
    fake.on('POST', '/rest/documents', {
      body: {
        value: {
          uploadUrlExpiresAt: 1,
          uploadUrl: `${fake.baseUrl}/upload/doc/1`,
          document: 'urn:li:document:D1',
        },
      },
    });
    fake.on('PUT', '/upload/doc/1', { status: 201 });
    acceptPost();
    await connector.publish(
      context(),
      request({
        media: {
          kind: 'document',
          assetId: 'doc-1',
          url: 'https://cdn.test/d.pdf',
          contentType: 'application/pdf',
          sizeBytes: 4,
          title: 'Q1 deck',
        },
      }),
    );
    expect(fake.calls('POST', '/rest/documents')[0]!.query.get('action')).toBe('initializeUpload');
    expect([...fake.calls('PUT', '/upload/doc/1')[0]!.raw]).toEqual([37, 80, 68, 70]);
    expect((fake.calls('POST', '/rest/posts')[0]!.json as { content: unknown }).content).toEqual({
      media: { id: 'urn:li:document:D1', title: 'Q1 deck' },
    });
  });

  it('uploads a video in parts, finalizes with the ETags, and stays pending until the video is available', async () => {
    fake.on('POST', '/rest/videos', (req) =>
      req.query.get('action') === 'initializeUpload'
        ? { body: fixture('videos-initialize') }
        : { status: 200, body: {} },
    );
    fake.on('PUT', '/upload/video/part-1', { status: 200, headers: { etag: '"etag-1"' } });
    fake.on('PUT', '/upload/video/part-2', { status: 200, headers: { etag: '"etag-2"' } });
    acceptPost('urn:li:ugcPost:7100');
    let videoStatus = 'PROCESSING';
    fake.on('GET', `/rest/videos/${encodeURIComponent('urn:li:video:C5F10AQGKQg_6y2a4sQ')}`, () => ({
      body: { id: 'urn:li:video:C5F10AQGKQg_6y2a4sQ', status: videoStatus },
    }));
    fake.on('GET', `/rest/posts/${encodeURIComponent('urn:li:ugcPost:7100')}`, {
      body: {
        id: 'urn:li:ugcPost:7100',
        lifecycleState: 'PUBLISHED',
        content: { media: { id: 'urn:li:video:C5F10AQGKQg_6y2a4sQ' } },
      },
    });
    const video = {
      kind: 'video' as const,
      assetId: 'vid-1',
      url: 'https://cdn.test/v.mp4',
      contentType: 'video/mp4',
      sizeBytes: 10,
      durationSeconds: 3,
      width: 1080,
      height: 1920,
    };
    const outcome = await connector.publish(context(), request({ media: video }));

    const [init, finalize] = fake.calls('POST', '/rest/videos');
    expect(init!.json).toEqual({
      initializeUploadRequest: {
        owner: 'urn:li:person:782bbtaQ',
        fileSizeBytes: 10,
        uploadCaptions: false,
        uploadThumbnail: false,
      },
    });
    expect([...fake.calls('PUT', '/upload/video/part-1')[0]!.raw]).toEqual([0, 1, 2, 3, 4, 5]);
    expect([...fake.calls('PUT', '/upload/video/part-2')[0]!.raw]).toEqual([6, 7, 8, 9]);
    expect(finalize!.query.get('action')).toBe('finalizeUpload');
    expect(finalize!.json).toEqual({
      finalizeUploadRequest: {
        video: 'urn:li:video:C5F10AQGKQg_6y2a4sQ',
        uploadToken: 'upload-token-1',
        uploadedPartIds: ['"etag-1"', '"etag-2"'],
      },
    });
    expect((fake.calls('POST', '/rest/posts')[0]!.json as { content: unknown }).content).toEqual({
      media: { id: 'urn:li:video:C5F10AQGKQg_6y2a4sQ' },
    });
    expect(outcome).toMatchObject({ kind: 'pending', reference: 'urn:li:ugcPost:7100' });

    const query = {
      postId: 'post-1',
      idempotencyKey: 'k',
      reference: 'urn:li:ugcPost:7100',
      contentText: 'x',
      attemptStartedAt: now.toISOString(),
    };
    expect(await connector.checkStatus(context(), query)).toMatchObject({ kind: 'pending' });
    videoStatus = 'AVAILABLE';
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: 'urn:li:ugcPost:7100',
      url: 'https://www.linkedin.com/feed/update/urn:li:ugcPost:7100',
    });
    videoStatus = 'PROCESSING_FAILED';
    expect(await connector.checkStatus(context(), query)).toMatchObject({ kind: 'failed' });
  });
});

describe('status checks and deletion', () => {
  const query = {
    postId: 'post-1',
    idempotencyKey: 'k',
    reference: null,
    contentText: 'Launch day (finally)',
    attemptStartedAt: '2026-01-01T00:00:00.000Z',
  };

  it("finds the author's post with the same commentary made since the attempt started", async () => {
    fake.on('GET', '/rest/posts', { body: fixture('posts-by-author') });
    expect(await connector.checkStatus(context(), query)).toEqual({
      kind: 'published',
      externalId: 'urn:li:share:7000000000000000002',
      url: 'https://www.linkedin.com/feed/update/urn:li:share:7000000000000000002',
    });
    const [finder] = fake.calls('GET', '/rest/posts');
    expect(finder!.query.get('author')).toBe('urn:li:person:782bbtaQ');
    expect(finder!.query.get('q')).toBe('author');
    expect(finder!.headers['x-restli-method']).toBe('FINDER');
    expectRestHeaders(finder!.headers);
  });

  it('answers not_found for other text or posts older than the attempt', async () => {
    fake.on('GET', '/rest/posts', { body: fixture('posts-by-author') });
    expect(await connector.checkStatus(context(), { ...query, contentText: 'Something else' })).toEqual({
      kind: 'not_found',
    });
    expect(
      await connector.checkStatus(context(), { ...query, attemptStartedAt: '2026-01-01T00:05:00.000Z' }),
    ).toEqual({
      kind: 'not_found',
    });
  });

  it('a pending urn LinkedIn no longer knows is not_found', async () => {
    expect(await connector.checkStatus(context(), { ...query, reference: 'urn:li:share:1' })).toEqual({
      kind: 'not_found',
    });
  });

  it('deletes by encoded urn with the Rest.li DELETE method; a missing post is not_found', async () => {
    const path = `/rest/posts/${encodeURIComponent('urn:li:share:7')}`;
    fake.on('DELETE', path, { status: 204 });
    expect(await connector.delete(context(), 'urn:li:share:7')).toEqual({ kind: 'deleted' });
    const [call] = fake.calls('DELETE', path);
    expect(call!.path).toBe('/rest/posts/urn%3Ali%3Ashare%3A7');
    expect(call!.headers['x-restli-method']).toBe('DELETE');
    expectRestHeaders(call!.headers);
    fake.on('DELETE', path, { status: 404, body: { status: 404, message: 'Not Found' } });
    expect(await connector.delete(context(), 'urn:li:share:7')).toEqual({ kind: 'not_found' });
  });

  it('reads account info for a member and for an organization', async () => {
    fake.on('GET', '/v2/userinfo', { body: fixture('userinfo') });
    fake.on('GET', '/rest/organizations/2414183', {
      body: { id: 2414183, localizedName: 'Devtestco', vanityName: 'devtestco' },
    });
    expect((await connector.accountInfo(context())).accountExternalId).toBe('urn:li:person:782bbtaQ');
    expect(await connector.accountInfo(context('urn:li:organization:2414183'))).toMatchObject({
      accountName: 'Devtestco',
      profileUrl: 'https://www.linkedin.com/company/devtestco/',
    });
  });
});

describe('failures', () => {
  it('maps 401, 403, 429 and 500 on create, and a lost answer', async () => {
    fake.on('POST', '/rest/posts', {
      status: 401,
      body: {
        status: 401,
        serviceErrorCode: 65600,
        code: 'INVALID_ACCESS_TOKEN',
        message: 'Invalid access token',
      },
    });
    const auth = await failure(connector.publish(context(), request()));
    expect(auth.kind).toBe('auth');
    expect(auth.message).toContain('Invalid access token');

    fake.on('POST', '/rest/posts', {
      status: 403,
      body: {
        status: 403,
        serviceErrorCode: 100,
        code: 'ACCESS_DENIED',
        message: 'Not enough permissions to access: partnerApiPostsExternal.CREATE.20260101',
      },
    });
    const denied = await failure(connector.publish(context(), request()));
    expect(denied.kind).toBe('permanent');
    expect(denied.details.status).toBe(403);

    fake.on('POST', '/rest/posts', {
      status: 422,
      body: { status: 422, message: 'Content is a duplicate of urn:li:share:1' },
    });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('permanent');

    fake.on('POST', '/rest/posts', {
      status: 429,
      headers: { 'retry-after': '120' },
      body: {
        status: 429,
        message: 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
      },
    });
    const limited = await failure(connector.publish(context(), request()));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.retryAfterMs).toBe(120_000);

    fake.on('POST', '/rest/posts', { status: 500, body: { status: 500, message: 'Internal Server Error' } });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('unknown_outcome');

    fake.on('POST', '/rest/posts', { hang: true });
    const lost = await failure(make({ timeoutMs: 100 }).publish(context(), request()));
    expect(lost.kind).toBe('unknown_outcome');
    expect(lost.message).toContain('timed out');
  });

  it('a 500 or a lost answer on a read is retryable; a 404 on a read is permanent', async () => {
    fake.on('GET', '/rest/posts', { status: 503, body: { message: 'Service Unavailable' } });
    const query = {
      postId: 'p',
      idempotencyKey: 'k',
      reference: null,
      contentText: 'x',
      attemptStartedAt: now.toISOString(),
    };
    expect((await failure(connector.checkStatus(context(), query))).kind).toBe('retryable');
    fake.on('GET', '/rest/posts', { hang: true });
    expect((await failure(make({ timeoutMs: 100 }).checkStatus(context(), query))).kind).toBe('retryable');
    fake.on('GET', '/v2/userinfo', { status: 400, body: { message: 'Bad request' } });
    expect((await failure(connector.accountInfo(context()))).kind).toBe('permanent');
  });

  it('an accepted post without an id has an unknown outcome (checkStatus finds it)', async () => {
    fake.on('POST', '/rest/posts', { status: 201 });
    expect((await failure(connector.publish(context(), request()))).kind).toBe('unknown_outcome');
  });

  it('refuses to start OAuth when not configured', async () => {
    const error = await failure(
      createLinkedInConnector({ apiBaseUrl: fake.baseUrl }).startAuthorization({
        state: 's',
        callbackUrl: 'https://a.test',
        codeChallenge: 'c',
      }),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('LINKEDIN_CLIENT_ID');
  });
});
