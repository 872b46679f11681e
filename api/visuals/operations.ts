// The branded visuals' operations (spec part 1, "Branded visuals"): GET ORG/marketing/visuals/options
// (list_visual_options), POST …/visuals/image (create_branded_image), carousel (create_carousel), screenshot
// (create_app_screenshot) and preview (no tool). Renders run in the renderer's worker pool and are stored as
// workspace assets; a preview is answered inline and stores nothing.
import { z } from '@hono/zod-openapi';
import { visualOptions } from '../../commands/visuals/visual-options.js';
import {
  previewVisual,
  renderCarouselVisual,
  renderImageVisual,
  renderScreenshotVisual,
  type VisualsDeps,
} from '../../commands/visuals/visuals-use-cases.js';
import type { ErrorStatus } from '../platform/errors.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import {
  carouselVisualBody,
  carouselVisualResult,
  imageVisualBody,
  imageVisualResult,
  optionsQuery,
  previewBody,
  previewResult,
  screenshotVisualBody,
  screenshotVisualResult,
  visualOptionsResult,
} from './schemas.js';
import { visualsServices } from './services.js';

const operation = operationsWith<VisualsDeps>();
const path = '/v1/orgs/{orgId}/marketing/visuals';
const renderErrors: readonly ErrorStatus[] = [400, 401, 402, 403, 404, 413, 422, 429, 503];
const renderHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/** What every render tool says about text it cannot draw (commands/visuals/visual-inputs.ts refuses it). */
const scripts =
  ' Text may be in Latin, Greek, Cyrillic or Vietnamese letters, with emoji; other scripts (Chinese, Japanese, ' +
  'Korean, Arabic, Hebrew, …) are refused with unsupported_characters.';

export const visualOperations = operationGroup(
  (ctx) => ctx.use(visualsServices).deps,
  [
    operation({
      name: 'create_branded_image',
      kind: 'write',
      method: 'post',
      path: `${path}/image`,
      tags: ['marketing'],
      summary: 'Render a branded image (template, format and more formats), stored in the media library',
      params: orgParams,
      body: imageVisualBody,
      output: imageVisualResult,
      outputDescription: 'The stored images',
      errors: renderErrors,
      access: { permission: 'posts:draft', scope: 'posts:write' },
      tool: {
        title: 'Create a branded image',
        description:
          "Renders a branded image in the workspace's colours, fonts and logo and stores it in the media library " +
          '(collection on_brand). `content.title` is required; `template` is headline (default), quote, stat (needs ' +
          '`content.stat`), list (needs `content.bullets`) or photo (needs `backgroundImage` or `aiBackground`); ' +
          '`format` defaults to square, `alsoFormats` adds the same content in more formats. `aiBackground` ' +
          'generates a background image and spends credits. Answers the stored images and `postMedia`, which can be ' +
          "passed as a post's `media` in create_draft_post. It creates no post and publishes nothing." +
          scripts,
        hints: renderHints,
        summary: (r) =>
          `Stored ${r.images.length} image${r.images.length === 1 ? '' : 's'} (${r.images
            .map((i) => `${i.format} ${i.width}×${i.height}`)
            .join(
              ', ',
            )}) in ${r.renderMs} ms${r.aiBackground ? ` with an AI background (${r.aiBackground.model})` : ''}.`,
      },
      run: (deps, { caller, request }, { orgId, ...body }) =>
        renderImageVisual(deps, caller, orgId, body, request),
    }),
    operation({
      name: 'create_carousel',
      kind: 'write',
      method: 'post',
      path: `${path}/carousel`,
      tags: ['marketing'],
      summary: 'Render 2 to 15 slides as PNG images and one PDF document, stored in the media library',
      params: orgParams,
      body: carouselVisualBody,
      output: carouselVisualResult,
      outputDescription: 'The stored slides and PDF',
      errors: renderErrors,
      access: { permission: 'posts:draft', scope: 'posts:write' },
      tool: {
        title: 'Create a carousel',
        description:
          'Renders 2 to 15 slides in the workspace brand as PNG images and one PDF document and stores them in the ' +
          'media library. Each slide needs a `title`; its `layout` defaults to cover for the first slide, cta for ' +
          'a last slide with a `cta`, stat or list when the slide has a stat or bullets, and point otherwise. ' +
          '`format` is portrait (default) or square. Answers the slides, the document and `postMedia` per platform ' +
          '(LinkedIn: the PDF; X: the first 4 slides; Instagram: the first 10; Facebook: all), ready to use as a ' +
          "post's `media`. It creates no post and publishes nothing." +
          scripts,
        hints: renderHints,
        summary: (r) =>
          `Stored ${r.slides.length} slides${r.document ? ` and a ${r.document.pageCount}-page PDF` : ''} in ${r.renderMs} ms.`,
      },
      run: (deps, { caller, request }, { orgId, ...body }) =>
        renderCarouselVisual(deps, caller, orgId, body, request),
    }),
    operation({
      name: 'create_app_screenshot',
      kind: 'write',
      method: 'post',
      path: `${path}/screenshot`,
      tags: ['marketing'],
      summary:
        'Frame a screenshot in a browser-style window on a branded canvas, stored in the media library',
      params: orgParams,
      body: screenshotVisualBody,
      output: screenshotVisualResult,
      outputDescription: 'The stored images',
      errors: renderErrors,
      access: { permission: 'posts:draft', scope: 'posts:write' },
      tool: {
        title: 'Create an app screenshot visual',
        description:
          'Frames a screenshot (`screenshot.assetId`, an image of the media library, or `screenshot.url`, a public ' +
          'link to a PNG or JPEG) in a browser-style window on a branded canvas and stores it in the media library. ' +
          '`layout` is centered (default), tilted or closeup (with `crop`: zoom 1–4, focusX and focusY 0–1); ' +
          '`content` adds an eyebrow, title and body beside it; `addressBar` shows a URL in the window. Answers the ' +
          "stored images and `postMedia`, usable as a post's `media`. It creates no post and publishes nothing." +
          scripts,
        hints: renderHints,
        summary: (r) =>
          `Stored ${r.images.length} image${r.images.length === 1 ? '' : 's'} (${r.images
            .map((i) => `${i.format} ${i.width}×${i.height}`)
            .join(', ')}) in ${r.renderMs} ms.`,
      },
      run: (deps, { caller, request }, { orgId, ...body }) =>
        renderScreenshotVisual(deps, caller, orgId, body, request),
    }),
    operation({
      name: 'previewVisual',
      // Stores nothing and takes no Idempotency-Key, but as a POST of the workspace it counts as a write (402).
      kind: 'read',
      method: 'post',
      path: `${path}/preview`,
      tags: ['marketing'],
      summary: 'A small PNG preview (data URI) of an image, carousel or screenshot render; stores nothing',
      params: orgParams,
      body: previewBody,
      output: previewResult,
      outputDescription: 'The preview',
      errors: [400, 401, 403, 404, 413, 422, 429, 503],
      access: { permission: 'posts:draft', billing: 'write' },
      run: (deps, { caller }, input) => previewVisual(deps, caller, input.orgId, input),
    }),
    operation({
      name: 'list_visual_options',
      kind: 'read',
      method: 'get',
      path: `${path}/options`,
      tags: ['marketing'],
      summary: 'Formats, templates, themes, layouts, AI background models and the brand renders use',
      params: orgParams,
      query: optionsQuery,
      output: visualOptionsResult,
      outputDescription: 'The options',
      errors: [400, 401, 403],
      access: { permission: 'posts:read', scope: 'mcp:read' },
      tool: {
        title: 'List branded-visual options',
        description:
          'Lists what branded visuals can be made with: formats with their pixel sizes and the platforms each suits, ' +
          'templates and the content fields each shows, themes, carousel layouts and slide limits, screenshot ' +
          'layouts, whether AI backgrounds are available (and their models), and the workspace brand (colours, ' +
          'fonts, logo) renders use. Read-only; call it before create_branded_image, create_carousel or ' +
          'create_app_screenshot to pick valid values.',
        hints: { readOnlyHint: true, openWorldHint: false },
        // A boolean for a model; the query has the text `true`, `false`, `1` or `0`.
        input: z.object({
          includeAllModels: z
            .boolean()
            .default(false)
            .describe('true also lists every AI background model (the recommended ones are always listed)'),
        }),
        summary: (o) =>
          `${o.formats.length} formats, ${o.templates.length} templates, ${o.themes.length} themes; AI backgrounds ` +
          `${o.aiBackground.available ? `available (default model ${o.aiBackground.defaultModel})` : 'not available'}; ` +
          `brand colours ${o.brand.colors.join(', ') || 'not set'}, ${o.brand.hasLogo ? 'with' : 'without'} a logo.`,
      },
      run: (deps, { caller }, { orgId, includeAllModels }) =>
        visualOptions(deps, caller, orgId, { includeAllModels }),
    }),
  ],
);
