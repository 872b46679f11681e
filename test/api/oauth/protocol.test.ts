// The authorization server's discovery and registration: metadata (RFC 8414), dynamic client registration
// (RFC 7591), client ID metadata documents fetched through the SSRF-safe fetcher, and the authorization
// endpoint's checks before anyone signs in.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  OAuthClientInformationFullSchema,
  OAuthMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { assistantScopes } from '../../../domain/shared/caller.js';
import {
  maxClientMetadataBytes,
  maxClientMetadataListItems,
  maxClientMetadataTextLength,
  sweepUnusedClients,
  unusedClientLifetimeSeconds,
} from '../../../api/oauth/clients.js';
import { oauthDbOf } from '../../../api/oauth/assistant-tokens.js';
import { createOAuthSlice } from '../../../api/oauth/slice.js';
import type { TestService } from '../../support/runtime.js';
import {
  authorizeUrl,
  base,
  issuedCounts,
  mcpResource,
  pkce,
  registerClient,
  Served,
  startDocumentServer,
  startOAuthService,
} from './helpers.js';

let service: TestService;
let documents: Awaited<ReturnType<typeof startDocumentServer>>;

beforeAll(async () => {
  documents = await startDocumentServer();
  service = await startOAuthService({ allowPrivate: [documents.origin] });
});
afterAll(async () => {
  await service?.stop();
  await documents?.close();
});

describe('authorization server metadata', () => {
  test('names the endpoints, PKCE S256, the scopes and metadata-document support', async () => {
    const res = await service.request('GET', '/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(OAuthMetadataSchema.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
      scopes_supported: [...assistantScopes],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
  });
});

describe('dynamic client registration', () => {
  test('a public client gets a client_id and no secret', async () => {
    const res = await service.request('POST', '/oauth/register', {
      body: {
        client_name: 'Desktop Assistant',
        redirect_uris: ['http://127.0.0.1:33418/callback', 'https://assistant.example.com/cb'],
        token_endpoint_auth_method: 'none',
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(OAuthClientInformationFullSchema.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({
      client_name: 'Desktop Assistant',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1:33418/callback', 'https://assistant.example.com/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(body.client_id).toEqual(expect.any(String));
    expect(body.client_secret).toBeUndefined();
  });

  test('a confidential client gets its secret once, stored only as a hash', async () => {
    for (const method of ['client_secret_post', 'client_secret_basic']) {
      const client = await registerClient(service, {
        token_endpoint_auth_method: method,
        redirect_uris: ['https://web.example.com/oauth/callback'],
      });
      expect(client.token_endpoint_auth_method).toBe(method);
      expect(client.client_secret).toMatch(/^[A-Za-z0-9_-]{43,}$|^sps_[A-Za-z0-9_-]{43}$/);
      const { rows } = await service.runtime.database.pool.query<{ secret_hash: string; metadata: unknown }>(
        'select secret_hash, metadata from oauth_clients where client_id = $1',
        [client.client_id],
      );
      expect(rows[0]!.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(rows)).not.toContain(client.client_secret);
    }
  });

  test('no method named means client_secret_basic (RFC 7591 §2)', async () => {
    const client = await registerClient(service, { token_endpoint_auth_method: undefined });
    expect(client.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(client.client_secret).toBeDefined();
  });

  test.each([
    ['http on a public host', ['http://assistant.example.com/cb']],
    ['a custom scheme', ['myapp://callback']],
    ['a fragment', ['https://assistant.example.com/cb#frag']],
    ['credentials', ['https://user:pw@assistant.example.com/cb']],
    ['javascript:', ['javascript:alert(1)']],
    ['no URI at all', []],
  ])('refuses redirect URIs with %s', async (_name, redirectUris) => {
    const before = await service.runtime.database.pool.query('select count(*) from oauth_clients');
    const res = await service.request('POST', '/oauth/register', {
      body: { client_name: 'Bad', redirect_uris: redirectUris, token_endpoint_auth_method: 'none' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'invalid_redirect_uri',
      error_description: expect.any(String),
    });
    const after = await service.runtime.database.pool.query('select count(*) from oauth_clients');
    expect(after.rows).toEqual(before.rows);
  });

  test('loopback http redirect URIs are accepted (127.0.0.1, localhost, [::1])', async () => {
    const client = await registerClient(service, {
      redirect_uris: ['http://127.0.0.1:9/cb', 'http://localhost:8080/cb', 'http://[::1]:7/cb'],
    });
    expect(client.redirect_uris).toHaveLength(3);
  });

  test('refuses unknown auth methods, other grant types and malformed bodies', async () => {
    for (const body of [
      { redirect_uris: ['https://a.example.com/cb'], token_endpoint_auth_method: 'private_key_jwt' },
      { redirect_uris: ['https://a.example.com/cb'], grant_types: ['client_credentials'] },
      { redirect_uris: ['https://a.example.com/cb'], response_types: ['token'] },
      { client_name: 'no redirect uris' },
    ]) {
      const res = await service.request('POST', '/oauth/register', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(
        /^invalid_(client_metadata|redirect_uri)$/,
      );
    }
    const malformed = await service.request('POST', '/oauth/register', { body: '{nope' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });
  test('oversized registrations are refused with a clear 400 and store nothing', async () => {
    const count = async () =>
      Number((await service.runtime.database.pool.query('select count(*) from oauth_clients')).rows[0].count);
    const before = await count();
    const valid = { redirect_uris: ['https://assistant.example.com/cb'], token_endpoint_auth_method: 'none' };
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      // ~750 KB per call was stored before: a key set nobody reads.
      [
        'a large jwks',
        { jwks: { keys: Array.from({ length: 500 }, (_, i) => ({ kid: `k${i}`, n: 'x'.repeat(1500) })) } },
        new RegExp(`at most ${maxClientMetadataBytes} are accepted`),
      ],
      [
        'too many contacts',
        { contacts: Array.from({ length: maxClientMetadataListItems + 1 }, (_, i) => `a${i}@example.com`) },
        new RegExp(`contacts may name at most ${maxClientMetadataListItems} items`),
      ],
      [
        'a long field',
        { software_id: 'x'.repeat(maxClientMetadataTextLength + 1) },
        new RegExp(`software_id is longer than ${maxClientMetadataTextLength} characters`),
      ],
      [
        'too many redirect URIs',
        { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example.com/cb${i}`) },
        /redirect_uris may name at most 10/,
      ],
    ];
    for (const [name, extra, message] of cases) {
      const res = await service.request('POST', '/oauth/register', { body: { ...valid, ...extra } });
      expect(res.status, name).toBe(400);
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error, name).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
      expect(body.error_description, name).toMatch(message);
    }
    expect(await count()).toBe(before);
  });
});

describe('unused clients are swept', () => {
  test('a client no connection was made for within 24 h of its registration (or fetch) is deleted', async () => {
    const pool = service.runtime.database.pool;
    const db = oauthDbOf(service.runtime);
    const unused = await registerClient(service);
    const connected = await registerClient(service);
    const pending = await registerClient(service);
    const recent = await registerClient(service);
    const document = `${documents.origin}/clients/swept.json`;
    await pool.query(
      `insert into oauth_clients (client_id, client_name, redirect_uris, token_endpoint_auth_method, kind, metadata, fetched_at)
       values ($1, 'Doc', '{https://a.example.com/cb}', 'none', 'metadata_document', '{}', now())`,
      [document],
    );
    await pool.query(
      `insert into assistant_connections (id, client_id, client_name, user_id, org_id, scopes, revoked_at)
       values (gen_random_uuid(), $1, 'x', 'user-1', gen_random_uuid(), '{mcp:read}', now())`,
      [connected.client_id],
    );
    await pool.query(
      `insert into oauth_codes (code_hash, client_id, user_id, org_id, scopes, redirect_uri, code_challenge, expires_at)
       values (md5(random()::text), $1, 'user-1', gen_random_uuid(), '{mcp:read}', 'https://a.example.com/cb', 'c', now() + interval '10 minutes')`,
      [pending.client_id],
    );
    const aged = `${unusedClientLifetimeSeconds + 3600} seconds`;
    await pool.query(
      `update oauth_clients set created_at = now() - $2::interval,
              fetched_at = case when fetched_at is null then null else now() - $2::interval end
        where client_id = any($1)`,
      [[unused.client_id, connected.client_id, pending.client_id, document], aged],
    );

    expect(await sweepUnusedClients(db)).toBeGreaterThanOrEqual(2);
    const { rows } = await pool.query<{ client_id: string }>(
      'select client_id from oauth_clients where client_id = any($1)',
      [[unused.client_id, connected.client_id, pending.client_id, recent.client_id, document]],
    );
    expect(rows.map((r) => r.client_id).sort()).toEqual(
      [connected.client_id, pending.client_id, recent.client_id].sort(),
    );
  });

  test('the oauth slice runs the sweep as a background worker', () => {
    expect(createOAuthSlice().workers?.map((w) => w.name)).toContain('oauth-client-sweep');
  });
});

describe('authorization requests checked before sign-in', () => {
  let clientId: string;
  const redirectUri = 'http://127.0.0.1:33418/callback';
  const { challenge } = pkce();
  const valid = () => ({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    state: 'st-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });

  beforeAll(async () => {
    clientId = (await registerClient(service, { redirect_uris: [redirectUri] })).client_id;
  });

  test('an unknown client or a foreign redirect URI gets an error page, never a redirect', async () => {
    for (const params of [
      { ...valid(), client_id: 'spc_unknown' },
      { ...valid(), client_id: undefined },
      { ...valid(), redirect_uri: 'https://attacker.example.net/steal' },
      { ...valid(), redirect_uri: `${redirectUri}/more` },
      { ...valid(), redirect_uri: undefined },
      // A loopback URI may change its port (RFC 8252), nothing else: not the host, path, query or scheme.
      { ...valid(), redirect_uri: 'http://localhost:33418/callback' },
      { ...valid(), redirect_uri: 'http://127.0.0.1:40000/other' },
      { ...valid(), redirect_uri: 'http://127.0.0.1:40000/callback?x=1' },
      { ...valid(), redirect_uri: 'https://127.0.0.1:40000/callback' },
    ]) {
      const res = await service.request('GET', authorizeUrl(params));
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(await res.text()).not.toContain('attacker.example.net/steal"');
    }
  });

  test('another client’s registered redirect URI is no return address: an error page (400), no Location', async () => {
    // Client B registers its own return addresses; neither an unknown client nor client A may borrow them.
    const other = await registerClient(service, {
      redirect_uris: ['https://b.example.com/oauth/callback', 'http://127.0.0.1:33419/b-callback'],
    });
    for (const params of [
      { ...valid(), client_id: 'spc_unknown', redirect_uri: other.redirect_uris[0] },
      { ...valid(), client_id: 'spc_unknown', redirect_uri: other.redirect_uris[1] },
      { ...valid(), redirect_uri: other.redirect_uris[0] },
      { ...valid(), redirect_uri: other.redirect_uris[1] },
      // Errors that would otherwise go back to the client are not sent to a borrowed address either.
      { ...valid(), redirect_uri: other.redirect_uris[0], response_type: 'token' },
      { ...valid(), client_id: 'spc_unknown', redirect_uri: other.redirect_uris[0], scope: 'admin:all' },
    ]) {
      const res = await service.request('GET', authorizeUrl(params));
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get('location'), JSON.stringify(params)).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
    }
  });

  test('a loopback redirect URI on another port is the registered one (RFC 8252 §7.3): the request goes on', async () => {
    const res = await service.request(
      'GET',
      authorizeUrl({ ...valid(), redirect_uri: 'http://127.0.0.1:40123/callback' }),
    );
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!, base).pathname).toBe('/sign-in');
  });

  test.each([
    ['missing PKCE', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
    ['the plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no method', { code_challenge_method: undefined }, 'invalid_request'],
    ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['an unknown scope', { scope: 'mcp:read admin:all' }, 'invalid_scope'],
    ['another resource', { resource: 'https://elsewhere.example.com/mcp' }, 'invalid_target'],
  ])('%s goes back to the client with the error, state and iss', async (_name, change, error) => {
    const res = await service.request('GET', authorizeUrl({ ...valid(), ...change }));
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe(base);
    expect(location.searchParams.get('code')).toBeNull();
  });

  test('a parameter given twice counts as missing', async () => {
    const res = await service.request('GET', `${authorizeUrl(valid())}&code_challenge=${pkce().challenge}`);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const twice = await service.request('GET', `${authorizeUrl(valid())}&client_id=${clientId}`);
    expect(twice.status).toBe(400);
    expect(twice.headers.get('location')).toBeNull();
  });

  test('a valid request from a browser without a session goes to sign-in, coming back to the same request', async () => {
    const url = authorizeUrl({ ...valid(), scope: 'mcp:read posts:write', resource: mcpResource });
    const before = await issuedCounts(service);
    const res = await service.request('GET', url);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!, base);
    expect(location.pathname).toBe('/sign-in');
    expect(location.searchParams.get('return_to')).toBe(url);
    expect(await issuedCounts(service)).toEqual(before);
  });
});

describe('client ID metadata documents', () => {
  const redirectUri = 'http://127.0.0.1:33418/callback';
  const { challenge } = pkce();
  const request = (clientId: string) =>
    authorizeUrl({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });

  test('a document whose client_id is its own URL is fetched, cached, and the request goes on to sign-in', async () => {
    const clientId = `${documents.origin}/clients/good.json`;
    documents.documents.set('/clients/good.json', {
      client_id: clientId,
      client_name: 'Metadata Assistant',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
    });
    const res = await service.request('GET', request(clientId));
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!, base).pathname).toBe('/sign-in');
    const { rows } = await service.runtime.database.pool.query<{ kind: string; client_name: string }>(
      'select kind, client_name from oauth_clients where client_id = $1',
      [clientId],
    );
    expect(rows).toEqual([{ kind: 'metadata_document', client_name: 'Metadata Assistant' }]);
    const fetched = documents.requests.filter((r) => r === '/clients/good.json').length;
    await service.request('GET', request(clientId));
    expect(documents.requests.filter((r) => r === '/clients/good.json').length).toBe(fetched);
  });

  test('a document naming another client_id is refused with an error page', async () => {
    const clientId = `${documents.origin}/clients/mismatch.json`;
    documents.documents.set('/clients/mismatch.json', {
      client_id: 'https://someone-else.example.com/client.json',
      client_name: 'Impostor',
      redirect_uris: [redirectUri],
    });
    const res = await service.request('GET', request(clientId));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('another client_id');
  });

  test('a document with a bad redirect URI, a secret-based method, or none at all is refused', async () => {
    const cases: Array<[string, unknown]> = [
      ['/clients/http.json', { redirect_uris: ['http://evil.example.com/cb'] }],
      [
        '/clients/secret.json',
        { redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_post' },
      ],
    ];
    for (const [path, doc] of cases) {
      documents.documents.set(path, { client_id: `${documents.origin}${path}`, ...(doc as object) });
      const res = await service.request('GET', request(`${documents.origin}${path}`));
      expect(res.status, path).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    const missing = await service.request('GET', request(`${documents.origin}/clients/missing.json`));
    expect(missing.status).toBe(400);
  });

  test('without the test seam, a loopback metadata URL is not fetched (production refuses it)', async () => {
    const strict = await startOAuthService();
    try {
      const clientId = `${documents.origin}/clients/good.json`;
      const seen = documents.requests.length;
      const res = await strict.request('GET', request(clientId));
      expect(res.status).toBe(400);
      expect(documents.requests.length).toBe(seen);
      // An https URL on a loopback address is refused by the fetcher itself.
      const https = await strict.request('GET', request('https://127.0.0.1/client.json'));
      expect(https.status).toBe(400);
      expect(await https.text()).toMatch(/could not be fetched/);
    } finally {
      await strict.stop();
    }
  });
  test('one answer whatever stops the fetch: not found, a private address, no such name (the reason is only logged)', async () => {
    const texts: string[] = [];
    for (const clientId of [
      `${documents.origin}/clients/nowhere.json`,
      'https://10.0.0.1/clients/a.json',
      'https://127.0.0.1/clients/a.json',
      'https://client.invalid/clients/a.json',
    ]) {
      const res = await service.request('GET', request(clientId));
      expect(res.status, clientId).toBe(400);
      texts.push((await res.text()).replaceAll(clientId, 'CLIENT'));
    }
    expect(texts[0]).toContain('The client ID metadata document could not be fetched');
    expect(texts[0]).not.toMatch(/404|private|resolve|ENOTFOUND/);
    expect(new Set(texts).size).toBe(1);
  });

  test('a document must be served as JSON (application/json or +json)', async () => {
    const doc = (path: string) => ({
      client_id: `${documents.origin}${path}`,
      client_name: 'Typed',
      redirect_uris: [redirectUri],
    });
    documents.documents.set(
      '/clients/text.json',
      new Served('text/plain', JSON.stringify(doc('/clients/text.json'))),
    );
    documents.documents.set(
      '/clients/html.json',
      new Served('text/html', JSON.stringify(doc('/clients/html.json'))),
    );
    documents.documents.set(
      '/clients/plus.json',
      new Served('application/oauth-client+json; charset=utf-8', JSON.stringify(doc('/clients/plus.json'))),
    );
    for (const path of ['/clients/text.json', '/clients/html.json']) {
      const res = await service.request('GET', request(`${documents.origin}${path}`));
      expect(res.status, path).toBe(400);
      expect(await res.text()).toContain('must be served as JSON');
    }
    const plus = await service.request('GET', request(`${documents.origin}/clients/plus.json`));
    expect(plus.status).toBe(303);
  });

  test('fetches of documents are limited per client address: 429 rate_limit_exceeded; cached ones still answer', async () => {
    const limited = await startOAuthService({
      allowPrivate: [documents.origin],
      rateLimits: {
        register: { burst: 1000, perMinute: 1000 },
        token: { burst: 1000, perMinute: 1000 },
        metadataDocument: { burst: 2, perMinute: 1 },
      },
    });
    try {
      for (const name of ['limited-1', 'limited-2', 'limited-3'])
        documents.documents.set(`/clients/${name}.json`, {
          client_id: `${documents.origin}/clients/${name}.json`,
          redirect_uris: [redirectUri],
        });
      const first = request(`${documents.origin}/clients/limited-1.json`);
      expect((await limited.request('GET', first)).status).toBe(303);
      expect((await limited.request('GET', first)).status).toBe(303);
      expect(
        (await limited.request('GET', request(`${documents.origin}/clients/limited-2.json`))).status,
      ).toBe(303);
      const seen = documents.requests.length;
      const res = await limited.request('GET', request(`${documents.origin}/clients/limited-3.json`));
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toEqual({
        error: expect.any(String),
        code: 'rate_limit_exceeded',
        retryAfterSeconds: expect.any(Number),
      });
      expect(documents.requests.length).toBe(seen);
      // A cached document is not fetched, so it is not limited.
      expect((await limited.request('GET', first)).status).toBe(303);
    } finally {
      await limited.stop();
    }
  });
});

describe('connected apps in the OpenAPI document', () => {
  test('both operations are named, secured and declare their errors; the OAuth endpoints stay out of it', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const doc = (await (await service.request('GET', '/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { operationId?: string; security?: unknown; responses: object }>>;
    };
    expect((await new Validator().validate(doc as never)).valid).toBe(true);
    const list = doc.paths['/v1/users/me/connected-apps']?.get;
    const revoke = doc.paths['/v1/users/me/connected-apps/{id}']?.delete;
    expect(list?.operationId).toBe('listConnectedApps');
    expect(revoke?.operationId).toBe('revokeConnectedApp');
    expect(list?.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(list!.responses)).toEqual(['200', '401', '429']);
    expect(Object.keys(revoke!.responses)).toEqual(['204', '400', '401', '404', '429']);
    expect(
      Object.keys(doc.paths).filter(
        (p) => p.startsWith('/oauth') || p.includes('oauth-authorization-server'),
      ),
    ).toEqual([]);
  });
});
