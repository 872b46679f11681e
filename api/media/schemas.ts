// The media library's request and answer shapes (spec part 1, "Media library"), typed once in zod: requests are
// validated and the OpenAPI document generated from these.
import { z } from '@hono/zod-openapi';
import { mediaSources } from '../../commands/media/library.js';
import { uploadKinds } from '../../commands/media/media-files.js';
import { visualFormatIds } from '../../infra/visuals/contract.js';
import { mediaListKinds } from '../../projections/media/media-projection.js';
import { mediaCollections } from '../../projections/media/queries.js';
import { defineListQuery, pageShape } from '../platform/paging.js';
import { mediaAssetSchema } from '../post-groups/schemas.js';
import { canonicalUuid, orgParams } from '../shared/params.js';

export const mediaParams = orgParams.extend({
  assetId: canonicalUuid().openapi({ param: { name: 'assetId', in: 'path' } }),
});

const uploadKind = z.enum(uploadKinds).openapi({ description: '`image` or `video`' });
const contentType = z.string().min(1).max(100).openapi({
  example: 'video/mp4',
  description: 'Images: image/png, image/jpeg, image/webp, image/gif. Video: video/mp4, video/quicktime',
});

export const mediaUploadBody = z
  .object({ kind: uploadKind, contentType })
  .strict()
  .openapi('CreateMediaUpload');

export const mediaUploadSlotSchema = z
  .object({
    assetId: z.uuid(),
    uploadUrl: z.string(),
    key: z.string(),
    expiresInSeconds: z.number(),
    method: z.literal('PUT'),
    requiredHeaders: z.record(z.string(), z.string()),
  })
  .openapi('MediaUploadSlot');

export const completeMediaUploadBody = z
  .object({
    key: z.string().min(1).max(1024).openapi({ description: 'The key the upload-url answer gave' }),
    kind: uploadKind,
    contentType,
    durationSeconds: z
      .number()
      .min(0)
      .optional()
      .openapi({ description: 'Ignored for MP4 and MOV: the length is read from the file' }),
    width: z.number().int().min(1).optional().openapi({ description: 'Ignored: read from the file' }),
    height: z.number().int().min(1).optional().openapi({ description: 'Ignored: read from the file' }),
  })
  .strict()
  .openapi('CompleteMediaUpload');

export const importMediaBody = z
  .object({
    url: z
      .url()
      .max(2048)
      .openapi({ example: 'https://example.com/photo.jpg', description: 'A public https link' }),
    altText: z.string().max(1500).optional(),
  })
  .strict()
  .openapi('ImportMedia');

export const mediaAssetAnswer = z.object({ asset: mediaAssetSchema }).openapi('MediaAssetAnswer');

export const mediaItemSchema = z
  .object({
    id: z.uuid(),
    source: z.enum(mediaSources),
    asset: mediaAssetSchema,
    previewUrl: z.string().nullable(),
    title: z.string().nullable(),
    format: z.enum(visualFormatIds).nullable(),
    aiGenerated: z.boolean(),
    sizeBytes: z.number().int(),
    createdAt: z.string(),
  })
  .openapi('MediaItem');

export const mediaPageSchema = z
  .object({
    ...pageShape(mediaItemSchema, { bounds: false }),
    counts: z.object({ all: z.number().int(), uploads: z.number().int(), onBrand: z.number().int() }),
  })
  .openapi('MediaPage');

export const mediaListQuery = defineListQuery({
  defaultLimit: 25,
  maxLimit: 100,
  extra: {
    collection: z.enum(mediaCollections).default('all').openapi({
      description: '`uploads`: uploaded and imported; `on_brand`: branded images, carousels, screenshots',
    }),
    kind: z
      .enum(['all', ...mediaListKinds])
      .default('all')
      .openapi({ description: '`carousel`: carousel PDFs and slide sets' }),
  },
});
