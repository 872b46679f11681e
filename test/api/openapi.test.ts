// The service's own OpenAPI document (every route actually mounted) is valid OpenAPI 3.1 and names the spec's paths.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestService, type TestService } from '../support/runtime.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ background: false });
});
afterAll(async () => service.stop());

test('GET /v1/openapi.json is a valid OpenAPI 3.1 document of the mounted routes', async () => {
  const res = await service.request('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  const doc = (await res.json()) as {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, unknown>>;
  };
  const result = await new Validator().validate(doc);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(doc.openapi).toMatch(/^3\.1\./);
  expect(doc.info.version).toBe('1.0.0');
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining(['/v1/orgs', '/v1/users/me', '/v1/auth/token', '/healthz', '/readyz']),
  );
  expect(Object.keys(doc.paths['/v1/orgs']!)).toEqual(expect.arrayContaining(['get', 'post']));
  const docs = await service.request('GET', '/docs');
  expect(docs.status).toBe(200);
  expect(await docs.text()).toContain('/v1/orgs');
});
