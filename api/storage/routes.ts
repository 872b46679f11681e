// Upload and download endpoints behind the local object storage's signed URLs (embedded mode only).
// No bearer token: the URL's signature is the authority, checked before any byte is stored or served.
import { Hono } from 'hono';
import { Forbidden, NotFound, ValidationError } from '../../domain/shared/errors.js';
import {
  STORAGE_OBJECTS_PATH,
  type LocalObjectStorage,
} from '../../infra/object-storage/local-object-storage.js';

export interface StorageRoutesOptions {
  /** Hard cap on one upload, whatever the signed URL allows. */
  maxUploadBytes: number;
  /** Clock for the downloads' cache lifetime; the storage's own clock decides expiry. */
  now?: () => number;
}

export function createStorageRoutes(storage: LocalObjectStorage, options: StorageRoutesOptions): Hono {
  const app = new Hono();
  const now = options.now ?? Date.now;

  app.put(`${STORAGE_OBJECTS_PATH}*`, async (c) => {
    const url = new URL(c.req.url);
    const key = keyFromPath(url.pathname);
    const grant = storage.verifyRequest('PUT', key, url.searchParams);
    const contentType = c.req.header('content-type');
    if (contentType === undefined || contentType !== grant.contentType) {
      throw new ValidationError(
        'Content-Type differs from the one the upload URL was signed for',
        'content_type_mismatch',
        [{ path: 'headers.content-type', message: `must be ${grant.contentType}` }],
      );
    }
    const limit = Math.min(grant.maxBytes ?? Number.POSITIVE_INFINITY, options.maxUploadBytes);
    const body = await readBodyWithLimit(c.req.raw, limit);
    const stored = await storage.put(key, body, contentType);
    return c.json(
      { data: { key: stored.key, sizeBytes: stored.sizeBytes, contentType: stored.contentType } },
      200,
    );
  });

  app.get(`${STORAGE_OBJECTS_PATH}*`, async (c) => {
    const url = new URL(c.req.url);
    const key = keyFromPath(url.pathname);
    const grant = storage.verifyRequest('GET', key, url.searchParams);
    const object = await storage.get(key);
    if (!object) throw new NotFound('Object not found', 'object_not_found');
    const maxAge = Math.max(0, grant.expiresAtSeconds - Math.floor(now() / 1000));
    // Bodies are read from files into ordinary (never shared) ArrayBuffers, which is what c.body takes.
    return c.body(object.body as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': object.contentType,
      'Content-Length': String(object.body.byteLength),
      // Uploaded bytes are served from our own origin: never let a browser sniff or run them as a page.
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': `private, max-age=${maxAge}`,
    });
  });

  return app;
}

function keyFromPath(pathname: string): string {
  const raw = pathname.slice(STORAGE_OBJECTS_PATH.length);
  try {
    return raw.split('/').map(decodeURIComponent).join('/');
  } catch {
    // Malformed escapes cannot name any key we signed.
    throw new Forbidden('The signed URL is not valid', 'invalid_signature');
  }
}

function tooLarge(limit: number): ValidationError {
  return new ValidationError(`The upload exceeds ${limit} bytes`, 'object_too_large', [
    { path: 'body', message: `must be at most ${limit} bytes` },
  ]);
}

// Reads at most `limit` bytes and stops at the first byte over, so an oversized upload is never buffered.
async function readBodyWithLimit(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
