// The media library's events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them.
import { z } from 'zod';
import { zodEventCodec, type DataOf, type EventsOf } from '../shared/event-codec.js';
import { mediaAssetSchema } from '../shared/media-asset.js';
import { mediaSources } from './media-sources.js';

const schemas = {
  /** What the library records of one asset: the spec's item fields plus where its bytes are kept. */
  MediaAssetStored: z.object({
    orgId: z.string(),
    assetId: z.string(),
    source: z.enum(mediaSources),
    asset: mediaAssetSchema,
    /** The object's key in storage, under the workspace's prefix. */
    key: z.string(),
    contentType: z.string(),
    sizeBytes: z.number(),
    /**
     * Hex SHA-256 of the bytes as recorded (absent on assets recorded before it was kept). The object under `key`
     * is never written again, so the post content naming this asset names these bytes.
     */
    sha256: z.string().optional(),
    previewUrl: z.string().nullable(),
    title: z.string().nullable(),
    /** A visual format id (domain keeps it a string; infra/visuals/contract.ts lists them). */
    format: z.string().nullable(),
    aiGenerated: z.boolean(),
    /** The user (or `system`) who stored it. */
    by: z.string(),
    at: z.string(),
  }),
};

export type MediaEvent = EventsOf<typeof schemas>;
/** What the library records of one asset. */
export type StoredMediaAsset = DataOf<MediaEvent, 'MediaAssetStored'>;

export const mediaEventCodec = zodEventCodec('media', schemas);
