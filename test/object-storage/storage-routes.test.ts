// What only the local adapter and its routes promise beyond the contract: size caps, expiry on the
// service's own clock, the error bodies, safe serving headers, and the signature checks themselves.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createStorageRoutes } from '../../api/storage/routes.js';
import { Forbidden } from '../../domain/shared/errors.js';
import {
  LocalObjectStorage,
  verifySignedObjectUrl,
} from '../../infra/object-storage/local-object-storage.js';
import { withErrorMapping } from './support/error-mapping.js';

const BASE_URL = 'http://storage.test';
const START = Date.UTC(2030, 5, 1, 12, 0, 0);

let rootDir: string;
let nowMs: number;
let secret: Buffer;
let storage: LocalObjectStorage;
let app: Hono;

function newStorage(): LocalObjectStorage {
  return new LocalObjectStorage({
    rootDir,
    publicBaseUrl: BASE_URL,
    signingSecret: secret,
    now: () => nowMs,
  });
}

beforeEach(async () => {
  rootDir = await mkdtemp(path.join(os.tmpdir(), 'storage-routes-'));
  nowMs = START;
  secret = randomBytes(32);
  storage = newStorage();
  app = withErrorMapping(createStorageRoutes(storage, { maxUploadBytes: 100, now: () => nowMs }));
});
afterEach(async () => {
  await rm(rootDir, { recursive: true, force: true });
});

/** Every file below a folder with its size (temporary upload files included). */
async function filesUnder(dir: string): Promise<Array<{ name: string; size: number }>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile());
  return Promise.all(
    files.map(async (e) => {
      const file = path.join(e.parentPath, e.name);
      return { name: path.relative(dir, file), size: (await stat(file)).size };
    }),
  );
}

function put(url: string, body: RequestInit['body'], headers: Record<string, string>) {
  return app.request(url, { method: 'PUT', body, headers, duplex: 'half' });
}

describe('PUT /v1/storage/objects/*', () => {
  test('stores the body and answers with the stored object', async () => {
    const slot = await storage.createUploadUrl('media/a.png', {
      contentType: 'image/png',
      expiresInSeconds: 60,
    });
    expect(slot.uploadUrl.startsWith(`${BASE_URL}/v1/storage/objects/media/a.png?`)).toBe(true);
    const response = await put(slot.uploadUrl, new Uint8Array([1, 2, 3]), slot.requiredHeaders);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: { key: 'media/a.png', sizeBytes: 3, contentType: 'image/png' },
    });
  });

  test('the URL works until its expiry second and is refused after it, on the service clock', async () => {
    const slot = await storage.createUploadUrl('media/a.png', {
      contentType: 'image/png',
      expiresInSeconds: 60,
    });
    nowMs = START + 60_000;
    expect((await put(slot.uploadUrl, new Uint8Array([1]), slot.requiredHeaders)).status).toBe(200);
    nowMs = START + 60_001;
    const refused = await put(slot.uploadUrl, new Uint8Array([2]), slot.requiredHeaders);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 'The signed URL has expired', code: 'url_expired' });
    expect((await storage.get('media/a.png'))?.body).toEqual(new Uint8Array([1]));
  });

  test('a wrong or missing Content-Type is a validation error naming the signed type', async () => {
    const slot = await storage.createUploadUrl('media/a.png', {
      contentType: 'image/png',
      expiresInSeconds: 60,
    });
    const wrong = await put(slot.uploadUrl, new Uint8Array([1]), { 'Content-Type': 'image/png; charset=x' });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      code: 'content_type_mismatch',
      details: [{ path: 'headers.content-type', message: 'must be image/png' }],
    });
    const missing = await put(slot.uploadUrl, new Uint8Array([1]), {});
    expect(missing.status).toBe(400);
    expect(await storage.head('media/a.png')).toBeNull();
  });

  test('the server-wide cap holds even when the URL allows more', async () => {
    const slot = await storage.createUploadUrl('big.bin', {
      contentType: 'application/octet-stream',
      expiresInSeconds: 60,
    });
    expect((await put(slot.uploadUrl, new Uint8Array(100), slot.requiredHeaders)).status).toBe(200);
    const refused = await put(slot.uploadUrl, new Uint8Array(101), slot.requiredHeaders);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'object_too_large' });
    expect(await storage.head('big.bin')).toMatchObject({ sizeBytes: 100 });
  });

  test('the cap signed into the URL holds', async () => {
    const slot = await storage.createUploadUrl('small.bin', {
      contentType: 'application/octet-stream',
      expiresInSeconds: 60,
      maxBytes: 10,
    });
    expect((await put(slot.uploadUrl, new Uint8Array(11), slot.requiredHeaders)).status).toBe(400);
    expect(await storage.head('small.bin')).toBeNull();
    expect((await put(slot.uploadUrl, new Uint8Array(10), slot.requiredHeaders)).status).toBe(200);
  });

  test('a streamed body without Content-Length is cut off at the cap', async () => {
    const slot = await storage.createUploadUrl('stream.bin', {
      contentType: 'application/octet-stream',
      expiresInSeconds: 60,
    });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(40));
      },
    });
    const response = await put(slot.uploadUrl, endless, slot.requiredHeaders);
    expect(response.status).toBe(400);
    expect(pulled).toBeLessThan(10);
    expect(await storage.head('stream.bin')).toBeNull();
    // Nothing of the refused upload stays on disk.
    expect(await filesUnder(rootDir)).toEqual([]);
  });

  test('an upload is written to disk as it arrives, not held until its end', async () => {
    const slot = await storage.createUploadUrl('arriving.bin', {
      contentType: 'application/octet-stream',
      expiresInSeconds: 60,
    });
    const first = new Uint8Array(60).fill(1);
    const rest = new Uint8Array(30).fill(2);
    let sendRest!: () => void;
    const restReady = new Promise<void>((resolve) => (sendRest = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(first);
        await restReady;
        controller.enqueue(rest);
        controller.close();
      },
    });
    const answered = put(slot.uploadUrl, body, slot.requiredHeaders);
    // The first chunk reaches a file on disk while the rest of the body has not even been sent.
    const deadline = Date.now() + 10_000;
    let seen = 0;
    while (seen < first.byteLength && Date.now() < deadline) {
      seen = Math.max(0, ...(await filesUnder(rootDir)).map((f) => f.size));
      if (seen < first.byteLength) await new Promise((r) => setTimeout(r, 10));
    }
    expect(seen).toBe(first.byteLength);
    sendRest();
    const response = await answered;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ data: { key: 'arriving.bin', sizeBytes: 90 } });
    const stored = await storage.get('arriving.bin');
    expect(Buffer.from(stored!.body)).toEqual(Buffer.concat([first, rest]));
  });

  test('raising the signed cap in the URL breaks the signature', async () => {
    const slot = await storage.createUploadUrl('small.bin', {
      contentType: 'application/octet-stream',
      expiresInSeconds: 60,
      maxBytes: 10,
    });
    const raised = slot.uploadUrl.replace('maxBytes=10', 'maxBytes=100');
    const response = await put(raised, new Uint8Array(50), slot.requiredHeaders);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: 'The signed URL is not valid',
      code: 'invalid_signature',
    });
  });

  test('a URL without signature or expiry is refused', async () => {
    for (const query of [
      '',
      '?expires=9999999999&contentType=image%2Fpng',
      '?signature=abc&contentType=image%2Fpng',
    ]) {
      const response = await put(`${BASE_URL}/v1/storage/objects/x.png${query}`, new Uint8Array(1), {
        'Content-Type': 'image/png',
      });
      expect(response.status).toBe(403);
    }
  });

  test('a key smuggled through escapes is a validation error, a broken escape a refusal', async () => {
    const dotted = await put(
      `${BASE_URL}/v1/storage/objects/a%2F..%2Fb?expires=1&signature=x`,
      new Uint8Array(1),
      {
        'Content-Type': 'image/png',
      },
    );
    expect(dotted.status).toBe(400);
    expect(await dotted.json()).toMatchObject({ code: 'invalid_object_key' });
    const broken = await put(
      `${BASE_URL}/v1/storage/objects/a%E0%A4%A?expires=1&signature=x`,
      new Uint8Array(1),
      {
        'Content-Type': 'image/png',
      },
    );
    expect(broken.status).toBe(403);
  });
});

describe('GET /v1/storage/objects/*', () => {
  test('serves the bytes with the stored type and headers that keep browsers from running them', async () => {
    await storage.put('page.html', new TextEncoder().encode('<script>alert(1)</script>'), 'text/html');
    const response = await app.request(
      await storage.createDownloadUrl('page.html', { expiresInSeconds: 120 }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(response.headers.get('content-length')).toBe('25');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(response.headers.get('cache-control')).toBe('private, max-age=120');
  });

  test('an upload URL does not download, a download URL expires on the service clock', async () => {
    await storage.put('a.png', new Uint8Array([1]), 'image/png');
    const slot = await storage.createUploadUrl('a.png', { contentType: 'image/png', expiresInSeconds: 60 });
    expect((await app.request(slot.uploadUrl)).status).toBe(403);
    const url = await storage.createDownloadUrl('a.png', { expiresInSeconds: 30 });
    nowMs = START + 31_000;
    const expired = await app.request(url);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toMatchObject({ code: 'url_expired' });
  });

  test('a missing object is 404', async () => {
    const response = await app.request(
      await storage.createDownloadUrl('nothing.png', { expiresInSeconds: 30 }),
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'Object not found', code: 'object_not_found' });
  });
});

describe('LocalObjectStorage', () => {
  test('objects survive a new instance on the same folder (a restart)', async () => {
    await storage.put('kept/one.txt', new TextEncoder().encode('kept'), 'text/plain');
    expect(await newStorage().get('kept/one.txt')).toEqual({
      body: new TextEncoder().encode('kept'),
      contentType: 'text/plain',
    });
  });

  test('an overwrite leaves one body file and one sidecar behind', async () => {
    await storage.put('x.bin', new Uint8Array(5), 'application/octet-stream');
    await storage.put('x.bin', new Uint8Array(6), 'application/octet-stream');
    const [shard] = await readdir(rootDir);
    const files = await readdir(path.join(rootDir, shard!));
    expect(files.filter((file) => file.endsWith('.bin'))).toHaveLength(1);
    expect(files.filter((file) => file.endsWith('.json'))).toHaveLength(1);
    await storage.delete('x.bin');
    expect(await readdir(path.join(rootDir, shard!))).toEqual([]);
  });

  test('refuses a signing secret shorter than 32 bytes', () => {
    expect(
      () => new LocalObjectStorage({ rootDir, publicBaseUrl: BASE_URL, signingSecret: 'short' }),
    ).toThrow(/32 bytes/);
  });
});

describe('verifySignedObjectUrl', () => {
  async function downloadQuery(key: string): Promise<URLSearchParams> {
    return new URL(await storage.createDownloadUrl(key, { expiresInSeconds: 60 })).searchParams;
  }

  test('accepts the URL it signed and returns the grant', async () => {
    const query = await downloadQuery('a.png');
    expect(verifySignedObjectUrl(secret, { method: 'GET', key: 'a.png', query }, START)).toEqual({
      method: 'GET',
      key: 'a.png',
      expiresAtSeconds: START / 1000 + 60,
    });
  });

  test('refuses a URL signed with another secret', async () => {
    const query = await downloadQuery('a.png');
    expect(() =>
      verifySignedObjectUrl(randomBytes(32), { method: 'GET', key: 'a.png', query }, START),
    ).toThrow(Forbidden);
  });

  test('refuses another spelling of the same signature bytes', async () => {
    const query = await downloadQuery('a.png');
    const signature = query.get('signature')!;
    // The last of 43 base64url characters carries 4 bits and 2 spare ones; flip a spare bit.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const variant = signature.slice(0, -1) + alphabet[alphabet.indexOf(signature.at(-1)!) ^ 1];
    expect(Buffer.from(variant, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    query.set('signature', variant);
    expect(() => verifySignedObjectUrl(secret, { method: 'GET', key: 'a.png', query }, START)).toThrow(
      Forbidden,
    );
  });
});
