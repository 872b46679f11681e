// The render queue's bounds through the whole service (RENDER_QUEUE_PER_WORKSPACE=1, RENDER_QUEUE_TOTAL=2): a
// workspace past its share gets 429 rate_limit_exceeded with retryAfterSeconds, the service past its share 503,
// with nothing generated, charged, rendered or stored; slots come back when renders are answered. And images
// declaring more pixels than the cap are refused from their header with 422 image_too_large.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { startSite, type LocalSite } from '../brand/support.js';
import { gifDeclaring, pngDeclaring } from '../../visuals/hostile.js';
import { dataOf, errorOf, mediaList, pngOf } from './support.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let provider: http.Server;
/** Image-generation requests the provider holds until the test lets them through. */
const held: Array<() => void> = [];
let site: LocalSite;
let service: TestService;
let a: TestWorkspace;
let b: TestWorkspace;
let c: TestWorkspace;

beforeAll(async () => {
  const background = pngOf(1024, 1024).toString('base64');
  provider = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      held.push(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ created: 1_700_000_000, data: [{ b64_json: background }] }));
      }),
    );
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const port = (provider.address() as AddressInfo).port;
  site = await startSite();
  site.routes.set('/huge.png', { type: 'image/png', body: pngDeclaring(20000, 20000) });
  site.routes.set('/huge.gif', { type: 'image/gif', body: gifDeclaring(8000, 8000) });
  service = await startTestService({
    env: {
      IMAGE_GENERATION_URL: `http://127.0.0.1:${port}/v1`,
      IMAGE_GENERATION_API_KEY: 'sk-local',
      RENDER_QUEUE_PER_WORKSPACE: '1',
      RENDER_QUEUE_TOTAL: '2',
    },
    outbound: { allowPrivate: [site.origin] },
  });
  a = await createTestWorkspace(service, 'Queue A');
  b = await createTestWorkspace(service, 'Queue B');
  c = await createTestWorkspace(service, 'Queue C');
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await site?.close();
  provider?.closeAllConnections();
  await new Promise((resolve) => provider?.close(resolve));
});

const render = (ws: TestWorkspace, body: unknown, kind = 'image') =>
  service.request('POST', `${ws.base}/visuals/${kind}`, { token: ws.tokens.editor, body });

async function aiUsage(ws: TestWorkspace): Promise<Loose[]> {
  const page = await dataOf<Loose>(
    await service.request('GET', `/v1/orgs/${ws.orgId}/billing/credits/usage?metricKey=ai_background`, {
      token: ws.tokens.owner,
    }),
  );
  return page.data as Loose[];
}

async function heldCount(count: number): Promise<void> {
  while (held.length < count) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('past the workspace’s share a render is a 429, past the service’s a 503; nothing rendered or charged', async () => {
  const withAi = { content: { title: 'Held' }, template: 'photo', aiBackground: { prompt: 'a calm sea' } };
  // A's one slot is taken by a render waiting on its AI background.
  const first = render(a, withAi);
  await heldCount(1);

  const res = await render(a, { content: { title: 'One more' } });
  expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
  const refused = (await errorOf(res, 429)) as Loose;
  expect(refused).toMatchObject({ code: 'rate_limit_exceeded', retryAfterSeconds: expect.any(Number) });
  expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(refused.error).toMatch(/at most 1/);
  // A preview takes a slot too.
  const preview = await service.request('POST', `${a.base}/visuals/preview`, {
    token: a.tokens.editor,
    body: { kind: 'image', content: { content: { title: 'Peek' } } },
  });
  await errorOf(preview, 429);

  // B takes the service's second slot; C, with nothing of its own running, finds the service full.
  const second = render(b, withAi);
  await heldCount(2);
  const busy = await errorOf(await render(c, { ...withAi, content: { title: 'Too many' } }), 503);
  expect(busy.code).toBe('render_queue_full');
  expect(held).toHaveLength(2);

  for (const release of held.splice(0)) release();
  await dataOf(await first);
  await dataOf(await second);
  expect(await aiUsage(a)).toHaveLength(1);
  expect(await aiUsage(c)).toHaveLength(0);
  expect((await mediaList(service, a)).total).toBe(1);
  expect((await mediaList(service, c)).total).toBe(0);

  // The slots came back.
  const again = await dataOf<Loose>(await render(a, { content: { title: 'Later' } }));
  expect(again.images).toHaveLength(1);
}, 120_000);

test.each([
  [
    'a background',
    'image',
    { content: { title: 'x' }, template: 'photo', backgroundImage: {} },
    'backgroundImage',
  ],
  ['a screenshot', 'screenshot', { screenshot: {} }, 'screenshot'],
])(
  '%s declaring 20000×20000 is refused from its header: 422 image_too_large, nothing stored',
  async (_, kind, body, field) => {
    const url = `${site.origin}/huge.png`;
    const withUrl = { ...body, [field]: { url } };
    const refused = await errorOf(await render(c, withUrl, kind), 422);
    expect(refused.code).toBe('image_too_large');
    expect(refused.details).toEqual([
      { path: `body.${field}.url`, message: expect.stringMatching(/20000×20000 pixels; at most 16384/) },
    ]);
    expect((await mediaList(service, c)).total).toBe(0);
  },
  60_000,
);

test('a brand-kit logo declaring 8000×8000 is refused (422 on the field), the kit unchanged', async () => {
  const res = await service.request('PATCH', `/v1/orgs/${c.orgId}/brand/kit`, {
    token: c.tokens.owner,
    body: { logo: { url: `${site.origin}/huge.gif` } },
  });
  const refused = await errorOf(res, 422);
  expect(refused.details).toEqual([
    {
      path: 'body.logo.url',
      message: expect.stringMatching(/8000×8000 pixels; at most 16384 pixels a side/),
    },
  ]);
  const kit = await dataOf<Loose>(
    await service.request('GET', `/v1/orgs/${c.orgId}/brand/kit`, { token: c.tokens.owner }),
  );
  expect(kit.logo).toBeNull();
}, 60_000);
