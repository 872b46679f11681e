/* eslint-disable @typescript-eslint/no-explicit-any -- walking a JSON document */
// The machine-readable description and the reference page: a valid OpenAPI 3.1 document generated from
// the route definitions (bearer scheme on authenticated routes only, bracketed filter parameters), and
// /docs rendering every operation from it without scripts.
import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createAuthRoutes } from '../../../api/auth/routes.js';
import { sampleApp, testAuth } from './support.js';

async function documented() {
  const auth = await testAuth();
  const { app } = await sampleApp({
    auth,
    routes: [
      (await import('./support.js')).sampleRoutes(),
      createAuthRoutes({ auth, lookupMembership: async () => null }),
    ],
  });
  const res = await app.request('/v1/openapi.json');
  expect(res.status).toBe(200);
  return { app, doc: (await res.json()) as Record<string, any> };
}

describe('/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const { doc } = await documented();
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '1.0.0' });
    expect(doc.servers).toEqual([{ url: 'https://api.example.test' }]);
  });

  it('declares the bearer JWT scheme and applies it to authenticated routes only (the open ones declare none: [])', async () => {
    const { doc } = await documented();
    expect(doc.components.securitySchemes.bearerAuth).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
    );
    const widgets = doc.paths['/v1/orgs/{orgId}/widgets'];
    expect(widgets.get.security).toEqual([{ bearerAuth: [] }]);
    expect(widgets.post.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/v1/auth/token'].post.security).toEqual([{ bearerAuth: [] }]);
    for (const open of ['/healthz', '/readyz', '/v1/openapi.json', '/.well-known/jwks.json']) {
      expect(doc.paths[open].get.security, open).toEqual([]);
    }
    expect(doc.security).toBeUndefined();
  });

  it('lists the list-query parameters, bracketed filter keys included', async () => {
    const { doc } = await documented();
    const params = doc.paths['/v1/orgs/{orgId}/widgets'].get.parameters as Array<Record<string, any>>;
    const byName = new Map(params.map((p) => [p.name as string, p]));
    for (const name of [
      'orgId',
      'page',
      'limit',
      'sortBy',
      'sortDir',
      'filter[name]',
      'filterOp[name]',
      'filter[status]',
      'filterOp[status]',
    ]) {
      expect(byName.has(name), name).toBe(true);
    }
    expect(byName.get('orgId')).toMatchObject({ in: 'path', required: true });
    expect(byName.get('limit')).toMatchObject({ in: 'query', schema: { type: 'integer', maximum: 100 } });
    expect(byName.get('filterOp[status]')!.schema.enum).toEqual(['eq', 'in']);
    expect(byName.get('sortBy')!.schema.enum).toEqual(['name', 'count']);
  });

  it('documents request bodies as required and the error body per status', async () => {
    const { doc } = await documented();
    const post = doc.paths['/v1/orgs/{orgId}/widgets'].post;
    expect(post.requestBody.required).toBe(true);
    // 402 and 429 are declared for every workspace write and authenticated operation (api/platform/openapi.ts).
    expect(Object.keys(post.responses).sort()).toEqual([
      '201',
      '400',
      '401',
      '402',
      '403',
      '413',
      '415',
      '429',
    ]);
    expect(post.responses['400'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(post.responses['401'].headers['WWW-Authenticate']).toBeDefined();
    expect(doc.components.schemas.Error.required).toEqual(['error']);
  });
});

describe('/docs', () => {
  it('serves Swagger UI from this process: no CDN, same-origin scripts only, reading the document', async () => {
    const { app } = await documented();
    const res = await app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toContain('text/html');
    const csp = res.headers.get('Content-Security-Policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const html = await res.text();
    // Every script and stylesheet is a same-origin path, and there is no inline script.
    const sources = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).toEqual([
      '/docs/assets/favicon-32x32.png',
      '/docs/assets/swagger-ui.css',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/start.js',
    ]);
    expect(html).not.toMatch(/<script>(?!<)/);

    const start = await app.request('/docs/start.js');
    expect(start.status).toBe(200);
    const script = await start.text();
    expect(script).toContain("url: '/v1/openapi.json'");
    expect(script).toContain('tryItOutEnabled: true');

    for (const [name, type] of [
      ['swagger-ui-bundle.js', 'text/javascript'],
      ['swagger-ui.css', 'text/css'],
    ]) {
      const asset = await app.request(`/docs/assets/${name}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('Content-Type')).toContain(type);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    }
    expect(await (await app.request('/docs/assets/swagger-ui-bundle.js')).text()).toContain(
      'SwaggerUIBundle',
    );
  });

  it('serves only the listed files of the renderer', async () => {
    const { app } = await documented();
    for (const name of [
      'package.json',
      'index.html',
      '..%2Fpackage.json',
      '%2e%2e%2fLICENSE',
      'constructor',
    ]) {
      expect((await app.request(`/docs/assets/${name}`)).status).toBe(404);
    }
  });
});
