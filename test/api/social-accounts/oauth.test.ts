// Connecting accounts through OAuth on the sandbox platforms: oauth/start → our begin URL (binds the flow to
// the browser) → the sandbox's authorization URL → the callback → the account listed as connected; states
// single use, bound to platform, browser and time; denials; missing live configuration; validation, roles
// and 401. Every refused request changes nothing.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SocialAccountView } from '../../../commands/social-accounts/social-account-commands.js';
import { platforms, type Platform } from '../../../domain/shared/platforms.js';
import { Browser } from '../../support/browser.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
/** The browser of the user who starts connecting (the web app sends it to the authorizationUrl). */
let startersBrowser: Browser;
const newBrowser = (s = service) => new Browser((url, init) => s.runtime.app.request(url, init));

beforeAll(async () => {
  // The web app's origin; the service's own (PUBLIC_BASE_URL, http://localhost:3000) is allowed without it.
  service = await startTestService({ env: { APP_ORIGINS: 'https://app.example.org' } });
  ws = await createTestWorkspace(service);
  startersBrowser = newBrowser();
});
afterAll(async () => service?.stop());

interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}
type CallbackBody =
  | { status: 'connected'; platform: string; accounts: SocialAccountView[]; redirectUri: string }
  | {
      status: 'denied' | 'error';
      platform: string;
      error: string;
      errorDescription: string | null;
      redirectUri: string | null;
    }
  | { status: 'choose_pages'; platform: 'linkedin'; choice: string; pages: unknown[]; redirectUri: string };

const redirectUri = 'https://app.example.org/settings/accounts';

function startBody(platform: Platform, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { redirectUri, ...(platform === 'bluesky' ? { blueskyHandle: 'alice.bsky.social' } : {}), ...extra };
}

/** oauth/start from a page of the browser (the web app, with the user's token): the browser keeps its cookie. */
async function start(
  w: TestWorkspace,
  platform: string,
  body: unknown,
  token = w.tokens.owner,
  browser = startersBrowser,
): Promise<Response> {
  return browser.post(`http://localhost:3000${w.base}/accounts/${platform}/oauth/start`, body, {
    authorization: `Bearer ${token}`,
  });
}

async function started(
  w: TestWorkspace,
  platform: Platform,
  extra: Record<string, unknown> = {},
  browser = startersBrowser,
) {
  const res = await start(w, platform, startBody(platform, extra), w.tokens.owner, browser);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: { authorizationUrl: string; state: string } }).data;
}

/** A path and query of an absolute URL of this service, for app.request. */
const local = (url: string) => {
  const u = new URL(url);
  expect(u.origin).toBe('http://localhost:3000');
  return `${u.pathname}${u.search}`;
};

/** Opens the authorizationUrl (our begin URL) in a browser: where it sends the browser on, the platform. */
async function begin(authorizationUrl: string, browser = startersBrowser): Promise<string> {
  local(authorizationUrl);
  const begun = await browser.redirectFrom(authorizationUrl);
  expect(begun.status, await begun.response.clone().text()).toBe(302);
  return begun.location!;
}

/** The sandbox platform's page, as the user grants (or denies) access there: the callback URL. */
async function grant(platformUrl: string, params: Record<string, string> = {}, browser = startersBrowser) {
  const url = new URL(platformUrl);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  local(url.toString());
  const granted = await browser.redirectFrom(url.toString());
  expect(granted.status, await granted.response.clone().text()).toBe(302);
  return granted.location!;
}

/** Follows the authorization URL like a browser whose user grants (or denies) access: the callback URL. */
async function authorize(
  authorizationUrl: string,
  params: Record<string, string> = {},
  browser = startersBrowser,
): Promise<string> {
  return grant(await begin(authorizationUrl, browser), params, browser);
}

async function callback(url: string, browser = startersBrowser): Promise<Response> {
  local(url);
  return browser.get(url);
}

/**
 * A callback that completes nothing: still 200 with the callback shape (status error and a stable code), no cookie
 * set or cleared. `redirectUri` is the stored one when the state is open for this callback, else null.
 */
async function expectRefused(
  res: Response,
  expected: {
    platform: string;
    error: 'invalid_state' | 'invalid_request' | 'browser_mismatch';
    redirectUri?: string | null;
  },
): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(200);
  const { data } = (await res.json()) as { data: CallbackBody };
  expect(data).toEqual({
    status: 'error',
    platform: expected.platform,
    error: expected.error,
    errorDescription: expect.any(String),
    redirectUri: expected.redirectUri ?? null,
  });
  expect(res.headers.getSetCookie()).toEqual([]);
  return (data as { errorDescription: string }).errorDescription;
}

async function listAccounts(w: TestWorkspace): Promise<SocialAccountView[]> {
  const res = await service.request('GET', `${w.base}/accounts`, { token: w.tokens.owner });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: SocialAccountView[] }).data;
}

async function pendingRows(): Promise<Array<Record<string, unknown>>> {
  const { rows } = await service.runtime.database.pool.query('select * from oauth_pending_authorizations');
  return rows as Array<Record<string, unknown>>;
}

describe('oauth/start → authorization URL → callback, on every sandbox platform', () => {
  for (const platform of platforms) {
    test(`${platform}: the account is connected in the state's workspace, by the state's user`, async () => {
      const w = await createTestWorkspace(service, `Connect ${platform}`);
      const { authorizationUrl, state } = await started(w, platform);
      // Our own begin URL first, then the platform's page.
      expect(authorizationUrl).toBe(
        `http://localhost:3000/v1/marketing/oauth/${platform}/begin?state=${encodeURIComponent(state)}`,
      );
      const platformUrl = await begin(authorizationUrl);
      const auth = new URL(platformUrl);
      expect(auth.pathname).toBe(`/v1/sandbox/oauth/${platform}/authorize`);
      expect(auth.searchParams.get('state')).toBe(state);
      expect(auth.searchParams.get('redirect_uri')).toBe(
        `http://localhost:3000/v1/marketing/oauth/${platform}/callback`,
      );
      expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
      expect(auth.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      if (platform === 'bluesky') expect(auth.searchParams.get('login_hint')).toBe('alice.bsky.social');

      const location = await grant(platformUrl);
      expect(location.startsWith(`http://localhost:3000/v1/marketing/oauth/${platform}/callback?`)).toBe(
        true,
      );
      const res = await callback(location);
      expect(res.status, await res.clone().text()).toBe(200);
      const { data } = (await res.json()) as { data: CallbackBody };
      expect(data).toEqual({
        status: 'connected',
        platform,
        accounts: [expect.objectContaining({ orgId: w.orgId, platform, status: 'connected' })],
        redirectUri,
      });
      if (data.status !== 'connected') throw new Error('unreachable');
      const account = data.accounts[0]!;
      // Read-your-writes: the list shows the account as soon as the callback answered.
      expect(await listAccounts(w)).toEqual([account]);

      // The user who started is the actor of the events; the token never reaches an event.
      const { rows } = await service.runtime.database.pool.query<{
        data: unknown;
        metadata: { actor: string };
      }>(
        `select data, metadata from es_events where stream_name like 'socialAccount-%' and data::text like $1`,
        [`%${account.id}%`],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.metadata.actor).toBe(w.userIds.owner);
    });
  }

  test('Bluesky without blueskyHandle starts at the entryway: no login hint, the account is named on the platform', async () => {
    const w = await createTestWorkspace(service, 'Bluesky entryway');
    const res = await start(w, 'bluesky', { redirectUri });
    expect(res.status, await res.clone().text()).toBe(200);
    const { authorizationUrl, state } = (
      (await res.json()) as { data: { authorizationUrl: string; state: string } }
    ).data;
    const platformUrl = new URL(await begin(authorizationUrl));
    expect(platformUrl.pathname).toBe('/v1/sandbox/oauth/bluesky/authorize');
    expect(platformUrl.searchParams.has('login_hint')).toBe(false);
    expect((await rowOf(state)).bluesky_handle).toBeNull();
    // The user picks their account on the platform's page (the sandbox's `account`).
    const done = await callback(await grant(platformUrl.toString(), { account: 'carol.bsky.social' }));
    expect(done.status, await done.clone().text()).toBe(200);
    const { data } = (await done.json()) as { data: CallbackBody };
    expect(data).toMatchObject({
      status: 'connected',
      platform: 'bluesky',
      accounts: [expect.objectContaining({ accountHandle: 'carol.bsky.social', status: 'connected' })],
    });
  });

  test('LinkedIn members use the linkedin callback; linkedinTarget page uses linkedin-pages', async () => {
    const profile = await started(ws, 'linkedin', { linkedinTarget: 'profile' });
    expect(new URL(profile.authorizationUrl).pathname).toBe('/v1/marketing/oauth/linkedin/begin');
    expect(new URL(await begin(profile.authorizationUrl)).searchParams.get('redirect_uri')).toBe(
      'http://localhost:3000/v1/marketing/oauth/linkedin/callback',
    );
    const pages = await started(ws, 'linkedin', { linkedinTarget: 'page' });
    expect(new URL(pages.authorizationUrl).pathname).toBe('/v1/marketing/oauth/linkedin-pages/begin');
    const pagesPlatformUrl = await begin(pages.authorizationUrl);
    expect(new URL(pagesPlatformUrl).searchParams.get('redirect_uri')).toBe(
      'http://localhost:3000/v1/marketing/oauth/linkedin-pages/callback',
    );
    // A pages state is not accepted by the member callback (nor the reverse): each stays usable where it belongs.
    const pagesLocation = await grant(pagesPlatformUrl);
    const wrong = new URL(pagesLocation);
    wrong.pathname = '/v1/marketing/oauth/linkedin/callback';
    await expectRefused(await callback(wrong.toString()), { platform: 'linkedin', error: 'invalid_state' });
    const right = await callback(pagesLocation);
    expect(right.status).toBe(200);
    expect(((await right.json()) as { data: CallbackBody }).data.status).toBe('choose_pages');
  });
});

describe('the state', () => {
  test('is stored as a digest, with the verifier sealed, never in the clear', async () => {
    const { authorizationUrl, state } = await started(ws, 'x');
    const platformUrl = await begin(authorizationUrl);
    const row = (await pendingRows()).find(
      (r) => r.state_hash === createHash('sha256').update(state).digest('hex'),
    );
    expect(row).toMatchObject({
      org_id: ws.orgId,
      user_id: ws.userIds.owner,
      platform: 'x',
      redirect_uri: redirectUri,
    });
    expect(JSON.stringify(await pendingRows())).not.toContain(state);
    expect(String(row!.sealed_secrets)).toMatch(/^v\d+\./);
    // The challenge the platform got is not in the row either (only the sealed verifier is).
    const challenge = new URL(platformUrl).searchParams.get('code_challenge')!;
    expect(JSON.stringify(row)).not.toContain(challenge);
  });

  test('is single use: a second callback with it is a 200 error invalid_state and changes nothing', async () => {
    const w = await createTestWorkspace(service, 'Single use');
    const { authorizationUrl } = await started(w, 'x');
    const location = await authorize(authorizationUrl);
    expect((await callback(location)).status).toBe(200);
    const events = await eventCount(service);
    const description = await expectRefused(await callback(location), {
      platform: 'x',
      error: 'invalid_state',
    });
    expect(description).toMatch(/unknown, expired or already used/i);
    expect(await eventCount(service)).toBe(events);
    expect(await listAccounts(w)).toHaveLength(1);
  });

  test('two racing callbacks with one state: exactly one connects', async () => {
    const w = await createTestWorkspace(service, 'Race');
    const { authorizationUrl } = await started(w, 'threads');
    const location = await authorize(authorizationUrl);
    const answers = await Promise.all([callback(location), callback(location), callback(location)]);
    const statuses = await Promise.all(
      answers.map(async (r) => {
        expect(r.status).toBe(200);
        const { data } = (await r.json()) as { data: CallbackBody };
        return data.status === 'error' ? data.error : data.status;
      }),
    );
    expect(statuses.sort()).toEqual(['connected', 'invalid_state', 'invalid_state']);
    expect(await listAccounts(w)).toHaveLength(1);
  });

  test('expires: a state past its lifetime is refused and the account is not connected', async () => {
    const w = await createTestWorkspace(service, 'Expiry');
    const { authorizationUrl, state } = await started(w, 'tiktok');
    const location = await authorize(authorizationUrl);
    const hash = createHash('sha256').update(state).digest('hex');
    const row = (await pendingRows()).find((r) => r.state_hash === hash)!;
    // Ten minutes on the database clock.
    const lifetimeMs = Date.parse(String(row.expires_at)) - Date.parse(String(row.created_at));
    expect(lifetimeMs).toBe(10 * 60_000);
    await service.runtime.database.pool.query(
      `update oauth_pending_authorizations set expires_at = now() - interval '1 second' where state_hash = $1`,
      [hash],
    );
    const events = await eventCount(service);
    await expectRefused(await callback(location), { platform: 'tiktok', error: 'invalid_state' });
    expect(await eventCount(service)).toBe(events);
    expect(await listAccounts(w)).toEqual([]);
  });

  test("connects into the state's workspace only; another workspace sees nothing", async () => {
    const a = await createTestWorkspace(service, 'A');
    const b = await createTestWorkspace(service, 'B');
    const { authorizationUrl } = await started(a, 'reddit');
    const res = await callback(await authorize(authorizationUrl));
    expect(res.status).toBe(200);
    expect(await listAccounts(a)).toHaveLength(1);
    expect(await listAccounts(b)).toEqual([]);
    // B's owner cannot start in A's workspace either.
    expect((await start(a, 'reddit', startBody('reddit'), b.tokens.owner)).status).toBe(403);
  });

  test('is bound to its platform: used on another platform it is refused and stays usable on its own', async () => {
    const w = await createTestWorkspace(service, 'Bound');
    const { authorizationUrl } = await started(w, 'youtube');
    const location = await authorize(authorizationUrl);
    const elsewhere = new URL(location);
    elsewhere.pathname = '/v1/marketing/oauth/x/callback';
    await expectRefused(await callback(elsewhere.toString()), { platform: 'x', error: 'invalid_state' });
    expect((await callback(location)).status).toBe(200);
  });

  test('an unknown state is a 200 error invalid_state; a callback without state, or without code or error, invalid_request', async () => {
    await expectRefused(await service.request('GET', '/v1/marketing/oauth/x/callback?state=nope&code=abc'), {
      platform: 'x',
      error: 'invalid_state',
    });
    const noState = await service.request('GET', '/v1/marketing/oauth/linkedin-pages/callback?code=abc');
    expect(await expectRefused(noState, { platform: 'linkedin', error: 'invalid_request' })).toContain(
      'query.state',
    );
    const tooLong = `/v1/marketing/oauth/x/callback?state=${'s'.repeat(1025)}&code=abc`;
    await expectRefused(await service.request('GET', tooLong), { platform: 'x', error: 'invalid_request' });

    const events = await eventCount(service);
    const { authorizationUrl, state } = await started(ws, 'facebook');
    const platformUrl = await begin(authorizationUrl);
    // The state is open, so the answer names where the app wants the user back.
    const bare = await callback(`http://localhost:3000/v1/marketing/oauth/facebook/callback?state=${state}`);
    expect(
      await expectRefused(bare, { platform: 'facebook', error: 'invalid_request', redirectUri }),
    ).toMatch(/neither code nor error/);
    expect(await eventCount(service)).toBe(events);
    expect((await rowOf(state)).used_at).toBeNull();
    // Refusing it did not consume the state.
    expect((await callback(await grant(platformUrl))).status).toBe(200);
  });

  test('the connector failing the code exchange: 200 status error naming the reason, with no code in it', async () => {
    const { authorizationUrl } = await started(ws, 'instagram');
    const location = new URL(await authorize(authorizationUrl));
    location.searchParams.set('code', 'forged-code-value');
    const res = await callback(location.toString());
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: CallbackBody };
    expect(body).toEqual({
      data: {
        status: 'error',
        platform: 'instagram',
        error: 'platform_authorization_failed',
        errorDescription: 'Instagram refused the authorization; start connecting the account again',
        redirectUri,
      },
    });
    expect(JSON.stringify(body)).not.toContain('forged-code-value');
    // The state is used up, so its browser cookie goes too.
    expect(res.headers.getSetCookie()).toEqual([expect.stringContaining('Max-Age=0')]);
  });
});

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

async function rowOf(state: string): Promise<Record<string, unknown>> {
  return (await pendingRows()).find((r) => r.state_hash === sha256(state))!;
}

describe("bound to the starter's browser: the one that called oauth/start", () => {
  test('oauth/start sets a ten-minute HttpOnly SameSite=Lax cookie on the OAuth path, its nonce kept as a digest; the callback clears it', async () => {
    const w = await createTestWorkspace(service, 'Cookie');
    const browser = newBrowser();
    const res = await start(w, 'x', startBody('x'), w.tokens.owner, browser);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { authorizationUrl, state } = (
      (await res.json()) as { data: { authorizationUrl: string; state: string } }
    ).data;
    expect(browser.cookies).toHaveLength(1);
    const cookie = browser.cookies[0]!;
    expect(cookie.name).toMatch(/^oauth_[0-9a-f]{16}$/);
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.path).toBe('/v1/marketing/oauth/x/');
    expect(cookie.attributes).toHaveProperty('httponly');
    expect(cookie.attributes.samesite).toBe('Lax');
    expect(cookie.attributes).not.toHaveProperty('secure'); // PUBLIC_BASE_URL is http here
    expect(cookie.attributes).not.toHaveProperty('domain');
    expect(Number(cookie.attributes['max-age'])).toBe(600);
    expect((await rowOf(state)).browser_hash).toBe(sha256(cookie.value));
    expect(JSON.stringify(await pendingRows())).not.toContain(cookie.value);

    const begun = await browser.redirectFrom(authorizationUrl);
    expect(begun.status).toBe(302);
    expect(new URL(begun.location!).pathname).toBe('/v1/sandbox/oauth/x/authorize');
    expect(begun.response.headers.get('cache-control')).toBe('no-store');
    expect(begun.response.headers.getSetCookie()).toEqual([]);

    const done = await callback(await grant(begun.location!, {}, browser), browser);
    expect(done.status, await done.clone().text()).toBe(200);
    expect(done.headers.getSetCookie()).toEqual([
      expect.stringMatching(new RegExp(`^${cookie.name}=;.*Max-Age=0.*Path=/v1/marketing/oauth/x/`)),
    ]);
    expect(browser.cookies).toEqual([]);
  });

  test('consent phishing: an authorizationUrl sent to someone else (never opened by the starter) connects nothing of theirs', async () => {
    const w = await createTestWorkspace(service, 'Phishing');
    const starter = newBrowser();
    const { authorizationUrl, state } = await started(w, 'x', {}, starter);
    const events = await eventCount(service);

    // The victim opens the link first: refused at our begin URL, never sent on to the platform.
    const victim = newBrowser();
    const refused = await victim.get(authorizationUrl);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('location')).toBeNull();
    expect(((await refused.json()) as ErrorBody).error).toMatch(/started in another browser/);
    expect(victim.cookies).toEqual([]);
    // The platform's own URL reached another way (the starter opened it and sent it on): the victim grants
    // their account there, and the callback in the victim's browser refuses it.
    const platformUrl = await begin(authorizationUrl, starter);
    const victimsCallback = await grant(platformUrl, { account: 'victim' }, victim);
    const res = await callback(victimsCallback, victim);
    const description = await expectRefused(res, { platform: 'x', error: 'browser_mismatch', redirectUri });
    expect(description).toMatch(/started in another browser/);
    expect(await eventCount(service)).toBe(events);
    expect(await listAccounts(w)).toEqual([]);
    expect((await rowOf(state)).used_at).toBeNull();

    // The starter's own grant still connects.
    const mine = await callback(await grant(platformUrl, {}, starter), starter);
    expect(mine.status).toBe(200);
    const accounts = await listAccounts(w);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.accountHandle).not.toBe('victim');
  });

  test("the callback without the starter's cookie, or with another value, connects nothing and keeps the state", async () => {
    const w = await createTestWorkspace(service, 'Stolen callback');
    const starter = newBrowser();
    const { authorizationUrl } = await started(w, 'reddit', {}, starter);
    const location = await authorize(authorizationUrl, {}, starter);
    const events = await eventCount(service);

    const mismatch = { platform: 'reddit', error: 'browser_mismatch', redirectUri } as const;
    const noCookie = newBrowser();
    await expectRefused(await callback(location, noCookie), mismatch);
    const forged = newBrowser();
    forged.cookies.push({ ...starter.cookies[0]!, value: 'A'.repeat(43) });
    await expectRefused(await callback(location, forged), mismatch);
    expect(forged.cookies).toHaveLength(1);
    // Nor can a browser without the cookie cancel the starter's authorization with a denial.
    const denial = new URL(location);
    denial.searchParams.delete('code');
    denial.searchParams.set('error', 'access_denied');
    await expectRefused(await callback(denial.toString(), noCookie), mismatch);
    expect(await eventCount(service)).toBe(events);
    expect(await listAccounts(w)).toEqual([]);
    expect((await pendingRows()).filter((r) => r.org_id === w.orgId && r.used_at !== null)).toEqual([]);

    expect((await callback(location, starter)).status).toBe(200);
    expect(await listAccounts(w)).toHaveLength(1);
  });

  test('a cookie of one authorization does not open another', async () => {
    const w = await createTestWorkspace(service, 'Two flows');
    const starter = newBrowser();
    const first = await started(w, 'tiktok', {}, starter);
    const other = newBrowser();
    const second = await started(w, 'tiktok', {}, other);
    // Each browser holds its own authorization's cookie only; neither opens the other's.
    expect((await starter.get(second.authorizationUrl)).status).toBe(403);
    expect((await other.get(first.authorizationUrl)).status).toBe(403);
    expect((await callback(await authorize(first.authorizationUrl, {}, starter), starter)).status).toBe(200);
    expect((await callback(await authorize(second.authorizationUrl, {}, other), other)).status).toBe(200);
  });

  test('the same browser may open it again (the back button)', async () => {
    const w = await createTestWorkspace(service, 'Back button');
    const browser = newBrowser();
    const { authorizationUrl } = await started(w, 'youtube', {}, browser);
    await begin(authorizationUrl, browser);
    const [cookie] = browser.cookies;
    const again = await browser.redirectFrom(authorizationUrl);
    expect(again.status).toBe(302);
    expect(again.response.headers.getSetCookie()).toEqual([]);
    expect(browser.cookies).toEqual([cookie]);
    expect((await callback(await grant(again.location!, {}, browser), browser)).status).toBe(200);
  });

  test('begin: an unknown, used or missing state is a 400 naming query.state, with no cookie and no redirect', async () => {
    const used = newBrowser();
    const { authorizationUrl } = await started(ws, 'x', {}, used);
    expect((await callback(await authorize(authorizationUrl, {}, used), used)).status).toBe(200);
    for (const url of [
      authorizationUrl,
      'http://localhost:3000/v1/marketing/oauth/x/begin?state=nope',
      'http://localhost:3000/v1/marketing/oauth/x/begin',
    ]) {
      for (const browser of [newBrowser(), used]) {
        const res = await browser.get(url);
        expect(res.status, url).toBe(400);
        expect(((await res.json()) as ErrorBody).details?.[0]?.path).toBe('query.state');
      }
    }
    expect(used.cookies).toEqual([]);
    // A state begun on another platform's path is unknown there too.
    const browser = newBrowser();
    const { authorizationUrl: forX } = await started(ws, 'x', {}, browser);
    const elsewhere = forX.replace('/oauth/x/begin', '/oauth/threads/begin');
    expect((await browser.get(elsewhere)).status).toBe(400);
    expect((await browser.get(forX)).status).toBe(302);
  });

  describe('behind https', () => {
    let secure: TestService;
    beforeAll(async () => {
      secure = await startTestService({ env: { PUBLIC_BASE_URL: 'https://api.example.org' } });
    });
    afterAll(async () => secure?.stop());

    test('the cookie is Secure, with the __Secure- prefix, and the flow completes', async () => {
      const w = await createTestWorkspace(secure, 'Secure');
      const browser = newBrowser(secure);
      const res = await browser.post(
        `https://api.example.org${w.base}/accounts/x/oauth/start`,
        { redirectUri: 'https://api.example.org/done' },
        { authorization: `Bearer ${w.tokens.owner}` },
      );
      expect(res.status).toBe(200);
      const { authorizationUrl } = ((await res.json()) as { data: { authorizationUrl: string } }).data;
      expect(authorizationUrl.startsWith('https://api.example.org/v1/marketing/oauth/x/begin?state=')).toBe(
        true,
      );
      const [cookie] = browser.cookies;
      const begun = await browser.redirectFrom(authorizationUrl);
      expect(begun.status).toBe(302);
      expect(cookie!.name).toMatch(/^__Secure-oauth_[0-9a-f]{16}$/);
      expect(cookie!.attributes).toHaveProperty('secure');
      const granted = await browser.redirectFrom(begun.location!);
      const done = await browser.get(granted.location!);
      expect(done.status, await done.clone().text()).toBe(200);
      expect(done.headers.getSetCookie()).toEqual([
        expect.stringMatching(/^__Secure-oauth_.*Max-Age=0.*Secure/),
      ]);
    });
  });
});

describe('denial parameters', () => {
  test('the user denying: 200 denied with the platform error, the state consumed, nothing connected', async () => {
    const w = await createTestWorkspace(service, 'Denied');
    const { authorizationUrl } = await started(w, 'x');
    const location = await authorize(authorizationUrl, { deny: '1' });
    expect(new URL(location).searchParams.get('error')).toBe('access_denied');
    const events = await eventCount(service);
    const res = await callback(location);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: CallbackBody };
    expect(data).toEqual({
      status: 'denied',
      platform: 'x',
      error: 'access_denied',
      errorDescription: expect.any(String),
      redirectUri,
    });
    expect(await eventCount(service)).toBe(events);
    expect(await listAccounts(w)).toEqual([]);
    await expectRefused(await callback(location), { platform: 'x', error: 'invalid_state' });
  });

  test('Facebook style (error_reason user_denied) is a denial; another error is status error', async () => {
    const fb = await started(ws, 'facebook');
    await begin(fb.authorizationUrl);
    const denied = await callback(
      `http://localhost:3000/v1/marketing/oauth/facebook/callback?state=${fb.state}&error=access_denied&error_reason=user_denied&error_description=Permissions+error`,
    );
    expect(((await denied.json()) as { data: CallbackBody }).data).toMatchObject({
      status: 'denied',
      errorDescription: 'Permissions error',
    });
    const li = await started(ws, 'linkedin', { linkedinTarget: 'page' });
    await begin(li.authorizationUrl);
    const failed = await callback(
      `http://localhost:3000/v1/marketing/oauth/linkedin-pages/callback?state=${li.state}&error=server_error`,
    );
    expect(((await failed.json()) as { data: CallbackBody }).data).toEqual({
      status: 'error',
      platform: 'linkedin',
      error: 'server_error',
      errorDescription: null,
      redirectUri,
    });
  });

  test("LinkedIn's member callback requires code (the spec's table): an error alone is a 200 error invalid_request", async () => {
    const { state } = await started(ws, 'linkedin');
    const res = await service.request(
      'GET',
      `/v1/marketing/oauth/linkedin/callback?state=${state}&error=user_cancelled_login`,
    );
    expect(await expectRefused(res, { platform: 'linkedin', error: 'invalid_request' })).toContain(
      'query.code: Required',
    );
    expect((await rowOf(state)).used_at).toBeNull();
  });
});

describe('oauth/start validation', () => {
  const cases: Array<[string, string, unknown, string]> = [
    ['unknown platform', 'myspace', { redirectUri }, 'param.platform'],
    ['no redirectUri', 'x', {}, 'body.redirectUri'],
    ['redirectUri not a URL', 'x', { redirectUri: 'not a url' }, 'body.redirectUri'],
    ['redirectUri not http(s)', 'x', { redirectUri: 'javascript:alert(1)' }, 'body.redirectUri'],
    [
      'redirectUri on another origin',
      'x',
      { redirectUri: 'https://evil.example/accounts' },
      'body.redirectUri',
    ],
    [
      'redirectUri on a look-alike host',
      'x',
      { redirectUri: 'https://app.example.org.evil.example/' },
      'body.redirectUri',
    ],
    [
      'redirectUri with the app as user info',
      'x',
      { redirectUri: 'https://app.example.org@evil.example/' },
      'body.redirectUri',
    ],
    [
      'redirectUri over http on an https origin',
      'x',
      { redirectUri: 'http://app.example.org/accounts' },
      'body.redirectUri',
    ],
    [
      'redirectUri on another port',
      'x',
      { redirectUri: 'https://app.example.org:8443/accounts' },
      'body.redirectUri',
    ],
    ['linkedinTarget off LinkedIn', 'x', { redirectUri, linkedinTarget: 'page' }, 'body.linkedinTarget'],
    ['unknown linkedinTarget', 'linkedin', { redirectUri, linkedinTarget: 'group' }, 'body.linkedinTarget'],
    ['blueskyHandle off Bluesky', 'x', { redirectUri, blueskyHandle: 'a.bsky.social' }, 'body.blueskyHandle'],
    ['unknown field', 'x', { redirectUri, scope: 'all' }, 'body.scope'],
  ];
  for (const [name, platform, body, path] of cases) {
    test(`${name} → 400 naming ${path}, nothing stored`, async () => {
      const before = (await pendingRows()).length;
      const res = await start(ws, platform, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).details?.map((d) => d.path)).toContain(path);
      expect((await pendingRows()).length).toBe(before);
    });
  }

  test('redirectUri on an allowed origin: APP_ORIGINS or PUBLIC_BASE_URL, any path, echoed as given', async () => {
    for (const uri of [
      'https://app.example.org/settings/accounts?tab=social#top',
      'https://app.example.org',
      'http://localhost:3000/after-connect',
    ]) {
      const res = await start(ws, 'x', { redirectUri: uri });
      expect(res.status, uri).toBe(200);
    }
    const refused = await start(ws, 'x', { redirectUri: 'https://evil.example/accounts' });
    expect(((await refused.json()) as ErrorBody).details).toEqual([
      { path: 'body.redirectUri', message: 'must be on an allowed origin (PUBLIC_BASE_URL or APP_ORIGINS)' },
    ]);
  });

  test('roles: editor, reviewer and viewer 403; admin 200; no token 401', async () => {
    for (const role of ['editor', 'reviewer', 'viewer'] as const) {
      const res = await start(ws, 'x', { redirectUri }, ws.tokens[role]);
      expect(res.status, role).toBe(403);
    }
    expect((await start(ws, 'x', { redirectUri }, ws.tokens.admin)).status).toBe(200);
    const anonymous = await service.request('POST', `${ws.base}/accounts/x/oauth/start`, {
      body: { redirectUri },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  test('a user who is no longer a member when the callback comes: 200 status error not_allowed, nothing connected', async () => {
    const w = await createTestWorkspace(service, 'Left');
    const res = await start(w, 'x', { redirectUri }, w.tokens.admin);
    expect(res.status).toBe(200);
    const { authorizationUrl } = ((await res.json()) as { data: { authorizationUrl: string } }).data;
    // The admin leaves between start and callback (as the workspaces read model will show a removal; the
    // domain has no removal command yet). Their token stops at once too (test/api/auth/membership.test.ts).
    await service.runtime.readModels
      .deleteFrom('workspace_members')
      .where('org_id', '=', w.orgId)
      .where('user_id', '=', w.userIds.admin)
      .execute();
    const events = await eventCount(service);
    const refused = await callback(await authorize(authorizationUrl));
    expect(refused.status).toBe(200);
    expect(await refused.json()).toEqual({
      data: {
        status: 'error',
        platform: 'x',
        error: 'not_allowed',
        errorDescription:
          'The user who started this connection can no longer manage accounts in that workspace',
        redirectUri,
      },
    });
    expect(await eventCount(service)).toBe(events);
    expect(await listAccounts(w)).toEqual([]);
  });
});

describe('live mode without credentials', () => {
  let live: TestService;
  beforeAll(async () => {
    live = await startTestService({ env: { PLATFORM_MODE: 'live', APP_ORIGINS: 'https://app.example.org' } });
  });
  afterAll(async () => live?.stop());

  test('oauth/start answers 503 platform_not_configured naming the missing environment variables', async () => {
    const owner = await live.userToken();
    const created = await live.request('POST', '/v1/orgs', {
      token: owner.token,
      body: { name: 'Live', slug: 'live-co' },
    });
    const orgId = ((await created.json()) as { data: { id: string } }).data.id;
    const scoped = await live.userToken(owner.email, { orgId, role: 'owner' });
    for (const platform of ['x', 'linkedin', 'tiktok'] as const) {
      const missing = live.runtime.connectors.get(platform).missingConfiguration();
      expect(missing.length, platform).toBeGreaterThan(0);
      const res = await live.request('POST', `/v1/orgs/${orgId}/marketing/accounts/${platform}/oauth/start`, {
        token: scoped.token,
        body: { redirectUri },
      });
      expect(res.status).toBe(503);
      const body = (await res.json()) as ErrorBody;
      expect(body.code).toBe('platform_not_configured');
      for (const name of missing) expect(body.error).toContain(name);
      expect(body.details).toEqual(missing.map((name) => ({ path: `env.${name}`, message: 'not set' })));
    }
    const { rows } = await live.runtime.database.pool.query(
      'select count(*)::int as n from oauth_pending_authorizations',
    );
    expect(rows[0]).toEqual({ n: 0 });
  });
});
