// Rate limits per token and per workspace by route group: a burst over a limit answers 429
// `rate_limit_exceeded` with `retryAfterSeconds` and Retry-After, and after that many seconds requests pass;
// the workspace's counter spans its tokens; two instances on one database share the counters; RATE_LIMITS is
// checked at start and RATE_LIMITS_ENABLED=false turns limiting off.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRuntime } from '../../api/runtime.js';
import pg from 'pg';
import {
  createRateLimiter,
  defaultRateLimits,
  parseRateLimits,
  routeGroupOf,
  type RateLimits,
} from '../../api/platform/rate-limits.js';
import { TooManyRequests } from '../../domain/shared/errors.js';
import { ConfigError } from '../../infra/config/env.js';
import { loadEnv } from '../../api/env.js';
import { createLogger } from '../../infra/logging/logger.js';
import { connectAssistant, mcpUrl } from '../support/assistant.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** RATE_LIMITS for a test: the given groups, every other one left at its default. */
const rateLimitsEnv = (overrides: Partial<RateLimits>) => ({ RATE_LIMITS: JSON.stringify(overrides) });

/** The 429 the spec asks for: code, a whole number of seconds ≥ 1, the same number in Retry-After. */
async function expectRateLimited(res: Response): Promise<number> {
  expect(res.status).toBe(429);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ code: 'rate_limit_exceeded', error: expect.any(String) });
  const seconds = body.retryAfterSeconds as number;
  expect(Number.isInteger(seconds)).toBe(true);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('Retry-After')).toBe(String(seconds));
  return seconds;
}

describe('RATE_LIMITS', () => {
  test('overrides lie over the defaults group by group and field by field', () => {
    const limits = parseRateLimits('{"write":{"perToken":60},"mcp":{"windowSeconds":10}}');
    expect(limits.write).toEqual({ ...defaultRateLimits.write, perToken: 60 });
    expect(limits.mcp).toEqual({ ...defaultRateLimits.mcp, windowSeconds: 10 });
    expect(limits.read).toEqual(defaultRateLimits.read);
    expect(parseRateLimits(undefined)).toEqual(defaultRateLimits);
  });

  test.each([
    ['not JSON', '{write:', /RATE_LIMITS: must be JSON/],
    ['an unknown group', '{"writes":{"perToken":1}}', /RATE_LIMITS: unknown group writes/],
    ['an unknown field', '{"read":{"points":1}}', /RATE_LIMITS\.read: unknown field points/],
    ['a count of zero', '{"read":{"perToken":0}}', /RATE_LIMITS\.read\.perToken: /],
    ['a fraction', '{"write":{"perWorkspace":1.5}}', /RATE_LIMITS\.write\.perWorkspace: /],
    ['a window over a day', '{"billing":{"windowSeconds":86401}}', /RATE_LIMITS\.billing\.windowSeconds: /],
    ['not an object', '[1]', /RATE_LIMITS: /],
  ])('%s is a configuration error naming RATE_LIMITS', (_, raw, message) => {
    expect(() => parseRateLimits(raw)).toThrow(ConfigError);
    expect(() => parseRateLimits(raw)).toThrow(message);
  });

  test('a bad RATE_LIMITS stops the start before anything is built, even with limiting off', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-rate-'));
    try {
      for (const enabled of ['true', 'false']) {
        const env = loadEnv({
          // Never reached: the check comes first.
          DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
          DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          RATE_LIMITS_ENABLED: enabled,
          RATE_LIMITS: '{"read":{"perToken":-1}}',
        });
        await expect(
          createRuntime({ env, logger: createLogger({ level: 'silent' }), mode: 'server' }),
        ).rejects.toThrow(/RATE_LIMITS\.read\.perToken/);
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('route groups: GET and HEAD read, other methods write, anything under …/billing is billing', () => {
    expect(routeGroupOf('GET', '/v1/orgs/o1/marketing/posts')).toBe('read');
    expect(routeGroupOf('HEAD', '/v1/users/me')).toBe('read');
    expect(routeGroupOf('POST', '/v1/orgs/o1/marketing/post-groups')).toBe('write');
    expect(routeGroupOf('DELETE', '/v1/orgs/o1/tags/t1')).toBe('write');
    expect(routeGroupOf('GET', '/v1/orgs/o1/billing')).toBe('billing');
    expect(routeGroupOf('POST', '/v1/orgs/o1/billing/subscription/cancel')).toBe('billing');
    expect(routeGroupOf('GET', '/v1/orgs/o1/billing-notes')).toBe('read');
  });
});

describe('per token', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      env: rateLimitsEnv({ read: { perToken: 3, perWorkspace: 1000, windowSeconds: 5 } }),
    });
  });
  afterAll(async () => service.stop());

  test('a burst over the limit gets 429 with retryAfterSeconds; after that many seconds requests pass', async () => {
    const { token } = await service.userToken();
    const other = await service.userToken();
    for (let i = 0; i < 3; i++)
      expect((await service.request('GET', '/v1/users/me', { token })).status).toBe(200);
    const over = await service.request('GET', '/v1/users/me', { token });
    const seconds = await expectRateLimited(over);
    expect(seconds).toBeLessThanOrEqual(5);
    // Refused again, from memory, with no more to wait than before.
    const again = await service.request('GET', '/v1/users/me', { token });
    expect(await expectRateLimited(again)).toBeLessThanOrEqual(seconds);
    // Another token has its own counter; writes are another group.
    expect((await service.request('GET', '/v1/users/me', { token: other.token })).status).toBe(200);
    expect(
      (
        await service.request('POST', '/v1/orgs', {
          token,
          body: { name: 'Still writes', slug: `sw-${Date.now()}` },
        })
      ).status,
    ).toBe(201);

    // A few ms over: timers may fire a millisecond before the wall clock reaches their time.
    await sleep(seconds * 1000 + 20);
    expect((await service.request('GET', '/v1/users/me', { token })).status).toBe(200);
  });
});

describe('per workspace', () => {
  let service: TestService;
  let ws: TestWorkspace;
  let otherWs: TestWorkspace;
  beforeAll(async () => {
    service = await startTestService({
      env: rateLimitsEnv({ read: { perToken: 1000, perWorkspace: 4, windowSeconds: 30 } }),
    });
    ws = await createTestWorkspace(service);
    otherWs = await createTestWorkspace(service, 'Other');
  });
  afterAll(async () => service.stop());

  test('the workspace limit counts every token of the workspace together', async () => {
    const path = `/v1/orgs/${ws.orgId}`;
    for (const role of ['owner', 'owner', 'editor', 'editor'] as const)
      expect((await service.request('GET', path, { token: ws.tokens[role] })).status).toBe(200);
    // A token that has made no request yet is refused: the workspace's allowance is spent.
    const res = await service.request('GET', path, { token: ws.tokens.viewer });
    const body = (await res.clone().json()) as { error: string };
    await expectRateLimited(res);
    expect(body.error).toMatch(/this workspace/);
    // Another workspace is not affected.
    expect(
      (await service.request('GET', `/v1/orgs/${otherWs.orgId}`, { token: otherWs.tokens.viewer })).status,
    ).toBe(200);
  });
});

describe('several instances', () => {
  let first: TestService;
  let second: TestService;
  beforeAll(async () => {
    const env = rateLimitsEnv({ read: { perToken: 4, perWorkspace: 1000, windowSeconds: 30 } });
    first = await startTestService({ env });
    // The same database and data directory (so the same signing key): another instance of one service.
    second = await startTestService({
      env,
      database: first.database,
      dataDir: first.dataDir,
      background: false,
    });
  });
  afterAll(async () => {
    await second.stop();
    await first.stop();
  });

  test('share the counters: requests to either count against one limit', async () => {
    const { token } = await first.userToken();
    for (const instance of [first, second, first, second])
      expect((await instance.request('GET', '/v1/users/me', { token })).status).toBe(200);
    await expectRateLimited(await second.request('GET', '/v1/users/me', { token }));
    await expectRateLimited(await first.request('GET', '/v1/users/me', { token }));
  });

  test('when PostgreSQL cannot be reached each instance goes on limiting on its own', async () => {
    const pool = new pg.Pool({ connectionString: first.database.url, max: 1 });
    const limits = { ...defaultRateLimits, write: { perToken: 2, perWorkspace: 1000, windowSeconds: 30 } };
    const limiter = await createRateLimiter(pool, limits);
    await pool.end();
    const keys = { token: 'session:down', workspace: 'o-down' };
    await limiter.consume('write', keys);
    await limiter.consume('write', keys);
    await expect(limiter.consume('write', keys)).rejects.toThrow(TooManyRequests);
    await limiter.stop();
  });
});

describe('claims in blocks', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ background: false });
  });
  afterAll(async () => service.stop());

  /** A pool that counts the statements sent through it. */
  function countingPool(): { pool: pg.Pool; statements: () => number } {
    const pool = new pg.Pool({ connectionString: service.database.url, max: 4 });
    let statements = 0;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      statements += 1;
      return query(...args);
    };
    return { pool, statements: () => statements };
  }

  const limitsOf = (perToken: number): RateLimits => ({
    ...defaultRateLimits,
    read: { perToken, perWorkspace: 1_000_000, windowSeconds: 60 },
  });

  /** Requests let through of `n`, sent `concurrency` at a time. */
  async function passed(
    limiter: Awaited<ReturnType<typeof createRateLimiter>>,
    token: string,
    n: number,
  ): Promise<number> {
    const outcomes = await Promise.all(
      Array.from({ length: n }, () =>
        limiter.consume('read', { token, workspace: null }).then(
          () => 1,
          (error: unknown) => {
            expect(error).toBeInstanceOf(TooManyRequests);
            return 0;
          },
        ),
      ),
    );
    return outcomes.reduce<number>((a, b) => a + b, 0);
  }

  test('a busy key costs one statement per block, not one per request', async () => {
    const { pool, statements } = countingPool();
    const limiter = await createRateLimiter(pool, limitsOf(1200));
    expect(await passed(limiter, `session:busy-${Date.now()}`, 600)).toBe(600);
    // Blocks of 60 (a twentieth of 1,200): 10 claims for 600 requests.
    expect(statements()).toBeLessThanOrEqual(12);
    await limiter.stop();
    await pool.end();
  });

  test('two instances claiming at once never let more through than the limit, and waste at most a block each', async () => {
    const a = countingPool();
    const b = countingPool();
    const first = await createRateLimiter(a.pool, limitsOf(500));
    const second = await createRateLimiter(b.pool, limitsOf(500));
    const token = `session:shared-${Date.now()}`;
    const [fromFirst, fromSecond] = await Promise.all([
      passed(first, token, 400),
      passed(second, token, 400),
    ]);
    expect(fromFirst + fromSecond).toBeLessThanOrEqual(500);
    expect(fromFirst + fromSecond).toBeGreaterThanOrEqual(500 - 2 * 25);
    // Near the limit blocks shrink to a point, so the last requests ask one by one; then the key is spent.
    await expect(first.consume('read', { token, workspace: null })).rejects.toThrow(TooManyRequests);
    await Promise.all([first.stop(), second.stop()]);
    await Promise.all([a.pool.end(), b.pool.end()]);
  });

  test('a new window starts over', async () => {
    const { pool } = countingPool();
    let now = Date.now();
    const limiter = await createRateLimiter(pool, limitsOf(5), { now: () => now });
    const token = `session:window-${now}`;
    expect(await passed(limiter, token, 8)).toBe(5);
    now += 60_001;
    expect(await passed(limiter, token, 8)).toBe(5);
    await limiter.stop();
    await pool.end();
  });
});

describe('the tool server', () => {
  let service: TestService;
  let ws: TestWorkspace;
  beforeAll(async () => {
    service = await startTestService({
      env: rateLimitsEnv({ mcp: { perToken: 6, perWorkspace: 1000, windowSeconds: 30 } }),
    });
    ws = await createTestWorkspace(service);
  });
  afterAll(async () => service.stop());

  test('counts an assistant connection under the mcp group and answers 429 the same way', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['mcp:read'],
    });
    const list = () =>
      service.runtime.app.request(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${assistant.accessToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    // Connecting made a few requests already; within the limit of 6 some more pass, then 429.
    const statuses: number[] = [];
    let res = await list();
    while (res.status !== 429 && statuses.length < 10) {
      statuses.push(res.status);
      res = await list();
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    await expectRateLimited(res);
    // The editor's own REST reads are another group and another token.
    expect((await service.request('GET', `/v1/orgs/${ws.orgId}`, { token: ws.tokens.editor })).status).toBe(
      200,
    );
  });
});

describe('the tool server: a JSON-RPC batch', () => {
  const limit = 6;
  let service: TestService;
  let ws: TestWorkspace;
  beforeAll(async () => {
    service = await startTestService({
      env: rateLimitsEnv({ mcp: { perToken: limit, perWorkspace: 1000, windowSeconds: 60 } }),
    });
    ws = await createTestWorkspace(service);
  });
  afterAll(async () => service.stop());

  const draftCall = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'create_draft_post',
      arguments: { title: `Batch ${id}`, posts: [{ platform: 'x', contentText: `Call ${id}` }] },
    },
  });
  const postBatch = (accessToken: string, body: unknown) =>
    service.runtime.app.request(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(body),
    });
  /** Drafts the connection's client created: what ran. */
  const draftsBy = async (clientId: string) =>
    Number(
      (
        await service.runtime.database.pool.query<{ n: string }>(
          `select count(*) as n from es_events where type = 'PostGroupCreated' and metadata->>'actor' = $1`,
          [`assistant:${clientId}`],
        )
      ).rows[0]!.n,
    );
  const connect = () =>
    connectAssistant(service, { userId: ws.userIds.editor, orgId: ws.orgId, scopes: ['posts:write'] });

  test('of 100 calls in one POST with a limit of 6, none runs: the batch is refused whole (400)', async () => {
    const assistant = await connect();
    const res = await postBatch(
      assistant.accessToken,
      Array.from({ length: 100 }, (_, i) => draftCall(i + 1)),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain('at most 20 messages');
    expect(await draftsBy(assistant.clientId)).toBe(0);
  });

  test('each call of a batch counts: of 20 with a limit of 6, at most 6 run, the rest get a rate-limit error', async () => {
    const assistant = await connect();
    const res = await postBatch(
      assistant.accessToken,
      Array.from({ length: 20 }, (_, i) => draftCall(i + 1)),
    );
    expect(res.status).toBe(200);
    const answers = (await res.json()) as Array<{
      id: number;
      result?: { isError?: boolean };
      error?: { code: number; data: { status: number; code: string; retryAfterSeconds: number } };
    }>;
    expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const ran = answers.filter((a) => a.result !== undefined);
    const refused = answers.filter((a) => a.error !== undefined);
    // Connecting (initialize, initialized) counted against the same limit already.
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.length).toBeLessThanOrEqual(limit);
    expect(ran.every((a) => a.result!.isError !== true)).toBe(true);
    expect(refused.length).toBe(20 - ran.length);
    for (const a of refused) {
      expect(a.error!.code).toBe(-32029);
      expect(a.error!.data).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
      expect(a.error!.data.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    // The refused calls were not run: one draft per call that ran.
    expect(await draftsBy(assistant.clientId)).toBe(ran.length);
    // The limit is spent: the next POST is a 429 as usual.
    await expectRateLimited(await postBatch(assistant.accessToken, [draftCall(21), draftCall(22)]));
    expect(await draftsBy(assistant.clientId)).toBe(ran.length);
  });
});

describe('RATE_LIMITS_ENABLED=false', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      env: {
        RATE_LIMITS_ENABLED: 'false',
        ...rateLimitsEnv({ read: { perToken: 1, perWorkspace: 1, windowSeconds: 30 } }),
      },
    });
  });
  afterAll(async () => service.stop());

  test('turns limiting off', async () => {
    const { token } = await service.userToken();
    for (let i = 0; i < 5; i++)
      expect((await service.request('GET', '/v1/users/me', { token })).status).toBe(200);
  });
});
