// 401 vs 403 through app.request(): missing, malformed, expired, foreign-key and wrong-audience tokens
// are 401 with a Bearer challenge; another workspace, a missing permission or no workspace are 403.
import { describe, expect, it } from 'vitest';
import { createAuthService } from '../../../api/auth/auth-service.js';
import {
  jsonRequest,
  orgA,
  orgB,
  sampleApp,
  tempDataDir,
  testAuth,
  tokenFor,
  userA,
} from '../platform/support.js';

const widgets = (org: string) => `/v1/orgs/${org}/widgets`;
const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

async function expectError(res: Response, status: number, error?: string | RegExp) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: string };
  expect(Object.keys(body)).toEqual(['error']);
  if (error !== undefined) expect(body.error).toMatch(error);
  expect(res.headers.get('X-Request-Id')).toBeTruthy();
}

describe('authenticate', () => {
  it('401 with a bare Bearer challenge when no token is sent', async () => {
    const { app } = await sampleApp();
    const res = await app.request(widgets(orgA));
    expect(res.headers.get('WWW-Authenticate')).toBe('Bearer');
    await expectError(res, 401, 'Missing bearer token');
  });

  it.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer two words'], ['Bearer "quoted"']])(
    '401 for a malformed Authorization header %j',
    async (header) => {
      const { app } = await sampleApp();
      const res = await app.request(widgets(orgA), { headers: { Authorization: header } });
      expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer error="invalid_token"/);
      await expectError(res, 401);
    },
  );

  it('401 for an expired token, saying so in the challenge', async () => {
    const dataDir = await tempDataDir();
    const past = new Date(Date.now() - 2 * 3600_000);
    const old = await createAuthService({
      mode: 'local',
      dataDir,
      accessTokenTtlSeconds: 600,
      now: () => past,
    });
    const auth = await createAuthService({ mode: 'local', dataDir, accessTokenTtlSeconds: 600 });
    const { app } = await sampleApp({ auth });
    const res = await app.request(widgets(orgA), bearer(await tokenFor(old)));
    expect(res.headers.get('WWW-Authenticate')).toContain('error_description="Access token expired"');
    await expectError(res, 401, 'Access token expired');
  });

  it('401 for a token signed with another key', async () => {
    const { app } = await sampleApp();
    const stranger = await testAuth();
    await expectError(
      await app.request(widgets(orgA), bearer(await tokenFor(stranger))),
      401,
      'Invalid access token',
    );
  });

  it('401 for a token with the wrong audience or issuer, even with the right key', async () => {
    const dataDir = await tempDataDir();
    const auth = await createAuthService({ mode: 'local', dataDir, accessTokenTtlSeconds: 600 });
    const otherAud = await createAuthService({
      mode: 'local',
      dataDir,
      accessTokenTtlSeconds: 600,
      audience: 'x',
    });
    const otherIss = await createAuthService({
      mode: 'local',
      dataDir,
      accessTokenTtlSeconds: 600,
      issuer: 'y',
    });
    const { app } = await sampleApp({ auth });
    await expectError(await app.request(widgets(orgA), bearer(await tokenFor(otherAud))), 401);
    await expectError(await app.request(widgets(orgA), bearer(await tokenFor(otherIss))), 401);
    // Control: the same key and claims with the right audience pass.
    expect((await app.request(widgets(orgA), bearer(await tokenFor(auth)))).status).toBe(200);
  });

  it('401 comes before validation: an unauthenticated bad body is not inspected', async () => {
    const { app } = await sampleApp();
    const res = await app.request(widgets(orgA), jsonRequest('{not json'));
    await expectError(res, 401);
  });
});

describe('requireWorkspace', () => {
  it('403 for another workspace, whether or not it exists', async () => {
    const { app, auth } = await sampleApp();
    const token = await tokenFor(auth, { orgId: orgA, role: 'owner' });
    await expectError(await app.request(widgets(orgB), bearer(token)), 403, /workspace/);
    const res = await app.request(widgets(orgB), jsonRequest({ name: 'x', count: 1 }, token));
    await expectError(res, 403);
  });

  it('403 when the role lacks the permission; 2xx when it has it', async () => {
    const { app, auth } = await sampleApp();
    const viewer = await tokenFor(auth, { role: 'viewer' });
    const reviewer = await tokenFor(auth, { role: 'reviewer' });
    const editor = await tokenFor(auth, { role: 'editor' });
    const body = { name: 'x', count: 1 };
    await expectError(
      await app.request(widgets(orgA), jsonRequest(body, viewer)),
      403,
      'Your role does not allow this action',
    );
    await expectError(await app.request(widgets(orgA), jsonRequest(body, reviewer)), 403);
    expect((await app.request(widgets(orgA), jsonRequest(body, editor))).status).toBe(201);
    expect((await app.request(widgets(orgA), bearer(viewer))).status).toBe(200);
  });

  it('403 for a user-only token on a workspace route; fine on a user route', async () => {
    const { app, auth } = await sampleApp();
    const token = await tokenFor(auth, { orgId: null, role: null });
    await expectError(await app.request(widgets(orgA), bearer(token)), 403, /not scoped to a workspace/);
    const me = await app.request('/v1/whoami', bearer(token));
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ data: { userId: userA, orgId: null } });
  });
});
