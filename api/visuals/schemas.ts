// Request and response schemas of the branded-visuals routes (spec part 1, "Branded visuals"), shared with the
// assistant tools. Text fields have generous caps: the renderer wraps and shrinks text to fit, and these only
// keep a request from carrying a novel.
import { z } from '@hono/zod-openapi';
import {
  carouselLayoutIds,
  carouselFormatIds,
  screenshotFormatIds,
  screenshotLayoutIds,
  templateIds,
  themeIds,
  visualFormatIds,
} from '../../infra/visuals/contract.js';
import { carouselOutputs, imageOutputs } from '../../commands/visuals/visual-inputs.js';
import { canonicalUuid } from '../shared/params.js';
import { mediaAssetSchema } from '../post-groups/schemas.js';

/** Caps on text (UTF-16 code units). */
export const visualTextLimits = {
  title: 300,
  eyebrow: 80,
  body: 1_000,
  stat: 24,
  attribution: 120,
  cta: 80,
  bullet: 200,
  bullets: 10,
  handle: 60,
  addressBar: 200,
  prompt: 4_000,
} as const;

const text = (max: number, example?: string) =>
  z
    .string()
    .max(max)
    .openapi(example ? { example } : {});

const contentFields = {
  title: z
    .string()
    .trim()
    .min(1, 'Required: the main text of the visual')
    .max(visualTextLimits.title)
    .openapi({ example: 'Ship posts your whole team agrees on' }),
  eyebrow: text(visualTextLimits.eyebrow, 'New').optional(),
  body: text(visualTextLimits.body).optional(),
  stat: text(visualTextLimits.stat, '73%').optional(),
  attribution: text(visualTextLimits.attribution).optional(),
  cta: text(visualTextLimits.cta, 'Try it free').optional(),
  bullets: z.array(text(visualTextLimits.bullet)).max(visualTextLimits.bullets).optional(),
};

export const visualContentSchema = z.object(contentFields).strict().openapi('VisualContent');

const assetOrUrl = (name: string) =>
  z
    .object({
      assetId: canonicalUuid()
        .optional()
        .openapi({ description: 'An image (PNG or JPEG) of the media library' }),
      url: z
        .url({ protocol: /^https?$/ })
        .max(2_000)
        .optional()
        .openapi({ description: 'A public http(s) link to a PNG or JPEG' }),
    })
    .strict()
    .openapi(name);

const aiBackgroundSchema = z
  .object({
    prompt: z
      .string()
      .trim()
      .min(1)
      .max(visualTextLimits.prompt)
      .openapi({ example: 'Soft morning light over a calm sea, minimal' }),
    model: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'One of GET visuals/options aiBackground models' }),
  })
  .strict()
  .openapi('AiBackgroundRequest');

const common = {
  theme: z.enum(themeIds).optional().openapi({ description: 'Default brand' }),
  includeLogo: z.boolean().optional().openapi({ description: 'Default: true when the brand kit has a logo' }),
  handle: z.string().trim().max(visualTextLimits.handle).nullable().optional().openapi({ example: '@acme' }),
};

const uniqueList = <T extends z.ZodType>(item: T, max: number) => z.array(item).max(max);

export const imageVisualBody = z
  .object({
    content: visualContentSchema,
    template: z.enum(templateIds).optional().openapi({ description: 'Default headline' }),
    format: z.enum(visualFormatIds).optional().openapi({ description: 'Default square' }),
    ...common,
    backgroundImage: assetOrUrl('VisualImageRef').optional(),
    aiBackground: aiBackgroundSchema.optional(),
    alsoFormats: uniqueList(z.enum(visualFormatIds), visualFormatIds.length)
      .optional()
      .openapi({ description: 'More formats of the same content, each one more image' }),
    outputs: z
      .array(z.enum(imageOutputs))
      .min(1)
      .max(1)
      .optional()
      .openapi({ description: 'What is stored: `png` (the only output of an image; the default)' }),
  })
  .strict()
  .openapi('RenderImageVisual');

const slideSchema = z
  .object({ ...contentFields, layout: z.enum(carouselLayoutIds).optional() })
  .strict()
  .openapi('CarouselSlideInput');

export const carouselVisualBody = z
  .object({
    // The 2–15 bounds are checked by the use case, naming `slides` with the count.
    slides: z.array(slideSchema).max(100),
    format: z.enum(carouselFormatIds).optional().openapi({ description: 'Default portrait' }),
    ...common,
    aiBackground: aiBackgroundSchema.optional(),
    outputs: uniqueList(z.enum(carouselOutputs), carouselOutputs.length)
      .min(1)
      .optional()
      .openapi({ description: '`png` (the slides as images) and/or `pdf` (one document); default both' }),
  })
  .strict()
  .openapi('RenderCarouselVisual');

export const screenshotVisualBody = z
  .object({
    screenshot: assetOrUrl('ScreenshotRef'),
    layout: z.enum(screenshotLayoutIds).optional().openapi({ description: 'Default centered' }),
    format: z.enum(screenshotFormatIds).optional().openapi({ description: 'Default landscape' }),
    ...common,
    content: z
      .object({
        eyebrow: contentFields.eyebrow,
        title: text(visualTextLimits.title).optional(),
        body: contentFields.body,
      })
      .strict()
      .optional(),
    addressBar: z
      .string()
      .max(visualTextLimits.addressBar)
      .nullable()
      .optional()
      .openapi({ example: 'app.acme.com/dashboard' }),
    windowTheme: z
      .enum(['auto', 'light', 'dark'])
      .optional()
      .openapi({ description: 'Default auto (follows the theme)' }),
    crop: z
      .object({
        zoom: z.number().min(1).max(4).openapi({ description: '1 (whole screenshot) to 4' }),
        focusX: z.number().min(0).max(1).openapi({ description: '0 (left) to 1 (right)' }),
        focusY: z.number().min(0).max(1).openapi({ description: '0 (top) to 1 (bottom)' }),
      })
      .strict()
      .optional(),
    alsoFormats: uniqueList(z.enum(screenshotFormatIds), screenshotFormatIds.length).optional(),
    outputs: z.array(z.enum(imageOutputs)).min(1).max(1).optional(),
  })
  .strict()
  .openapi('RenderScreenshotVisual');

const contentKeys = Object.keys(contentFields) as (keyof typeof contentFields)[];

/**
 * A preview's `content` for kind `image`: the image endpoint's body ({content: {title, …}, theme, …}), or the
 * same with the visual's content written in place ({title, …, theme, …}): the image endpoint's `content`, which
 * is what a reader of `kind` and `content` (and the brand kit's previewHint) first sends. The two sets of keys do
 * not overlap, so one strict object takes both and the transform answers the endpoint's body.
 */
const imagePreviewContent = z
  .object({
    ...imageVisualBody.shape,
    content: visualContentSchema.optional().openapi({
      description:
        'The visual’s text, as in POST visuals/image; or write its fields (title, …) here in place',
    }),
    ...contentFields,
    title: contentFields.title.optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    const inPlace = contentKeys.filter((key) => value[key] !== undefined);
    if (value.content !== undefined && inPlace.length > 0)
      ctx.addIssue({
        code: 'custom',
        path: [inPlace[0]!],
        message: 'Give the text either under `content` or in place (title, …), not both',
      });
    else if (value.content === undefined && value.title === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['title'],
        message: 'Required: the main text of the visual (`title`, or `content.title`)',
      });
  })
  .transform((value): z.output<typeof imageVisualBody> => {
    const { content, title, eyebrow, body, stat, attribution, cta, bullets, ...options } = value;
    const inPlace = { title: title!, eyebrow, body, stat, attribution, cta, bullets };
    return {
      ...options,
      content:
        content ??
        (Object.fromEntries(Object.entries(inPlace).filter(([, v]) => v !== undefined)) as z.output<
          typeof visualContentSchema
        >),
    };
  })
  .openapi('PreviewImageContent');

export const previewBody = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('image'), content: imagePreviewContent }).strict(),
    z.object({ kind: z.literal('carousel'), content: carouselVisualBody }).strict(),
    z.object({ kind: z.literal('screenshot'), content: screenshotVisualBody }).strict(),
  ])
  .openapi('PreviewVisual');

export const optionsQuery = z.object({
  includeAllModels: z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .openapi({ param: { name: 'includeAllModels', in: 'query' }, description: 'true lists every AI model' }),
});

// ---- answers ----

export const renderedImageItem = z
  .object({
    assetId: z.uuid(),
    url: z.string(),
    contentType: z.string(),
    sizeBytes: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    format: z.enum(visualFormatIds),
    page: z.number().int().optional(),
  })
  .openapi('RenderedImageItem');

const aiBackgroundUsed = z
  .object({ model: z.string(), estimatedCostMilliUsd: z.number() })
  .nullable()
  .openapi('AiBackgroundUsed');

export const imageVisualResult = z
  .object({
    images: z.array(renderedImageItem),
    postMedia: mediaAssetSchema.nullable(),
    aiBackground: aiBackgroundUsed,
    renderMs: z.number().int(),
  })
  .openapi('ImageVisual');

export const carouselVisualResult = z
  .object({
    document: z
      .object({
        assetId: z.uuid(),
        url: z.string(),
        contentType: z.literal('application/pdf'),
        sizeBytes: z.number().int(),
        pageCount: z.number().int(),
      })
      .nullable(),
    slides: z.array(renderedImageItem),
    postMedia: z.object({
      linkedin: mediaAssetSchema.nullable(),
      x: mediaAssetSchema.nullable(),
      facebook: mediaAssetSchema.nullable(),
      instagram: mediaAssetSchema.nullable(),
    }),
    aiBackground: aiBackgroundUsed,
    renderMs: z.number().int(),
  })
  .openapi('CarouselVisual');

export const screenshotVisualResult = z
  .object({
    images: z.array(renderedImageItem),
    postMedia: mediaAssetSchema.nullable(),
    renderMs: z.number().int(),
  })
  .openapi('ScreenshotVisual');

export const previewResult = z
  .object({
    image: z.string().openapi({ description: 'data:image/png;base64,…' }),
    width: z.number().int(),
    height: z.number().int(),
    renderMs: z.number().int(),
    slides: z.array(z.string()).optional(),
  })
  .openapi('VisualPreview');

export const visualOptionsResult = z
  .object({
    formats: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        width: z.number().int(),
        height: z.number().int(),
        aspectRatio: z.string(),
        useFor: z.array(z.string()),
      }),
    ),
    templates: z.array(
      z.object({ id: z.string(), label: z.string(), description: z.string(), fields: z.array(z.string()) }),
    ),
    themes: z.array(z.object({ id: z.string(), label: z.string(), description: z.string() })),
    carousel: z.object({
      formats: z.array(z.string()),
      layouts: z.array(z.object({ id: z.string(), description: z.string() })),
      minSlides: z.number().int(),
      maxSlides: z.number().int(),
    }),
    screenshot: z.object({
      formats: z.array(z.string()),
      layouts: z.array(z.object({ id: z.string(), label: z.string(), description: z.string() })),
    }),
    aiBackground: z.object({
      available: z.boolean(),
      defaultModel: z.string().nullable(),
      recommendedModels: z.array(z.object({ id: z.string(), useFor: z.string() })),
      totalModels: z.number().int(),
      models: z.array(z.string()).optional(),
    }),
    brand: z.object({
      colors: z.array(z.string()),
      headingFont: z.string(),
      bodyFont: z.string(),
      background: z.string().nullable(),
      hasLogo: z.boolean(),
      logo: z.object({ width: z.number(), height: z.number() }).nullable(),
    }),
  })
  .openapi('VisualOptions');
