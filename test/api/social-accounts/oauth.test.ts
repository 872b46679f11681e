// Connecting accounts through OAuth on the sandbox platforms: oauth/start → the sandbox's authorization URL
// → the callback → the account listed as connected; states single use, bound and expiring; denials; missing
// live configuration; validation, roles and 401. Every refused request changes nothing.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SocialAccountView } from '../../../commands/social-accounts/social-account-commands.js';
import { platforms, type Platform } from '../../../domain/post-groups/post-content.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
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
      redirectUri: string;
    }
  | { status: 'choose_pages'; platform: 'linkedin'; choice: string; pages: unknown[]; redirectUri: string };

const redirectUri = 'https://app.example.org/settings/accounts';

function startBody(platform: Platform, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { redirectUri, ...(platform === 'bluesky' ? { blueskyHandle: 'alice.bsky.social' } : {}), ...extra };
}

async function start(
  w: TestWorkspace,
  platform: string,
  body: unknown,
  token = w.tokens.owner,
): Promise<Response> {
  return service.request('POST', `${w.base}/accounts/${platform}/oauth/start`, { token, body });
}

async function started(w: TestWorkspace, platform: Platform, extra: Record<string, unknown> = {}) {
  const res = await start(w, platform, startBody(platform, extra));
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: { authorizationUrl: string; state: string } }).data;
}

/** A path and query of an absolute URL of this service, for app.request. */
const local = (url: string) => {
  const u = new URL(url);
  expect(u.origin).toBe('http://localhost:3000');
  return `${u.pathname}${u.search}`;
};

/** Follows the authorization URL like a browser whose user grants (or denies) access: the callback URL. */
async function authorize(authorizationUrl: string, params: Record<string, string> = {}): Promise<string> {
  const url = new URL(authorizationUrl);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await service.request('GET', local(url.toString()));
  expect(res.status, await res.clone().text()).toBe(302);
  return res.headers.get('location')!;
}

async function callback(url: string): Promise<Response> {
  return service.request('GET', local(url));
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
      const auth = new URL(authorizationUrl);
      expect(auth.pathname).toBe(`/v1/sandbox/oauth/${platform}/authorize`);
      expect(auth.searchParams.get('state')).toBe(state);
      expect(auth.searchParams.get('redirect_uri')).toBe(
        `http://localhost:3000/v1/marketing/oauth/${platform}/callback`,
      );
      expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
      expect(auth.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      if (platform === 'bluesky') expect(auth.searchParams.get('login_hint')).toBe('alice.bsky.social');

      const location = await authorize(authorizationUrl);
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

  test('LinkedIn members use the linkedin callback; linkedinTarget page uses linkedin-pages', async () => {
    const profile = await started(ws, 'linkedin', { linkedinTarget: 'profile' });
    expect(new URL(profile.authorizationUrl).searchParams.get('redirect_uri')).toBe(
      'http://localhost:3000/v1/marketing/oauth/linkedin/callback',
    );
    const pages = await started(ws, 'linkedin', { linkedinTarget: 'page' });
    expect(new URL(pages.authorizationUrl).searchParams.get('redirect_uri')).toBe(
      'http://localhost:3000/v1/marketing/oauth/linkedin-pages/callback',
    );
    // A pages state is not accepted by the member callback (nor the reverse): each stays usable where it belongs.
    const pagesLocation = await authorize(pages.authorizationUrl);
    const wrong = new URL(pagesLocation);
    wrong.pathname = '/v1/marketing/oauth/linkedin/callback';
    expect((await callback(wrong.toString())).status).toBe(400);
    const right = await callback(pagesLocation);
    expect(right.status).toBe(200);
    expect(((await right.json()) as { data: CallbackBody }).data.status).toBe('choose_pages');
  });
});

describe('the state', () => {
  test('is stored as a digest, with the verifier sealed, never in the clear', async () => {
    const { authorizationUrl, state } = await started(ws, 'x');
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
    const challenge = new URL(authorizationUrl).searchParams.get('code_challenge')!;
    expect(JSON.stringify(row)).not.toContain(challenge);
  });

  test('is single use: a second callback with it is a 400 and changes nothing', async () => {
    const w = await createTestWorkspace(service, 'Single use');
    const { authorizationUrl } = await started(w, 'x');
    const location = await authorize(authorizationUrl);
    expect((await callback(location)).status).toBe(200);
    const events = await eventCount(service);
    const again = await callback(location);
    expect(again.status).toBe(400);
    const body = (await again.json()) as ErrorBody;
    expect(body.error).toMatch(/unknown, expired or already used/i);
    expect(body.details).toEqual([{ path: 'query.state', message: 'unknown, expired or already used' }]);
    expect(body.code).toBeUndefined();
    expect(await eventCount(service)).toBe(events);
    expect(await listAccounts(w)).toHaveLength(1);
  });

  test('two racing callbacks with one state: exactly one connects', async () => {
    const w = await createTestWorkspace(service, 'Race');
    const { authorizationUrl } = await started(w, 'threads');
    const location = await authorize(authorizationUrl);
    const answers = await Promise.all([callback(location), callback(location), callback(location)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400]);
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
    expect((await callback(location)).status).toBe(400);
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
    expect((await callback(elsewhere.toString())).status).toBe(400);
    expect((await callback(location)).status).toBe(200);
  });

  test('an unknown state is a 400 in the error shape, and a callback without code or error is a 400', async () => {
    const unknown = await service.request('GET', '/v1/marketing/oauth/x/callback?state=nope&code=abc');
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as ErrorBody).details?.[0]?.path).toBe('query.state');
    const noState = await service.request('GET', '/v1/marketing/oauth/x/callback?code=abc');
    expect(noState.status).toBe(400);
    expect(((await noState.json()) as ErrorBody).details?.[0]?.path).toBe('query.state');

    const { authorizationUrl, state } = await started(ws, 'facebook');
    const bare = await service.request('GET', `/v1/marketing/oauth/facebook/callback?state=${state}`);
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as ErrorBody).details?.[0]?.path).toBe('query.code');
    // Refusing it did not consume the state.
    expect((await callback(await authorize(authorizationUrl))).status).toBe(200);
  });

  test('the connector failing the code exchange is a 503 in the error shape with no code in it', async () => {
    const { authorizationUrl } = await started(ws, 'instagram');
    const location = new URL(await authorize(authorizationUrl));
    location.searchParams.set('code', 'forged-code-value');
    const res = await callback(location.toString());
    expect(res.status).toBe(503);
    const body = (await res.json()) as ErrorBody;
    expect(body).toEqual({
      error: 'Instagram refused the authorization; start connecting the account again',
      code: 'platform_authorization_failed',
    });
    expect(JSON.stringify(body)).not.toContain('forged-code-value');
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
    expect((await callback(location)).status).toBe(400);
  });

  test('Facebook style (error_reason user_denied) is a denial; another error is status error', async () => {
    const fb = await started(ws, 'facebook');
    const denied = await service.request(
      'GET',
      `/v1/marketing/oauth/facebook/callback?state=${fb.state}&error=access_denied&error_reason=user_denied&error_description=Permissions+error`,
    );
    expect(((await denied.json()) as { data: CallbackBody }).data).toMatchObject({
      status: 'denied',
      errorDescription: 'Permissions error',
    });
    const li = await started(ws, 'linkedin', { linkedinTarget: 'page' });
    const failed = await service.request(
      'GET',
      `/v1/marketing/oauth/linkedin-pages/callback?state=${li.state}&error=server_error`,
    );
    expect(((await failed.json()) as { data: CallbackBody }).data).toEqual({
      status: 'error',
      platform: 'linkedin',
      error: 'server_error',
      errorDescription: null,
      redirectUri,
    });
  });

  test("LinkedIn's member callback requires code (the spec's table): an error alone is a 400", async () => {
    const { state } = await started(ws, 'linkedin');
    const res = await service.request(
      'GET',
      `/v1/marketing/oauth/linkedin/callback?state=${state}&error=user_cancelled_login`,
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).details).toEqual([{ path: 'query.code', message: 'Required' }]);
  });
});

describe('oauth/start validation', () => {
  const cases: Array<[string, string, unknown, string]> = [
    ['unknown platform', 'myspace', { redirectUri }, 'param.platform'],
    ['no redirectUri', 'x', {}, 'body.redirectUri'],
    ['redirectUri not a URL', 'x', { redirectUri: 'not a url' }, 'body.redirectUri'],
    ['redirectUri not http(s)', 'x', { redirectUri: 'javascript:alert(1)' }, 'body.redirectUri'],
    ['linkedinTarget off LinkedIn', 'x', { redirectUri, linkedinTarget: 'page' }, 'body.linkedinTarget'],
    ['unknown linkedinTarget', 'linkedin', { redirectUri, linkedinTarget: 'group' }, 'body.linkedinTarget'],
    ['Bluesky without a handle', 'bluesky', { redirectUri }, 'body.blueskyHandle'],
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

  test('a user who is no longer a member when the callback comes is refused (403), nothing connected', async () => {
    const w = await createTestWorkspace(service, 'Left');
    // A token still valid for a user without (or no longer with) a membership, as after leaving the workspace.
    const former = await service.userToken(undefined, { orgId: w.orgId, role: 'admin' });
    const res = await start(w, 'x', { redirectUri }, former.token);
    expect(res.status).toBe(200);
    const { authorizationUrl } = ((await res.json()) as { data: { authorizationUrl: string } }).data;
    const events = await eventCount(service);
    const refused = await callback(await authorize(authorizationUrl));
    expect(refused.status).toBe(403);
    expect(await eventCount(service)).toBe(events);
    expect(await listAccounts(w)).toEqual([]);
  });
});

describe('live mode without credentials', () => {
  let live: TestService;
  beforeAll(async () => {
    live = await startTestService({ env: { PLATFORM_MODE: 'live' } });
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
