// aiBackground with an OpenAI-compatible provider configured (a local server answering the documented shape):
// options list it as available with its models, a render generates the background, charges `ai_background`
// credits (the usage list shows the debit) and marks its assets aiGenerated; a refused prompt charges nothing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { dataOf, errorOf, mediaList, pngOf } from './support.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let provider: http.Server;
const requests: Array<Record<string, unknown>> = [];
let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  const background = pngOf(1024, 1536).toString('base64');
  provider = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      requests.push({ ...body, authorization: req.headers.authorization, path: req.url });
      res.writeHead(String(body.prompt).includes('forbidden') ? 400 : 200, {
        'content-type': 'application/json',
      });
      res.end(
        JSON.stringify(
          String(body.prompt).includes('forbidden')
            ? {
                error: {
                  message: 'Your request was rejected as a result of our safety system.',
                  type: 'invalid_request_error',
                  code: 'content_policy_violation',
                },
              }
            : { created: 1_700_000_000, data: [{ b64_json: background }] },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const port = (provider.address() as AddressInfo).port;
  service = await startTestService({
    env: { IMAGE_GENERATION_URL: `http://127.0.0.1:${port}/v1`, IMAGE_GENERATION_API_KEY: 'sk-local' },
  });
  ws = await createTestWorkspace(service, 'Visuals AI');
}, 120_000);
afterAll(async () => {
  await service?.stop();
  provider?.closeAllConnections();
  await new Promise((resolve) => provider?.close(resolve));
});

async function aiUsage(): Promise<Loose[]> {
  const page = await dataOf<Loose>(
    await service.request('GET', `/v1/orgs/${ws.orgId}/billing/credits/usage?metricKey=ai_background`, {
      token: ws.tokens.owner,
    }),
  );
  return page.data as Loose[];
}

test('options list the provider as available, with every model on request', async () => {
  const out = await dataOf<Loose>(
    await service.request('GET', `${ws.base}/visuals/options?includeAllModels=1`, {
      token: ws.tokens.viewer,
    }),
  );
  expect(out.aiBackground).toMatchObject({ available: true, defaultModel: 'gpt-image-1' });
  expect(out.aiBackground.recommendedModels[0]).toMatchObject({ id: 'gpt-image-1' });
  expect(out.aiBackground.models).toContain('dall-e-3');
  expect(out.aiBackground.totalModels).toBe(out.aiBackground.models.length);
});

test('a photo with an AI background is generated, charged once and marked aiGenerated', async () => {
  const out = await dataOf<Loose>(
    await service.request('POST', `${ws.base}/visuals/image`, {
      token: ws.tokens.editor,
      body: {
        content: { title: 'Calm launches' },
        template: 'photo',
        format: 'portrait',
        aiBackground: { prompt: 'a calm sea at dawn' },
      },
    }),
  );
  expect(out.aiBackground).toEqual({ model: 'gpt-image-1', estimatedCostMilliUsd: 63 });
  expect(requests).toHaveLength(1);
  expect(requests[0]).toMatchObject({
    path: '/v1/images/generations',
    authorization: 'Bearer sk-local',
    model: 'gpt-image-1',
    prompt: 'a calm sea at dawn',
    size: '1024x1536',
    n: 1,
  });
  const usage = await aiUsage();
  expect(usage).toHaveLength(1);
  expect(usage[0]).toMatchObject({ metricKey: 'ai_background', amountUsed: 10, model: 'gpt-image-1' });
  const stored = (await mediaList(service, ws, 'collection=on_brand')).items.find(
    (i) => i.id === out.images[0].assetId,
  );
  expect(stored?.aiGenerated).toBe(true);
});

test('a prompt the provider refuses is a 422 with its words, charging and storing nothing; an unknown model a 400', async () => {
  const listed = (await mediaList(service, ws)).total;
  const refused = await errorOf(
    await service.request('POST', `${ws.base}/visuals/carousel`, {
      token: ws.tokens.editor,
      body: { slides: [{ title: 'a' }, { title: 'b' }], aiBackground: { prompt: 'something forbidden' } },
    }),
    422,
  );
  expect(refused.code).toBe('ai_background_refused');
  expect(refused.error).toMatch(/safety system/);
  const model = await errorOf(
    await service.request('POST', `${ws.base}/visuals/image`, {
      token: ws.tokens.editor,
      body: { content: { title: 'x' }, aiBackground: { prompt: 'p', model: 'midjourney' } },
    }),
    400,
  );
  expect(model.details?.[0]?.path).toBe('body.aiBackground.model');
  expect(await aiUsage()).toHaveLength(1);
  expect((await mediaList(service, ws)).total).toBe(listed);
});
