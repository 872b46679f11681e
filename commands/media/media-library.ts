// The media library's storing core and the port other slices use (commands/media/library.ts): bytes are
// checked (declared type against the bytes, size per kind, image and video dimensions read from the file),
// put under `orgs/<orgId>/media/<assetId>.<ext>` and recorded as a MediaAssetStored; reads come from the
// read model and storage, for the caller's workspace only.
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { MediaSource, StoredMediaAsset } from '../../domain/media/media-asset.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import { requireWorkspace } from '../../domain/shared/caller.js';
import { ContentTooLarge, Unprocessable } from '../../domain/shared/errors.js';
import type { MediaFile } from '../../infra/connectors/port.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import { findMediaAsset, mediaBytesUsed } from '../../projections/media/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { VisualFormatId } from '../../infra/visuals/contract.js';
import type { CommandDeps, CommandMetadata } from '../shared/command-handler.js';
import { assetUrlOf } from '../shared/image-uploads.js';
import { deterministicUuid } from '../shared/ids.js';
import { writeMetadata } from '../shared/write-pipeline.js';
import type { MediaItem, MediaLibrary, StoreMediaInput } from './library.js';
import { loadMediaAsset, mediaKeyOf, recordMediaAsset, type RecordOptions } from './media-commands.js';
import {
  imageDimensions,
  imageSizeProblem,
  limitText,
  mediaSizeLimits,
  mediaTypeOf,
  readVideo,
  readVideoBytes,
  sniffContentType,
  sniffLength,
  type MediaFileKind,
  type VideoInfo,
} from './media-files.js';

export interface MediaLibraryDeps {
  commands: CommandDeps;
  readModels: Kysely<ReadModels>;
  storage: ObjectStorage;
  publicBaseUrl: string;
  now: () => Date;
  /** Bytes of media one workspace may keep (default DEFAULT_STORAGE_QUOTA_BYTES). */
  storageQuotaBytes?: number;
}

/** 5 GiB of media per workspace unless WORKSPACE_STORAGE_QUOTA_BYTES says otherwise. */
export const DEFAULT_STORAGE_QUOTA_BYTES = 5 * 1024 ** 3;

/**
 * Refuses (413 storage_quota_exceeded) a file of `addingBytes` that would take the workspace past its quota;
 * with 0, refuses once the quota is used up (a new upload slot).
 */
export async function assertWithinQuota(
  deps: Pick<MediaLibraryDeps, 'readModels' | 'storageQuotaBytes'>,
  orgId: string,
  addingBytes: number,
  path: string,
): Promise<void> {
  const quota = deps.storageQuotaBytes ?? DEFAULT_STORAGE_QUOTA_BYTES;
  const used = await mediaBytesUsed(deps.readModels, orgId);
  if (used + addingBytes > quota || (addingBytes === 0 && used >= quota)) {
    const message =
      `The workspace's media take ${used} of its ${quota} bytes of storage; ` +
      (addingBytes > 0 ? `${addingBytes} more do not fit` : 'delete some before adding more');
    throw new ContentTooLarge(message, 'storage_quota_exceeded', [{ path, message }]);
  }
}

/** The spec's library item of a recorded asset. */
export function mediaItemOf(stored: StoredMediaAsset): MediaItem {
  return {
    id: stored.assetId,
    source: stored.source,
    asset: stored.asset,
    previewUrl: stored.previewUrl,
    title: stored.title,
    format: stored.format as VisualFormatId | null,
    aiGenerated: stored.aiGenerated,
    sizeBytes: stored.sizeBytes,
    createdAt: stored.at,
  };
}

/** What the file is, as read from it. */
export interface DescribedFile {
  kind: MediaFileKind;
  contentType: string;
  extension: string;
  sizeBytes: number;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

export interface AssetDetails {
  altText?: string | null;
  title?: string | null;
  pageCount?: number;
  previewImageUrls?: string[];
}

/** The MediaAsset a post carries for a file of the library. */
export function mediaAssetOf(
  assetId: string,
  url: string,
  file: DescribedFile,
  details: AssetDetails,
): MediaAsset {
  const base = { assetId, url, contentType: file.contentType, sizeBytes: file.sizeBytes };
  if (file.kind === 'video')
    return {
      kind: 'video',
      ...base,
      durationSeconds: file.durationSeconds ?? 0,
      width: file.width ?? 0,
      height: file.height ?? 0,
    };
  if (file.kind === 'document')
    return {
      kind: 'document',
      ...base,
      contentType: 'application/pdf',
      title: details.title?.trim() || 'Document',
      ...(details.pageCount !== undefined ? { pageCount: details.pageCount } : {}),
      ...(details.previewImageUrls?.length ? { previewImageUrls: details.previewImageUrls } : {}),
    };
  return {
    kind: 'image',
    ...base,
    ...(file.width !== undefined ? { width: file.width } : {}),
    ...(file.height !== undefined ? { height: file.height } : {}),
    ...(details.altText ? { altText: details.altText } : {}),
  };
}

/** A file refused for what it is (422), with the field it came in. */
export class MediaRefused extends Unprocessable {
  constructor(message: string, code: string, path: string) {
    super(message, code, [{ path, message }]);
  }
}

/** What describing a file reads of it, whether it is in memory or spooled to disk. */
interface FileSource {
  size: number;
  /** At least the first `sniffLength` bytes (all of a smaller file), for file-type. */
  head(): Promise<Uint8Array>;
  /** The whole file; asked only of images, which are at most 20 MiB. */
  whole(): Promise<Uint8Array>;
  /** A video's type and movie header, read as the file streams past. */
  video(): Promise<VideoInfo>;
}

async function describeFile(
  file: FileSource,
  declaredType: string,
  path: string,
  known: { width?: number; height?: number },
): Promise<DescribedFile> {
  const type = mediaTypeOf(declaredType);
  if (!type)
    throw new MediaRefused(
      `The library does not store ${declaredType} files`,
      'unsupported_content_type',
      path,
    );
  const contentType = declaredType.trim().toLowerCase();
  if (file.size === 0) throw new MediaRefused('The file is empty', 'empty_file', path);
  if (file.size > mediaSizeLimits[type.kind])
    throw new MediaRefused(
      `The file is ${file.size} bytes; ${type.kind} files may be at most ${limitText(type.kind)}`,
      'file_too_large',
      path,
    );
  const sniffed = await sniffContentType(await file.head());
  if (sniffed !== contentType)
    throw new MediaRefused(
      `The file's bytes are ${sniffed ?? 'not a recognised media type'}, not ${contentType}`,
      'content_type_mismatch',
      path,
    );
  const described: DescribedFile = {
    kind: type.kind,
    contentType,
    extension: type.extension,
    sizeBytes: file.size,
  };
  if (type.kind === 'image') {
    const size =
      known.width !== undefined && known.height !== undefined
        ? { width: known.width, height: known.height }
        : await imageDimensions(await file.whole());
    if (!size) throw new MediaRefused('The image cannot be read', 'unreadable_image', path);
    if ('refused' in size) throw new MediaRefused(size.refused.message, size.refused.code, path);
    const problem = imageSizeProblem(size);
    if (problem) throw new MediaRefused(problem, 'image_dimensions_too_large', path);
    return { ...described, ...size };
  }
  if (type.kind === 'video') {
    const { movie, refused } = await file.video();
    if (refused) throw new MediaRefused(refused.message, refused.code, path);
    if (!movie)
      throw new MediaRefused(
        'The video has no readable movie header with a video track',
        'unreadable_video',
        path,
      );
    return { ...described, ...movie };
  }
  return described;
}

/**
 * Reads what bytes in memory are: the declared type must be one the library stores and must be what the
 * bytes are (file-type); within the kind's size limit; an image's size and a video's length and frame size
 * read from the file. Refusals are 422 naming `path`.
 */
export function describeBytes(
  bytes: Uint8Array,
  declaredType: string,
  path: string,
  known: { width?: number; height?: number } = {},
): Promise<DescribedFile> {
  return describeFile(
    {
      size: bytes.byteLength,
      head: () => Promise.resolve(bytes),
      whole: () => Promise.resolve(bytes),
      video: () => readVideoBytes(bytes),
    },
    declaredType,
    path,
    known,
  );
}

/**
 * `describeBytes` for a file spooled to disk (an import), never holding a video whole: the type is read from
 * the file's first bytes, an image's size from the image read whole (images are at most 20 MiB), a video's
 * length and frame size from its movie header (infra/media-probe, read in the probe thread).
 */
export function describeSpooled(file: MediaFile, declaredType: string, path: string): Promise<DescribedFile> {
  return describeFile(
    {
      size: file.size,
      head: () => file.read(0, Math.min(file.size, sniffLength)),
      whole: () => file.bytes(),
      video: () => readVideo(file.stream(), file.size),
    },
    declaredType,
    path,
    {},
  );
}

export interface RecordStoredInput {
  orgId: string;
  assetId: string;
  key: string;
  source: MediaSource;
  file: DescribedFile;
  details: AssetDetails;
  format?: string | null;
  aiGenerated?: boolean;
  previewUrl?: string | null;
  /** Hex SHA-256 of the stored bytes. */
  sha256?: string;
}

/** Records a file that is in storage under `key` as an asset of the workspace. */
export async function recordStoredFile(
  deps: Pick<MediaLibraryDeps, 'commands' | 'publicBaseUrl'>,
  input: RecordStoredInput,
  metadata: CommandMetadata,
  options: RecordOptions = {},
): Promise<StoredMediaAsset> {
  const url = assetUrlOf(deps.publicBaseUrl, input.key);
  const asset = mediaAssetOf(input.assetId, url, input.file, input.details);
  const previewUrl =
    input.previewUrl !== undefined
      ? input.previewUrl
      : asset.kind === 'image'
        ? url
        : asset.kind === 'document'
          ? (asset.previewImageUrls?.[0] ?? null)
          : null;
  const { asset: stored } = await recordMediaAsset(
    deps.commands,
    {
      orgId: input.orgId,
      assetId: input.assetId,
      source: input.source,
      asset,
      key: input.key,
      contentType: input.file.contentType,
      sizeBytes: input.file.sizeBytes,
      ...(input.sha256 !== undefined ? { sha256: input.sha256 } : {}),
      previewUrl,
      title: input.details.title?.trim() || null,
      format: input.format ?? null,
      aiGenerated: input.aiGenerated ?? false,
      by: metadata.userId ?? metadata.actor,
      at: metadata.now,
    },
    metadata,
    options,
  );
  return stored;
}

/** The library as other slices use it: renders and downloaded files stored, assets read back. */
export function createMediaLibrary(deps: MediaLibraryDeps): MediaLibrary {
  return {
    async store(input: StoreMediaInput): Promise<MediaItem> {
      requireWorkspace(input.caller, input.orgId);
      const assetId = input.idSeed
        ? deterministicUuid(input.orgId, input.idSeed, 'media-asset')
        : randomUUID();
      // The same seed again: the asset is there already, so nothing is written twice.
      const existing = await loadMediaAsset(deps.commands, input.orgId, assetId);
      if (existing) return mediaItemOf(existing);
      const file = await describeBytes(input.bytes, input.contentType, 'bytes', {
        ...(input.width !== undefined ? { width: input.width } : {}),
        ...(input.height !== undefined ? { height: input.height } : {}),
      });
      await assertWithinQuota(deps, input.orgId, file.sizeBytes, 'bytes');
      const key = mediaKeyOf(input.orgId, assetId, file.extension);
      await deps.storage.put(key, input.bytes, file.contentType);
      const metadata = writeMetadata(input.caller, {
        correlationId: randomUUID(),
        now: deps.now().toISOString(),
      });
      const stored = await recordStoredFile(
        deps,
        {
          orgId: input.orgId,
          assetId,
          key,
          source: input.source,
          file,
          details: {
            altText: input.altText ?? null,
            title: input.title ?? null,
            ...(input.pageCount !== undefined ? { pageCount: input.pageCount } : {}),
            ...(input.previewImageUrls ? { previewImageUrls: input.previewImageUrls } : {}),
          },
          format: input.format ?? null,
          aiGenerated: input.aiGenerated ?? false,
          sha256: createHash('sha256').update(input.bytes).digest('hex'),
        },
        metadata,
      );
      return mediaItemOf(stored);
    },

    async get(orgId, assetId) {
      return (await findMediaAsset(deps.readModels, orgId, assetId))?.item ?? null;
    },

    async read(orgId, assetId) {
      const row = await findMediaAsset(deps.readModels, orgId, assetId);
      if (!row) return null;
      const object = await deps.storage.get(row.key);
      if (!object) return null;
      return { bytes: object.body, contentType: row.contentType, item: row.item };
    },
  };
}
