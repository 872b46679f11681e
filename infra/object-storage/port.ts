// The object storage port: what media, brand and launch-kit features may ask of any object store.
// Both adapters (local folder, S3-compatible) pass one contract suite in test/object-storage/.
import type { Readable } from 'node:stream';
import { ValidationError } from '../../domain/shared/errors.js';

/** Where and how a client uploads one object directly, without holding our credentials. */
export interface UploadSlot {
  uploadUrl: string;
  method: 'PUT';
  /** Headers the client must send exactly as given; they are part of the signature. */
  requiredHeaders: Record<string, string>;
  key: string;
  expiresInSeconds: number;
  expiresAt: string;
}

export interface StoredObject {
  key: string;
  contentType: string;
  sizeBytes: number;
  /** Hex MD5 of the body for single-part uploads, without the quotes S3 puts around it. */
  etag?: string;
}

export interface ObjectStorage {
  readonly name: 'local' | 's3';
  /**
   * `maxBytes` is enforced by the local adapter when the upload arrives. A presigned S3 PUT cannot cap
   * its size, so callers accepting an upload check `head(key).sizeBytes` before using the object.
   */
  createUploadUrl(
    key: string,
    options: { contentType: string; expiresInSeconds: number; maxBytes?: number },
  ): Promise<UploadSlot>;
  /** A URL anyone holding it can GET until it expires. */
  createDownloadUrl(key: string, options: { expiresInSeconds: number }): Promise<string>;
  put(key: string, body: Uint8Array, contentType: string): Promise<StoredObject>;
  /**
   * Stores a body read from a stream, never holding it whole (an imported video). The size is known up front
   * (callers spool the body to a file first) and must be exactly what the stream gives. The object appears
   * only once all of it is stored: a stream that fails midway, or gives more or fewer bytes than `sizeBytes`,
   * rejects and leaves the key as it was (no object under a new key).
   */
  putStream(key: string, body: Readable, contentType: string, sizeBytes: number): Promise<StoredObject>;
  get(key: string): Promise<{ body: Uint8Array; contentType: string } | null>;
  /**
   * The object as a stream, for bodies too large to hold in memory (media for the publisher). Read it to the
   * end or destroy it: it holds a file or a connection until then.
   */
  getStream(key: string): Promise<{ body: Readable; contentType: string; sizeBytes: number } | null>;
  head(key: string): Promise<StoredObject | null>;
  /** Deleting a missing key is not an error (as in S3). */
  delete(key: string): Promise<void>;
}

/**
 * Every object a workspace owns lives under `orgs/<orgId>/`: features that create keys for a workspace build
 * them with this prefix, and readers acting for a workspace (the publisher) accept no key outside it.
 */
export function workspaceObjectPrefix(orgId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(orgId)) throw new Error('A workspace id cannot name an object key prefix');
  return `orgs/${orgId}/`;
}

/** Whether `key` names an object of the workspace (under its prefix, with something after it). */
export function isWorkspaceObjectKey(key: string, orgId: string): boolean {
  const prefix = workspaceObjectPrefix(orgId);
  return key.length > prefix.length && key.startsWith(prefix);
}

/** Returns the size unchanged, or throws ValidationError: a whole number of bytes, at least 0. */
export function validateSizeBytes(sizeBytes: number): number {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0) {
    throw new ValidationError('Invalid object size', 'invalid_size', [
      { path: 'sizeBytes', message: 'must be a whole number of bytes, at least 0' },
    ]);
  }
  return sizeBytes;
}

/** The error of a streamed body that is not the size it was declared to be; nothing of it is stored. */
export class StreamSizeMismatchError extends Error {
  constructor(
    readonly declaredBytes: number,
    /** Bytes read when the mismatch showed: all of them when `ended`, else at least one more than declared. */
    readonly receivedBytes: number,
    readonly ended: boolean,
  ) {
    super(
      ended
        ? `The stream gave ${receivedBytes} bytes, not the ${declaredBytes} declared; nothing was stored`
        : `The stream gave more than the ${declaredBytes} bytes declared; nothing was stored`,
    );
    this.name = 'StreamSizeMismatchError';
  }
}

/** S3 refuses presigned URLs valid for longer than a week; both adapters share the limit. */
export const MAX_URL_EXPIRY_SECONDS = 7 * 24 * 60 * 60;
export const MAX_KEY_LENGTH = 1024;

// Segments of letters, digits, `-`, `_` and `.`, joined by single slashes: safe as a file path, an S3 key
// and a URL path without any escaping, so the same key means the same thing everywhere.
const KEY_PATTERN = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/** Returns the key unchanged, or throws ValidationError naming what is wrong with it. */
export function validateObjectKey(key: string): string {
  const problem =
    typeof key !== 'string' || key.length === 0
      ? 'must not be empty'
      : key.length > MAX_KEY_LENGTH
        ? `must be at most ${MAX_KEY_LENGTH} characters`
        : key.startsWith('/')
          ? 'must not start with /'
          : key.includes('..')
            ? 'must not contain ..'
            : !KEY_PATTERN.test(key)
              ? 'may only contain letters, digits, - _ . and single / between segments'
              : key.split('/').some((segment) => segment === '.')
                ? 'must not contain a . segment'
                : undefined;
  if (problem) {
    throw new ValidationError(`Invalid object key: ${problem}`, 'invalid_object_key', [
      { path: 'key', message: problem },
    ]);
  }
  return key;
}

// type/subtype with optional parameters, printable ASCII only: it is signed and echoed back as a header,
// so nothing that could split or smuggle a header gets through.
const CONTENT_TYPE_PATTERN =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[\x20\x21\x23-\x5B\x5D-\x7E]*"))*$/;

export function validateContentType(contentType: string): string {
  if (
    typeof contentType !== 'string' ||
    contentType.length > 255 ||
    !CONTENT_TYPE_PATTERN.test(contentType)
  ) {
    throw new ValidationError('Invalid content type', 'invalid_content_type', [
      { path: 'contentType', message: 'must be a media type such as image/png' },
    ]);
  }
  return contentType;
}

export function validateExpiresInSeconds(expiresInSeconds: number): number {
  if (
    !Number.isInteger(expiresInSeconds) ||
    expiresInSeconds < 1 ||
    expiresInSeconds > MAX_URL_EXPIRY_SECONDS
  ) {
    throw new ValidationError('Invalid URL expiry', 'invalid_expiry', [
      { path: 'expiresInSeconds', message: `must be a whole number from 1 to ${MAX_URL_EXPIRY_SECONDS}` },
    ]);
  }
  return expiresInSeconds;
}
