// The media library's events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { MediaEvent } from './media-asset.js';
import { mediaSources } from './media-sources.js';
import { mediaAssetSchema } from '../shared/media-asset.js';

const schemas = {
  MediaAssetStored: z.object({
    orgId: z.string(),
    assetId: z.string(),
    source: z.enum(mediaSources),
    asset: mediaAssetSchema,
    key: z.string(),
    contentType: z.string(),
    sizeBytes: z.number(),
    sha256: z.string().optional(),
    previewUrl: z.string().nullable(),
    title: z.string().nullable(),
    format: z.string().nullable(),
    aiGenerated: z.boolean(),
    by: z.string(),
    at: z.string(),
  }),
};
const exact: SchemasMatch<MediaEvent, typeof schemas> = true;
void exact;

export const mediaEventCodec = defineEventCodec<MediaEvent>('media', zodSpecs(schemas));
