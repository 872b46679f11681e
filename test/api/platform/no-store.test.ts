// Answers carrying tokens, codes or other secrets are never stored by a browser or a proxy: every answer is
// `Cache-Control: no-store` (with `Pragma: no-cache` for HTTP/1.0 caches) unless its route chose a policy.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
});
afterAll(async () => service?.stop());

function expectNoStore(res: Response): void {
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
}

test('POST /v1/auth/token: the token answer is no-store', async () => {
  const res = await service.request('POST', '/v1/auth/token', {
    token: ws.tokens.owner,
    body: { orgId: ws.orgId },
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: { accessToken: string } }).data.accessToken).toBeTruthy();
  expectNoStore(res);
});

test('OAuth callback answers are no-store (refusals too)', async () => {
  const res = await service.request('GET', '/v1/marketing/oauth/x/callback?state=unknown&code=a-code');
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: { error: string } }).data.error).toBe('invalid_state');
  expectNoStore(res);
});

test('the sandbox authorization redirect (a code in its Location) is no-store', async () => {
  const query = new URLSearchParams({
    redirect_uri: 'http://localhost:3000/v1/marketing/oauth/x/callback',
    state: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const res = await service.request('GET', `/v1/sandbox/oauth/x/authorize?${query.toString()}`);
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toContain('code=');
  expectNoStore(res);
});

test('errors, probes and reads are no-store; a route’s own policy stands', async () => {
  expectNoStore(await service.request('GET', '/healthz'));
  expectNoStore(await service.request('GET', '/nope'));
  expectNoStore(await service.request('GET', `${ws.base}/posts`, { token: ws.tokens.viewer }));
  const jwks = await service.request('GET', '/.well-known/jwks.json');
  expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
  expect(jwks.headers.get('pragma')).toBeNull();
});
