// The media library as other slices use it (issue 15): the visuals slice stores its renders here, the brand kit
// reads an asset it is pointed at, and the post-group commands check that a post's media is the workspace's.
// Implemented by the media slice (commands/media/, api/media/); built once per runtime by `mediaLibraryOf(ctx)`.
import type { Caller } from '../../domain/shared/caller.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import type { VisualFormatId } from '../../infra/visuals/contract.js';

export const mediaSources = ['upload', 'import', 'branded_image', 'carousel', 'screenshot'] as const;
export type MediaSource = (typeof mediaSources)[number];

/** One item of `GET ORG/marketing/media` (spec part 1, "Media library"). */
export interface MediaItem {
  id: string;
  source: MediaSource;
  asset: MediaAsset;
  previewUrl: string | null;
  title: string | null;
  format: VisualFormatId | null;
  aiGenerated: boolean;
  sizeBytes: number;
  createdAt: string;
}

/** Bytes the service made or fetched itself (a render, an imported file), stored as a new asset of the workspace. */
export interface StoreMediaInput {
  orgId: string;
  caller: Caller;
  source: MediaSource;
  bytes: Uint8Array;
  /** image/png, image/jpeg, image/webp, image/gif, application/pdf, video/mp4, video/quicktime */
  contentType: string;
  title?: string | null;
  format?: VisualFormatId | null;
  aiGenerated?: boolean;
  altText?: string | null;
  /** A PDF's pages and the slide images shown as its preview. */
  pageCount?: number;
  previewImageUrls?: string[];
  /** When known already (renders); read from the bytes otherwise. */
  width?: number;
  height?: number;
  /** The same seed gives the same asset id (a retried request stores nothing twice). */
  idSeed?: string;
}

export interface MediaLibrary {
  store(input: StoreMediaInput): Promise<MediaItem>;
  /** An asset of the workspace, or null (also for another workspace's asset). */
  get(orgId: string, assetId: string): Promise<MediaItem | null>;
  /** The stored bytes of an asset of the workspace, or null. */
  read(
    orgId: string,
    assetId: string,
  ): Promise<{ bytes: Uint8Array; contentType: string; item: MediaItem } | null>;
}
