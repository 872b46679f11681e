// The media asset decider and its codec: storing records the asset once, storing again records nothing, and
// the same asset id in another workspace is refused (not found); the event decodes as it was written.
import { describe, expect, test } from 'vitest';
import { mediaEventCodec } from '../../../domain/media/event-codec.js';
import { mediaDecider, type MediaEvent, type StoredMediaAsset } from '../../../domain/media/media-asset.js';
import { NotFound } from '../../../domain/shared/errors.js';
import { deciderSpec } from '../../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const otherOrg = '00000000-0000-4000-8000-000000000002';
const assetId = '00000000-0000-4000-8000-0000000000a1';

const stored = (overrides: Partial<StoredMediaAsset> = {}): StoredMediaAsset => ({
  orgId,
  assetId,
  source: 'upload',
  asset: {
    kind: 'video',
    assetId,
    url: `https://api.example.com/v1/assets/orgs/${orgId}/media/${assetId}.mp4`,
    contentType: 'video/mp4',
    sizeBytes: 7057,
    durationSeconds: 2.5,
    width: 320,
    height: 240,
  },
  key: `orgs/${orgId}/media/${assetId}.mp4`,
  contentType: 'video/mp4',
  sizeBytes: 7057,
  previewUrl: null,
  title: null,
  format: null,
  aiGenerated: false,
  by: 'user-1',
  at: '2026-11-25T10:00:00.000Z',
  ...overrides,
});
const event = (data = stored()): MediaEvent => ({ type: 'MediaAssetStored', data });

describe('media asset decider', () => {
  test('storing a new asset records it', () => {
    deciderSpec(mediaDecider).given([]).when({ type: 'StoreMediaAsset', asset: stored() }).then([event()]);
  });

  test('storing it again records nothing, even with other values (the first recording stands)', () => {
    deciderSpec(mediaDecider)
      .given([event()])
      .when({ type: 'StoreMediaAsset', asset: stored({ title: 'Renamed', at: '2026-11-26T00:00:00.000Z' }) })
      .then([]);
  });

  test('the same asset id in another workspace is not found', () => {
    deciderSpec(mediaDecider)
      .given([event()])
      .when({ type: 'StoreMediaAsset', asset: stored({ orgId: otherOrg }) })
      .thenThrows(NotFound, /not found/);
  });

  test('the state is the first recording', () => {
    deciderSpec(mediaDecider)
      .given([])
      .when({ type: 'StoreMediaAsset', asset: stored() })
      .thenState((state) => expect(state).toEqual({ status: 'stored', asset: stored() }));
  });

  test('the codec decodes the event as written and refuses a malformed one', () => {
    const recorded = {
      streamName: `media-${assetId}`,
      revision: 0,
      type: 'MediaAssetStored',
      data: stored(),
      metadata: { schemaVersion: 1 },
    };
    expect(mediaEventCodec.schemaVersion('MediaAssetStored')).toBe(1);
    expect(mediaEventCodec.decode(recorded)).toEqual(event());
    expect(() => mediaEventCodec.decode({ ...recorded, data: { ...stored(), source: 'stolen' } })).toThrow(
      /source/,
    );
  });
});
