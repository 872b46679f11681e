// Local-folder object storage for the embedded mode: objects as files under one root, and upload/download
// URLs signed by the service itself (HMAC-SHA256) and served by api/storage/routes.ts.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import path from 'node:path';
import { Forbidden, ValidationError } from '../../domain/shared/errors.js';
import {
  StreamSizeMismatchError,
  validateContentType,
  validateExpiresInSeconds,
  validateObjectKey,
  validateSizeBytes,
  type ObjectStorage,
  type StoredObject,
  type UploadSlot,
} from './port.js';

/** Path prefix the storage routes are mounted at; signed URLs point below it. */
export const STORAGE_OBJECTS_PATH = '/v1/storage/objects/';

export interface LocalObjectStorageOptions {
  /** Folder holding the objects (DATA_DIR/objects in production). */
  rootDir: string;
  /** Origin clients reach the service at (PUBLIC_BASE_URL), without a trailing slash. */
  publicBaseUrl: string;
  /** At least 32 bytes; whoever holds it can mint upload and download URLs. */
  signingSecret: string | Uint8Array;
  now?: () => number;
}

export type SignedMethod = 'GET' | 'PUT';

/** What a valid signed URL allows. */
export interface SignedObjectGrant {
  method: SignedMethod;
  key: string;
  expiresAtSeconds: number;
  /** Upload grants only: the Content-Type the uploader must send. */
  contentType?: string;
  /** Upload grants only, when the URL was created with a cap. */
  maxBytes?: number;
}

interface Sidecar {
  key: string;
  contentType: string;
  sizeBytes: number;
  etag: string;
  /** Name of the body file in the same folder; every put writes a new one, so readers never see half. */
  dataFile: string;
}

const MIN_SECRET_BYTES = 32;
/** Object files are the service's alone: owner read/write only, folders owner-only. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

function toSecretBytes(secret: string | Uint8Array): Uint8Array {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new Error(`The object storage signing secret must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  return bytes;
}

// JSON of a fixed-position array: no field can bleed into the next, whatever characters it holds.
function signaturePayload(grant: SignedObjectGrant): string {
  return JSON.stringify([
    'object-url/v1',
    grant.method,
    grant.key,
    grant.expiresAtSeconds,
    grant.contentType ?? null,
    grant.maxBytes ?? null,
  ]);
}

function sign(secret: Uint8Array, grant: SignedObjectGrant): Buffer {
  return createHmac('sha256', secret).update(signaturePayload(grant)).digest();
}

function parsePositiveInteger(value: string | null): number | undefined {
  if (value === null || !/^[1-9][0-9]{0,15}$/.test(value)) return undefined;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}

/**
 * Checks a signed object URL for `method` on `key` at `nowMs`: the signature is compared in constant time,
 * then the expiry. Throws Forbidden (`invalid_signature` / `url_expired`) and returns the grant otherwise.
 */
export function verifySignedObjectUrl(
  secret: string | Uint8Array,
  request: { method: SignedMethod; key: string; query: URLSearchParams },
  nowMs: number,
): SignedObjectGrant {
  const query = request.query;
  const expiresAtSeconds = parsePositiveInteger(query.get('expires'));
  const provided = query.get('signature');
  const maxBytesParam = query.get('maxBytes');
  const maxBytes = maxBytesParam === null ? undefined : parsePositiveInteger(maxBytesParam);
  const contentType = request.method === 'PUT' ? query.get('contentType') : null;
  const invalid = () => new Forbidden('The signed URL is not valid', 'invalid_signature');
  if (
    expiresAtSeconds === undefined ||
    provided === null ||
    !/^[A-Za-z0-9_-]{43}$/.test(provided) ||
    (maxBytesParam !== null && maxBytes === undefined) ||
    (request.method === 'PUT' && contentType === null)
  ) {
    throw invalid();
  }
  const grant: SignedObjectGrant = {
    method: request.method,
    key: request.key,
    expiresAtSeconds,
    ...(contentType !== null ? { contentType } : {}),
    ...(maxBytes !== undefined ? { maxBytes } : {}),
  };
  // Compared as text, not decoded bytes: base64url decoding ignores the last character's spare bits, which
  // would let several spellings of one signature through.
  const expected = Buffer.from(sign(toSecretBytes(secret), grant).toString('base64url'));
  const actual = Buffer.from(provided);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw invalid();
  // Expiry only after the signature: an unsigned `expires` says nothing.
  if (nowMs > expiresAtSeconds * 1000) throw new Forbidden('The signed URL has expired', 'url_expired');
  return grant;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export class LocalObjectStorage implements ObjectStorage {
  readonly name = 'local' as const;
  private readonly rootDir: string;
  private readonly publicBaseUrl: string;
  private readonly secret: Uint8Array;
  private readonly now: () => number;

  constructor(options: LocalObjectStorageOptions) {
    this.rootDir = path.resolve(options.rootDir);
    this.publicBaseUrl = options.publicBaseUrl.replace(/\/+$/, '');
    this.secret = toSecretBytes(options.signingSecret);
    this.now = options.now ?? Date.now;
  }

  async createUploadUrl(
    key: string,
    options: { contentType: string; expiresInSeconds: number; maxBytes?: number },
  ): Promise<UploadSlot> {
    validateObjectKey(key);
    const contentType = validateContentType(options.contentType);
    const expiresInSeconds = validateExpiresInSeconds(options.expiresInSeconds);
    if (options.maxBytes !== undefined && (!Number.isSafeInteger(options.maxBytes) || options.maxBytes < 1)) {
      throw new ValidationError('Invalid upload size limit', 'invalid_max_bytes', [
        { path: 'maxBytes', message: 'must be a positive whole number' },
      ]);
    }
    const grant: SignedObjectGrant = {
      method: 'PUT',
      key,
      expiresAtSeconds: this.expiresAt(expiresInSeconds),
      contentType,
      ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    };
    return {
      uploadUrl: this.signedUrl(grant),
      method: 'PUT',
      requiredHeaders: { 'Content-Type': contentType },
      key,
      expiresInSeconds,
      expiresAt: new Date(grant.expiresAtSeconds * 1000).toISOString(),
    };
  }

  async createDownloadUrl(key: string, options: { expiresInSeconds: number }): Promise<string> {
    validateObjectKey(key);
    const expiresInSeconds = validateExpiresInSeconds(options.expiresInSeconds);
    return this.signedUrl({ method: 'GET', key, expiresAtSeconds: this.expiresAt(expiresInSeconds) });
  }

  /** For the storage routes: the grant of a signed URL on `key`, or Forbidden. */
  verifyRequest(method: SignedMethod, key: string, query: URLSearchParams): SignedObjectGrant {
    validateObjectKey(key);
    return verifySignedObjectUrl(this.secret, { method, key, query }, this.now());
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<StoredObject> {
    validateObjectKey(key);
    validateContentType(contentType);
    const { dir, base } = this.location(key);
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    const dataFile = `${base}.${randomBytes(8).toString('hex')}.bin`;
    await this.writeAtomically(path.join(dir, dataFile), body);
    return this.commit(key, contentType, dataFile, {
      sizeBytes: body.byteLength,
      etag: createHash('md5').update(body).digest('hex'),
    });
  }

  /**
   * Stores a body as it arrives, never holding it whole: written to a temporary file while counted and hashed,
   * which becomes the object only once the body has ended. With a number (the port's form) the body must be
   * exactly that many bytes; with a limit (an upload through a signed URL, size unknown) it is refused with
   * `onTooLarge()`'s error at the first byte over `maxBytes`. On any failure the temporary file is removed
   * and the key stays as it was.
   */
  async putStream(
    key: string,
    body: Readable | AsyncIterable<Uint8Array>,
    contentType: string,
    size: number | { maxBytes: number; onTooLarge: () => Error },
  ): Promise<StoredObject> {
    let temporary: string | undefined;
    try {
      validateObjectKey(key);
      validateContentType(contentType);
      const declared = typeof size === 'number' ? validateSizeBytes(size) : undefined;
      const limit =
        typeof size === 'number'
          ? { maxBytes: size, onTooLarge: () => new StreamSizeMismatchError(size, size + 1, false) }
          : size;
      const { dir, base } = this.location(key);
      await mkdir(dir, { recursive: true, mode: DIR_MODE });
      const dataFile = `${base}.${randomBytes(8).toString('hex')}.bin`;
      const target = path.join(dir, dataFile);
      temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      const hash = createHash('md5');
      let written = 0;
      const handle = await open(temporary, 'wx', FILE_MODE);
      try {
        for await (const chunk of body as AsyncIterable<Uint8Array>) {
          written += chunk.byteLength;
          if (written > limit.maxBytes) throw limit.onTooLarge();
          hash.update(chunk);
          await handle.write(chunk);
        }
        if (declared !== undefined && written !== declared)
          throw new StreamSizeMismatchError(declared, written, true);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
      temporary = undefined;
      return await this.commit(key, contentType, dataFile, { sizeBytes: written, etag: hash.digest('hex') });
    } catch (error) {
      if (temporary !== undefined) await rm(temporary, { force: true });
      // Refused before it was read (a bad key or size): the caller's stream is not left holding its file.
      if (body instanceof Readable && !body.destroyed) body.destroy();
      throw error;
    }
  }

  /** Makes a written data file the object: the sidecar's rename is the commit point. */
  private async commit(
    key: string,
    contentType: string,
    dataFile: string,
    written: { sizeBytes: number; etag: string },
  ): Promise<StoredObject> {
    const { dir, base } = this.location(key);
    const previous = await this.readSidecar(key);
    const sidecar: Sidecar = { key, contentType, ...written, dataFile };
    // The sidecar's rename is the commit point: before it readers see the old object, after it the new one.
    await this.writeAtomically(path.join(dir, `${base}.json`), JSON.stringify(sidecar));
    if (previous && previous.dataFile !== dataFile)
      await rm(path.join(dir, previous.dataFile), { force: true });
    return toStoredObject(sidecar);
  }

  async get(key: string): Promise<{ body: Uint8Array; contentType: string } | null> {
    validateObjectKey(key);
    const { dir } = this.location(key);
    // A concurrent put may remove the body file between reading the sidecar and opening it; the
    // sidecar read again then names the new body.
    for (let attempt = 0; attempt < 3; attempt++) {
      const sidecar = await this.readSidecar(key);
      if (!sidecar) return null;
      try {
        const body = await readFile(path.join(dir, sidecar.dataFile));
        return {
          body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
          contentType: sidecar.contentType,
        };
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return null;
  }

  async getStream(key: string): Promise<{ body: Readable; contentType: string; sizeBytes: number } | null> {
    validateObjectKey(key);
    const { dir } = this.location(key);
    // As in get: a concurrent put may replace the body file. Once open, the file reads to its end even if a
    // put or delete removes it meanwhile.
    for (let attempt = 0; attempt < 3; attempt++) {
      const sidecar = await this.readSidecar(key);
      if (!sidecar) return null;
      try {
        const handle = await open(path.join(dir, sidecar.dataFile), 'r');
        return {
          body: handle.createReadStream(),
          contentType: sidecar.contentType,
          sizeBytes: sidecar.sizeBytes,
        };
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return null;
  }

  async head(key: string): Promise<StoredObject | null> {
    validateObjectKey(key);
    const sidecar = await this.readSidecar(key);
    return sidecar ? toStoredObject(sidecar) : null;
  }

  async delete(key: string): Promise<void> {
    validateObjectKey(key);
    const { dir, base } = this.location(key);
    const sidecar = await this.readSidecar(key);
    if (!sidecar) return;
    await rm(path.join(dir, `${base}.json`), { force: true });
    await rm(path.join(dir, sidecar.dataFile), { force: true });
  }

  /**
   * Deletes the objects under `prefix` last written before `cutoffMs` (uploads never completed, past their URL's
   * lifetime); answers how many. Reads every sidecar: meant for a sweep every few minutes, not a request.
   */
  async deleteStale(prefix: string, cutoffMs: number): Promise<number> {
    let deleted = 0;
    let folders: string[];
    try {
      folders = await readdir(this.rootDir);
    } catch (error) {
      if (isMissing(error)) return 0;
      throw error;
    }
    for (const folder of folders) {
      if (!/^[0-9a-f]{2}$/.test(folder)) continue;
      const dir = path.join(this.rootDir, folder);
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (!/^[0-9a-f]{64}\.json$/.test(name)) continue;
        try {
          const file = path.join(dir, name);
          const sidecar = JSON.parse(await readFile(file, 'utf8')) as Sidecar;
          if (!sidecar.key.startsWith(prefix) || (await stat(file)).mtimeMs >= cutoffMs) continue;
          await this.delete(sidecar.key);
          deleted++;
        } catch (error) {
          // Removed meanwhile (a completed upload moved): nothing to sweep.
          if (!isMissing(error)) throw error;
        }
      }
    }
    return deleted;
  }

  private expiresAt(expiresInSeconds: number): number {
    return Math.floor(this.now() / 1000) + expiresInSeconds;
  }

  private signedUrl(grant: SignedObjectGrant): string {
    const query = new URLSearchParams({ expires: String(grant.expiresAtSeconds) });
    if (grant.contentType !== undefined) query.set('contentType', grant.contentType);
    if (grant.maxBytes !== undefined) query.set('maxBytes', String(grant.maxBytes));
    query.set('signature', sign(this.secret, grant).toString('base64url'));
    return `${this.publicBaseUrl}${STORAGE_OBJECTS_PATH}${grant.key}?${query.toString()}`;
  }

  // Files are named by the key's hash, not the key: no key can reach outside the root whatever slipped
  // past validation, and `a` and `a/b` can both exist, as in S3.
  private location(key: string): { dir: string; base: string } {
    const base = createHash('sha256').update(key).digest('hex');
    return { dir: path.join(this.rootDir, base.slice(0, 2)), base };
  }

  private async readSidecar(key: string): Promise<Sidecar | null> {
    const { dir, base } = this.location(key);
    try {
      const sidecar = JSON.parse(await readFile(path.join(dir, `${base}.json`), 'utf8')) as Sidecar;
      return sidecar.key === key ? sidecar : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  private async writeAtomically(file: string, contents: Uint8Array | string): Promise<void> {
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, contents, { flush: true, mode: FILE_MODE });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}

function toStoredObject(sidecar: Sidecar): StoredObject {
  return {
    key: sidecar.key,
    contentType: sidecar.contentType,
    sizeBytes: sidecar.sizeBytes,
    etag: sidecar.etag,
  };
}
