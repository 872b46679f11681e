// AUTH_MODE=jwks: an external identity provider's tokens sign users in; they are registered on first use
// under a stable id, can create workspaces, and exchange their token for a workspace token of ours.
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { freePort } from '../../infra/db/embedded-postgres.js';
import { startTestService, type TestService } from '../support/runtime.js';

const issuer = 'https://idp.example.org/';
const audience = 'social-publishing';
let service: TestService;
let jwks: Server;
let privateKey: CryptoKey;

async function providerToken(claims: Record<string, unknown>, sub: string): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'idp-key' })
    .setSubject(sub)
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(privateKey);
}

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'idp-key', alg: 'ES256', use: 'sig' };
  const port = await freePort();
  jwks = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(port, '127.0.0.1', resolve));
  service = await startTestService({
    env: {
      AUTH_MODE: 'jwks',
      AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks`,
      AUTH_ISSUER: issuer,
      AUTH_AUDIENCE: audience,
    },
  });
});
afterAll(async () => {
  await service.stop();
  await new Promise((resolve) => jwks.close(resolve));
});

test('a provider user is registered on first use, creates a workspace and gets a workspace token', async () => {
  const token = await providerToken({ email: 'Grace@Example.org' }, 'auth0|grace-42');
  const me = await service.request('GET', '/v1/users/me', { token });
  expect(me.status).toBe(200);
  const { data: user } = (await me.json()) as { data: { id: string; email: string } };
  expect(user.email).toBe('grace@example.org');
  expect(user.id).toMatch(/^[0-9a-f-]{36}$/);

  // The same subject is the same user on every request.
  const again = (await (await service.request('GET', '/v1/users/me', { token })).json()) as {
    data: { id: string };
  };
  expect(again.data.id).toBe(user.id);

  const created = await service.request('POST', '/v1/orgs', {
    token,
    body: { name: 'Grace', slug: 'grace' },
  });
  expect(created.status).toBe(201);
  const { data: org } = (await created.json()) as { data: { id: string; ownerId: string } };
  expect(org.ownerId).toBe(user.id);

  const exchanged = await service.request('POST', '/v1/auth/token', { token, body: { orgId: org.id } });
  expect(exchanged.status).toBe(200);
  const { data } = (await exchanged.json()) as { data: { accessToken: string; role: string } };
  expect(data.role).toBe('owner');
  expect(await service.runtime.auth.verify(data.accessToken)).toMatchObject({
    userId: user.id,
    orgId: org.id,
    source: 'local',
  });
});

test('a provider token without an e-mail address cannot create an account (403), and a forged one is a 401', async () => {
  const noEmail = await providerToken({}, 'auth0|anonymous');
  expect((await service.request('GET', '/v1/users/me', { token: noEmail })).status).toBe(403);
  const forged = await new SignJWT({ email: 'x@example.org' })
    .setProtectedHeader({ alg: 'ES256', kid: 'idp-key' })
    .setSubject('auth0|x')
    .setIssuer(issuer)
    .setAudience(audience)
    .setExpirationTime('10m')
    .sign((await generateKeyPair('ES256')).privateKey);
  expect((await service.request('GET', '/v1/users/me', { token: forged })).status).toBe(401);
});
