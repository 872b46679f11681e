// The media a post carries (one image, an image set, a PDF document or a video), declared once as the schema
// events store it with (post content, the media library's assets); the types are read off the schema.
import { z } from 'zod';

const imageItemSchema = z.object({
  assetId: z.string(),
  url: z.string(),
  contentType: z.string(),
  sizeBytes: z.number(),
  width: z.number().optional(),
  height: z.number().optional(),
  altText: z.string().optional(),
  /** Hex SHA-256 of the asset's bytes as the media library recorded them; absent when it recorded none. */
  sha256: z.string().optional(),
});

/** A MediaAsset as events store it. */
export const mediaAssetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('image'), ...imageItemSchema.shape }),
  z.object({ kind: z.literal('images'), images: z.array(imageItemSchema) }),
  z.object({
    kind: z.literal('document'),
    assetId: z.string(),
    url: z.string(),
    contentType: z.literal('application/pdf'),
    sizeBytes: z.number(),
    title: z.string(),
    pageCount: z.number().optional(),
    previewImageUrls: z.array(z.string()).optional(),
    sha256: z.string().optional(),
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
    sha256: z.string().optional(),
  }),
]);

export type MediaAsset = z.output<typeof mediaAssetSchema>;
/** One image (alone or in a set). */
export type ImageItem = z.output<typeof imageItemSchema>;
