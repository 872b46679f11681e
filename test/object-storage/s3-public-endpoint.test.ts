// Presigned URLs name the public S3 endpoint (S3_PUBLIC_ENDPOINT), where clients outside the service reach the
// store, while the service's own calls go to its internal endpoint (a name only the compose network resolves).
// The internal endpoint is a minimal HTTP stand-in; the public one is never contacted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { S3ObjectStorage } from '../../infra/object-storage/s3-object-storage.js';

const PUBLIC = 'http://s3.public.invalid:8333';
const signedAt = Date.parse('2026-03-01T12:00:00Z');

let server: Server;
let internal: string;
const paths: string[] = [];
const stores: S3ObjectStorage[] = [];

function store(publicEndpoint?: string): S3ObjectStorage {
  const storage = new S3ObjectStorage({
    endpoint: internal,
    ...(publicEndpoint ? { publicEndpoint } : {}),
    region: 'us-east-1',
    bucket: 'media',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test-secret' },
    forcePathStyle: true,
    now: () => signedAt,
  });
  stores.push(storage);
  return storage;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
    req.resume();
    req.on('end', () => res.writeHead(200, { ETag: '"abc"' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  internal = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const storage of stores) storage.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('S3 presigned URLs and the public endpoint', () => {
  test('upload and download URLs name the public endpoint, signed for its host', async () => {
    const storage = store(PUBLIC);
    const slot = await storage.createUploadUrl('orgs/o/media/a.png', {
      contentType: 'image/png',
      expiresInSeconds: 900,
    });
    const upload = new URL(slot.uploadUrl);
    expect(upload.origin).toBe(PUBLIC);
    expect(upload.pathname).toBe('/media/orgs/o/media/a.png');
    expect(upload.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    const download = new URL(await storage.createDownloadUrl('orgs/o/media/a.png', { expiresInSeconds: 60 }));
    expect(download.origin).toBe(PUBLIC);
    expect(download.pathname).toBe('/media/orgs/o/media/a.png');
    expect(download.searchParams.get('X-Amz-SignedHeaders')).toBe('host');

    // The same request signed for the internal host carries another signature: the host is part of what is signed,
    // so a URL rewritten to the public host afterwards would be refused by the store.
    const internalSigned = new URL(
      await store().createDownloadUrl('orgs/o/media/a.png', { expiresInSeconds: 60 }),
    );
    expect(internalSigned.origin).toBe(internal);
    expect(internalSigned.searchParams.get('X-Amz-Signature')).not.toBe(
      download.searchParams.get('X-Amz-Signature'),
    );
  });

  test("the service's own calls still go to the internal endpoint", async () => {
    const storage = store(PUBLIC);
    paths.length = 0;
    await storage.put('orgs/o/media/b.png', new Uint8Array([1, 2, 3]), 'image/png');
    expect(await storage.head('orgs/o/media/b.png')).toMatchObject({ key: 'orgs/o/media/b.png' });
    expect(paths).toEqual(['PUT /media/orgs/o/media/b.png', 'HEAD /media/orgs/o/media/b.png']);
  });

  test('without a public endpoint the URLs name the endpoint the service uses', async () => {
    const slot = await store().createUploadUrl('orgs/o/media/c.png', {
      contentType: 'image/png',
      expiresInSeconds: 900,
    });
    expect(new URL(slot.uploadUrl).origin).toBe(internal);
  });
});
