// The visuals slice's assistant tools: create_branded_image, create_carousel, create_app_screenshot
// (posts:write) and list_visual_options (mcp:read), each on the same use case as its route.
import { z } from 'zod';
import {
  renderCarouselVisual,
  renderImageVisual,
  renderScreenshotVisual,
  type VisualsDeps,
} from '../../commands/visuals/visuals-use-cases.js';
import { visualOptions } from '../../commands/visuals/visual-options.js';
import { defineTool, type AnyTool } from '../shared/tools.js';
import { carouselVisualBody, imageVisualBody, screenshotVisualBody } from './schemas.js';

const optionsInput = z.object({
  includeAllModels: z
    .boolean()
    .default(false)
    .describe('true also lists every AI background model (the recommended ones are always listed)'),
});

/** What every render tool says about text it cannot draw (commands/visuals/visual-inputs.ts refuses it). */
const scripts =
  ' Text may be in Latin, Greek, Cyrillic or Vietnamese letters, with emoji; other scripts (Chinese, Japanese, ' +
  'Korean, Arabic, Hebrew, …) are refused with unsupported_characters.';

export function visualTools(deps: VisualsDeps): readonly AnyTool[] {
  return [
    defineTool({
      name: 'list_visual_options',
      title: 'List branded-visual options',
      description:
        'Lists what branded visuals can be made with: formats with their pixel sizes and the platforms each suits, ' +
        'templates and the content fields each shows, themes, carousel layouts and slide limits, screenshot ' +
        'layouts, whether AI backgrounds are available (and their models), and the workspace brand (colours, ' +
        'fonts, logo) renders use. Read-only; call it before create_branded_image, create_carousel or ' +
        'create_app_screenshot to pick valid values.',
      scope: 'mcp:read',
      input: optionsInput,
      hints: { readOnlyHint: true, openWorldHint: false },
      run: ({ caller, orgId }, input) => visualOptions(deps, caller, orgId, input),
      summary: (o) =>
        `${o.formats.length} formats, ${o.templates.length} templates, ${o.themes.length} themes; AI backgrounds ` +
        `${o.aiBackground.available ? `available (default model ${o.aiBackground.defaultModel})` : 'not available'}; ` +
        `brand colours ${o.brand.colors.join(', ') || 'not set'}, ${o.brand.hasLogo ? 'with' : 'without'} a logo.`,
    }),
    defineTool({
      name: 'create_branded_image',
      title: 'Create a branded image',
      description:
        "Renders a branded image in the workspace's colours, fonts and logo and stores it in the media library " +
        '(collection on_brand). `content.title` is required; `template` is headline (default), quote, stat (needs ' +
        '`content.stat`), list (needs `content.bullets`) or photo (needs `backgroundImage` or `aiBackground`); ' +
        '`format` defaults to square, `alsoFormats` adds the same content in more formats. `aiBackground` ' +
        'generates a background image and spends credits. Answers the stored images and `postMedia`, which can be ' +
        "passed as a post's `media` in create_draft_post. It creates no post and publishes nothing." +
        scripts,
      scope: 'posts:write',
      input: imageVisualBody,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ caller, orgId, request }, input) =>
        (await renderImageVisual(deps, caller, orgId, input, request)).output,
      summary: (r) =>
        `Stored ${r.images.length} image${r.images.length === 1 ? '' : 's'} (${r.images
          .map((i) => `${i.format} ${i.width}×${i.height}`)
          .join(
            ', ',
          )}) in ${r.renderMs} ms${r.aiBackground ? ` with an AI background (${r.aiBackground.model})` : ''}.`,
    }),
    defineTool({
      name: 'create_carousel',
      title: 'Create a carousel',
      description:
        'Renders 2 to 15 slides in the workspace brand as PNG images and one PDF document and stores them in the ' +
        'media library. Each slide needs a `title`; its `layout` defaults to cover for the first slide, cta for ' +
        'a last slide with a `cta`, stat or list when the slide has a stat or bullets, and point otherwise. ' +
        '`format` is portrait (default) or square. Answers the slides, the document and `postMedia` per platform ' +
        '(LinkedIn: the PDF; X: the first 4 slides; Instagram: the first 10; Facebook: all), ready to use as a ' +
        "post's `media`. It creates no post and publishes nothing." +
        scripts,
      scope: 'posts:write',
      input: carouselVisualBody,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ caller, orgId, request }, input) =>
        (await renderCarouselVisual(deps, caller, orgId, input, request)).output,
      summary: (r) =>
        `Stored ${r.slides.length} slides${r.document ? ` and a ${r.document.pageCount}-page PDF` : ''} in ${r.renderMs} ms.`,
    }),
    defineTool({
      name: 'create_app_screenshot',
      title: 'Create an app screenshot visual',
      description:
        'Frames a screenshot (`screenshot.assetId`, an image of the media library, or `screenshot.url`, a public ' +
        'link to a PNG or JPEG) in a browser-style window on a branded canvas and stores it in the media library. ' +
        '`layout` is centered (default), tilted or closeup (with `crop`: zoom 1–4, focusX and focusY 0–1); ' +
        '`content` adds an eyebrow, title and body beside it; `addressBar` shows a URL in the window. Answers the ' +
        "stored images and `postMedia`, usable as a post's `media`. It creates no post and publishes nothing." +
        scripts,
      scope: 'posts:write',
      input: screenshotVisualBody,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ caller, orgId, request }, input) =>
        (await renderScreenshotVisual(deps, caller, orgId, input, request)).output,
      summary: (r) =>
        `Stored ${r.images.length} image${r.images.length === 1 ? '' : 's'} (${r.images
          .map((i) => `${i.format} ${i.width}×${i.height}`)
          .join(', ')}) in ${r.renderMs} ms.`,
    }),
  ];
}
