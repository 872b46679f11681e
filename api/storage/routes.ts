// Upload and download endpoints behind the local object storage's signed URLs (embedded mode only).
// No bearer token: the URL's signature is the authority, checked before any byte is stored or served.
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { Conflict, Forbidden, NotFound, ValidationError } from '../../domain/shared/errors.js';
import {
  STORAGE_OBJECTS_PATH,
  type LocalObjectStorage,
} from '../../infra/object-storage/local-object-storage.js';

export interface StorageRoutesOptions {
  /** Hard cap on one upload, whatever the signed URL allows. */
  maxUploadBytes: number;
  /** Clock for the downloads' cache lifetime; the storage's own clock decides expiry. */
  now?: () => number;
  /**
   * Why a PUT to this key is refused whatever URL it carries (409 with the code answered), or null: a media
   * asset's bytes, which an approval covers, are written once by the service and never again, and an upload
   * slot's URL is spent once its upload is completed.
   */
  refuseWrite?: (key: string) => Promise<{ code: string; message: string } | null>;
  /** Keys never served by GET (uploads not completed): 404 whatever URL names them. */
  unserved?: (key: string) => boolean;
}

export function createStorageRoutes(storage: LocalObjectStorage, options: StorageRoutesOptions): Hono {
  const app = new Hono();
  const now = options.now ?? Date.now;

  app.put(`${STORAGE_OBJECTS_PATH}*`, async (c) => {
    const url = new URL(c.req.url);
    const key = keyFromPath(url.pathname);
    const grant = storage.verifyRequest('PUT', key, url.searchParams);
    const refused = await options.refuseWrite?.(key);
    if (refused) throw new Conflict(refused.message, refused.code);
    const contentType = c.req.header('content-type');
    if (contentType === undefined || contentType !== grant.contentType) {
      throw new ValidationError(
        'Content-Type differs from the one the upload URL was signed for',
        'content_type_mismatch',
        [{ path: 'headers.content-type', message: `must be ${grant.contentType}` }],
      );
    }
    const limit = Math.min(grant.maxBytes ?? Number.POSITIVE_INFINITY, options.maxUploadBytes);
    const declared = c.req.header('content-length');
    if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
    // Written to disk as it arrives: an upload is never held whole in memory.
    const body = c.req.raw.body ?? (async function* () {})();
    const stored = await storage.putStream(key, body as AsyncIterable<Uint8Array>, contentType, {
      maxBytes: limit,
      onTooLarge: () => tooLarge(limit),
    });
    return c.json(
      { data: { key: stored.key, sizeBytes: stored.sizeBytes, contentType: stored.contentType } },
      200,
    );
  });

  app.get(`${STORAGE_OBJECTS_PATH}*`, async (c) => {
    const url = new URL(c.req.url);
    const key = keyFromPath(url.pathname);
    const grant = storage.verifyRequest('GET', key, url.searchParams);
    const object = options.unserved?.(key) ? null : await storage.getStream(key);
    if (!object) throw new NotFound('Object not found', 'object_not_found');
    const maxAge = Math.max(0, grant.expiresAtSeconds - Math.floor(now() / 1000));
    // Streamed from the file: a download is never held whole in memory.
    return c.body(Readable.toWeb(object.body) as ReadableStream<Uint8Array>, 200, {
      'Content-Type': object.contentType,
      'Content-Length': String(object.sizeBytes),
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
