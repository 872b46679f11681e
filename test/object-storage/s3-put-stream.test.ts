// The S3 adapter's putStream against a minimal HTTP stand-in for S3 (the full contract needs a real S3 server,
// see s3-object-storage.test.ts): the body goes out as one PutObject with its length, and a body that errors or
// is not its declared size aborts the request, so the server never receives a whole object.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ValidationError } from '../../domain/shared/errors.js';
import { StreamSizeMismatchError } from '../../infra/object-storage/port.js';
import { S3ObjectStorage } from '../../infra/object-storage/s3-object-storage.js';

interface Received {
  path: string;
  contentLength: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

let server: Server;
let storage: S3ObjectStorage;
/** Requests the stand-in received whole; an aborted one never gets here. */
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined);
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({
        path: new URL(req.url ?? '/', 'http://x').pathname,
        contentLength: req.headers['content-length'],
        contentType: req.headers['content-type'],
        body,
      });
      res.writeHead(200, { ETag: `"${createHash('md5').update(body).digest('hex')}"` }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  storage = new S3ObjectStorage({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    bucket: 'media',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test-secret' },
    forcePathStyle: true,
  });
});
afterAll(async () => {
  storage?.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function pattern(length: number): Buffer {
  return Buffer.from(Uint8Array.from({ length }, (_, i) => (i * 13 + 5) % 256));
}

describe('S3 putStream', () => {
  test('sends the stream as one PutObject with its length and type, and answers the etag', async () => {
    const body = pattern(2 * 1024 * 1024 + 3);
    const pieces = [body.subarray(0, 700_000), body.subarray(700_000, 1_500_000), body.subarray(1_500_000)];
    const stored = await storage.putStream(
      'orgs/o/media/a.mp4',
      Readable.from(pieces),
      'video/mp4',
      body.length,
    );
    expect(stored).toEqual({
      key: 'orgs/o/media/a.mp4',
      contentType: 'video/mp4',
      sizeBytes: body.length,
      etag: createHash('md5').update(body).digest('hex'),
    });
    const request = received.find((r) => r.path === '/media/orgs/o/media/a.mp4');
    expect(request).toMatchObject({ contentLength: String(body.length), contentType: 'video/mp4' });
    expect(request!.body.equals(body)).toBe(true);
  });

  test('a body that errors midway aborts the request with the body’s error', async () => {
    async function* breaking() {
      yield pattern(128 * 1024);
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('spool file vanished');
    }
    await expect(
      storage.putStream('orgs/o/media/broken.mp4', Readable.from(breaking()), 'video/mp4', 1024 * 1024),
    ).rejects.toThrow('spool file vanished');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received.some((r) => r.path.endsWith('/broken.mp4'))).toBe(false);
  });

  test('a body shorter or longer than declared is refused, nothing received whole', async () => {
    await expect(
      storage.putStream('orgs/o/media/short.bin', Readable.from([pattern(10)]), 'image/png', 20),
    ).rejects.toBeInstanceOf(StreamSizeMismatchError);
    await expect(
      storage.putStream('orgs/o/media/long.bin', Readable.from([pattern(30)]), 'image/png', 20),
    ).rejects.toBeInstanceOf(StreamSizeMismatchError);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received.some((r) => r.path.endsWith('/short.bin') || r.path.endsWith('/long.bin'))).toBe(false);
  });

  test('a bad key or size is refused before anything is sent, and the body is released', async () => {
    const body = Readable.from([pattern(4)]);
    await expect(storage.putStream('a/../b', body, 'image/png', 4)).rejects.toBeInstanceOf(ValidationError);
    expect(body.destroyed).toBe(true);
    await expect(
      storage.putStream('orgs/o/x.png', Readable.from([pattern(4)]), 'image/png', 1.5),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(received.some((r) => r.path.endsWith('/b') || r.path.endsWith('/x.png'))).toBe(false);
  });
});
