// The machine-readable description at /v1/openapi.json (OpenAPI 3.1, generated from the same route
// definitions that validate requests) and the reference page at /docs (Swagger UI, served from here).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { bearerSchemeName } from '../auth/middleware.js';
import type { AppEnv } from './app-env.js';
import { errorBodySchema, rateLimitErrorBodySchema } from './errors.js';
import {
  docsAsset,
  docsAssets,
  docsContentSecurityPolicy,
  docsStartScript,
  renderDocsPage,
} from './docs-page.js';

export const apiTitle = 'Social Publishing API';
export const apiVersion = '1.0.0';

export interface OpenApiOptions {
  publicBaseUrl?: string;
  title?: string;
  description?: string;
}

/** Registers the bearer JWT scheme; routes opt in with `security` (see `secured()` in api/auth). */
export function registerSecurityScheme(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', bearerSchemeName, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token scoped to one user and one workspace (POST /v1/auth/token switches workspace)',
  });
  app.openAPIRegistry.register('Error', errorBodySchema);
  app.openAPIRegistry.register('RateLimitError', rateLimitErrorBodySchema);
}

const writeMethods = new Set(['post', 'put', 'patch', 'delete']);

/**
 * Answers every authenticated operation can give without declaring them one by one: 429 (rate limits count
 * every authenticated request, api/platform/rate-limits.ts) and, for writes in a workspace, 402 (an overdue
 * workspace is read-only, a paid action needs a subscription; commands/billing/access.ts).
 */
function addSharedResponses(document: { paths?: Record<string, Record<string, unknown>> }): void {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, value] of Object.entries(operations)) {
      const operation = value as {
        security?: Array<Record<string, unknown>>;
        responses?: Record<string, unknown>;
      };
      if (!operation.responses || !operation.security?.some((s) => bearerSchemeName in s)) continue;
      operation.responses['429'] ??= {
        description: 'Too many requests',
        headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/RateLimitError' } } },
      };
      if (writeMethods.has(method) && path.startsWith('/v1/orgs/{orgId}'))
        operation.responses['402'] ??= {
          description: 'The plan does not allow the action now',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        };
    }
  }
}

export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>, options: OpenApiOptions = {}) {
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: options.title ?? apiTitle,
      version: apiVersion,
      ...(options.description ? { description: options.description } : {}),
    },
    ...(options.publicBaseUrl ? { servers: [{ url: options.publicBaseUrl.replace(/\/$/, '') }] } : {}),
  });
  addSharedResponses(document as Parameters<typeof addSharedResponses>[0]);
  return document;
}

const openApiRoute = createRoute({
  method: 'get',
  path: '/v1/openapi.json',
  operationId: 'getOpenApiDocument',
  security: [],
  tags: ['openapi'],
  summary: 'This document (OpenAPI 3.1)',
  responses: {
    200: {
      description: 'OpenAPI 3.1 document',
      content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
    },
  },
});

const docsRoute = createRoute({
  method: 'get',
  path: '/docs',
  operationId: 'getApiReference',
  security: [],
  tags: ['openapi'],
  summary: 'API reference (Swagger UI, with try-it-out)',
  responses: {
    200: { description: 'HTML page', content: { 'text/html': { schema: z.string() } } },
  },
});

/**
 * Installs both endpoints. The document is built on first request, after every route is registered,
 * then kept: routes do not change while the process runs.
 */
export function registerOpenApiRoutes(app: OpenAPIHono<AppEnv>, options: OpenApiOptions = {}): void {
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  let page: string | undefined;
  const getDocument = () => (document ??= buildOpenApiDocument(app, options));

  app.openapi(openApiRoute, (c) => c.json(getDocument() as unknown as Record<string, unknown>, 200));
  const csp = docsContentSecurityPolicy(
    options.publicBaseUrl ? new URL(options.publicBaseUrl).origin : undefined,
  );
  app.openapi(docsRoute, (c) => {
    page ??= renderDocsPage(getDocument().info.title);
    c.header('Content-Security-Policy', csp);
    return c.html(page, 200);
  });
  // The page's own script and the renderer's files: not API operations, so not in the document.
  app.get('/docs/start.js', (c) =>
    c.body(docsStartScript, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
  app.get('/docs/assets/:name', async (c) => {
    const name = c.req.param('name');
    const bytes = await docsAsset(name);
    if (!bytes) return c.json({ error: 'Not found' }, 404);
    return c.body(new Uint8Array(bytes), 200, {
      'content-type': docsAssets[name]!,
      'cache-control': 'public, max-age=86400',
      'x-content-type-options': 'nosniff',
    });
  });
}
