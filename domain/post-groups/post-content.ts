// What one post says and carries: its platform, media (domain/shared) and platform-specific settings of the spec,
// and the content hash an approval is bound to (editing any of it invalidates the approval).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../shared/canonical-json.js';
import type { MediaAsset } from '../shared/media-asset.js';
import type { Platform } from '../shared/platforms.js';

/** One file a post's media names (each image of a set is one). */
export interface MediaFileRef {
  assetId: string;
  url: string;
  contentType: string;
  sha256?: string;
}

/** The files a post's media names, in order. */
export function mediaFilesOf(media: MediaAsset | null): MediaFileRef[] {
  if (!media) return [];
  const items: Array<MediaFileRef> = media.kind === 'images' ? media.images : [media];
  return items.map(({ assetId, url, contentType, sha256 }) => ({
    assetId,
    url,
    contentType,
    ...(sha256 !== undefined ? { sha256 } : {}),
  }));
}

/**
 * The media with each file's `sha256` set to what `hashOf` answers for its asset (the library's record), and
 * left out where it answers undefined: whatever sha256 the media carried before is never kept.
 */
export function withAssetHashes(
  media: MediaAsset,
  hashOf: (assetId: string) => string | undefined,
): MediaAsset {
  const stamp = <T extends { assetId: string; sha256?: string }>(item: T): T => {
    const { sha256: _given, ...rest } = item;
    const sha256 = hashOf(item.assetId);
    return (sha256 !== undefined ? { ...rest, sha256 } : rest) as T;
  };
  if (media.kind === 'images') return { ...media, images: media.images.map(stamp) };
  return stamp(media);
}

export const replySettingsValues = ['everyone', 'following', 'mentionedUsers', 'verified'] as const;
export type ReplySettings = (typeof replySettingsValues)[number];

/**
 * Platform-specific settings kept with a post (the spec leaves the object's content open; docs/decisions.md
 * lists these keys). Drafts' `reddit`, `youtube`, `tiktok`, `thread`, `quoteTweetUrl`, `communityUrl`,
 * `replySettings` and `poll` land here.
 */
export interface PlatformPayload {
  reddit?: { subreddit: string; title: string; flairId?: string; nsfw?: boolean; spoiler?: boolean };
  youtube?: { title?: string; privacyStatus?: 'public' | 'unlisted' | 'private'; madeForKids?: boolean };
  tiktok?: { title?: string; isAigc?: boolean; photoCoverIndex?: number };
  /** Further items after contentText, published as replies to it (a thread). */
  thread?: string[];
  quoteTweetUrl?: string;
  communityUrl?: string;
  replySettings?: ReplySettings;
  poll?: { options: string[]; durationMinutes: number };
}

export interface PostContent {
  platform: Platform;
  contentText: string;
  media: MediaAsset | null;
  platformPayload: PlatformPayload | null;
}

/**
 * `sha256:<hex>` of what an approval covers: platform, text, media and platform settings. Media files carry the
 * SHA-256 of their bytes (when the library recorded one), so the hash covers the bytes too; a file without one
 * (content stored before) serialises, and so hashes, exactly as it always did.
 */
export function contentHash(content: PostContent): string {
  const { platform, contentText, media, platformPayload } = content;
  const digest = createHash('sha256')
    .update(canonicalJson({ platform, contentText, media, platformPayload }))
    .digest('hex');
  return `sha256:${digest}`;
}
