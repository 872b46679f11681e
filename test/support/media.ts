// Media assets for tests that put `media` on posts: a post's media must be an asset of the workspace's media
// library, so tests that use fixed fixture assets (image, video …) record them in the workspace first, as an
// upload would, without the bytes (nothing in these tests reads them).
import { randomUUID } from 'node:crypto';
import { mediaKeyOf, recordMediaAsset } from '../../commands/media/media-commands.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import type { TestService } from './runtime.js';

const extensions: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'application/pdf': 'pdf',
};

/** Each asset item a MediaAsset names (an `images` set names several). */
function itemsOf(media: MediaAsset): MediaAsset[] {
  return media.kind === 'images'
    ? media.images.map((image) => ({ kind: 'image' as const, ...image }))
    : [media];
}

/**
 * Records the assets as the workspace's uploads (recording one again changes nothing). An asset id can belong to
 * one workspace only: tests that give the same fixture to two workspaces give the second its own copy.
 */
export async function recordMediaFixtures(
  service: TestService,
  orgId: string,
  ...media: MediaAsset[]
): Promise<void> {
  const now = new Date().toISOString();
  for (const asset of media.flatMap(itemsOf)) {
    if (asset.kind === 'images') continue;
    await recordMediaAsset(
      service.runtime.commands,
      {
        orgId,
        assetId: asset.assetId,
        source: 'upload',
        asset,
        key: mediaKeyOf(orgId, asset.assetId, extensions[asset.contentType] ?? 'bin'),
        contentType: asset.contentType,
        sizeBytes: asset.sizeBytes,
        previewUrl: asset.kind === 'image' ? asset.url : null,
        title: null,
        format: null,
        aiGenerated: false,
        by: 'system',
        at: now,
      },
      { orgId, actor: 'system', correlationId: randomUUID(), now },
    );
  }
}
