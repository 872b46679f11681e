// A media asset of a workspace's library: one stream per asset (`media-<assetId>`), recorded once when the
// file is in storage and checked (an upload completed, a URL imported, a render or a downloaded logo stored).
// Storing the same asset again records nothing; an asset id that belongs to another workspace is refused.
import { NotFound } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { mediaEventCodec, type MediaEvent, type StoredMediaAsset } from './event-codec.js';

export const mediaCategory = 'media';

export type { MediaEvent, StoredMediaAsset } from './event-codec.js';
export { mediaSources, type MediaSource } from './media-sources.js';

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
