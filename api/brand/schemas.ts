// The brand kit's request and response shapes (spec part 2, "Brand kit" and the Brand endpoints), typed once:
// validation, TypeScript types and the OpenAPI document come from these. Types are checked here (400); what a
// value means (a colour, an installed font, a reachable logo) is checked by the use case (422, every field).
import { z } from '@hono/zod-openapi';
import {
  colorSources,
  fontSources,
  imageSources,
  logoSources,
  maxColors,
  maxFonts,
  maxImages,
  maxLogos,
} from '../../infra/brand/website-reader.js';

const nullableText = (example: string, description: string) =>
  z.string().max(2048).nullable().optional().openapi({ example, description });

const colorInput = (example: string) =>
  nullableText(
    example,
    'Any opaque CSS colour (#rgb, #rrggbb, rgb(), hsl(), a name), stored as #rrggbb; null clears',
  );

export const updateBrandKitBody = z
  .object({
    colors: z
      .object({
        primary: colorInput('#1a73e8'),
        secondary: colorInput('#0b3d91'),
        accent: colorInput('#ff8a00'),
        background: colorInput('#ffffff'),
      })
      .strict()
      .optional(),
    headingFont: nullableText('Montserrat', 'An installed font family (list_visual_options); null clears'),
    bodyFont: nullableText('Inter', 'An installed font family; null clears'),
    logo: z
      .union([
        z.object({ url: z.string().max(2048).openapi({ example: 'https://example.com/logo.svg' }) }).strict(),
        z
          .object({ assetId: z.string().max(100).openapi({ description: 'An image of the media library' }) })
          .strict(),
      ])
      .nullable()
      .optional()
      .openapi({
        description:
          'A link to download (PNG, JPEG, WebP, GIF or SVG; SVG is sanitised and stored as a PNG rendition beside it), ' +
          'or an image asset of the workspace; null clears',
      }),
    tagline: nullableText('Social media that sounds like you', 'At most 200 characters; null clears'),
    website: nullableText('https://example.com', 'An http(s) address; null clears'),
    ifUpdatedAt: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .openapi({
        description:
          "The kit's updatedAt as you read it: the edit is refused (409 stale_brand_kit) if the kit changed since. " +
          'null: a kit never edited.',
      }),
    dryRun: z.boolean().optional().openapi({
      description:
        'Check everything (the logo is downloaded and checked) and answer the kit as it would be; save nothing',
    }),
  })
  .strict()
  .openapi('UpdateBrandKit');

export const brandKitSchema = z
  .object({
    colors: z.object({
      primary: z.string().nullable(),
      secondary: z.string().nullable(),
      accent: z.string().nullable(),
      background: z.string().nullable(),
    }),
    headingFont: z.string().nullable(),
    bodyFont: z.string().nullable(),
    logo: z
      .object({
        assetId: z.string().nullable(),
        url: z.string().nullable(),
        sourceUrl: z.string().nullable(),
        width: z.number().nullable(),
        height: z.number().nullable(),
        contentType: z.string().nullable(),
      })
      .nullable(),
    tagline: z.string().nullable(),
    website: z.string().nullable(),
    updatedAt: z.string().nullable(),
    missing: z.array(z.string()).openapi({ description: 'Unset parts, e.g. colors.accent, logo' }),
  })
  .openapi('BrandKit');

export const brandKitUpdateSchema = z
  .object({
    saved: z.boolean(),
    kit: brandKitSchema,
    changed: z.array(z.string()),
    warnings: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })),
    missing: z.array(z.string()),
    previewHint: z.string(),
  })
  .openapi('BrandKitUpdate');

export const brandKitWebsiteQuery = z
  .object({
    url: z
      .string()
      .min(1)
      .max(2048)
      .openapi({ example: 'https://example.com', description: 'A public http(s) page' }),
  })
  .openapi('BrandKitWebsiteQuery');

export const brandKitWebsiteSchema = z
  .object({
    websiteUrl: z.string(),
    reachable: z.boolean(),
    siteName: z.string().nullable(),
    tagline: z.string().nullable(),
    colors: z
      .array(
        z.object({
          hex: z.string(),
          source: z.enum(colorSources),
          detail: z.string().nullable(),
          uses: z.number().int(),
          neutral: z.boolean(),
        }),
      )
      .max(maxColors),
    logos: z.array(z.object({ url: z.string(), source: z.enum(logoSources) })).max(maxLogos),
    images: z.array(z.object({ url: z.string(), source: z.enum(imageSources) })).max(maxImages),
    fonts: z.array(z.object({ family: z.string(), source: z.enum(fontSources) })).max(maxFonts),
    suggestion: z.object({
      website: z.string(),
      colors: z
        .object({
          primary: z.string().optional(),
          secondary: z.string().optional(),
          accent: z.string().optional(),
          background: z.string().optional(),
        })
        .optional(),
      headingFont: z.string().optional(),
      bodyFont: z.string().optional(),
      logo: z.object({ url: z.string() }).optional(),
    }),
  })
  .openapi('BrandKitWebsiteCandidates');
