// The one behaviour every ObjectStorage adapter must show, exercised over real HTTP through the URLs it
// hands out; local-object-storage.test.ts and s3-object-storage.test.ts run it against each adapter.
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ValidationError } from '../../domain/shared/errors.js';
import { StreamSizeMismatchError, type ObjectStorage } from '../../infra/object-storage/port.js';

export interface ObjectStorageFixture {
  storage: ObjectStorage;
  /**
   * Sets the clock the adapter signs URLs with (`undefined`: real time). Whoever checks a URL's expiry
   * (our routes, the S3 server) keeps real time, so signing in the past yields an already expired URL.
   */
  setSigningClock(nowMs: number | undefined): void;
  close(): Promise<void>;
}

const MINUTE = 60_000;

function bytes(length: number, seed = 0): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 7 + seed) % 256);
}

function md5(body: Uint8Array): string {
  return createHash('md5').update(body).digest('hex');
}

/** The same URL with every signature-like query value altered in its first character. */
function tamperSignature(url: string): string {
  const parsed = new URL(url);
  let tampered = 0;
  for (const [name, value] of [...parsed.searchParams]) {
    if (/signature/i.test(name)) {
      // The first character, not the last: in base64 the last one may carry bits that decoding ignores.
      parsed.searchParams.set(name, (value.startsWith('a') ? 'b' : 'a') + value.slice(1));
      tampered++;
    }
  }
  if (tampered === 0) throw new Error(`no signature parameter in ${url}`);
  return parsed.toString();
}

async function upload(url: string, headers: Record<string, string>, body: Uint8Array): Promise<Response> {
  const response = await fetch(url, { method: 'PUT', headers, body });
  await response.arrayBuffer();
  return response;
}

export function describeObjectStorageContract(
  name: string,
  createFixture: () => Promise<ObjectStorageFixture>,
) {
  describe(`ObjectStorage contract: ${name}`, () => {
    let fixture: ObjectStorageFixture;
    let storage: ObjectStorage;
    const prefix = `contract/${randomUUID()}`;
    let counter = 0;
    const freshKey = (name = 'file.bin') => `${prefix}/${++counter}/${name}`;

    beforeAll(async () => {
      fixture = await createFixture();
      storage = fixture.storage;
    });
    afterAll(async () => {
      await fixture?.close();
    });

    /** An upload slot whose URL was signed `ageMs` ago. */
    async function slotSignedAgo(
      key: string,
      ageMs: number,
      expiresInSeconds: number,
      contentType = 'image/png',
    ) {
      fixture.setSigningClock(Date.now() - ageMs);
      try {
        return await storage.createUploadUrl(key, { contentType, expiresInSeconds });
      } finally {
        fixture.setSigningClock(undefined);
      }
    }

    async function downloadUrlSignedAgo(key: string, ageMs: number, expiresInSeconds: number) {
      fixture.setSigningClock(Date.now() - ageMs);
      try {
        return await storage.createDownloadUrl(key, { expiresInSeconds });
      } finally {
        fixture.setSigningClock(undefined);
      }
    }

    test('an upload through the slot URL with its required headers can be read back with head and get', async () => {
      const key = freshKey('photo.png');
      const body = bytes(256);
      const slot = await storage.createUploadUrl(key, { contentType: 'image/png', expiresInSeconds: 300 });
      expect(slot).toMatchObject({ method: 'PUT', key, expiresInSeconds: 300 });
      expect(slot.requiredHeaders).toEqual({ 'Content-Type': 'image/png' });

      const response = await upload(slot.uploadUrl, slot.requiredHeaders, body);
      expect(response.status).toBe(200);

      expect(await storage.head(key)).toEqual({
        key,
        contentType: 'image/png',
        sizeBytes: 256,
        etag: md5(body),
      });
      const object = await storage.get(key);
      expect(object?.contentType).toBe('image/png');
      expect(Buffer.from(object!.body).equals(Buffer.from(body))).toBe(true);
    });

    test('the slot says when it expires, counted from the signing clock', async () => {
      const signedAt = Date.UTC(2031, 0, 2, 3, 4, 5, 678);
      fixture.setSigningClock(signedAt);
      try {
        const slot = await storage.createUploadUrl(freshKey(), {
          contentType: 'text/plain',
          expiresInSeconds: 600,
        });
        expect(slot.expiresAt).toBe('2031-01-02T03:14:05.000Z');
      } finally {
        fixture.setSigningClock(undefined);
      }
    });

    test('an expired upload URL is refused, one still inside its lifetime is accepted', async () => {
      const key = freshKey();
      const expired = await slotSignedAgo(key, 10 * MINUTE, 300);
      const refused = await upload(expired.uploadUrl, expired.requiredHeaders, bytes(10));
      expect(refused.status).toBe(403);
      expect(await storage.head(key)).toBeNull();

      const stillValid = await slotSignedAgo(key, 4 * MINUTE, 300);
      expect((await upload(stillValid.uploadUrl, stillValid.requiredHeaders, bytes(10))).status).toBe(200);
      expect(await storage.head(key)).toMatchObject({ sizeBytes: 10 });
    });

    test('an upload URL with a tampered signature is refused', async () => {
      const key = freshKey();
      const slot = await storage.createUploadUrl(key, { contentType: 'image/png', expiresInSeconds: 300 });
      const refused = await upload(tamperSignature(slot.uploadUrl), slot.requiredHeaders, bytes(10));
      expect(refused.status).toBe(403);
      expect(await storage.head(key)).toBeNull();
    });

    test('an upload URL for one key cannot write another key', async () => {
      const key = freshKey('mine.png');
      const other = freshKey('theirs.png');
      const slot = await storage.createUploadUrl(key, { contentType: 'image/png', expiresInSeconds: 300 });
      const retargeted = slot.uploadUrl.replace(key, other);
      expect(retargeted).not.toBe(slot.uploadUrl);
      const refused = await upload(retargeted, slot.requiredHeaders, bytes(10));
      expect(refused.status).toBe(403);
      expect(await storage.head(other)).toBeNull();
    });

    test('an upload with another Content-Type than the signed one is refused', async () => {
      const key = freshKey();
      const slot = await storage.createUploadUrl(key, { contentType: 'image/png', expiresInSeconds: 300 });
      const refused = await upload(slot.uploadUrl, { 'Content-Type': 'text/html' }, bytes(10));
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      expect(await storage.head(key)).toBeNull();
    });

    test('a download URL serves the bytes with the stored content type', async () => {
      const key = freshKey('notes.txt');
      const body = new TextEncoder().encode('hello, storage');
      await storage.put(key, body, 'text/plain; charset=utf-8');
      const url = await storage.createDownloadUrl(key, { expiresInSeconds: 300 });
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await response.text()).toBe('hello, storage');
    });

    test('an expired download URL is refused, one still inside its lifetime works', async () => {
      const key = freshKey();
      await storage.put(key, bytes(32), 'application/octet-stream');
      const expired = await fetch(await downloadUrlSignedAgo(key, 10 * MINUTE, 300));
      await expired.arrayBuffer();
      expect(expired.status).toBe(403);

      const stillValid = await fetch(await downloadUrlSignedAgo(key, 4 * MINUTE, 300));
      expect(stillValid.status).toBe(200);
      expect(new Uint8Array(await stillValid.arrayBuffer())).toEqual(bytes(32));
    });

    test('a download URL with a tampered signature is refused', async () => {
      const key = freshKey();
      await storage.put(key, bytes(32), 'application/octet-stream');
      const response = await fetch(
        tamperSignature(await storage.createDownloadUrl(key, { expiresInSeconds: 300 })),
      );
      await response.arrayBuffer();
      expect(response.status).toBe(403);
    });

    test('a download URL cannot be used to upload', async () => {
      const key = freshKey();
      await storage.put(key, bytes(32), 'image/png');
      const url = await storage.createDownloadUrl(key, { expiresInSeconds: 300 });
      const refused = await upload(url, { 'Content-Type': 'image/png' }, bytes(5));
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      expect(await storage.head(key)).toMatchObject({ sizeBytes: 32 });
    });

    test('put returns what head then reports, and a second put replaces body and content type', async () => {
      const key = freshKey();
      const first = await storage.put(key, bytes(100), 'image/png');
      expect(first).toEqual({ key, contentType: 'image/png', sizeBytes: 100, etag: md5(bytes(100)) });
      expect(await storage.head(key)).toEqual(first);

      const second = await storage.put(key, bytes(3, 9), 'image/jpeg');
      expect(await storage.head(key)).toEqual(second);
      expect(await storage.get(key)).toEqual({ body: bytes(3, 9), contentType: 'image/jpeg' });
    });

    test('an empty object is an object', async () => {
      const key = freshKey();
      await storage.put(key, new Uint8Array(0), 'application/octet-stream');
      expect(await storage.head(key)).toMatchObject({ sizeBytes: 0 });
      expect((await storage.get(key))?.body).toEqual(new Uint8Array(0));
    });

    test('getStream streams the body with its content type and size; a missing key gives null', async () => {
      const key = freshKey('stream.bin');
      const body = bytes(300_000, 5);
      await storage.put(key, body, 'video/mp4');
      const object = await storage.getStream(key);
      expect(object).toMatchObject({ contentType: 'video/mp4', sizeBytes: body.byteLength });
      const chunks: Buffer[] = [];
      for await (const chunk of object!.body) chunks.push(chunk as Buffer);
      expect(new Uint8Array(Buffer.concat(chunks))).toEqual(body);
      expect(await storage.getStream(freshKey('never-written'))).toBeNull();
    });

    test('putStream stores a streamed body byte-identical, as head then reports it', async () => {
      const key = freshKey('streamed.mp4');
      const body = bytes(3 * 1024 * 1024 + 17, 3);
      // Uneven pieces, as a file or a socket gives them.
      async function* pieces() {
        for (let offset = 0; offset < body.byteLength; offset += 65_521)
          yield body.subarray(offset, offset + 65_521);
      }
      const stored = await storage.putStream(key, Readable.from(pieces()), 'video/mp4', body.byteLength);
      expect(stored).toEqual({ key, contentType: 'video/mp4', sizeBytes: body.byteLength, etag: md5(body) });
      expect(await storage.head(key)).toEqual(stored);
      const object = await storage.get(key);
      expect(object?.contentType).toBe('video/mp4');
      expect(Buffer.from(object!.body).equals(Buffer.from(body))).toBe(true);
    });

    test('putStream of an empty body stores an empty object', async () => {
      const key = freshKey();
      await storage.putStream(key, Readable.from([]), 'application/octet-stream', 0);
      expect(await storage.head(key)).toMatchObject({ sizeBytes: 0 });
    });

    test('a stream that errors midway leaves no object under the key, and an existing one unchanged', async () => {
      const fresh = freshKey('broken.mp4');
      const existing = freshKey('kept.mp4');
      await storage.put(existing, bytes(64, 1), 'video/mp4');
      for (const key of [fresh, existing]) {
        async function* breaking() {
          yield bytes(256 * 1024, 2);
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error('connection reset midway');
        }
        await expect(
          storage.putStream(key, Readable.from(breaking()), 'video/mp4', 1024 * 1024),
        ).rejects.toThrow('connection reset midway');
      }
      expect(await storage.head(fresh)).toBeNull();
      expect(await storage.get(fresh)).toBeNull();
      expect(await storage.get(existing)).toEqual({ body: bytes(64, 1), contentType: 'video/mp4' });
    });

    test('a stream shorter or longer than its declared size is refused and stores nothing', async () => {
      const short = freshKey();
      await expect(
        storage.putStream(short, Readable.from([bytes(10)]), 'image/png', 20),
      ).rejects.toBeInstanceOf(StreamSizeMismatchError);
      expect(await storage.head(short)).toBeNull();
      const long = freshKey();
      await expect(
        storage.putStream(long, Readable.from([bytes(30)]), 'image/png', 20),
      ).rejects.toBeInstanceOf(StreamSizeMismatchError);
      expect(await storage.head(long)).toBeNull();
    });

    test('a key and a key below it can both exist', async () => {
      const parent = freshKey('folder');
      const child = `${parent}/inside.txt`;
      await storage.put(parent, bytes(1), 'text/plain');
      await storage.put(child, bytes(2), 'text/plain');
      expect(await storage.head(parent)).toMatchObject({ sizeBytes: 1 });
      expect(await storage.head(child)).toMatchObject({ sizeBytes: 2 });
    });

    test('delete removes the object, and deleting it again is not an error', async () => {
      const key = freshKey();
      await storage.put(key, bytes(8), 'image/png');
      await storage.delete(key);
      expect(await storage.head(key)).toBeNull();
      expect(await storage.get(key)).toBeNull();
      await expect(storage.delete(key)).resolves.toBeUndefined();
    });

    test('a missing key gives null from head and get, and its download URL fails', async () => {
      const key = freshKey('never-written');
      expect(await storage.head(key)).toBeNull();
      expect(await storage.get(key)).toBeNull();
      const response = await fetch(await storage.createDownloadUrl(key, { expiresInSeconds: 300 }));
      await response.arrayBuffer();
      expect(response.status).toBe(404);
    });

    test.each([
      '',
      '/leading-slash',
      'a/../b',
      '..',
      'a//b',
      'trailing/',
      'space in.png',
      'a/./b',
      'ümlaut',
      'a\\b',
    ])('the key %j is refused with ValidationError by every operation', async (key) => {
      const calls: Array<() => Promise<unknown>> = [
        () => storage.createUploadUrl(key, { contentType: 'image/png', expiresInSeconds: 60 }),
        () => storage.createDownloadUrl(key, { expiresInSeconds: 60 }),
        () => storage.put(key, bytes(1), 'image/png'),
        () => storage.putStream(key, Readable.from([bytes(1)]), 'image/png', 1),
        () => storage.get(key),
        () => storage.head(key),
        () => storage.delete(key),
      ];
      for (const call of calls) await expect(call()).rejects.toBeInstanceOf(ValidationError);
    });

    test('a bad content type or expiry is refused with ValidationError', async () => {
      const key = freshKey();
      await expect(
        storage.createUploadUrl(key, { contentType: 'image/png\r\nX-Evil: 1', expiresInSeconds: 60 }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(
        storage.createUploadUrl(key, { contentType: 'image/png', expiresInSeconds: 0 }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(
        storage.createDownloadUrl(key, { expiresInSeconds: 8 * 24 * 3600 }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(storage.put(key, bytes(1), 'not a type')).rejects.toBeInstanceOf(ValidationError);
      await expect(storage.putStream(key, Readable.from([bytes(1)]), 'not a type', 1)).rejects.toBeInstanceOf(
        ValidationError,
      );
      await expect(storage.putStream(key, Readable.from([bytes(1)]), 'image/png', -1)).rejects.toBeInstanceOf(
        ValidationError,
      );
      expect(await storage.head(key)).toBeNull();
    });
  });
}
