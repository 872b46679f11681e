// POST /v1/auth/token switches workspace for a member and reveals nothing about other workspaces;
// GET /.well-known/jwks.json publishes a public key that verifies the service's tokens.
import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import type { Role } from '../../../domain/workspaces/roles.js';
import { createAuthRoutes } from '../../../api/auth/routes.js';
import {
  jsonRequest,
  orgA,
  orgB,
  sampleApp,
  sampleRoutes,
  testAuth,
  tokenFor,
  userA,
} from '../platform/support.js';

const orgC = '44444444-4444-4444-8444-444444444444';

async function appWithMemberships(
  memberships: Record<string, Role>,
  authOptions: Parameters<typeof testAuth>[0] = {},
) {
  const auth = await testAuth(authOptions);
  const calls: Array<[string, string]> = [];
  const { app } = await sampleApp({
    auth,
    routes: [
      sampleRoutes(),
      createAuthRoutes({
        auth,
        lookupMembership: async (userId, orgId) => {
          calls.push([userId, orgId]);
          return userId === userA ? (memberships[orgId] ?? null) : null;
        },
      }),
    ],
  });
  return { app, auth, calls };
}

describe('POST /v1/auth/token', () => {
  it('issues a token for another workspace of the user, usable there and not in the first one', async () => {
    const { app, auth, calls } = await appWithMemberships({ [orgA]: 'viewer', [orgB]: 'editor' });
    const first = await tokenFor(auth, { orgId: orgA, role: 'viewer', email: 'a@example.test' });
    const res = await app.request('/v1/auth/token', jsonRequest({ orgId: orgB }, first));
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, string> };
    expect(data).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      orgId: orgB,
      role: 'editor',
    });
    expect(calls).toEqual([[userA, orgB]]);
    const principal = await auth.verify(data.accessToken!);
    expect(principal).toMatchObject({ userId: userA, email: 'a@example.test', orgId: orgB, role: 'editor' });

    const headers = { Authorization: `Bearer ${data.accessToken}` };
    expect((await app.request(`/v1/orgs/${orgB}/widgets`, { headers })).status).toBe(200);
    expect((await app.request(`/v1/orgs/${orgA}/widgets`, { headers })).status).toBe(403);
  });

  it('works from a user-only token', async () => {
    const { app, auth } = await appWithMemberships({ [orgB]: 'owner' });
    const token = await tokenFor(auth, { orgId: null, role: null });
    expect((await app.request('/v1/auth/token', jsonRequest({ orgId: orgB }, token))).status).toBe(200);
  });

  it('404 "Workspace not found" for a workspace the user does not belong to', async () => {
    const { app, auth } = await appWithMemberships({ [orgA]: 'owner' });
    const token = await tokenFor(auth, { role: 'owner' });
    const res = await app.request('/v1/auth/token', jsonRequest({ orgId: orgC }, token));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Workspace not found' });
  });

  it('401 without a token, 400 for a bad body', async () => {
    const { app, auth } = await appWithMemberships({ [orgA]: 'owner' });
    expect((await app.request('/v1/auth/token', jsonRequest({ orgId: orgB }))).status).toBe(401);
    const token = await tokenFor(auth);
    const bad = await app.request('/v1/auth/token', jsonRequest({ orgId: 'nope', extra: 1 }, token));
    expect(bad.status).toBe(400);
    expect(
      ((await bad.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path).sort(),
    ).toEqual(['body.extra', 'body.orgId']);
  });
});

describe('POST /v1/auth/token: sessions and ids', () => {
  it('an exchange chain never outlives the session it began with', async () => {
    let clock = new Date('2031-03-01T08:00:00Z');
    const { app, auth } = await appWithMemberships(
      { [orgA]: 'viewer', [orgB]: 'editor' },
      { now: () => clock, accessTokenTtlSeconds: 3600, sessionMaxAgeSeconds: 4 * 3600 },
    );
    const began = clock.getTime() / 1000;
    let token = await tokenFor(auth, { orgId: orgA, role: 'viewer' });
    const { sid } = decodeJwt(token);
    const chain: Array<ReturnType<typeof decodeJwt>> = [];
    const end = began + 4 * 3600;
    const minutes = (n: number) => new Date((began + n * 60) * 1000);

    // Exchanged every 50 minutes, each time for a token of the other workspace.
    for (const [at, expected] of [
      [50, 110],
      [100, 160],
      [150, 210],
      [200, 240],
      [235, 240],
    ] as const) {
      clock = minutes(at);
      const res = await app.request('/v1/auth/token', jsonRequest({ orgId: at % 100 ? orgB : orgA }, token));
      expect(res.status, `at ${at} min`).toBe(200);
      const { data } = (await res.json()) as { data: { accessToken: string; expiresAt: string } };
      const claims = decodeJwt(data.accessToken);
      expect(claims.exp, `at ${at} min`).toBe(began + expected * 60);
      expect(claims.exp).toBeLessThanOrEqual(end);
      expect(new Date(data.expiresAt).getTime()).toBe(claims.exp! * 1000);
      chain.push(claims);
      token = data.accessToken;
    }
    // Every token of the chain is of the first one's session.
    for (const claims of chain) expect(claims).toMatchObject({ sid, auth_time: began });
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);

    clock = minutes(241);
    const refused = await app.request('/v1/auth/token', jsonRequest({ orgId: orgA }, token));
    expect(refused.status).toBe(401);
    expect(
      (await app.request(`/v1/orgs/${orgA}/widgets`, { headers: { Authorization: `Bearer ${token}` } }))
        .status,
    ).toBe(401);
  });

  it('canonicalises the workspace id: an upper-case spelling gets a token for the workspace as it is spelt', async () => {
    const lettered = 'abcdef12-3456-4789-8abc-def012345678';
    const { app, auth, calls } = await appWithMemberships({ [lettered]: 'editor' });
    const token = await tokenFor(auth, { orgId: null, role: null });
    const res = await app.request('/v1/auth/token', jsonRequest({ orgId: lettered.toUpperCase() }, token));
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { accessToken: string; orgId: string } };
    expect(calls).toEqual([[userA, lettered]]);
    expect(data.orgId).toBe(lettered);
    expect(decodeJwt(data.accessToken).org).toBe(lettered);
    // And the path: the upper-case spelling is the same workspace.
    const headers = { Authorization: `Bearer ${data.accessToken}` };
    expect((await app.request(`/v1/orgs/${lettered.toUpperCase()}/widgets`, { headers })).status).toBe(200);
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the public key (no private part) that verifies issued tokens', async () => {
    const { app, auth } = await appWithMemberships({});
    const res = await app.request('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    const jwks = (await res.json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const token = await tokenFor(auth);
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks as never));
    expect(payload.sub).toBe(userA);
  });
});
