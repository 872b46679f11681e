// Media from other hosts is spooled to a private file while it streams in, capped per kind, and handed to
// connectors as a file: the process holds a chunk or two of it in memory, never the whole video.
import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createMediaFetcher } from '../../../processes/publishing/media-fetcher.js';
import { LocalObjectStorage } from '../../../infra/object-storage/local-object-storage.js';
import { workspaceObjectPrefix } from '../../../infra/object-storage/port.js';
import { ConnectorError, type MediaFetcher, type MediaFile } from '../../../infra/connectors/port.js';
import { spoolMedia } from '../../../infra/connectors/media-file.js';

const MiB = 1024 * 1024;

// Live memory, not garbage that a collection would free: the measure is what the fetcher keeps reachable.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;

// The served body: chunks of an 8-byte index and 64 KiB of a fixed pattern, so every offset has a known byte
// while the server itself holds one pattern buffer and nothing else.
const PATTERN = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7 + 3) & 255));
const CHUNK = 8 + PATTERN.byteLength;

function header(index: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt(index));
  return out;
}

/** The pieces of a body of `total` bytes, in order (the whole body is never built). */
function* pieces(total: number): Generator<Buffer> {
  for (let index = 0, sent = 0; sent < total; index++) {
    const length = Math.min(CHUNK, total - sent);
    const head = header(index);
    yield head.subarray(0, Math.min(8, length));
    if (length > 8) yield PATTERN.subarray(0, length - 8);
    sent += length;
  }
}

function expectedBytes(offset: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    const at = offset + i;
    const within = at % CHUNK;
    out[i] = within < 8 ? header(Math.floor(at / CHUNK))[within]! : PATTERN[within - 8]!;
  }
  return out;
}

function expectedHash(total: number): string {
  const hash = createHash('sha256');
  for (const piece of pieces(total)) hash.update(piece);
  return hash.digest('hex');
}

interface Served {
  /** Bytes the server handed to the socket. */
  sent: number;
  /** Whether the client closed the connection before the body was complete. */
  cutOff: boolean;
}

let server: Server;
let baseUrl: string;
let served: Served[];

/** `/body/<bytes>` serves that many bytes (`endless`: 2 GiB, no Content-Length); `?declared=1` says the length. */
function serve(url: URL, res: ServerResponse): void {
  const size = url.pathname.split('/')[2]!;
  const total = size === 'endless' ? 2048 * MiB : Number(size);
  const record: Served = { sent: 0, cutOff: false };
  served.push(record);
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    ...(url.searchParams.get('declared') ? { 'content-length': String(total) } : {}),
  });
  const body = pieces(total);
  res.on('close', () => {
    record.cutOff = !res.writableFinished;
  });
  const write = (): void => {
    for (;;) {
      if (res.destroyed) return;
      const next = body.next();
      if (next.done) {
        res.end();
        return;
      }
      record.sent += next.value.byteLength;
      if (!res.write(next.value)) {
        res.once('drain', write);
        return;
      }
    }
  };
  write();
}

let tmpDir: string;
let storageDir: string;
let storage: LocalObjectStorage;

beforeAll(async () => {
  server = createServer((req, res) => serve(new URL(req.url ?? '/', 'http://local'), res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  storageDir = await mkdtemp(path.join(os.tmpdir(), 'sp-media-store-'));
  storage = new LocalObjectStorage({
    rootDir: storageDir,
    publicBaseUrl: 'http://app.test',
    signingSecret: 'x'.repeat(32),
  });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(storageDir, { recursive: true, force: true });
});
beforeEach(async () => {
  served = [];
  tmpDir = await mkdtemp(path.join(os.tmpdir(), 'sp-media-test-'));
});
afterEach(async () => {
  await rm(tmpDir, { recursive: true, force: true });
});

function fetcher(limits?: { image?: number; document?: number; video?: number }): MediaFetcher {
  return createMediaFetcher({
    storage,
    publicBaseUrl: 'http://app.test',
    allowPrivate: true,
    tmpDir,
    ...(limits ? { limits } : {}),
  });
}

const video = (url: string, assetId = 'video-1') => ({ url, contentType: 'video/mp4', assetId });

/** Every file under the test's spool folder, with its size and mode. */
async function spooled(): Promise<Array<{ file: string; size: number; mode: number }>> {
  const out: Array<{ file: string; size: number; mode: number }> = [];
  for (const entry of await readdir(tmpDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const info = await stat(file);
    out.push({ file, size: info.size, mode: info.mode & 0o777 });
  }
  return out;
}

/**
 * Runs `work` while sampling live ArrayBuffer memory (after a young-generation collection, every 10 ms): the
 * peak growth over what was live before, and what stays live after a full collection once it is done.
 */
async function liveMemoryGrowth<T>(
  work: () => Promise<T>,
): Promise<{ result: T; peak: number; after: number }> {
  gc();
  const baseline = process.memoryUsage().arrayBuffers;
  let peak = 0;
  const sample = () => {
    gc({ type: 'minor' });
    peak = Math.max(peak, process.memoryUsage().arrayBuffers - baseline);
  };
  const timer = setInterval(sample, 10);
  try {
    const result = await work();
    sample();
    gc();
    const after = process.memoryUsage().arrayBuffers - baseline;
    return { result, peak, after };
  } finally {
    clearInterval(timer);
  }
}

async function refusal(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

describe('remote media', () => {
  test('an endless body is cut off at the cap: a permanent error naming the asset and the cap, nothing kept', async () => {
    const fetchMedia = fetcher({ video: 50 * MiB });
    const { result: error, peak } = await liveMemoryGrowth(() =>
      refusal(fetchMedia(video(`${baseUrl}/body/endless`, 'endless-video'))),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/Media endless-video is larger than 50 MiB/);
    // The connection was closed at the cap: the server got rid of the cap plus what socket buffers hold.
    await expect.poll(() => served[0]?.cutOff).toBe(true);
    expect(served[0]!.sent).toBeGreaterThan(50 * MiB);
    expect(served[0]!.sent).toBeLessThan(58 * MiB);
    // Streamed a few chunks at a time, never held: live memory stays a small fraction of the cap.
    expect(peak).toBeLessThan(16 * MiB);
    expect(await spooled()).toEqual([]);
  });

  test('a declared Content-Length over the cap is refused before any byte is spooled', async () => {
    const error = await refusal(
      fetcher({ video: 10 * MiB })(video(`${baseUrl}/body/${20 * MiB}?declared=1`, 'declared-video')),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/Media declared-video is larger than 10 MiB/);
    expect(await spooled()).toEqual([]);
  });

  test('a 120 MiB video becomes a private file on disk; memory holds chunks, not the video', async () => {
    const size = 120 * MiB + 12_345;
    const {
      result: file,
      peak,
      after,
    } = await liveMemoryGrowth(() => fetcher()(video(`${baseUrl}/body/${size}`)));
    try {
      expect(file.size).toBe(size);
      expect(file.contentType).toBe('video/mp4');
      const [onDisk, ...others] = await spooled();
      expect(others).toEqual([]);
      expect(onDisk).toMatchObject({ size, mode: 0o600 });
      expect((await stat(path.dirname(onDisk!.file))).mode & 0o777).toBe(0o700);
      // Nothing of the video stays in memory once it is on disk, and it never did beyond a few chunks.
      expect(after).toBeLessThan(4 * MiB);
      expect(peak).toBeLessThan(24 * MiB);
      // Pieces read back from anywhere in the file are the bytes that were served there.
      for (const offset of [0, 4 * MiB - 3, 77 * MiB + 5, size - 100]) {
        const length = Math.min(100_000, size - offset);
        expect(Buffer.from(await file.read(offset, length)).equals(expectedBytes(offset, length))).toBe(true);
      }
      const hash = createHash('sha256');
      for await (const chunk of file.stream()) hash.update(chunk as Buffer);
      expect(hash.digest('hex')).toBe(expectedHash(size));
      // Too large to be read whole.
      const whole = await refusal(file.bytes());
      expect(whole.kind).toBe('permanent');
      expect(whole.message).toMatch(/video-1 is 120\.0 MiB; only files up to 20 MiB are read whole/);
    } finally {
      await file.dispose();
    }
    expect(await spooled()).toEqual([]);
    await file.dispose();
  });

  test('images are capped lower than videos, and small ones read whole', async () => {
    const fetchMedia = fetcher({ image: 1 * MiB });
    const image = (bytes: number, assetId: string) => ({
      url: `${baseUrl}/body/${bytes}`,
      contentType: 'image/png',
      assetId,
    });
    const error = await refusal(fetchMedia(image(2 * MiB, 'big-image')));
    expect(error.message).toMatch(/Media big-image is larger than 1 MiB, the most an image may be/);
    const small: MediaFile = await fetchMedia(image(300_000, 'small-image'));
    try {
      expect(Buffer.from(await small.bytes()).equals(expectedBytes(0, 300_000))).toBe(true);
      expect((await small.blob()).size).toBe(300_000);
    } finally {
      await small.dispose();
    }
    expect(await spooled()).toEqual([]);
  });

  test('a body that breaks off leaves no spool file', async () => {
    const broken = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(10 * MiB) });
      res.write(Buffer.alloc(MiB));
      setTimeout(() => res.destroy(), 20);
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (broken.address() as AddressInfo).port;
      const error = await refusal(fetcher()(video(`http://127.0.0.1:${port}/v.mp4`, 'broken-video')));
      expect(error.kind).toBe('permanent');
      expect(error.message).toMatch(/Media broken-video could not be read/);
      expect(await spooled()).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => broken.close(() => resolve()));
    }
  });
});

describe('media in our own storage', () => {
  const orgId = '2b1f0c9e-0000-4000-8000-00000000000a';

  async function storedUrl(name: string, body: Uint8Array, contentType: string): Promise<string> {
    const key = `${workspaceObjectPrefix(orgId)}media/${name}`;
    await storage.put(key, body, contentType);
    return storage.createDownloadUrl(key, { expiresInSeconds: 600 });
  }

  test('is streamed from storage into a spool file under the same caps', async () => {
    const body = expectedBytes(0, 3 * MiB);
    const url = await storedUrl('clip.mp4', body, 'video/mp4');
    const file = await fetcher()({ url, contentType: 'video/mp4', assetId: 'own-video', orgId });
    try {
      expect(file.size).toBe(body.byteLength);
      expect((await spooled()).map((f) => f.size)).toEqual([body.byteLength]);
      expect(Buffer.from(await file.read(MiB, 1000)).equals(body.subarray(MiB, MiB + 1000))).toBe(true);
    } finally {
      await file.dispose();
    }
    expect(await spooled()).toEqual([]);

    const error = await refusal(
      fetcher({ video: 2 * MiB })({ url, contentType: 'video/mp4', assetId: 'own-video', orgId }),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/Media own-video is larger than 2 MiB, the most a video may be/);
    expect(await spooled()).toEqual([]);
  });
});

describe('spoolMedia', () => {
  test('a full disk is a retryable failure, not the media’s fault, and leaves nothing behind', async () => {
    // Simulated: the write fails as a full disk makes it fail.
    async function* fullDisk() {
      yield new Uint8Array(1000);
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    }
    const error = await refusal(
      spoolMedia(fullDisk(), {
        assetId: 'clip',
        contentType: 'video/mp4',
        kind: 'video',
        maxBytes: MiB,
        tmpDir,
      }),
    );
    expect(error.kind).toBe('retryable');
    expect(error.message).toMatch(/Media clip could not be spooled to disk \(ENOSPC\)/);
    expect(await readdir(tmpDir)).toEqual([]);
  });
});
