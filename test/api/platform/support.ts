// Test fixtures for the HTTP platform: an app with sample routes, a captured log, and an AuthService
// keyed in a temporary DATA_DIR. Requests go through app.request(), never a socket.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { createApp, type AppDeps } from '../../../api/app.js';
import {
  createAuthService,
  type AuthService,
  type AuthServiceOptions,
} from '../../../api/auth/auth-service.js';
import { principalOf, secured } from '../../../api/auth/middleware.js';
import type { AppEnv } from '../../../api/platform/app-env.js';
import { errorResponses } from '../../../api/platform/errors.js';
import { defineListQuery, pagedResponse } from '../../../api/platform/paging.js';
import { toPage } from '../../../domain/shared/page.js';
import { dataOf, jsonBody, jsonResponse } from '../../../api/platform/responses.js';
import { Conflict, TooManyRequests } from '../../../domain/shared/errors.js';
import { createLogger } from '../../../infra/logging/logger.js';

export async function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'api-platform-'));
}

export async function testAuth(overrides: Partial<AuthServiceOptions> = {}): Promise<AuthService> {
  return createAuthService({
    mode: 'local',
    dataDir: await tempDataDir(),
    accessTokenTtlSeconds: 3600,
    ...overrides,
  });
}

export function captureLogs() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  return { logger, lines, text: () => lines.join('') };
}

export class StaleRevision extends Error {}

export const Widget = z.object({ id: z.uuid(), name: z.string(), count: z.number().int() }).openapi('Widget');

const CreateWidget = z
  .strictObject({
    name: z.string().min(1).max(50),
    count: z.number().int().min(0),
    tags: z.array(z.string()).optional(),
  })
  .openapi('CreateWidget');

export const widgetListQuery = defineListQuery({
  filters: {
    name: ['eq', 'contains'],
    status: { ops: ['eq', 'in'], value: z.enum(['draft', 'published']) },
    count: { ops: ['gte', 'lte', 'eq'], value: z.coerce.number().int() },
  },
  sortBy: ['name', 'count'],
  defaultLimit: 25,
  maxLimit: 100,
});

const OrgParams = z.object({ orgId: z.uuid().openapi({ param: { name: 'orgId', in: 'path' } }) });

/** Sample feature routes shaped the way real ones are: contract first, errors thrown, never built. */
export function sampleRoutes() {
  const create = createRoute({
    ...secured({ permission: 'posts:draft' }),
    method: 'post',
    path: '/v1/orgs/{orgId}/widgets',
    tags: ['widgets'],
    summary: 'Create a widget',
    request: { params: OrgParams, body: jsonBody(CreateWidget) },
    responses: {
      201: jsonResponse(dataOf(Widget), 'Created'),
      ...errorResponses(400, 401, 403, 413, 415),
    },
  });
  const list = createRoute({
    ...secured({ permission: 'posts:read' }),
    method: 'get',
    path: '/v1/orgs/{orgId}/widgets',
    tags: ['widgets'],
    summary: 'List widgets',
    request: { params: OrgParams, query: widgetListQuery.schema },
    responses: {
      200: jsonResponse(pagedResponse(Widget), 'A page of widgets'),
      ...errorResponses(400, 401, 403),
    },
  });
  const whoami = createRoute({
    ...secured({ workspace: false }),
    method: 'get',
    path: '/v1/whoami',
    tags: ['widgets'],
    summary: 'The caller',
    responses: {
      200: jsonResponse(dataOf(z.object({ userId: z.string(), orgId: z.string().nullable() })), 'Caller'),
    },
  });

  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(create, (c) => {
      const body = c.req.valid('json');
      return c.json(
        { data: { id: '00000000-0000-4000-8000-000000000001', name: body.name, count: body.count } },
        201,
      );
    });
    app.openapi(list, (c) => {
      const query = c.req.valid('query');
      c.header('X-Parsed-Query', JSON.stringify(query));
      return c.json({ data: toPage([], 0, query.page, query.limit) }, 200);
    });
    app.openapi(whoami, (c) => {
      const p = principalOf(c);
      return c.json({ data: { userId: p.userId, orgId: p.orgId } }, 200);
    });
    app.get('/v1/test/boom', () => {
      throw new Error('database password is hunter2');
    });
    app.get('/v1/test/limited', () => {
      throw new TooManyRequests('Too many requests', 42);
    });
    app.get('/v1/test/conflict', () => {
      throw new StaleRevision('stream moved');
    });
    app.get('/v1/test/raw', () => new Response('raw', { status: 200 }));
  };
}

export async function sampleApp(overrides: Partial<AppDeps> = {}) {
  const logs = captureLogs();
  const auth = overrides.auth ?? (await testAuth());
  const app = createApp({
    logger: logs.logger,
    config: { bodyLimitBytes: 2048, publicBaseUrl: 'https://api.example.test' },
    auth,
    readiness: async () => ({ ok: true, checks: { database: { ok: true } } }),
    routes: [sampleRoutes()],
    errorMappers: [
      (e) => (e instanceof StaleRevision ? new Conflict('Changed meanwhile, retry') : undefined),
    ],
    ...overrides,
  });
  return { app, auth, logs };
}

export const orgA = '11111111-1111-4111-8111-111111111111';
export const orgB = '22222222-2222-4222-8222-222222222222';
export const userA = '33333333-3333-4333-8333-333333333333';

export async function tokenFor(
  auth: AuthService,
  input: Partial<Parameters<AuthService['issueAccessToken']>[0]> = {},
): Promise<string> {
  const issued = await auth.issueAccessToken({ userId: userA, orgId: orgA, role: 'editor', ...input });
  return issued.token;
}

export function jsonRequest(body: unknown, token?: string, extra: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...extra,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}
