// Importing media from a link: fetched through the SSRF-safe fetcher (a local test server stands for the public
// site, allowed by the test seam `outbound.allowPrivate` for its origin only), the type read from the bytes,
// stored and recorded. Every link to a private place — directly, through DNS or through a redirect — and every
// oversized or slow body is a clear 400 that stores and records nothing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { importMedia } from '../../../commands/media/media-use-cases.js';
import type { Caller } from '../../../domain/shared/caller.js';
import { rolePermissions } from '../../../domain/workspaces/roles.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { dataOf, errorOf, fixture, listMedia, local, pngOf } from './support.js';

let server: Server;
let origin = '';
let service: TestService;
let ws: TestWorkspace;
const png = pngOf(30, 20);
const mp4 = fixture('clip.mp4');

/**
 * clip.mp4 (ftyp, free, mdat, moov) with its media data grown past 6 MiB by bytes after the samples: still a
 * valid MP4 (the sample offsets point before the padding), its movie header now 6 MiB into the file.
 */
function withLargeMediaData(clip: Uint8Array, padding: number): Uint8Array {
  const view = new DataView(clip.buffer, clip.byteOffset, clip.byteLength);
  let offset = 0;
  while (offset < clip.byteLength) {
    const size = view.getUint32(offset);
    const type = new TextDecoder().decode(clip.subarray(offset + 4, offset + 8));
    if (type === 'mdat') {
      const out = new Uint8Array(clip.byteLength + padding);
      out.set(clip.subarray(0, offset + size));
      for (let i = 0; i < padding; i++) out[offset + size + i] = (i * 31 + 7) % 251;
      out.set(clip.subarray(offset + size), offset + size + padding);
      new DataView(out.buffer).setUint32(offset, size + padding);
      return out;
    }
    offset += size;
  }
  throw new Error('no mdat box in the clip');
}
const bigMp4 = withLargeMediaData(mp4, 6 * 1024 * 1024 + 123);

function route(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://x');
  switch (url.pathname) {
    case '/photo.png':
      return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from(png));
    case '/misnamed.jpg': // a PNG served as a JPEG: the bytes decide
      return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from(png));
    case '/clip.mp4':
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from(mp4));
    case '/page.html':
      return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'.padEnd(5000, ' ') + '</html>');
    case '/missing.png':
      return res.writeHead(404).end('not here');
    case '/hop':
      return res.writeHead(302, { location: '/photo.png' }).end();
    case '/to-private':
      return res.writeHead(302, { location: 'http://192.168.1.10/photo.png' }).end();
    case '/to-metadata':
      return res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    case '/to-loopback': // the same machine on another port: not the allowed origin
      return res.writeHead(302, { location: `http://127.0.0.1:1/photo.png` }).end();
    case '/declared-huge.mp4':
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(600 * 1024 * 1024) });
      return res.write(Buffer.from(mp4.subarray(0, 1000)));
    case '/huge.png': {
      // A real PNG start, then more bytes than an image may have, chunked (no length announced).
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(Buffer.from(png));
      const chunk = Buffer.alloc(1024 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 22 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      return pump();
    }
    case '/big.mp4': {
      // Sent in pieces with no length announced, as a large file arrives.
      res.writeHead(200, { 'content-type': 'video/mp4' });
      let offset = 0;
      const pump = () => {
        while (offset < bigMp4.byteLength && !res.destroyed) {
          const piece = Buffer.from(bigMp4.subarray(offset, offset + 256 * 1024));
          offset += piece.byteLength;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      return pump();
    }
    case '/no-movie.mp4': // an MP4's start (its type shows) without the movie header
      return res.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.from(mp4.subarray(0, 4500)));
    case '/slow.png': {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(Buffer.from(png.subarray(0, 100)));
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('x')), 100);
      return;
    }
    default:
      return res.writeHead(404).end();
  }
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service = await startTestService({
    outbound: {
      allowPrivate: [origin],
      // A "public" name resolving to a private address; every other name to a public one.
      resolve: async (host) =>
        host === 'cdn.evil.example'
          ? [{ address: '10.1.2.3', family: 4 }]
          : [{ address: '93.184.215.14', family: 4 }],
    },
  });
  ws = await createTestWorkspace(service);
}, 60_000);
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await service?.stop();
});

const importUrl = (url: string, body: Record<string, unknown> = {}, token = ws.tokens.editor) =>
  service.request('POST', `${ws.base}/media/import`, { token, body: { url, ...body } });

describe('import', () => {
  test('an image: type and size from the bytes, alt text kept, title from the file name, served back', async () => {
    const before = await eventCount(service);
    const { asset } = await dataOf<{ asset: Record<string, unknown> }>(
      await importUrl(`${origin}/misnamed.jpg`, { altText: 'A gradient' }),
    );
    expect(asset).toEqual({
      kind: 'image',
      assetId: expect.any(String),
      url: expect.stringMatching(
        new RegExp(`^http://localhost:3000/v1/assets/orgs/${ws.orgId}/media/.+\\.png$`),
      ),
      contentType: 'image/png',
      sizeBytes: png.byteLength,
      width: 30,
      height: 20,
      altText: 'A gradient',
    });
    expect(await eventCount(service)).toBe(before + 1);
    const page = await listMedia(service, ws);
    expect(page.items[0]).toMatchObject({
      id: asset.assetId,
      source: 'import',
      title: 'misnamed.jpg',
      previewUrl: asset.url,
      sizeBytes: png.byteLength,
      aiGenerated: false,
      format: null,
    });
    const redirect = await local(service, asset.url as string);
    const bytes = new Uint8Array(
      await (await local(service, redirect.headers.get('location')!)).arrayBuffer(),
    );
    expect(bytes).toEqual(png);
  });

  test('a video through a redirect: length and frame size read from it', async () => {
    const hop = await dataOf<{ asset: unknown }>(await importUrl(`${origin}/hop`));
    expect(hop.asset).toMatchObject({ kind: 'image', width: 30, height: 20 });
    const { asset } = await dataOf<{ asset: unknown }>(await importUrl(`${origin}/clip.mp4`));
    expect(asset).toMatchObject({
      kind: 'video',
      contentType: 'video/mp4',
      sizeBytes: mp4.byteLength,
      durationSeconds: 2.5,
      width: 320,
      height: 240,
    });
  });

  test('the same Idempotency-Key imports once', async () => {
    const headers = { 'idempotency-key': `import-${randomUUID()}` };
    const first = await dataOf<{ asset: { assetId: string } }>(
      await service.request('POST', `${ws.base}/media/import`, {
        token: ws.tokens.editor,
        body: { url: `${origin}/photo.png` },
        headers,
      }),
    );
    const before = await eventCount(service);
    const again = await service.request('POST', `${ws.base}/media/import`, {
      token: ws.tokens.editor,
      body: { url: `${origin}/photo.png` },
      headers,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await dataOf<{ asset: { assetId: string } }>(again)).asset.assetId).toBe(first.asset.assetId);
    expect(await eventCount(service)).toBe(before);
  });

  test('a page or a missing file is refused, nothing stored', async () => {
    const before = await eventCount(service);
    const total = (await listMedia(service, ws)).counts.all;
    const html = await errorOf(await importUrl(`${origin}/page.html`), 422);
    expect(html.code).toBe('unsupported_content_type');
    expect(html.details?.[0]?.path).toBe('body.url');
    const missing = await errorOf(await importUrl(`${origin}/missing.png`), 400);
    // An error status is answered like every other failed fetch (audit finding 13): no hint of what the network said.
    expect(missing).toMatchObject({
      code: 'fetch_failed',
      error: 'The file at this link could not be fetched',
    });
    expect(await eventCount(service)).toBe(before);
    expect((await listMedia(service, ws)).counts.all).toBe(total);
  });

  test('viewers may not import (403)', async () => {
    expect((await importUrl(`${origin}/photo.png`, {}, ws.tokens.viewer)).status).toBe(403);
  });
});

describe('import refuses, with a clear 400, storing and recording nothing', () => {
  let fresh: TestWorkspace;
  beforeAll(async () => {
    fresh = await createTestWorkspace(service, 'Empty');
  });

  const cases: Array<[string, () => string, string, RegExp]> = [
    ['plain http', () => 'http://example.com/photo.png', 'https_required', /https/],
    ['loopback', () => 'https://127.0.0.1/photo.png', 'unsafe_url', /private address/],
    ['localhost', () => 'https://localhost/photo.png', 'unsafe_url', /private address/],
    ['10/8', () => 'https://10.0.0.7/photo.png', 'unsafe_url', /private address/],
    ['172.16/12', () => 'https://172.16.5.4/photo.png', 'unsafe_url', /private address/],
    ['192.168/16', () => 'https://192.168.0.1/photo.png', 'unsafe_url', /private address/],
    [
      'cloud metadata (link-local)',
      () => 'https://169.254.169.254/latest/meta-data/',
      'unsafe_url',
      /private address/,
    ],
    ['IPv4-mapped IPv6', () => 'https://[::ffff:127.0.0.1]/photo.png', 'unsafe_url', /private address/],
    ['IPv6 loopback', () => 'https://[::1]/photo.png', 'unsafe_url', /private address/],
    [
      'a public name resolving to a private address',
      () => 'https://cdn.evil.example/photo.png',
      'fetch_failed',
      /^The file at this link could not be fetched$/,
    ],
    ['a port other than 443', () => 'https://example.com:8443/photo.png', 'unsafe_url', /ports 80 and 443/],
    // Where the network leads (a name or a redirect into a private range) is one answer, as a 404 is.
    ['a redirect into a private range', () => `${origin}/to-private`, 'fetch_failed', /could not be fetched/],
    ['a redirect to cloud metadata', () => `${origin}/to-metadata`, 'fetch_failed', /could not be fetched/],
    [
      'a redirect to another loopback port',
      () => `${origin}/to-loopback`,
      'fetch_failed',
      /could not be fetched/,
    ],
    [
      'a body declared larger than any file may be',
      () => `${origin}/declared-huge.mp4`,
      'file_too_large',
      /larger than 512 MiB/,
    ],
    ['an image body over 20 MiB', () => `${origin}/huge.png`, 'file_too_large', /larger than 20 MiB/],
    [
      'credentials in the link',
      () => 'https://user:secret@example.com/photo.png',
      'unsafe_url',
      /credentials/,
    ],
  ];

  test.each(cases)('%s', async (_name, url, code, message) => {
    const before = await eventCount(service);
    const error = await errorOf(
      await service.request('POST', `${fresh.base}/media/import`, {
        token: fresh.tokens.editor,
        body: { url: url() },
      }),
      400,
    );
    expect(error.code).toBe(code);
    expect(error.error).toMatch(message);
    expect(error.details).toEqual([{ path: 'body.url', message: error.error }]);
    expect(await eventCount(service)).toBe(before);
    const page = await listMedia(service, fresh);
    expect(page.items).toEqual([]);
    expect(page.counts.all).toBe(0);
  });

  test('not a URL at all is a 400 naming the field', async () => {
    const error = await errorOf(
      await service.request('POST', `${fresh.base}/media/import`, {
        token: fresh.tokens.editor,
        body: { url: 'not a url' },
      }),
      400,
    );
    expect(error.details?.[0]?.path).toBe('body.url');
  });

  test('a slow body is cut at the deadline', async () => {
    // The use case with a short deadline (the service's is a minute), on the service's own parts.
    const runtime = service.runtime;
    const base = {
      commands: runtime.commands,
      readModels: runtime.readModels,
      storage: runtime.storage,
      publicBaseUrl: 'http://localhost:3000',
      now: () => new Date(),
    };
    const caller: Caller = {
      kind: 'user',
      userId: fresh.userIds.editor,
      orgId: fresh.orgId,
      role: 'editor',
      permissions: rolePermissions.editor,
    };
    const before = await eventCount(service);
    const started = Date.now();
    const refused = importMedia(
      {
        ...base,
        idempotency: runtime.idempotency,
        outbound: { allowPrivate: [origin] },
        importTimeoutMs: 700,
      },
      caller,
      { orgId: fresh.orgId, url: `${origin}/slow.png` },
      { correlationId: randomUUID(), now: new Date().toISOString() },
    );
    await expect(refused).rejects.toMatchObject({ status: 400, code: 'fetch_timeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await eventCount(service)).toBe(before);
    expect((await listMedia(service, fresh)).counts.all).toBe(0);
  });
});

describe('import streams the file to storage', () => {
  let fresh: TestWorkspace;
  let spoolDir: string;
  beforeAll(async () => {
    fresh = await createTestWorkspace(service, 'Streamed');
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
  });

  /** The use case on the service's own parts, spooling into a folder of the test's. */
  async function importDirect(url: string) {
    spoolDir ??= await mkdtemp(path.join(os.tmpdir(), 'media-import-spool-'));
    const runtime = service.runtime;
    const caller: Caller = {
      kind: 'user',
      userId: fresh.userIds.editor,
      orgId: fresh.orgId,
      role: 'editor',
      permissions: rolePermissions.editor,
    };
    return importMedia(
      {
        commands: runtime.commands,
        readModels: runtime.readModels,
        storage: runtime.storage,
        publicBaseUrl: 'http://localhost:3000',
        now: () => new Date(),
        idempotency: runtime.idempotency,
        outbound: { allowPrivate: [origin] },
        spoolDir,
      },
      caller,
      { orgId: fresh.orgId, url },
      { correlationId: randomUUID(), now: new Date().toISOString() },
    );
  }

  test('a multi-MiB video is stored byte-identical, streamed (never put as one array), the spool removed', async () => {
    const storage = service.runtime.storage;
    const put = vi.spyOn(storage, 'put');
    const putStream = vi.spyOn(storage, 'putStream');
    const { output } = await importDirect(`${origin}/big.mp4`);
    const asset = output.asset;
    expect(asset).toMatchObject({
      kind: 'video',
      contentType: 'video/mp4',
      sizeBytes: bigMp4.byteLength,
      durationSeconds: 2.5,
      width: 320,
      height: 240,
    });
    if (asset.kind !== 'video') throw new Error(`imported as ${asset.kind}`);
    expect(put).not.toHaveBeenCalled();
    expect(putStream).toHaveBeenCalledTimes(1);
    put.mockRestore();
    putStream.mockRestore();

    const key = asset.url.replace('http://localhost:3000/v1/assets/', '');
    expect(key).toMatch(new RegExp(`^orgs/${fresh.orgId}/media/${asset.assetId}\\.mp4$`));
    expect(await storage.head(key)).toMatchObject({ contentType: 'video/mp4', sizeBytes: bigMp4.byteLength });
    const object = await storage.get(key);
    expect(object).not.toBeNull();
    expect(Buffer.from(object!.body).equals(Buffer.from(bigMp4))).toBe(true);
    expect(await readdir(spoolDir)).toEqual([]);
  });

  test('the spool file is removed when the import is refused after, during or before spooling', async () => {
    const before = await eventCount(service);
    await expect(importDirect(`${origin}/no-movie.mp4`)).rejects.toMatchObject({
      status: 422,
      code: 'unreadable_video',
    });
    await expect(importDirect(`${origin}/huge.png`)).rejects.toMatchObject({
      status: 400,
      code: 'file_too_large',
    });
    await expect(importDirect(`${origin}/page.html`)).rejects.toMatchObject({
      status: 422,
      code: 'unsupported_content_type',
    });
    expect(await readdir(spoolDir)).toEqual([]);
    expect(await eventCount(service)).toBe(before);
  });
});
