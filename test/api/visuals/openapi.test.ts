// The visuals routes in the service's OpenAPI document: valid OpenAPI 3.1 with them in it, each operationId the
// name of the assistant tool on the same operation (the preview has none), each declaring its security.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestService, type TestService } from '../../support/runtime.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ background: false });
});
afterAll(async () => service?.stop());

test('the five visuals operations are in a valid document', async () => {
  const doc = (await (await service.request('GET', '/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>>;
  };
  const result = await new Validator().validate(doc);
  expect(result.errors ?? []).toEqual([]);
  const base = '/v1/orgs/{orgId}/marketing/visuals';
  const expected: Array<[string, string, string]> = [
    ['post', `${base}/image`, 'create_branded_image'],
    ['post', `${base}/carousel`, 'create_carousel'],
    ['post', `${base}/screenshot`, 'create_app_screenshot'],
    ['post', `${base}/preview`, 'previewVisual'],
    ['get', `${base}/options`, 'list_visual_options'],
  ];
  for (const [method, path, operationId] of expected) {
    const operation = doc.paths[path]?.[method];
    expect(operation?.operationId, `${method} ${path}`).toBe(operationId);
    expect(operation?.security?.length, `${method} ${path}`).toBeGreaterThan(0);
  }
});
