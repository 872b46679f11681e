// The media library's events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { MediaEvent } from './media-asset.js';
import { mediaSources } from './media-sources.js';

const imageItem = {
  assetId: z.string(),
  url: z.string(),
  contentType: z.string(),
  sizeBytes: z.number(),
  width: z.number().optional(),
  height: z.number().optional(),
  altText: z.string().optional(),
};
const asset = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('image'), ...imageItem }),
  z.object({ kind: z.literal('images'), images: z.array(z.object(imageItem)) }),
  z.object({
    kind: z.literal('document'),
    assetId: z.string(),
    url: z.string(),
    contentType: z.literal('application/pdf'),
    sizeBytes: z.number(),
    title: z.string(),
    pageCount: z.number().optional(),
    previewImageUrls: z.array(z.string()).optional(),
  }),
  z.object({
    kind: z.literal('video'),
    assetId: z.string(),
    url: z.string(),
    contentType: z.string(),
    sizeBytes: z.number(),
    durationSeconds: z.number(),
    width: z.number(),
    height: z.number(),
  }),
]);

const schemas = {
  MediaAssetStored: z.object({
    orgId: z.string(),
    assetId: z.string(),
    source: z.enum(mediaSources),
    asset,
    key: z.string(),
    contentType: z.string(),
    sizeBytes: z.number(),
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
