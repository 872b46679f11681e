// The token endpoint (authorization code with PKCE, rotating refresh tokens), revocation, the tool server's
// bearer check (AssistantTokens), connected apps in the app API, and the rate limits. Every refusal issues nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { oauthDbOf, DatabaseAssistantTokens } from '../../../api/oauth/assistant-tokens.js';
import { signInBrowser } from '../../support/browser-sign-in.js';
import type { TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  authorizeCode,
  exchange,
  issuedCounts,
  postForm,
  registerClient,
  startOAuthService,
  type RegisteredClient,
  type TokenAnswer,
} from './helpers.js';

let service: TestService;
let ws: TestWorkspace;
let cookie: string;
let client: RegisteredClient;
let tokens: DatabaseAssistantTokens;

beforeAll(async () => {
  service = await startOAuthService();
  ws = await createTestWorkspace(service, 'Acme');
  const me = await service.request('GET', '/v1/users/me', { token: ws.tokens.owner });
  const email = ((await me.json()) as { data: { email: string } }).data.email;
  ({ cookie } = await signInBrowser(service, email));
  client = await registerClient(service);
  tokens = new DatabaseAssistantTokens(oauthDbOf({ readModels: service.runtime.readModels }));
});
afterAll(async () => {
  await service?.stop();
});

async function expectRefused(res: Response, status: number, error: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(await res.json()).toMatchObject({ error, error_description: expect.any(String) });
}

const flowFor = (c: RegisteredClient = client, scope?: string) =>
  authorizeCode(service, { client: c, cookie, orgId: ws.orgId, ...(scope !== undefined ? { scope } : {}) });

describe('authorization code exchange', () => {
  test('answers a bearer access token for an hour, a refresh token and the scope; the tool server accepts it', async () => {
    const flow = await flowFor(client, 'mcp:read posts:write');
    const res = await postForm(service, '/oauth/token', {
      grant_type: 'authorization_code',
      code: flow.code,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.verifier,
      client_id: client.client_id,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as TokenAnswer;
    expect(body).toEqual({
      access_token: expect.stringMatching(/^[A-Za-z0-9_]{4}[A-Za-z0-9_-]{43}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^[A-Za-z0-9_]{4}[A-Za-z0-9_-]{43}$/),
      scope: 'mcp:read posts:write',
    });
    const grant = await tokens.verifyAccessToken(body.access_token);
    expect(grant).toMatchObject({
      clientId: client.client_id,
      clientName: 'Test Assistant',
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['mcp:read', 'posts:write'],
    });
    // Stored as hashes only.
    const { rows } = await service.runtime.database.pool.query('select * from oauth_tokens');
    expect(JSON.stringify(rows)).not.toContain(body.access_token);
    expect(JSON.stringify(rows)).not.toContain(body.refresh_token);
    const codes = await service.runtime.database.pool.query('select * from oauth_codes');
    expect(JSON.stringify(codes.rows)).not.toContain(flow.code);
    // A refresh token is not an access token.
    expect(await tokens.verifyAccessToken(body.refresh_token)).toBeNull();
    expect(await tokens.verifyAccessToken('spa_unknown')).toBeNull();
  });

  test('refuses a wrong verifier, a wrong redirect URI, another client and an expired code; nothing issued', async () => {
    const other = await registerClient(service, { client_name: 'Other' });
    const flow = await flowFor();
    const before = await issuedCounts(service);
    const fields = {
      grant_type: 'authorization_code',
      code: flow.code,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.verifier,
      client_id: client.client_id,
    };
    await expectRefused(
      await postForm(service, '/oauth/token', { ...fields, code_verifier: 'x'.repeat(43) }),
      400,
      'invalid_grant',
    );
    await expectRefused(
      await postForm(service, '/oauth/token', { ...fields, redirect_uri: 'http://127.0.0.1:33418/other' }),
      400,
      'invalid_grant',
    );
    await expectRefused(
      await postForm(service, '/oauth/token', { ...fields, client_id: other.client_id }),
      400,
      'invalid_grant',
    );
    await expectRefused(
      await postForm(service, '/oauth/token', { ...fields, code: 'spk_not-a-code' }),
      400,
      'invalid_grant',
    );
    await expectRefused(
      await postForm(service, '/oauth/token', { ...fields, resource: 'https://elsewhere.example.com/mcp' }),
      400,
      'invalid_target',
    );
    await expectRefused(
      await postForm(service, '/oauth/token', { ...fields, code_verifier: '' }),
      400,
      'invalid_request',
    );
    expect(await issuedCounts(service)).toEqual(before);
    // Expired (five minutes): moved into the past.
    await service.runtime.database.pool.query(
      "update oauth_codes set expires_at = now() - interval '1 second' where used_at is null",
    );
    await expectRefused(await postForm(service, '/oauth/token', fields), 400, 'invalid_grant');
    expect(await issuedCounts(service)).toEqual(before);
  });

  test('a code used twice is refused and ends the connection it gave', async () => {
    const flow = await flowFor();
    const first = await exchange(service, client, flow);
    expect(await tokens.verifyAccessToken(first.access_token)).not.toBeNull();
    const again = await postForm(service, '/oauth/token', {
      grant_type: 'authorization_code',
      code: flow.code,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.verifier,
      client_id: client.client_id,
    });
    await expectRefused(again, 400, 'invalid_grant');
    expect(await tokens.verifyAccessToken(first.access_token)).toBeNull();
    const refresh = await postForm(service, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: client.client_id,
    });
    await expectRefused(refresh, 400, 'invalid_grant');
  });

  test('confidential clients authenticate by the method they registered', async () => {
    for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
      const confidential = await registerClient(service, { token_endpoint_auth_method: method });
      const secret = confidential.client_secret!;
      const flow = await flowFor(confidential);
      const fields = {
        grant_type: 'authorization_code',
        code: flow.code,
        redirect_uri: flow.redirectUri,
        code_verifier: flow.verifier,
      };
      const basic = (s: string) => ({
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(confidential.client_id)}:${encodeURIComponent(s)}`).toString('base64')}`,
      });
      const before = await issuedCounts(service);
      // No secret, a wrong secret, the other method: 401 invalid_client.
      for (const [extra, headers] of [
        [{ client_id: confidential.client_id }, {}],
        [{ client_id: confidential.client_id, client_secret: 'wrong' }, {}],
        [{}, basic('wrong')],
        method === 'client_secret_basic'
          ? [{ client_id: confidential.client_id, client_secret: secret }, {}]
          : [{}, basic(secret)],
      ] as Array<[Record<string, string>, Record<string, string>]>) {
        const res = await postForm(service, '/oauth/token', { ...fields, ...extra }, headers);
        expect(res.status, `${method} ${JSON.stringify(extra)} ${JSON.stringify(headers)}`).toBe(401);
        expect(await res.json()).toMatchObject({ error: 'invalid_client' });
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
      }
      expect(await issuedCounts(service)).toEqual(before);
      const ok =
        method === 'client_secret_basic'
          ? await postForm(service, '/oauth/token', fields, basic(secret))
          : await postForm(service, '/oauth/token', {
              ...fields,
              client_id: confidential.client_id,
              client_secret: secret,
            });
      expect(ok.status).toBe(200);
    }
  });

  test('refuses unknown grant types, missing ones, unknown clients and bodies that are not forms', async () => {
    await expectRefused(
      await postForm(service, '/oauth/token', { grant_type: 'password', client_id: client.client_id }),
      400,
      'unsupported_grant_type',
    );
    await expectRefused(
      await postForm(service, '/oauth/token', { client_id: client.client_id }),
      400,
      'invalid_request',
    );
    await expectRefused(
      await postForm(service, '/oauth/token', { grant_type: 'authorization_code', client_id: 'spc_nobody' }),
      401,
      'invalid_client',
    );
    const json = await service.request('POST', '/oauth/token', {
      body: { grant_type: 'authorization_code', client_id: client.client_id },
    });
    await expectRefused(json, 400, 'invalid_request');
  });
});

describe('refresh tokens', () => {
  const refresh = (token: string, extra: Record<string, string> = {}) =>
    postForm(service, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: client.client_id,
      ...extra,
    });

  test('rotate on every use; presenting a used one ends the whole connection', async () => {
    const first = await exchange(service, client, await flowFor(client, 'mcp:read posts:write'));
    const res = await refresh(first.refresh_token);
    expect(res.status).toBe(200);
    const second = (await res.json()) as TokenAnswer;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe('mcp:read posts:write');
    expect(await tokens.verifyAccessToken(second.access_token)).not.toBeNull();
    // The old refresh token comes back: someone kept a copy. Everything of the connection ends.
    await expectRefused(await refresh(first.refresh_token), 400, 'invalid_grant');
    expect(await tokens.verifyAccessToken(second.access_token)).toBeNull();
    expect(await tokens.verifyAccessToken(first.access_token)).toBeNull();
    await expectRefused(await refresh(second.refresh_token), 400, 'invalid_grant');
  });

  test('may narrow the scope of the access token, not widen it; the refresh token keeps the grant', async () => {
    const first = await exchange(
      service,
      client,
      await flowFor(client, 'mcp:read posts:write posts:schedule'),
    );
    const before = await issuedCounts(service);
    await expectRefused(
      await refresh(first.refresh_token, { scope: 'mcp:read brand:write' }),
      400,
      'invalid_scope',
    );
    expect(await issuedCounts(service)).toEqual(before);
    const narrowed = (await (
      await refresh(first.refresh_token, { scope: 'posts:write' })
    ).json()) as TokenAnswer;
    expect(narrowed.scope).toBe('mcp:read posts:write');
    expect((await tokens.verifyAccessToken(narrowed.access_token))?.scopes).toEqual([
      'mcp:read',
      'posts:write',
    ]);
    const full = (await (await refresh(narrowed.refresh_token)).json()) as TokenAnswer;
    expect(full.scope).toBe('mcp:read posts:write posts:schedule');
  });

  test('an expired refresh token, or one of another client, is refused', async () => {
    const other = await registerClient(service, { client_name: 'Other' });
    const first = await exchange(service, client, await flowFor());
    await expectRefused(
      await postForm(service, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: other.client_id,
      }),
      400,
      'invalid_grant',
    );
    await service.runtime.database.pool.query(
      "update oauth_tokens set expires_at = now() - interval '1 second' where kind = 'refresh'",
    );
    await expectRefused(await refresh(first.refresh_token), 400, 'invalid_grant');
    // An expired access token is no longer accepted either.
    await service.runtime.database.pool.query(
      "update oauth_tokens set expires_at = now() - interval '1 second'",
    );
    expect(await tokens.verifyAccessToken(first.access_token)).toBeNull();
  });
});

describe('revocation', () => {
  const revoke = (token: string) =>
    postForm(service, '/oauth/revoke', { token, client_id: client.client_id });

  test('an access token ends alone; a refresh token ends the connection; unknown tokens answer 200', async () => {
    const first = await exchange(service, client, await flowFor());
    expect((await revoke(first.access_token)).status).toBe(200);
    expect(await tokens.verifyAccessToken(first.access_token)).toBeNull();
    const res = await postForm(service, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: client.client_id,
    });
    expect(res.status).toBe(200);
    const second = (await res.json()) as TokenAnswer;
    expect(await tokens.verifyAccessToken(second.access_token)).not.toBeNull();
    expect((await revoke(second.refresh_token)).status).toBe(200);
    expect(await tokens.verifyAccessToken(second.access_token)).toBeNull();
    expect((await revoke('spr_never-issued')).status).toBe(200);
    const anonymous = await postForm(service, '/oauth/revoke', { token: second.access_token });
    expect(anonymous.status).toBe(401);
  });
});

describe('connected apps', () => {
  test('lists the live connections of the caller; disconnecting ends its tokens at once', async () => {
    const answer = await exchange(service, client, await flowFor(client, 'mcp:read posts:schedule'));
    const grant = await tokens.verifyAccessToken(answer.access_token);
    const list = await service.request('GET', '/v1/users/me/connected-apps', { token: ws.tokens.owner });
    expect(list.status).toBe(200);
    const { data } = (await list.json()) as { data: Array<Record<string, unknown>> };
    const app = data.find((a) => a.id === grant!.connectionId);
    expect(app).toEqual({
      id: grant!.connectionId,
      clientId: client.client_id,
      clientName: 'Test Assistant',
      orgId: ws.orgId,
      scopes: ['mcp:read', 'posts:schedule'],
      connectedAt: expect.any(String),
      lastUsedAt: expect.any(String),
    });
    // Another user sees none of them and cannot end them.
    const others = await service.request('GET', '/v1/users/me/connected-apps', { token: ws.tokens.editor });
    expect(((await others.json()) as { data: unknown[] }).data).toEqual([]);
    const foreign = await service.request('DELETE', `/v1/users/me/connected-apps/${grant!.connectionId}`, {
      token: ws.tokens.editor,
    });
    expect(foreign.status).toBe(404);
    expect(await tokens.verifyAccessToken(answer.access_token)).not.toBeNull();
    const unknown = await service.request(
      'DELETE',
      '/v1/users/me/connected-apps/00000000-0000-4000-8000-000000000000',
      { token: ws.tokens.owner },
    );
    expect(unknown.status).toBe(404);
    expect((await service.request('GET', '/v1/users/me/connected-apps')).status).toBe(401);

    const removed = await service.request('DELETE', `/v1/users/me/connected-apps/${grant!.connectionId}`, {
      token: ws.tokens.owner,
    });
    expect(removed.status).toBe(204);
    expect(await tokens.verifyAccessToken(answer.access_token)).toBeNull();
    await expectRefused(
      await postForm(service, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: answer.refresh_token,
        client_id: client.client_id,
      }),
      400,
      'invalid_grant',
    );
    const after = await service.request('GET', '/v1/users/me/connected-apps', { token: ws.tokens.owner });
    const ids = ((await after.json()) as { data: Array<{ id: string }> }).data.map((a) => a.id);
    expect(ids).not.toContain(grant!.connectionId);
    const again = await service.request('DELETE', `/v1/users/me/connected-apps/${grant!.connectionId}`, {
      token: ws.tokens.owner,
    });
    expect(again.status).toBe(404);
  });
});

describe('rate limits', () => {
  test('registration and the token endpoint answer 429 with rate_limit_exceeded and Retry-After', async () => {
    const limited = await startOAuthService({
      rateLimits: { register: { burst: 2, perMinute: 2 }, token: { burst: 3, perMinute: 3 } },
    });
    try {
      await registerClient(limited);
      await registerClient(limited);
      const before = await limited.runtime.database.pool.query('select count(*) from oauth_clients');
      const res = await limited.request('POST', '/oauth/register', {
        body: { redirect_uris: ['https://a.example.com/cb'], token_endpoint_auth_method: 'none' },
      });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toEqual({
        error: expect.any(String),
        code: 'rate_limit_exceeded',
        retryAfterSeconds: expect.any(Number),
      });
      expect((await limited.runtime.database.pool.query('select count(*) from oauth_clients')).rows).toEqual(
        before.rows,
      );
      for (let i = 0; i < 3; i++)
        expect((await postForm(limited, '/oauth/token', { grant_type: 'password' })).status).toBe(401);
      const token = await postForm(limited, '/oauth/token', { grant_type: 'password' });
      expect(token.status).toBe(429);
      expect(token.headers.get('retry-after')).toBe('20');
    } finally {
      await limited.stop();
    }
  });
});
