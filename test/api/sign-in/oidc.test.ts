// "Sign in with <provider>" against a small OpenID Connect issuer served here (hono on a socket, ES256 keys from
// jose): the code flow with PKCE, state and nonce in the browser's cookie; the provider must vouch for the
// address (email_verified: true); a callback in another browser, a replayed or forged state: nothing signed in.
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mergeCookies } from '../../support/browser-sign-in.js';
import { startTestService, type TestService } from '../../support/runtime.js';

interface Person {
  sub: string;
  email?: string;
  email_verified?: boolean;
}

let issuer: string;
let server: ServerType;
let privateKey: CryptoKey;
let publicJwk: JWK;
/** Who the issuer signs in next (the person at its login page). */
let person: Person;
const codes = new Map<string, { person: Person; nonce: string; challenge: string; redirectUri: string }>();
const tokenRequests: Array<{ clientAuth: string | undefined }> = [];

function identityProvider() {
  const app = new Hono();
  app.get('/.well-known/openid-configuration', (c) =>
    c.json({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    }),
  );
  app.get('/jwks', (c) => c.json({ keys: [publicJwk] }));
  app.get('/authorize', (c) => {
    const q = c.req.query();
    if (q.client_id !== 'sign-in-client' || q.code_challenge_method !== 'S256' || !q.code_challenge)
      return c.text('bad request', 400);
    const code = randomBytes(16).toString('hex');
    codes.set(code, { person, nonce: q.nonce!, challenge: q.code_challenge, redirectUri: q.redirect_uri! });
    const back = new URL(q.redirect_uri!);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.state!);
    return c.redirect(back.href, 302);
  });
  app.post('/token', async (c) => {
    const form = Object.fromEntries(
      Object.entries(await c.req.parseBody()).map(([k, v]) => [k, typeof v === 'string' ? v : '']),
    );
    tokenRequests.push({
      clientAuth: c.req.header('authorization') ?? (form.client_secret ? 'post' : undefined),
    });
    const basic = `Basic ${Buffer.from('sign-in-client:client-secret').toString('base64')}`;
    const posted = form.client_id === 'sign-in-client' && form.client_secret === 'client-secret';
    if (c.req.header('authorization') !== basic && !posted) return c.json({ error: 'invalid_client' }, 401);
    const grant = codes.get(form.code ?? '');
    codes.delete(form.code ?? '');
    const challenge = createHash('sha256')
      .update(form.code_verifier ?? '')
      .digest('base64url');
    if (!grant || grant.challenge !== challenge || grant.redirectUri !== form.redirect_uri)
      return c.json({ error: 'invalid_grant' }, 400);
    const idToken = await new SignJWT({
      nonce: grant.nonce,
      ...(grant.person.email !== undefined ? { email: grant.person.email } : {}),
      ...(grant.person.email_verified !== undefined ? { email_verified: grant.person.email_verified } : {}),
    })
      .setProtectedHeader({ alg: 'ES256', kid: publicJwk.kid! })
      .setIssuer(issuer)
      .setAudience('sign-in-client')
      .setSubject(grant.person.sub)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    return c.json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken });
  });
  return app;
}

let service: TestService;
beforeAll(async () => {
  const keys = await generateKeyPair('ES256');
  privateKey = keys.privateKey;
  publicJwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  await new Promise<void>((resolve) => {
    server = serve({ fetch: identityProvider().fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service = await startTestService({
    env: {
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: 'sign-in-client',
      OIDC_CLIENT_SECRET: 'client-secret',
      OIDC_PROVIDER_NAME: 'Example ID',
    },
  });
});
afterAll(async () => {
  await service?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

/** Through the provider: the sign-in page's button, the issuer (it signs `person` in), back to the callback. */
async function throughProvider(returnTo = '/sign-in/done') {
  const page = await service.request('GET', `/sign-in?return_to=${encodeURIComponent(returnTo)}`);
  const html = await page.text();
  const href = /<a class="button" href="([^"]+)">Sign in with Example ID<\/a>/.exec(html)?.[1];
  expect(href).toBeDefined();
  const start = await service.request('GET', href!.replace(/&#38;/g, '&'));
  expect(start.status).toBe(302);
  const cookie = mergeCookies('', start);
  const authorize = new URL(start.headers.get('location')!);
  expect(authorize.origin).toBe(issuer);
  expect(authorize.searchParams.get('redirect_uri')).toBe('http://localhost:3000/sign-in/oidc/callback');
  expect(authorize.searchParams.get('scope')).toBe('openid email');
  const back = await fetch(authorize, { redirect: 'manual' });
  const callback = new URL(back.headers.get('location')!);
  return { cookie, callbackPath: `${callback.pathname}${callback.search}` };
}

describe('sign in with the identity provider', () => {
  test('the button, the code flow with PKCE, a session for the user of the verified address', async () => {
    const email = `oidc-${Date.now()}@example.org`;
    person = { sub: 'sub-1', email, email_verified: true };
    const { cookie, callbackPath } = await throughProvider('/consent?x=1');
    const done = await service.request('GET', callbackPath, { headers: { cookie } });
    expect(done.status, await done.clone().text()).toBe(303);
    expect(done.headers.get('location')).toBe('/consent?x=1');
    expect(tokenRequests.at(-1)?.clientAuth).toBe('post');
    const signedIn = mergeCookies(cookie, done);
    expect(signedIn).toMatch(/sign_in_session=/);
    expect(signedIn).not.toMatch(/sign_in_oidc=/);
    const page = await service.request('GET', '/sign-in/done', { headers: { cookie: signedIn } });
    expect(await page.text()).toContain(`Signed in as <strong>${email}</strong>`);
  });

  test('email_verified missing or false: 403, no session', async () => {
    for (const who of [
      { sub: 'sub-2', email: `unverified-${Date.now()}@example.org`, email_verified: false },
      { sub: 'sub-3', email: `unsaid-${Date.now()}@example.org` },
      { sub: 'sub-4' },
    ]) {
      person = who;
      const { cookie, callbackPath } = await throughProvider();
      const res = await service.request('GET', callbackPath, { headers: { cookie } });
      expect(res.status).toBe(403);
      expect(res.headers.getSetCookie().filter((c) => c.startsWith('sign_in_session'))).toEqual([]);
    }
  });

  test('the callback in another browser (no flow cookie), replayed, or with a forged state: 400', async () => {
    person = { sub: 'sub-5', email: `replay-${Date.now()}@example.org`, email_verified: true };
    const { cookie, callbackPath } = await throughProvider();
    expect((await service.request('GET', callbackPath)).status).toBe(400);
    const forged = callbackPath.replace(/state=[^&]+/, 'state=forged');
    const refused = await service.request('GET', forged, { headers: { cookie } });
    expect(refused.status).toBe(400);
    expect(refused.headers.getSetCookie().filter((c) => c.startsWith('sign_in_session'))).toEqual([]);
    // A flow started afresh signs in; its callback replayed (the code is spent) does not.
    const again = await throughProvider();
    expect(
      (await service.request('GET', again.callbackPath, { headers: { cookie: again.cookie } })).status,
    ).toBe(303);
    expect(
      (await service.request('GET', again.callbackPath, { headers: { cookie: again.cookie } })).status,
    ).toBe(400);
  });

  test.each([
    '//evil.example',
    '/\\evil.example',
    '/.//evil.example',
    '/../..//evil.example',
    'https://evil.example',
    '\t//evil.example',
    '/.\\/evil.example',
  ])('return_to %j straight to the start: back at /sign-in/done, never another host', async (returnTo) => {
    person = { sub: 'sub-6', email: `return-${Date.now()}@example.org`, email_verified: true };
    const start = await service.request('GET', `/sign-in/oidc?return_to=${encodeURIComponent(returnTo)}`);
    expect(start.status).toBe(302);
    const back = await fetch(new URL(start.headers.get('location')!), { redirect: 'manual' });
    const callback = new URL(back.headers.get('location')!);
    const done = await service.request('GET', `${callback.pathname}${callback.search}`, {
      headers: { cookie: mergeCookies('', start) },
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/sign-in/done');
  });

  test('a percent-encoded slash stays a path of this service', async () => {
    person = { sub: 'sub-7', email: `encoded-${Date.now()}@example.org`, email_verified: true };
    const start = await service.request('GET', `/sign-in/oidc?return_to=${encodeURIComponent('/%2F/evil')}`);
    const back = await fetch(new URL(start.headers.get('location')!), { redirect: 'manual' });
    const callback = new URL(back.headers.get('location')!);
    const done = await service.request('GET', `${callback.pathname}${callback.search}`, {
      headers: { cookie: mergeCookies('', start) },
    });
    const location = done.headers.get('location')!;
    expect(new URL(location, 'http://localhost:3000').origin).toBe('http://localhost:3000');
    expect(location).toBe('/%2F/evil');
  });

  test('without OIDC_ISSUER the page offers no provider', async () => {
    const plain = await startTestService();
    try {
      const html = await (await plain.request('GET', '/sign-in')).text();
      expect(html).not.toContain('Sign in with');
      expect((await plain.request('GET', '/sign-in/oidc')).status).toBe(404);
    } finally {
      await plain.stop();
    }
  });
});
