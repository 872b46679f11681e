// POST /v1/auth/token switches workspace for a member and reveals nothing about other workspaces;
// GET /.well-known/jwks.json publishes a public key that verifies the service's tokens.
import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, jwtVerify } from 'jose';
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

async function appWithMemberships(memberships: Record<string, Role>) {
  const auth = await testAuth();
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
