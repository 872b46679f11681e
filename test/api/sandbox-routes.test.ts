// The sandbox's authorize page as a user meets it: a grant redirects to our callback with a code the connector
// exchanges, a denial redirects with an error, a foreign redirect_uri is refused, live-mode platforms do not answer.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import { startTestService, type TestService } from '../support/runtime.js';

const BASE = 'http://localhost:3000';
const verifier = 'verifier-0123456789-0123456789-0123456789-abcdef';
const challenge = createHash('sha256').update(verifier).digest('base64url');
const callback = (platform: string) => `${BASE}/v1/marketing/oauth/${platform}/callback`;

async function codeCount(service: TestService): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from sandbox_authorization_codes`.execute(
    service.runtime.database.db,
  );
  return Number(rows[0]!.n);
}

/** The authorize URL the connector hands out, as a path the app can be asked for. */
async function authorizePath(service: TestService, platform: Platform, extra: Record<string, string> = {}) {
  const start = await service.runtime.connectors.get(platform).startAuthorization({
    state: `state-${platform}`,
    callbackUrl: callback(platform),
    codeChallenge: challenge,
  });
  const url = new URL(start.authorizationUrl);
  expect(url.origin).toBe(BASE);
  for (const [key, value] of Object.entries(extra)) url.searchParams.set(key, value);
  return `${url.pathname}${url.search}`;
}

describe('sandbox routes (PLATFORM_MODE=sandbox)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ background: false });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('grants: 302 to our callback with a code and the state, which the connector exchanges for an account', async () => {
    const response = await service.request('GET', await authorizePath(service, 'x'));
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(callback('x'));
    expect(location.searchParams.get('state')).toBe('state-x');
    const code = location.searchParams.get('code');
    expect(code).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const result = await service.runtime.connectors.get('x').completeAuthorization({
      params: Object.fromEntries(location.searchParams),
      callbackUrl: callback('x'),
      codeVerifier: verifier,
    });
    expect(result).toMatchObject({
      kind: 'accounts',
      accounts: [{ profile: { accountHandle: 'sandbox_x' } }],
    });
  });

  it('account=<name> picks which sandbox account grants, so several can connect', async () => {
    const handles: string[] = [];
    const ids = new Set<string>();
    for (const account of ['alice', 'bob']) {
      const response = await service.request('GET', await authorizePath(service, 'threads', { account }));
      const location = new URL(response.headers.get('location')!);
      const result = await service.runtime.connectors.get('threads').completeAuthorization({
        params: Object.fromEntries(location.searchParams),
        callbackUrl: callback('threads'),
        codeVerifier: verifier,
      });
      if (result.kind !== 'accounts') throw new Error('expected accounts');
      handles.push(result.accounts[0]!.profile.accountHandle!);
      ids.add(result.accounts[0]!.profile.accountExternalId);
      const page = await service.request('GET', new URL(result.accounts[0]!.profile.profileUrl!).pathname);
      expect(page.status).toBe(200);
      expect(await page.json()).toMatchObject({ data: { platform: 'threads', accountHandle: account } });
    }
    expect(handles).toEqual(['alice', 'bob']);
    expect(ids.size).toBe(2);
  });

  it('deny=1: 302 to our callback with access_denied and the state, and no code', async () => {
    const before = await codeCount(service);
    const response = await service.request('GET', await authorizePath(service, 'linkedin', { deny: '1' }));
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(callback('linkedin'));
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'access_denied',
      error_description: expect.any(String) as string,
      state: 'state-linkedin',
    });
    expect(await codeCount(service)).toBe(before);
  });

  it('refuses a redirect_uri that is not our callback (400, no redirect, no code)', async () => {
    const before = await codeCount(service);
    for (const foreign of [
      'https://evil.example/v1/marketing/oauth/x/callback',
      callback('threads'),
      `${callback('x')}?next=https://evil.example`,
    ]) {
      const response = await service.request(
        'GET',
        await authorizePath(service, 'x', { redirect_uri: foreign }),
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      const body = (await response.json()) as { error: string; details: Array<{ path: string }> };
      expect(body.error).toEqual(expect.any(String));
      expect(body.details.map((d) => d.path)).toEqual(['query.redirect_uri']);
    }
    expect(await codeCount(service)).toBe(before);
  });

  it('LinkedIn may redirect to the pages callback; missing PKCE or a bad account name is a 400', async () => {
    const pages = `${BASE}/v1/marketing/oauth/linkedin-pages/callback`;
    const ok = await service.request(
      'GET',
      await authorizePath(service, 'linkedin', { redirect_uri: pages }),
    );
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')!.startsWith(`${pages}?code=`)).toBe(true);

    const before = await codeCount(service);
    const noChallenge = new URL(`${BASE}${await authorizePath(service, 'x')}`);
    noChallenge.searchParams.delete('code_challenge');
    const plain = await service.request('GET', `${noChallenge.pathname}${noChallenge.search}`);
    expect(plain.status).toBe(400);
    const badAccount = await service.request(
      'GET',
      await authorizePath(service, 'x', { account: '../../x' }),
    );
    expect(badAccount.status).toBe(400);
    expect(await codeCount(service)).toBe(before);
  });

  it('answers 404 for something that is not a platform', async () => {
    const response = await service.request('GET', '/v1/sandbox/oauth/myspace/authorize?state=s');
    expect(response.status).toBe(404);
  });

  it('serves a published post at its URL until it is deleted', async () => {
    const connector = service.runtime.connectors.get('reddit');
    const response = await service.request('GET', await authorizePath(service, 'reddit'));
    const location = new URL(response.headers.get('location')!);
    const result = await connector.completeAuthorization({
      params: Object.fromEntries(location.searchParams),
      callbackUrl: callback('reddit'),
      codeVerifier: verifier,
    });
    if (result.kind !== 'accounts') throw new Error('expected accounts');
    const account = result.accounts[0]!;
    const context = {
      account: {
        id: 'a',
        orgId: 'o',
        platform: 'reddit' as const,
        accountExternalId: account.profile.accountExternalId,
        accountHandle: account.profile.accountHandle,
        xSubscription: null,
      },
      tokens: account.tokens,
      fetchMedia: () => Promise.reject(new Error('no media')),
    };
    const outcome = await connector.publish(context, {
      postId: 'route-post',
      idempotencyKey: 'publish:route-post:1',
      groupTitle: 'Title',
      contentText: 'Posted to the sandbox',
      media: null,
      platformPayload: null,
      attemptStartedAt: new Date().toISOString(),
    });
    if (outcome.kind !== 'published') throw new Error('expected published');
    const page = await service.request('GET', new URL(outcome.url).pathname);
    expect(page.status).toBe(200);
    expect(await page.json()).toMatchObject({
      data: {
        platform: 'reddit',
        externalId: outcome.externalId,
        text: 'Posted to the sandbox',
        status: 'published',
      },
    });
    await connector.delete(context, outcome.externalId);
    expect((await service.request('GET', new URL(outcome.url).pathname)).status).toBe(404);
  });
});

describe('sandbox routes (PLATFORM_MODE=live, SANDBOX_PLATFORMS=bluesky)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      background: false,
      env: { PLATFORM_MODE: 'live', SANDBOX_PLATFORMS: 'bluesky' },
    });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('only the sandboxed platform answers; a live one is 404 even with a valid request', async () => {
    const bluesky = await service.request('GET', await authorizePath(service, 'bluesky'));
    expect(bluesky.status).toBe(302);
    const query = new URLSearchParams({
      state: 's',
      redirect_uri: callback('x'),
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const before = await codeCount(service);
    const x = await service.request('GET', `/v1/sandbox/oauth/x/authorize?${query.toString()}`);
    expect(x.status).toBe(404);
    expect(await codeCount(service)).toBe(before);
    expect(service.runtime.connectors.get('x').mode).toBe('live');
    expect(service.runtime.connectors.get('bluesky').mode).toBe('sandbox');
  });
});
