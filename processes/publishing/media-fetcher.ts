// Media files for connectors that upload: files in our own storage are read from it; other URLs go through
// the SSRF-safe fetcher. Either way the bytes stream into a private spool file, capped per kind (images,
// documents, videos) while they arrive, and connectors read the file in the pieces they upload; the caller
// disposes it after the platform call. A media file that cannot be read, or is over its cap, is a permanent
// failure of the attempt, and nothing of it reaches the platform.
// A URL on our own origin is never fetched over HTTP: it is read from storage only when it is a signed object
// URL whose signature verifies, or a stable asset URL (`/v1/assets/<key>`, a media library asset), and its key
// lies under the post's workspace prefix; anything else on our origin is refused.
// Before a platform hears of a post, every file its approved content names with a SHA-256 is read and must hash
// to it (approvedMediaFetcher): bytes swapped in storage after the approval fail the post, and nothing is sent.
import { createHash } from 'node:crypto';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import { mediaFilesOf } from '../../domain/post-groups/post-content.js';
import { assetsPath, isPublicImageKey, publicObjectProblem } from '../../commands/shared/image-uploads.js';
import { Forbidden } from '../../domain/shared/errors.js';
import { ConnectorError, type MediaFetcher, type MediaFile } from '../../infra/connectors/port.js';
import {
  DEFAULT_MEDIA_LIMITS,
  mediaKindOf,
  mediaTooLarge,
  spoolMedia,
  type MediaKind,
} from '../../infra/connectors/media-file.js';
import {
  isWorkspaceObjectKey,
  validateObjectKey,
  type ObjectStorage,
} from '../../infra/object-storage/port.js';
import { LocalObjectStorage, STORAGE_OBJECTS_PATH } from '../../infra/object-storage/local-object-storage.js';
import { ResponseTooLargeError, safeFetchStream, type OutboundPolicy } from '../../infra/http/safe-fetch.js';

export interface MediaFetcherOptions {
  storage: ObjectStorage;
  publicBaseUrl: string;
  /** Caps per kind of media (DEFAULT_MEDIA_LIMITS: images 20 MiB, documents 100 MiB, videos 512 MiB). */
  limits?: Partial<Record<MediaKind, number>>;
  /** One deadline for fetching a remote file, body included. */
  timeoutMs?: number;
  /** Where spool folders are made (default the OS's temporary folder, i.e. TMPDIR). */
  tmpDir?: string;
  /** Tests only (OutboundPolicy): loopback or private servers the fetcher may reach anyway. */
  allowPrivate?: OutboundPolicy['allowPrivate'];
}

export function createMediaFetcher(options: MediaFetcherOptions): MediaFetcher {
  const limits = { ...DEFAULT_MEDIA_LIMITS, ...options.limits };
  const readOwn = ownStorageReader(options.storage, options.publicBaseUrl);
  return async (item) => {
    const kind = mediaKindOf(item.contentType);
    const maxBytes = limits[kind];
    const spool = (body: AsyncIterable<Uint8Array>, contentType: string) =>
      spoolMedia(body, {
        assetId: item.assetId,
        contentType,
        kind,
        maxBytes,
        ...(options.tmpDir !== undefined ? { tmpDir: options.tmpDir } : {}),
      });
    try {
      const own = await readOwn(item);
      if (own) {
        if (own.sizeBytes > maxBytes) {
          own.body.destroy();
          throw mediaTooLarge(item.assetId, kind, maxBytes);
        }
        return await spool(own.body, own.contentType);
      }
      const response = await safeFetchStream(item.url, {
        maxBytes,
        timeoutMs: options.timeoutMs ?? 60_000,
        allowPrivate: options.allowPrivate ?? false,
      });
      if (response.status !== 200) {
        await response.body.cancel();
        throw new ConnectorError(
          'permanent',
          `Media ${item.assetId} could not be read (HTTP ${response.status})`,
        );
      }
      return await spool(response.body, item.contentType || response.contentType);
    } catch (error) {
      if (error instanceof ConnectorError) throw error;
      if (error instanceof ResponseTooLargeError) throw mediaTooLarge(item.assetId, kind, maxBytes);
      throw new ConnectorError(
        'permanent',
        `Media ${item.assetId} could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
}

type MediaItem = Parameters<MediaFetcher>[0];
type OwnObject = NonNullable<Awaited<ReturnType<ObjectStorage['getStream']>>>;

/**
 * Opens a media item pointing at our own origin in storage, for the item's workspace only; `null` when the URL
 * is not on our origin (the caller fetches it). Throws a permanent ConnectorError for anything else on our origin.
 */
function ownStorageReader(
  storage: ObjectStorage,
  publicBaseUrl: string,
): (item: MediaItem) => Promise<OwnObject | null> {
  const base = new URL(publicBaseUrl);
  const objectsPath = `${base.pathname.replace(/\/+$/, '')}${STORAGE_OBJECTS_PATH}`;
  const assetUrlPath = `${base.pathname.replace(/\/+$/, '')}${assetsPath}`;
  return async (item) => {
    let url: URL;
    try {
      url = new URL(item.url);
    } catch {
      return null;
    }
    if (url.origin !== base.origin) return null;
    const refuse = (why: string) =>
      new ConnectorError('permanent', `Media ${item.assetId} cannot be used: ${why}`);
    // A stable asset URL: the key is in the path, served by the asset route to anyone holding it (unguessable).
    const readAsset = async (path: string): Promise<OwnObject> => {
      if (!item.orgId) throw refuse("the post's workspace is not known, so no file of our storage is read");
      let key: string;
      try {
        key = path.split('/').map(decodeURIComponent).join('/');
        validateObjectKey(key);
      } catch {
        throw refuse('it does not name a file in our storage');
      }
      if (!isPublicImageKey(key)) throw refuse('it does not name a media asset of this service');
      if (!isWorkspaceObjectKey(key, item.orgId))
        throw refuse("the file does not belong to the post's workspace");
      const head = await storage.head(key);
      if (!head || publicObjectProblem(key, head))
        throw new ConnectorError('permanent', `Media ${item.assetId} is no longer in storage`);
      const object = await storage.getStream(key);
      if (!object) throw new ConnectorError('permanent', `Media ${item.assetId} is no longer in storage`);
      return object;
    };
    if (url.pathname.startsWith(assetUrlPath)) return readAsset(url.pathname.slice(assetUrlPath.length));
    // Only the local store serves signed objects on our origin; with S3 nothing else there is media.
    if (!url.pathname.startsWith(objectsPath) || !(storage instanceof LocalObjectStorage))
      throw refuse('it points at this service but not at a file in its storage');
    if (!item.orgId) throw refuse("the post's workspace is not known, so no file of our storage is read");
    let key: string;
    try {
      key = url.pathname.slice(objectsPath.length).split('/').map(decodeURIComponent).join('/');
      validateObjectKey(key);
    } catch {
      throw refuse('it does not name a file in our storage');
    }
    if (!isWorkspaceObjectKey(key, item.orgId))
      throw refuse("the file does not belong to the post's workspace");
    try {
      storage.verifyRequest('GET', key, url.searchParams);
    } catch (error) {
      // An expired URL still proves we signed it for this key: a post scheduled after its download URL lapsed
      // keeps its media. Any other failure means we never signed it.
      if (!(error instanceof Forbidden && error.code === 'url_expired'))
        throw refuse('its signed URL does not verify');
    }
    const object = await storage.getStream(key);
    if (!object) throw new ConnectorError('permanent', `Media ${item.assetId} is no longer in storage`);
    return object;
  };
}

/**
 * Reads every file of the approved media that names a SHA-256 (through `fetchMedia`, which spools it) and checks
 * its bytes hash to it; throws a permanent ConnectorError naming the first that does not ("changed since
 * approval"), before anything reaches the platform. Answers a fetcher that hands the connector those very files
 * (what was checked is what is uploaded) and fetches any other item as before. Files without a SHA-256 (content
 * approved before hashes were kept) are left to the connector, unchecked, as they always were.
 */
export async function approvedMediaFetcher(
  fetchMedia: MediaFetcher,
  media: MediaAsset | null,
  orgId: string,
): Promise<MediaFetcher> {
  const keyOf = (item: { assetId: string; url: string }) => `${item.assetId}\n${item.url}`;
  const checked = new Map<string, MediaFile>();
  for (const ref of mediaFilesOf(media)) {
    if (ref.sha256 === undefined || checked.has(keyOf(ref))) continue;
    const file = await fetchMedia({
      url: ref.url,
      contentType: ref.contentType,
      assetId: ref.assetId,
      orgId,
    });
    const hash = createHash('sha256');
    for await (const chunk of file.stream()) hash.update(chunk as Buffer);
    if (hash.digest('hex') !== ref.sha256)
      throw new ConnectorError(
        'permanent',
        `Media ${ref.assetId} changed since approval: its bytes no longer match the SHA-256 the approval ` +
          'covers, so nothing was sent; upload the file again and have the post approved again',
      );
    checked.set(keyOf(ref), file);
  }
  return async (item) => checked.get(keyOf(item)) ?? fetchMedia(item);
}
