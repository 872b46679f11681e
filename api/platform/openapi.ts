// The machine-readable description at /v1/openapi.json (OpenAPI 3.1, generated from the same route
// definitions that validate requests) and the reference page at /docs rendered from it.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { bearerSchemeName } from '../auth/middleware.js';
import type { AppEnv } from './app-env.js';
import { renderDocsPage } from './docs-page.js';

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
}

export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>, options: OpenApiOptions = {}) {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: options.title ?? apiTitle,
      version: apiVersion,
      ...(options.description ? { description: options.description } : {}),
    },
    ...(options.publicBaseUrl ? { servers: [{ url: options.publicBaseUrl.replace(/\/$/, '') }] } : {}),
  });
}

const openApiRoute = createRoute({
  method: 'get',
  path: '/v1/openapi.json',
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
  tags: ['openapi'],
  summary: 'Human-readable API reference',
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
  app.openapi(docsRoute, (c) => {
    page ??= renderDocsPage(getDocument());
    // The page needs no script at all; say so, so an injected one would not run.
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    return c.html(page, 200);
  });
}
