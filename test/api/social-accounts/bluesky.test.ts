// Bluesky: connecting with an app password (the password is never in an answer, an error, a log line, an event,
// an idempotency record or any other row), Idempotency-Key replays, validation and roles, and the client
// metadata document for AT Protocol OAuth.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRuntime, type Runtime } from '../../../api/runtime.js';
import { hashRequest } from '../../../commands/shared/idempotency.js';
import type { SocialAccountView } from '../../../commands/social-accounts/social-account-commands.js';
import { ensureUser } from '../../../commands/users/user-commands.js';
import { loadEnv } from '../../../api/env.js';
import { createLogger } from '../../../infra/logging/logger.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { eventCount, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

/** Every line the service logs, at the most verbose level, to search for the password. */
const logLines: string[] = [];
let database: TestDatabase<unknown>;
let dataDir: string;
let runtime: Runtime;
let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bluesky-'));
  const env = loadEnv({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'trace',
    PUBLIC_BASE_URL: 'http://localhost:3000',
  });
  const logger = createLogger({
    level: 'trace',
    destination: { write: (line: string) => void logLines.push(line) },
  });
  runtime = await createRuntime({ env, logger, mode: 'server' });
  await runtime.startBackground();
  // The shape of test/support/runtime.ts, over this runtime with its capturing logger.
  service = {
    runtime,
    background: true,
    database,
    dataDir,
    async request(method, url, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      if (o.body !== undefined) headers['content-type'] ??= 'application/json';
      const body =
        o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      return runtime.app.request(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    },
    async userToken(email = `user-${randomUUID().slice(0, 8)}@example.org`, scope) {
      const meta = {
        orgId: null,
        actor: 'system',
        correlationId: randomUUID(),
        now: new Date().toISOString(),
      };
      const { user } = await ensureUser(runtime.commands, { email }, meta);
      const { token } = await runtime.auth.issueAccessToken({
        userId: user.userId,
        email: user.email,
        orgId: scope?.orgId ?? null,
        role: scope?.role ?? null,
      });
      return { userId: user.userId, token, email: user.email };
    },
    stop: async () => undefined,
  };
  ws = await createTestWorkspace(service);
});

afterAll(async () => {
  await runtime?.stop();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A fresh app password in Bluesky's format, so a search for it cannot match anything else. */
function appPassword(): string {
  const part = () => randomBytes(3).toString('hex').slice(0, 4);
  return `${part()}-${part()}-${part()}-${part()}`;
}

/** Every row of every table (event store, read models in their schemas, idempotency records, tokens, …) as text. */
async function everyRow(): Promise<string> {
  const { rows: tables } = await runtime.database.pool.query<{ schema: string; name: string }>(
    `select table_schema as schema, table_name as name from information_schema.tables
     where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
  );
  expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['es_events', 'idempotency_keys']));
  let out = '';
  for (const { schema, name } of tables) {
    const { rows } = await runtime.database.pool.query<{ row: string }>(
      `select t::text as row from "${schema}"."${name}" t`,
    );
    out += rows.map((r) => r.row).join('\n');
  }
  return out;
}

/** The secret may be searched for as typed, and as JSON would escape it. */
function expectNowhere(haystack: string, secret: string): void {
  expect(haystack).not.toContain(secret);
  expect(haystack).not.toContain(secret.replace(/-/g, ''));
}

const connect = (body: unknown, token = ws.tokens.owner, headers: Record<string, string> = {}) =>
  service.request('POST', `${ws.base}/accounts/bluesky/connect`, { token, body, headers });

describe('POST accounts/bluesky/connect', () => {
  test('connects the account; the password is in no answer, log line, event or row', async () => {
    const password = appPassword();
    const res = await connect({ handle: '@carol.bsky.social', appPassword: password });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const { data } = JSON.parse(text) as { data: SocialAccountView };
    expect(data).toMatchObject({ orgId: ws.orgId, platform: 'bluesky', status: 'connected' });
    expect(data.accountHandle).toContain('carol');
    const listed = await service.request('GET', `${ws.base}/accounts`, { token: ws.tokens.owner });
    expect(((await listed.json()) as { data: SocialAccountView[] }).data).toContainEqual(data);

    expectNowhere(text, password);
    expect(logLines.length).toBeGreaterThan(0);
    expectNowhere(logLines.join('\n'), password);
    expectNowhere(await everyRow(), password);
  });

  test('a refused password: 400 naming the field, not the value; nothing appended, nothing logged', async () => {
    const password = 'not an app password';
    const events = await eventCount(service);
    const res = await connect({ handle: 'dave.bsky.social', appPassword: password });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      error: 'Bluesky did not accept this handle and app password',
      details: [{ path: 'body.appPassword', message: 'not accepted for this handle' }],
    });
    expect(text).not.toContain(password);
    expect(logLines.join('\n')).not.toContain(password);
    expect(await eventCount(service)).toBe(events);
  });

  test('an Idempotency-Key replay answers the first response, and the stored record holds no password', async () => {
    const password = appPassword();
    const body = { handle: 'erin.bsky.social', appPassword: password };
    const first = await connect(body, ws.tokens.owner, { 'Idempotency-Key': 'bsky-1' });
    expect(first.status).toBe(200);
    const events = await eventCount(service);
    const again = await connect(body, ws.tokens.owner, { 'Idempotency-Key': 'bsky-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await eventCount(service)).toBe(events);

    const { rows } = await runtime.database.pool.query<{ request_hash: string; body: string }>(
      `select request_hash, body from idempotency_keys where key = 'bsky-1'`,
    );
    expect(rows).toHaveLength(1);
    const route = `${ws.base}/accounts/bluesky/connect`;
    // The hash covers the handle only, so not even a digest of the password is kept.
    expect(rows[0]!.request_hash).toBe(hashRequest('POST', route, { handle: 'erin.bsky.social' }));
    expect(rows[0]!.request_hash).not.toBe(hashRequest('POST', route, body));
    expectNowhere(rows[0]!.body, password);
    // The same key for another handle is another request.
    const other = await connect({ handle: 'frank.bsky.social', appPassword: password }, ws.tokens.owner, {
      'Idempotency-Key': 'bsky-1',
    });
    expect(other.status).toBe(422);
    expectNowhere(logLines.join('\n'), password);
  });

  test('validation: missing or empty fields and unknown fields are 400, and echo no value', async () => {
    const password = appPassword();
    const events = await eventCount(service);
    for (const body of [
      { handle: 'gina.bsky.social' },
      { appPassword: password },
      { handle: 'gina.bsky.social', appPassword: '' },
      { handle: 'not a handle!', appPassword: password },
      { handle: 'gina.bsky.social', appPassword: password, password },
    ]) {
      const res = await connect(body);
      const text = await res.text();
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(text).not.toContain(password);
    }
    expect(await eventCount(service)).toBe(events);
    expectNowhere(logLines.join('\n'), password);
  });

  test('roles: editor and viewer 403; no token 401', async () => {
    const password = appPassword();
    for (const role of ['editor', 'viewer', 'reviewer'] as const) {
      const res = await connect({ handle: 'hank.bsky.social', appPassword: password }, ws.tokens[role]);
      expect(res.status, role).toBe(403);
    }
    const anonymous = await service.request('POST', `${ws.base}/accounts/bluesky/connect`, {
      body: { handle: 'hank.bsky.social', appPassword: password },
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('POST accounts/bluesky/oauth/start: blueskyHandle', () => {
  const start = (blueskyHandle: string) =>
    service.request('POST', `${ws.base}/accounts/bluesky/oauth/start`, {
      token: ws.tokens.owner,
      body: { redirectUri: 'http://localhost:3000/settings/accounts', blueskyHandle },
    });

  test('a did:web with a port, an IP address, localhost or a path, or another DID method: 400 naming the field', async () => {
    for (const handle of [
      'did:web:localhost%3A8091',
      'did:web:localhost',
      'did:web:127.0.0.1',
      'did:web:169.254.169.254',
      'did:web:example.com%3A8443',
      'did:web:example.com:user:alice',
      'did:web:printer.local',
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      'did:plc:short',
      'localhost',
      '127.0.0.1',
      'metadata.internal',
    ]) {
      const res = await start(handle);
      expect(res.status, handle).toBe(400);
      expect(await res.json(), handle).toEqual({
        error: 'Invalid request',
        details: [
          {
            path: 'body.blueskyHandle',
            message:
              'a handle (alice.bsky.social), a did:plc, or a did:web on a public host name (no port, IP address or localhost)',
          },
        ],
      });
    }
  });

  test('handles, did:plc and did:web on a public host name are taken', async () => {
    for (const handle of [
      'alice.bsky.social',
      '@alice.bsky.social',
      'did:plc:z72i7hdynmk6r22z27h6tvur',
      'did:web:alice.example.com',
    ]) {
      const res = await start(handle);
      expect(res.status, handle).toBe(200);
    }
  });
});

describe('GET /v1/marketing/oauth/bluesky/client-metadata', () => {
  test('serves the client metadata document without a bearer; its client_id is its own URL', async () => {
    const res = await service.request('GET', '/v1/marketing/oauth/bluesky/client-metadata');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toMatchObject({
      client_id: 'http://localhost:3000/v1/marketing/oauth/bluesky/client-metadata',
      redirect_uris: ['http://localhost:3000/v1/marketing/oauth/bluesky/callback'],
      grant_types: expect.arrayContaining(['authorization_code', 'refresh_token']),
      response_types: ['code'],
      dpop_bound_access_tokens: true,
      scope: expect.stringContaining('atproto'),
    });
  });
});
