// AUTH_MODE=jwks: an external identity provider's tokens sign users in; they are registered on first use
// under a stable id (by an e-mail address the provider verified), can create workspaces, and exchange their
// token for a workspace token of ours. Only the provider's access tokens are accepted, not its ID tokens.
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ensureUser } from '../../commands/users/user-commands.js';
import { addMember } from '../../commands/workspaces/workspace-commands.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { freePort } from '../../infra/db/embedded-postgres.js';
import { startTestService, type TestService } from '../support/runtime.js';

const issuer = 'https://idp.example.org/';
const audience = 'social-publishing';
let service: TestService;
let jwks: Server;
let privateKey: CryptoKey;

async function providerToken(
  claims: Record<string, unknown>,
  sub: string,
  typ: string | null = 'at+jwt',
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'idp-key', ...(typ === null ? {} : { typ }) })
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
  const token = await providerToken({ email: 'Grace@Example.org', email_verified: true }, 'auth0|grace-42');
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
  const forged = await new SignJWT({ email: 'x@example.org', email_verified: true })
    .setProtectedHeader({ alg: 'ES256', kid: 'idp-key', typ: 'at+jwt' })
    .setSubject('auth0|x')
    .setIssuer(issuer)
    .setAudience(audience)
    .setExpirationTime('10m')
    .sign((await generateKeyPair('ES256')).privateKey);
  expect((await service.request('GET', '/v1/users/me', { token: forged })).status).toBe(401);
});

test('an unverified e-mail address claims nothing: no account (403), and a later grant by e-mail goes to its real owner', async () => {
  const email = `victim-${randomUUID().slice(0, 8)}@example.org`;
  const squatterId = deterministicUuid('external-identity', issuer, 'auth0|squatter');
  for (const verified of [false, undefined]) {
    const squatter = await providerToken(
      { email, ...(verified === undefined ? {} : { email_verified: verified }) },
      'auth0|squatter',
    );
    const me = await service.request('GET', '/v1/users/me', { token: squatter });
    expect(me.status).toBe(403);
    expect(((await me.json()) as { error: string }).error).toMatch(/verified e-mail address/);
    expect(
      (
        await service.request('POST', '/v1/orgs', {
          token: squatter,
          body: { name: 'S', slug: `s-${randomUUID().slice(0, 8)}` },
        })
      ).status,
    ).toBe(403);
  }

  // An operator grants a role by e-mail (as `cli token --email … --workspace … --role admin` does): the
  // address is nobody's yet, so a new user holds it, not the squatter.
  const owner = await providerToken(
    { email: `owner-${randomUUID().slice(0, 8)}@example.org`, email_verified: true },
    'auth0|owner-1',
  );
  const created = await service.request('POST', '/v1/orgs', {
    token: owner,
    body: { name: 'Target', slug: `target-${randomUUID().slice(0, 8)}` },
  });
  expect(created.status).toBe(201);
  const orgId = ((await created.json()) as { data: { id: string } }).data.id;
  const metadata = {
    orgId: null,
    actor: 'system',
    correlationId: randomUUID(),
    now: new Date().toISOString(),
  };
  const { user: grantee } = await ensureUser(service.runtime.commands, { email }, metadata);
  expect(grantee.userId).not.toBe(squatterId);
  await addMember(
    service.runtime.commands,
    orgId,
    { userId: grantee.userId, role: 'admin' },
    { ...metadata, orgId },
  );

  const squatter = await providerToken({ email, email_verified: false }, 'auth0|squatter');
  const exchanged = await service.request('POST', '/v1/auth/token', { token: squatter, body: { orgId } });
  expect(exchanged.status).toBe(404);
});

test("only the provider's access tokens are accepted: no typ, an ID token or another type is a 401", async () => {
  const claims = { email: `typ-${randomUUID().slice(0, 8)}@example.org`, email_verified: true };
  expect(
    (await service.request('GET', '/v1/users/me', { token: await providerToken(claims, 'auth0|typ') }))
      .status,
  ).toBe(200);
  expect(
    (await service.request('GET', '/v1/users/me', { token: await providerToken(claims, 'auth0|typ', 'JWT') }))
      .status,
  ).toBe(200);
  for (const [extra, typ] of [
    [{}, null],
    [{ nonce: 'abc', at_hash: 'xyz' }, 'JWT'],
    [{}, 'id_token+jwt'],
    [{}, 'dpop+jwt'],
  ] as const) {
    const token = await providerToken({ ...claims, ...extra }, 'auth0|typ', typ);
    const res = await service.request('GET', '/v1/users/me', { token });
    expect(res.status, `${typ} ${JSON.stringify(extra)}`).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer error="invalid_token"/);
  }
});
