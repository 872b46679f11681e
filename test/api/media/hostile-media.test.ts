// Hostile files through every door of the media library (upload complete, URL import, the MCP tools' use case):
// a 5.6 KB MP4 declaring four billion samples (before: the whole process aborted) and a 48-byte-header PNG of
// 20000 × 20000 pixels (before: decoded to gigabytes) are refused with a clear 422, nothing recorded or kept, and
// the service goes on answering. The files are built here, box by box and chunk by chunk.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  maxImagePixels as MAX_IMAGE_PIXELS,
  maxImageSide as MAX_IMAGE_SIDE,
} from '../../../infra/images/dimensions.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { mp4Of, sampleBombMp4 } from './mp4-bytes.js';
import { complete, errorOf, fixture, pngHeaderOf, pngOf, put, upload, uploadSlot } from './support.js';

let service: TestService;
let ws: TestWorkspace;
let server: Server;
let origin = '';
const bomb = sampleBombMp4();
const pixelBomb = pngHeaderOf(20_000, 20_000);

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/bomb.mp4')
      return res.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.from(bomb));
    if (req.url === '/huge.png')
      return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from(pixelBomb));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service = await startTestService({ outbound: { allowPrivate: [origin] } });
  ws = await createTestWorkspace(service, 'Acme');
}, 60_000);
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await service?.stop();
});

/** The service still does its work: a real upload is read and recorded. */
async function stillAlive(): Promise<void> {
  const asset = await upload(service, ws, fixture('clip.mp4'), { kind: 'video', contentType: 'video/mp4' });
  expect(asset).toMatchObject({ kind: 'video', durationSeconds: 2.5, width: 320, height: 240 });
}

describe('a sample-table bomb MP4', () => {
  test('upload complete: 422 implausible_sample_table, the object deleted, nothing recorded, the service alive', async () => {
    expect(bomb.byteLength).toBeLessThan(6_000);
    const body = { kind: 'video', contentType: 'video/mp4' } as const;
    const slot = await uploadSlot(service, ws, body);
    await put(service, slot, bomb);
    const before = await eventCount(service);
    const error = await errorOf(await complete(service, ws, slot, body), 422);
    expect(error).toEqual({
      error: expect.stringContaining('4000000000 samples'),
      code: 'implausible_sample_table',
      details: [{ path: 'body.key', message: expect.any(String) }],
    });
    expect(await eventCount(service)).toBe(before);
    expect(await service.runtime.storage.head(slot.key)).toBeNull();
    await stillAlive();
  });

  test('URL import: 422 implausible_sample_table, nothing recorded', async () => {
    const before = await eventCount(service);
    const error = await errorOf(
      await service.request('POST', `${ws.base}/media/import`, {
        token: ws.tokens.editor,
        body: { url: `${origin}/bomb.mp4` },
      }),
      422,
    );
    expect(error).toMatchObject({ code: 'implausible_sample_table', details: [{ path: 'body.url' }] });
    expect(await eventCount(service)).toBe(before);
    await stillAlive();
  });

  test('a long video whose tables fit its size is accepted through upload complete', async () => {
    const samples = 100_000;
    const file = mp4Of({
      sampleSize: 0,
      sampleCount: samples,
      eachSampleBytes: 20,
      mediaDataBytes: samples * 20,
      timescale: 25,
      duration: samples,
    });
    const asset = await upload(service, ws, file, { kind: 'video', contentType: 'video/mp4' });
    expect(asset).toMatchObject({ kind: 'video', durationSeconds: 4000, width: 640, height: 360 });
  });
});

describe('a pixel bomb PNG', () => {
  test('upload complete: 422 image_dimensions_too_large naming the cap, the object deleted, nothing recorded', async () => {
    expect(pixelBomb.byteLength).toBeLessThan(1_000);
    const body = { kind: 'image', contentType: 'image/png' } as const;
    const slot = await uploadSlot(service, ws, body);
    await put(service, slot, pixelBomb);
    const before = await eventCount(service);
    const error = await errorOf(await complete(service, ws, slot, body), 422);
    expect(error).toEqual({
      error: expect.stringContaining(`at most ${MAX_IMAGE_SIDE} pixels a side`),
      code: 'image_dimensions_too_large',
      details: [{ path: 'body.key', message: expect.any(String) }],
    });
    expect(await eventCount(service)).toBe(before);
    expect(await service.runtime.storage.head(slot.key)).toBeNull();
  });

  test('within each side but over the megapixels: refused; at the caps: accepted', async () => {
    const body = { kind: 'image', contentType: 'image/png' } as const;
    const wide = pngHeaderOf(10_000, 6_000);
    expect(10_000 * 6_000).toBeGreaterThan(MAX_IMAGE_PIXELS);
    const slot = await uploadSlot(service, ws, body);
    await put(service, slot, wide);
    const error = await errorOf(await complete(service, ws, slot, body), 422);
    expect(error.code).toBe('image_dimensions_too_large');
    expect(error.error).toContain('megapixels');
    const small = await upload(service, ws, pngOf(40, 30), body);
    expect(small).toMatchObject({ width: 40, height: 30 });
  });

  test('URL import: 422 image_dimensions_too_large, nothing recorded', async () => {
    const before = await eventCount(service);
    const error = await errorOf(
      await service.request('POST', `${ws.base}/media/import`, {
        token: ws.tokens.editor,
        body: { url: `${origin}/huge.png` },
      }),
      422,
    );
    expect(error).toMatchObject({ code: 'image_dimensions_too_large', details: [{ path: 'body.url' }] });
    expect(await eventCount(service)).toBe(before);
  });
});
