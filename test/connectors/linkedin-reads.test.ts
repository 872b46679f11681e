// The live LinkedIn connector's post read against a locally served LinkedIn API (issue 31): the Posts API answer,
// its social actions and the page read into the post shape, little text as plain text, a missing or unpublished
// post as null, a refused read naming the permission it needs; and the links that name a post.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLinkedInConnector } from '../../infra/connectors/linkedin/linkedin-connector.js';
import { fromLittleText, toLittleText } from '../../infra/connectors/linkedin/little-text.js';
import { linkedinPostUrnsOf, linkedinVanityOf } from '../../infra/connectors/linkedin-reads.js';
import { ConnectorError } from '../../infra/connectors/port.js';
import { callContext, fixtureReader, mediaByUrlOnly } from './support/connector-fixtures.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';

const fixture = fixtureReader('linkedin');
const tokens = { accessToken: 'access-secret', refreshToken: null, expiresAt: null, scopes: [] };
const urn = 'urn:li:share:7150000000000000001';

let platform: FakePlatform;
beforeEach(async () => {
  platform = await startFakePlatform();
});
afterEach(async () => platform.close());

const connector = () =>
  createLinkedInConnector({
    clientId: 'c',
    clientSecret: 's',
    apiBaseUrl: platform.baseUrl,
    timeoutMs: 2_000,
  });
const context = () =>
  callContext({
    platform: 'linkedin',
    accountExternalId: 'urn:li:person:782bbtaQ',
    accountHandle: null,
    tokens,
    fetchMedia: mediaByUrlOnly('linkedin'),
  });

describe('reading a post by URN', () => {
  it('asks GET /rest/posts/{urn} with the version header; reads text, author page, counts and media', async () => {
    platform.on('GET', /^\/rest\/posts\//, {
      body: {
        id: urn,
        author: 'urn:li:organization:2414183',
        commentary: 'Hello \\(world\\) {hashtag|\\#|api} @[Jane Doe](urn:li:person:abc)',
        publishedAt: 1767225660000,
        lifecycleState: 'PUBLISHED',
        content: { media: { id: 'urn:li:image:C4E10AQ', altText: 'A chart' } },
      },
    });
    platform.on('GET', /^\/rest\/socialActions\//, { body: fixture('social-actions') });
    platform.on('GET', '/rest/organizations/2414183', {
      body: { id: 2414183, localizedName: 'Devtestco', vanityName: 'devtestco' },
    });
    const post = await connector().readLinkedInPost!(context(), { urn });
    const [call] = platform.calls('GET', /^\/rest\/posts\//);
    expect(decodeURIComponent(call!.path)).toBe(`/rest/posts/${urn}`);
    expect(call!.headers.authorization).toBe('Bearer access-secret');
    expect(call!.headers['linkedin-version']).toMatch(/^\d{6}$/);
    expect(post).toEqual({
      urn,
      url: `https://www.linkedin.com/feed/update/${urn}`,
      text: 'Hello (world) #api Jane Doe',
      authorUrn: 'urn:li:organization:2414183',
      authorName: 'Devtestco',
      authorHandle: 'devtestco',
      authorProfileUrl: 'https://www.linkedin.com/company/devtestco/',
      publishedAt: new Date(1767225660000).toISOString(),
      media: [{ type: 'image', url: `https://www.linkedin.com/feed/update/${urn}`, alt: 'A chart' }],
      likes: 37,
      comments: 6,
    });
  });

  it('a member’s post: no name; counts refused are left unknown', async () => {
    platform.on('GET', /^\/rest\/posts\//, {
      body: { id: urn, author: 'urn:li:person:782bbtaQ', commentary: 'Plain', lifecycleState: 'PUBLISHED' },
    });
    platform.on('GET', /^\/rest\/socialActions\//, { status: 403, body: { status: 403, message: 'no' } });
    const post = await connector().readLinkedInPost!(context(), { urn });
    expect(post).toMatchObject({
      text: 'Plain',
      authorName: null,
      likes: null,
      comments: null,
      publishedAt: null,
    });
    expect(platform.calls('GET', /organizations/)).toHaveLength(0);
  });

  it('missing (404) or not published: null', async () => {
    platform.on('GET', /^\/rest\/posts\/.*0001$/, { status: 404, body: { status: 404 } });
    expect(await connector().readLinkedInPost!(context(), { urn })).toBeNull();
    platform.on('GET', /^\/rest\/posts\/.*0002$/, {
      body: { id: 'x', lifecycleState: 'DRAFT', commentary: 'd' },
    });
    expect(
      await connector().readLinkedInPost!(context(), { urn: 'urn:li:share:7150000000000000002' }),
    ).toBeNull();
  });

  it('refused (403): a permanent error naming r_member_social', async () => {
    platform.on('GET', /^\/rest\/posts\//, {
      status: 403,
      body: { status: 403, message: 'Not enough permissions' },
    });
    const error = await connector().readLinkedInPost!(context(), { urn }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).kind).toBe('permanent');
    expect((error as ConnectorError).message).toContain('r_member_social');
  });
});

describe('links and little text', () => {
  it('names the URNs to try for each kind of post link; nothing for other links', () => {
    expect(
      linkedinPostUrnsOf('https://www.linkedin.com/feed/update/urn:li:share:7150000000000000001/'),
    ).toEqual(['urn:li:share:7150000000000000001']);
    expect(
      linkedinPostUrnsOf('https://www.linkedin.com/feed/update/urn%3Ali%3AugcPost%3A7150000000000000001'),
    ).toEqual(['urn:li:ugcPost:7150000000000000001']);
    expect(
      linkedinPostUrnsOf('https://www.linkedin.com/feed/update/urn:li:activity:7150000000000000001'),
    ).toEqual(['urn:li:share:7150000000000000001', 'urn:li:ugcPost:7150000000000000001']);
    const post = 'https://www.linkedin.com/posts/jane-doe_onboarding-activity-7150000000000000001-AbCd?utm=x';
    expect(linkedinPostUrnsOf(post)).toEqual([
      'urn:li:share:7150000000000000001',
      'urn:li:ugcPost:7150000000000000001',
    ]);
    expect(linkedinVanityOf(post)).toBe('jane-doe');
    expect(linkedinPostUrnsOf('https://www.linkedin.com/in/jane-doe/')).toBeNull();
    expect(
      linkedinPostUrnsOf('https://evil.example/linkedin.com/feed/update/urn:li:share:7150000000000000001'),
    ).toBeNull();
  });

  it('little text reads back as the text that was written', () => {
    for (const text of ['Plain', 'Launch day (finally) #shipit @ home_*~', 'a\\b [x] {y} <z> |'])
      expect(fromLittleText(toLittleText(text))).toBe(text);
  });
});
