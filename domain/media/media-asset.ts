// A media asset of a workspace's library: one stream per asset (`media-<assetId>`), recorded once when the
// file is in storage and checked (an upload completed, a URL imported, a render or a downloaded logo stored).
// Storing the same asset again records nothing; an asset id that belongs to another workspace is refused.
import type { MediaAsset } from '../shared/media-asset.js';
import { NotFound } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { mediaEventCodec } from './event-codec.js';
import type { MediaSource } from './media-sources.js';

export const mediaCategory = 'media';

export { mediaSources, type MediaSource } from './media-sources.js';

/** What the library records of one asset: the spec's item fields plus where its bytes are kept. */
export interface StoredMediaAsset {
  orgId: string;
  assetId: string;
  source: MediaSource;
  asset: MediaAsset;
  /** The object's key in storage, under the workspace's prefix. */
  key: string;
  contentType: string;
  sizeBytes: number;
  /**
   * Hex SHA-256 of the bytes as recorded (absent on assets recorded before it was kept). The object under `key`
   * is never written again, so the post content naming this asset names these bytes.
   */
  sha256?: string;
  previewUrl: string | null;
  title: string | null;
  /** A visual format id (domain keeps it a string; infra/visuals/contract.ts lists them). */
  format: string | null;
  aiGenerated: boolean;
  /** The user (or `system`) who stored it. */
  by: string;
  at: string;
}

export type MediaEvent = { type: 'MediaAssetStored'; data: StoredMediaAsset };

export type MediaCommand = { type: 'StoreMediaAsset'; asset: StoredMediaAsset };

export type MediaState = { status: 'none' } | { status: 'stored'; asset: StoredMediaAsset };

export const mediaDecider: Decider<MediaState, MediaCommand, MediaEvent> = {
  initialState: { status: 'none' },
  codec: mediaEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'StoreMediaAsset': {
        if (state.status === 'stored') {
          // Another workspace's asset is not even named as existing.
          if (state.asset.orgId !== command.asset.orgId) throw new NotFound('Media asset not found');
          return [];
        }
        return [{ type: 'MediaAssetStored', data: command.asset }];
      }
      default:
        return assertNever(command.type);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'MediaAssetStored':
        return state.status === 'stored' ? state : { status: 'stored', asset: event.data };
      default:
        return assertNever(event.type);
    }
  },
};
