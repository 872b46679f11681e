// Media library use cases for a caller (a member with posts:draft, or an assistant with posts:write; the list
// with posts:read / mcp:read): an upload slot, completing an upload (the object checked against what was
// declared and read), importing a public https file through the SSRF-safe fetcher, and the list.
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { InvalidFields, NotFound, ServiceUnavailable, ValidationError } from '../../domain/shared/errors.js';
import { toPage, type Page } from '../../domain/shared/page.js';
import { spoolMedia } from '../../infra/connectors/media-file.js';
import { ConnectorError, type MediaFile } from '../../infra/connectors/port.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import {
  checkUrl,
  FetchDeadlineError,
  fetchFailedMessage,
  fetchFailureReason,
  ResponseTooLargeError,
  UnsafeUrlError,
  safeFetchStream,
  type OutboundPolicy,
} from '../../infra/http/safe-fetch.js';
import { validateObjectKey, type ObjectStorage } from '../../infra/object-storage/port.js';
import { findMedia, type MediaCollection } from '../../projections/media/queries.js';
import type { MediaListKind } from '../../projections/media/media-projection.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { IdempotencyStore } from '../shared/idempotency.js';
import { newId } from '../shared/ids.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { MediaItem } from './library.js';
import { loadAnyMediaAsset, mediaKeyOf, uploadKeyOf } from './media-commands.js';
import {
  assertWithinQuota,
  describeSpooled,
  MediaRefused,
  recordStoredFile,
  type DescribedFile,
  type MediaLibraryDeps,
} from './media-library.js';
import {
  imageDimensions,
  imageSizeProblem,
  limitText,
  mediaContentTypes,
  mediaSizeLimits,
  mediaTypeOf,
  mediaUploadExpirySeconds,
  readVideo,
  sniffContentType,
  sniffLength,
  typeListOf,
  type UploadKind,
} from './media-files.js';

export interface MediaUseCaseDeps extends MediaLibraryDeps {
  idempotency: IdempotencyStore;
  /** Tests only (RuntimeOptions.outbound): local servers an import may reach, and a resolver. */
  outbound: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>;
  /** One deadline for an import, body included (default 60 s). */
  importTimeoutMs?: number;
  /** Where an import is spooled while it downloads (default the OS's temporary folder, i.e. TMPDIR). */
  spoolDir?: string;
  /** Why an import link could not be fetched is logged here, never answered (no internal DNS oracle). */
  logger?: { info(fields: object, message: string): void };
}

const writing = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

/** The accepted type of the kind, lower-cased, or 400 naming `contentType`. */
function acceptedType(kind: UploadKind, contentType: string): { type: string; extension: string } {
  const type = contentType.trim().toLowerCase();
  const extension = (mediaContentTypes[kind] as Record<string, string>)[type];
  if (!extension)
    throw new InvalidFields(`${kind === 'image' ? 'Images' : 'Videos'} must be one of ${typeListOf(kind)}`, [
      { path: 'contentType', message: `must be one of ${typeListOf(kind)}` },
    ]);
  return { type, extension };
}

export interface MediaUploadSlot {
  assetId: string;
  uploadUrl: string;
  key: string;
  expiresInSeconds: number;
  method: 'PUT';
  requiredHeaders: Record<string, string>;
}

/** Tool: create_media_upload. A signed PUT for one file; nothing is recorded until it is completed. */
export async function createMediaUpload(
  deps: MediaUseCaseDeps,
  caller: Caller,
  input: { orgId: string; kind: UploadKind; contentType: string },
  request: WriteRequest,
): Promise<Written<MediaUploadSlot>> {
  authorize(caller, writing(input.orgId));
  const { type, extension } = acceptedType(input.kind, input.contentType);
  await assertWithinQuota(deps, input.orgId, 0, '');
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    // With a key, a retried request answers the same slot (the same asset id and key).
    const assetId = newId(idempotencySeed ? [idempotencySeed, 'media-upload'] : undefined);
    const slot = await deps.storage.createUploadUrl(uploadKeyOf(input.orgId, assetId, extension), {
      contentType: type,
      expiresInSeconds: mediaUploadExpirySeconds,
      maxBytes: mediaSizeLimits[input.kind],
    });
    return {
      assetId,
      uploadUrl: slot.uploadUrl,
      key: slot.key,
      expiresInSeconds: slot.expiresInSeconds,
      method: slot.method,
      requiredHeaders: slot.requiredHeaders,
    };
  });
}

export interface CompleteMediaUploadInput {
  orgId: string;
  assetId: string;
  key: string;
  kind: UploadKind;
  contentType: string;
  /** What the client says; the file's own values are used (MP4/MOV length and frame size, image size). */
  durationSeconds?: number;
  width?: number;
  height?: number;
}

const uploadKeyPattern =
  /^uploads\/media\/([0-9a-f-]{36})\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([a-z0-9]+)$/;

/** A stored object refused: it is deleted, so nothing of it stays in the workspace's storage. */
async function refuseObject(storage: ObjectStorage, key: string, error: Error): Promise<never> {
  await storage.delete(key);
  throw error;
}

/** A stream's bytes passed on unchanged while their SHA-256 is taken. */
function hashing(body: Readable): { body: Readable; digest: () => string } {
  const hash = createHash('sha256');
  const through = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  body.on('error', (error) => through.destroy(error));
  return { body: body.pipe(through), digest: () => hash.digest('hex') };
}

/**
 * Moves an upload to the asset's own key: copied (streamed, hashed) and the upload deleted, so what is checked
 * and recorded is bytes no signed PUT can reach. A retry after a move that was not recorded finds them there.
 */
async function moveUpload(
  storage: ObjectStorage,
  uploadKey: string,
  finalKey: string,
  kind: UploadKind,
): Promise<{ sha256: string }> {
  const head = await storage.head(uploadKey);
  if (!head) {
    const moved = await storage.getStream(finalKey);
    if (!moved)
      throw new NotFound('Nothing was uploaded under this key (or the upload expired)', 'object_not_found');
    const { body, digest } = hashing(moved.body);
    for await (const chunk of body) void chunk;
    return { sha256: digest() };
  }
  // Too large to be kept: refused before it is copied.
  if (head.sizeBytes > mediaSizeLimits[kind])
    return refuseObject(
      storage,
      uploadKey,
      new MediaRefused(
        `The uploaded file is ${head.sizeBytes} bytes; ${kind} files may be at most ${limitText(kind)}`,
        'file_too_large',
        'key',
      ),
    );
  const source = await storage.getStream(uploadKey);
  if (!source) throw new NotFound('The uploaded file is gone', 'object_not_found');
  const { body, digest } = hashing(source.body);
  await storage.putStream(finalKey, body, source.contentType, source.sizeBytes);
  await storage.delete(uploadKey);
  return { sha256: digest() };
}

/** Reads a completed upload at its final key and checks it against the declared type; refused objects are deleted. */
async function describeUploaded(
  storage: ObjectStorage,
  key: string,
  kind: UploadKind,
  type: string,
  extension: string,
): Promise<DescribedFile> {
  const head = await storage.head(key);
  if (!head) throw new NotFound('The uploaded file is gone', 'object_not_found');
  const refuse = (message: string, code: string) =>
    refuseObject(storage, key, new MediaRefused(message, code, 'key'));
  if (head.sizeBytes === 0) return refuse('The uploaded file is empty', 'empty_file');
  if (head.sizeBytes > mediaSizeLimits[kind])
    return refuse(
      `The uploaded file is ${head.sizeBytes} bytes; ${kind} files may be at most ${limitText(kind)}`,
      'file_too_large',
    );
  if (head.contentType.trim().toLowerCase() !== type)
    return refuse(
      `The uploaded object was stored as ${head.contentType}, not ${type}`,
      'content_type_mismatch',
    );
  const described = { kind, contentType: type, extension, sizeBytes: head.sizeBytes };
  if (kind === 'image') {
    const object = await storage.get(key);
    if (!object) throw new NotFound('The uploaded file is gone', 'object_not_found');
    const sniffed = await sniffContentType(object.body);
    if (sniffed !== type)
      return refuse(
        `The uploaded file's bytes are ${sniffed ?? 'not a recognised media type'}, not ${type}`,
        'content_type_mismatch',
      );
    const size = await imageDimensions(object.body);
    if (!size) return refuse('The uploaded image cannot be read', 'unreadable_image');
    if ('refused' in size) return refuse(size.refused.message, size.refused.code);
    const problem = imageSizeProblem(size);
    if (problem) return refuse(problem, 'image_dimensions_too_large');
    return { ...described, ...size };
  }
  const stream = await storage.getStream(key);
  if (!stream) throw new NotFound('The uploaded file is gone', 'object_not_found');
  const video = await readVideo(stream.body, stream.sizeBytes);
  if (video.sniffedType !== type)
    return refuse(
      `The uploaded file's bytes are ${video.sniffedType ?? 'not a recognised media type'}, not ${type}`,
      'content_type_mismatch',
    );
  if (video.refused) return refuse(video.refused.message, video.refused.code);
  if (!video.movie)
    return refuse('The uploaded video has no readable movie header with a video track', 'unreadable_video');
  return { ...described, ...video.movie };
}

/**
 * Tool: complete_media_upload. Records an uploaded file as an asset of the workspace once it is checked: the key
 * is the one the slot gave for this asset (400), the object exists (404), is within the kind's limit and is what
 * was declared, by its stored type and by its bytes (422, and the object is deleted). Completing again answers
 * the same asset.
 */
export async function completeMediaUpload(
  deps: MediaUseCaseDeps,
  caller: Caller,
  input: CompleteMediaUploadInput,
  request: WriteRequest,
): Promise<Written<{ asset: MediaAsset }>> {
  authorize(caller, writing(input.orgId));
  const { type, extension } = acceptedType(input.kind, input.contentType);
  const recorded = await loadAnyMediaAsset(deps.commands, input.assetId);
  const named = uploadKeyPattern.exec(input.key);
  // Another workspace's asset or key is not even named as existing here.
  if ((named && named[1] !== input.orgId) || (recorded && recorded.orgId !== input.orgId))
    throw new NotFound('Media asset not found');
  const expected = uploadKeyOf(input.orgId, input.assetId, extension);
  if (input.key !== expected)
    throw new InvalidFields('This key does not name the upload of this asset', [
      {
        path: 'key',
        message: `must be the key the upload-url answer for asset ${input.assetId} gave (a ${type} file)`,
      },
    ]);
  validateObjectKey(input.key);
  // Completed before: the same answer (a retry with its Idempotency-Key is answered as a replay).
  if (recorded)
    return runWrite(deps.idempotency, caller, request, () => Promise.resolve({ asset: recorded.asset }));
  const key = mediaKeyOf(input.orgId, input.assetId, extension);
  const { sha256 } = await moveUpload(deps.storage, input.key, key, input.kind);
  const file = await describeUploaded(deps.storage, key, input.kind, type, extension);
  try {
    await assertWithinQuota(deps, input.orgId, file.sizeBytes, 'key');
  } catch (error) {
    await deps.storage.delete(key);
    throw error;
  }
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const stored = await recordStoredFile(
      deps,
      {
        orgId: input.orgId,
        assetId: input.assetId,
        key,
        source: 'upload',
        file,
        details: {},
        sha256,
      },
      metadata,
      {
        ...(idempotencySeed ? { idempotencySeed } : {}),
        ...(record ? { sideWrite: (trx, asset) => record(trx, { asset: asset.asset }) } : {}),
      },
    );
    return { asset: stored.asset };
  });
}

export interface ImportMediaInput {
  orgId: string;
  url: string;
  altText?: string;
}

/** The SSRF refusals and fetch failures of an import, each a 400 naming `url`. */
class ImportRefused extends ValidationError {
  constructor(message: string, code: string) {
    super(message, code, [{ path: 'url', message }]);
  }
}

/** Whether the test seam lets this URL's origin be reached over plain http (never set in production). */
function allowedPlainOrigin(policy: MediaUseCaseDeps['outbound'], url: URL): boolean {
  const allowed = policy.allowPrivate;
  if (allowed === true) return true;
  if (!allowed) return false;
  return allowed.some((origin) => new URL(origin).origin === url.origin);
}

/** The file name at the end of a URL's path, as a title; null when there is none. */
function titleOf(url: URL): string | null {
  const last = url.pathname.split('/').filter(Boolean).pop();
  if (!last) return null;
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    name = last;
  }
  return name.trim().slice(0, 200) || null;
}

const largestImport = Math.max(mediaSizeLimits.image, mediaSizeLimits.video);

/**
 * Fetches the file into a spool file on disk as it arrives (a video is never held whole), capped at the limit
 * of the kind its first bytes show it to be. The caller disposes of the file; on a refusal it is gone already.
 */
async function fetchImport(deps: MediaUseCaseDeps, url: URL): Promise<{ file: MediaFile; type: string }> {
  const policy: OutboundPolicy = {
    requireHttps: !allowedPlainOrigin(deps.outbound, url),
    ...(deps.outbound.allowPrivate !== undefined ? { allowPrivate: deps.outbound.allowPrivate } : {}),
    ...(deps.outbound.resolve ? { resolve: deps.outbound.resolve } : {}),
  };
  // What the link says by itself (scheme, port, credentials, a private address literal) is answered plainly;
  // whatever the network said afterwards (no such name, a private address behind a name or a redirect, a refusal,
  // an error status) is one answer, the reason only logged, so imports cannot map internal names.
  try {
    checkUrl(url, policy);
  } catch (error) {
    throw importError(error);
  }
  const unfetchable = (reason: unknown) => {
    deps.logger?.info(
      { url: url.toString(), reason: fetchFailureReason(reason) },
      'media import link could not be fetched',
    );
    return new ImportRefused(`The file at this link ${fetchFailedMessage}`, 'fetch_failed');
  };
  let response;
  try {
    response = await safeFetchStream(url.toString(), {
      ...policy,
      maxBytes: largestImport,
      timeoutMs: deps.importTimeoutMs ?? 60_000,
      headers: { accept: 'image/*, video/mp4, video/quicktime' },
    });
  } catch (error) {
    if (error instanceof UnsafeUrlError && !(error instanceof ResponseTooLargeError))
      throw unfetchable(error);
    const refused = importError(error);
    throw refused instanceof ImportRefused && refused.code === 'fetch_failed' ? unfetchable(error) : refused;
  }
  if (response.status !== 200) {
    await response.body.cancel();
    throw unfetchable(new Error(`${url.host} answered HTTP ${response.status}`));
  }
  let head: Uint8Array[] = [];
  let size = 0;
  let cap = largestImport;
  let type: string | null | undefined;
  // An error of the download itself (too large, too slow, cut off) is the link's; any other is the disk's.
  let downloadError: unknown;
  async function* capped(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of body) {
        size += chunk.byteLength;
        if (type === undefined) {
          head.push(chunk);
          if (size >= sniffLength) {
            type = await sniffContentType(concat(head, size));
            head = [];
            const kind = type ? mediaTypeOf(type)?.kind : undefined;
            // Refused below: the rest is not downloaded.
            if (!kind || kind === 'document') return;
            cap = mediaSizeLimits[kind];
          }
        }
        if (size > cap) throw new ResponseTooLargeError(cap);
        yield chunk;
      }
    } catch (error) {
      downloadError = error;
      throw error;
    }
  }
  let file: MediaFile;
  try {
    file = await spoolMedia(capped(response.body), {
      assetId: 'import',
      contentType: 'application/octet-stream',
      // The kind's cap applies as soon as the first bytes show the kind; this one never fires first.
      maxBytes: largestImport,
      kind: 'video',
      ...(deps.spoolDir !== undefined ? { tmpDir: deps.spoolDir } : {}),
    });
  } catch (error) {
    await response.body.cancel().catch(() => undefined);
    if (error === downloadError) throw importError(error);
    if (error instanceof ConnectorError && error.kind === 'retryable')
      throw new ServiceUnavailable(
        'The server cannot take the file just now (it is out of disk space or open files); try again later',
        'import_unavailable',
      );
    throw error;
  }
  // A file shorter than the sniffed head: its type is read from all of it, still in memory.
  if (type === undefined) type = await sniffContentType(concat(head, size));
  const accepted = type ? mediaTypeOf(type) : null;
  if (!type || !accepted || accepted.kind === 'document') {
    await file.dispose();
    throw new MediaRefused(
      `The file at this link is ${type ?? 'not a recognised media type'}; the library imports ` +
        `${typeListOf('image')}, ${typeListOf('video')}`,
      'unsupported_content_type',
      'url',
    );
  }
  if (file.size > mediaSizeLimits[accepted.kind]) {
    await file.dispose();
    throw importError(new ResponseTooLargeError(mediaSizeLimits[accepted.kind]));
  }
  return { file, type };
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function importError(error: unknown): Error {
  if (error instanceof ImportRefused || error instanceof MediaRefused) return error;
  if (error instanceof ResponseTooLargeError)
    return new ImportRefused(
      `The file is larger than ${formatLimit(error.maxBytes)}, the most the library imports of its kind`,
      'file_too_large',
    );
  if (error instanceof UnsafeUrlError)
    return new ImportRefused(`This link cannot be imported: ${error.message}`, 'unsafe_url');
  if (error instanceof FetchDeadlineError || (error instanceof Error && error.name === 'TimeoutError'))
    return new ImportRefused('The file took too long to download', 'fetch_timeout');
  return new ImportRefused(
    `The file could not be downloaded: ${error instanceof Error ? error.message : String(error)}`,
    'fetch_failed',
  );
}

function formatLimit(bytes: number): string {
  return bytes === mediaSizeLimits.image
    ? limitText('image')
    : bytes === mediaSizeLimits.video
      ? limitText('video')
      : `${bytes} bytes`;
}

/**
 * Tool: import_media_from_url. Downloads a public https file (SSRF-safe: public addresses only, each redirect
 * checked, size and time capped), reads its type from its bytes, and stores it as an asset of the workspace.
 */
export async function importMedia(
  deps: MediaUseCaseDeps,
  caller: Caller,
  input: ImportMediaInput,
  request: WriteRequest,
): Promise<Written<{ asset: MediaAsset }>> {
  authorize(caller, writing(input.orgId));
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new ImportRefused('Not a URL', 'invalid_url');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowedPlainOrigin(deps.outbound, url)))
    throw new ImportRefused('Only public https links can be imported', 'https_required');
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const spooled = await fetchImport(deps, url);
    const assetId = newId(idempotencySeed ? [idempotencySeed, 'media-import'] : undefined);
    let file: DescribedFile;
    let key: string;
    let sha256: string;
    try {
      file = await describeSpooled(spooled.file, spooled.type, 'url');
      await assertWithinQuota(deps, input.orgId, file.sizeBytes, 'url');
      key = mediaKeyOf(input.orgId, assetId, file.extension);
      // Streamed from the spool file: the object store gets it in pieces, with its length.
      const { body, digest } = hashing(spooled.file.stream());
      await deps.storage.putStream(key, body, file.contentType, file.sizeBytes);
      sha256 = digest();
    } finally {
      await spooled.file.dispose();
    }
    const stored = await recordStoredFile(
      deps,
      {
        orgId: input.orgId,
        assetId,
        key,
        source: 'import',
        file,
        details: { altText: input.altText ?? null, title: titleOf(url) },
        sha256,
      },
      metadata,
      {
        ...(idempotencySeed ? { idempotencySeed } : {}),
        ...(record ? { sideWrite: (trx, asset) => record(trx, { asset: asset.asset }) } : {}),
      },
    );
    return { asset: stored.asset };
  });
}

export interface ListMediaInput {
  orgId: string;
  collection: MediaCollection;
  kind: 'all' | MediaListKind;
  page: number;
  limit: number;
}

/** A page of media, and the counts of every collection (of the kind asked). */
export type MediaListPage = Page<MediaItem> & { counts: { all: number; uploads: number; onBrand: number } };

/** Tool: list_media. Newest first; counts are of the kind asked, per collection. */
export async function listMedia(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: ListMediaInput,
): Promise<MediaListPage> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:read', scope: 'mcp:read' });
  const offset = (input.page - 1) * input.limit;
  const { items, total, counts } = await findMedia(db, input.orgId, {
    collection: input.collection,
    kind: input.kind,
    limit: input.limit,
    offset,
  });
  return { ...toPage(items, total, input.page, input.limit), counts };
}
