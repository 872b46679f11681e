// Branded-visuals use cases (spec part 1, "Branded visuals"): render an image in one or more formats, a
// carousel (PNG slides and one PDF), a framed app screenshot, a small preview that stores nothing, and the
// options a client picks from. Renders run in the renderer's worker pool; what they make is stored in the media
// library as workspace assets (`source`, `format`). An AI background is generated through the image-generation
// port and paid in credits (`ai_background`): held before the provider is asked, charged once it exists.
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  InvalidFields,
  NotFound,
  PaymentRequired,
  ServiceUnavailable,
  Unprocessable,
  ValidationError,
} from '../../domain/shared/errors.js';
import type { ImageItem, MediaAsset } from '../../domain/shared/media-asset.js';
import {
  checkUrl,
  fetchFailedMessage,
  fetchFailureReason,
  ResponseTooLargeError,
  safeFetch,
  UnsafeUrlError,
  type OutboundPolicy,
} from '../../infra/http/safe-fetch.js';
import { checkImageDimensions, ImageDimensionsError } from '../../infra/images/dimensions.js';
import {
  ImageGenerationError,
  type GeneratedImage,
  type ImageGenerationProvider,
} from '../../infra/image-generation/port.js';
import {
  visualFormats,
  type ImageInput,
  type RenderBrand,
  type RenderedPng,
  type Renderer,
  type VisualFormatId,
} from '../../infra/visuals/contract.js';
import type { BrandKitReader } from '../brand/brand-kit-port.js';
import type { MediaItem, MediaLibrary, MediaSource } from '../media/library.js';
import { newId } from '../shared/ids.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { IdempotencyStore } from '../shared/idempotency.js';
import type { ActualUse, PaidCall, SpendContext, SpendInput } from '../billing/credits.js';
import {
  checkCarouselInput,
  checkImageInput,
  checkScreenshotInput,
  formatsToRender,
  slideLayouts,
  type AiBackgroundInput,
  type AssetOrUrl,
  type CarouselVisualInput,
  type ImageVisualInput,
  type ScreenshotVisualInput,
} from './visual-inputs.js';

export interface VisualsDeps {
  idempotency: IdempotencyStore;
  /** The runtime's renderer (its worker pool is started on first use). */
  renderer(): Renderer;
  library: MediaLibrary;
  brandKit: BrandKitReader;
  /** Null when no provider is configured: `aiBackground` is refused and options say `available: false`. */
  imageGeneration: ImageGenerationProvider | null;
  credits: {
    /**
     * A paid call (CreditsService.withCredits): its credits reserved before it runs (402 `fair_use_limit` when
     * they are not there, and the call is not made), charged after it, released when it throws.
     */
    withCredits<T>(
      input: SpendInput,
      call: () => Promise<T>,
      options?: { context?: SpendContext; actual?: (result: T) => ActualUse },
    ): Promise<PaidCall<T>>;
    /** What one AI background costs (creditActionCosts `ai_background`). */
    aiBackgroundCost: number;
  };
  /** Tests only: the fetch policy of `url` images (RuntimeOptions.outbound). */
  outbound?: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'> | undefined;
  /** Why an image link could not be fetched is logged here, never answered (no internal DNS oracle). */
  logger?: { info(fields: object, message: string): void };
}

/** A rendered image as the spec's "rendered image item". */
export interface RenderedImageItem {
  assetId: string;
  url: string;
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
  format: VisualFormatId;
  page?: number;
}

export interface AiBackgroundUsed {
  model: string;
  estimatedCostMilliUsd: number;
}

export interface ImageVisualResult {
  images: RenderedImageItem[];
  /** The primary format's image, ready to attach to a post. */
  postMedia: MediaAsset | null;
  aiBackground: AiBackgroundUsed | null;
  renderMs: number;
}

export interface CarouselVisualResult {
  document: {
    assetId: string;
    url: string;
    contentType: 'application/pdf';
    sizeBytes: number;
    pageCount: number;
  } | null;
  slides: RenderedImageItem[];
  postMedia: {
    linkedin: MediaAsset | null;
    x: MediaAsset | null;
    facebook: MediaAsset | null;
    instagram: MediaAsset | null;
  };
  aiBackground: AiBackgroundUsed | null;
  renderMs: number;
}

export interface ScreenshotVisualResult {
  images: RenderedImageItem[];
  postMedia: MediaAsset | null;
  renderMs: number;
}

export type PreviewInput =
  | { kind: 'image'; content: ImageVisualInput }
  | { kind: 'carousel'; content: CarouselVisualInput }
  | { kind: 'screenshot'; content: ScreenshotVisualInput };

export interface PreviewResult {
  /** `data:image/png;base64,…`: the image, the first slide of a carousel. */
  image: string;
  width: number;
  height: number;
  renderMs: number;
  /** A carousel's slides, each a data URI. */
  slides?: string[];
}

/** Previews are at most this wide (the layout is computed at full size and scaled). */
export const previewMaxWidth = 400;
/** Images fetched from a `url` (backgrounds, screenshots). */
const maxFetchedImageBytes = 15 * 1024 * 1024;
const fetchTimeoutMs = 15_000;
/** Platforms take at most this many images in one post. */
const xMaxImages = 4;
const instagramMaxImages = 10;

const rendering = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

const formatById = new Map<string, (typeof visualFormats)[number]>(visualFormats.map((f) => [f.id, f]));
export function formatSize(format: VisualFormatId): { width: number; height: number } {
  const found = formatById.get(format)!;
  return { width: found.width, height: found.height };
}

function elapsedMs(started: number): number {
  return Math.max(0, Math.round(performance.now() - started));
}

/**
 * PNG or JPEG bytes with their size read from the header, or a 422 naming the field: `unsupported_image`, or
 * `image_too_large` past the pixel cap (infra/images/dimensions.ts), refused before anything decodes it.
 */
function imageInputOf(bytes: Uint8Array, path: string, what: string): ImageInput {
  const notPngOrJpeg = () =>
    new Unprocessable(`${what} must be a PNG or JPEG image`, 'unsupported_image', [
      { path, message: 'must be a PNG or JPEG image' },
    ]);
  let size: ReturnType<typeof checkImageDimensions>;
  try {
    size = checkImageDimensions(bytes);
  } catch (error) {
    if (!(error instanceof ImageDimensionsError)) throw error;
    if (error.reason === 'unsupported') throw notPngOrJpeg();
    if (error.reason === 'too_large')
      throw new Unprocessable(`${what} is too large: ${error.message}`, 'image_too_large', [
        { path, message: error.message },
      ]);
    throw new Unprocessable(`${what} could not be read as an image`, 'unsupported_image', [
      { path, message: 'could not be read as an image' },
    ]);
  }
  if (size.format !== 'png' && size.format !== 'jpeg') throw notPngOrJpeg();
  const contentType = size.format === 'png' ? 'image/png' : 'image/jpeg';
  return { data: bytes, contentType, width: size.width, height: size.height };
}

/** An image of the workspace's media library, or one fetched from a public link (SSRF-safe). */
async function loadImage(
  deps: VisualsDeps,
  orgId: string,
  ref: AssetOrUrl,
  path: string,
): Promise<ImageInput> {
  if (ref.assetId !== undefined) {
    const found = await deps.library.read(orgId, ref.assetId);
    if (!found)
      throw new NotFound(`No media asset ${ref.assetId} in this workspace`, undefined, [
        { path: `${path}.assetId`, message: 'no such asset in this workspace' },
      ]);
    if (found.item.asset.kind !== 'image')
      throw new Unprocessable(
        `Media asset ${ref.assetId} is a ${found.item.asset.kind}, not an image`,
        'unsupported_image',
        [{ path: `${path}.assetId`, message: 'must be an image asset' }],
      );
    return imageInputOf(found.bytes, `${path}.assetId`, `Media asset ${ref.assetId}`);
  }
  const url = ref.url!;
  const refused = (message: string) =>
    new ValidationError(`${path}.url cannot be used: ${message}`, 'url_not_fetched', [
      { path: `${path}.url`, message },
    ]);
  // What the link says by itself (scheme, port, a private address literal) is answered plainly; whatever the
  // network said (no such name, a private address behind a name, a refusal, an error status) is one answer, with
  // the reason only logged, so the service cannot be used to map internal names.
  try {
    checkUrl(new URL(url), deps.outbound ?? {});
  } catch (error) {
    throw refused(error instanceof UnsafeUrlError ? error.message : 'it is not a URL');
  }
  const unfetchable = (reason: unknown) => {
    deps.logger?.info({ url, reason: fetchFailureReason(reason) }, 'visual image link could not be fetched');
    return new Unprocessable(`${path}.url ${fetchFailedMessage}`, 'url_not_fetched', [
      { path: `${path}.url`, message: `the link ${fetchFailedMessage}` },
    ]);
  };
  let fetched;
  try {
    fetched = await safeFetch(url, {
      ...deps.outbound,
      maxBytes: maxFetchedImageBytes,
      timeoutMs: fetchTimeoutMs,
      headers: { accept: 'image/png,image/jpeg;q=0.9,*/*;q=0.1' },
    });
  } catch (error) {
    if (error instanceof ResponseTooLargeError) throw refused(error.message);
    if ((error as { name?: string }).name === 'TimeoutError')
      throw refused(`the image did not arrive within ${fetchTimeoutMs / 1000} s`);
    throw unfetchable(error);
  }
  if (fetched.status < 200 || fetched.status > 299)
    throw unfetchable(new Error(`it answered HTTP ${fetched.status}`));
  return imageInputOf(fetched.body, `${path}.url`, `The image at ${path}.url`);
}

/**
 * Every render holds one slot of the renderer's bounded queue from before anything is loaded, generated or
 * charged until it is answered: a full queue is a 429 `rate_limit_exceeded` for the workspace (or a 503 for
 * the service) with nothing rendered, stored or charged.
 */
async function inRenderSlot<A extends unknown[], R>(
  use: (deps: VisualsDeps, caller: Caller, orgId: string, ...rest: A) => Promise<R>,
  deps: VisualsDeps,
  caller: Caller,
  orgId: string,
  ...rest: A
): Promise<R> {
  authorize(caller, rendering(orgId));
  const slot = deps.renderer().admit(orgId);
  try {
    return await use(deps, caller, orgId, ...rest);
  } finally {
    slot.release();
  }
}

/** POST ORG/marketing/visuals/image (renderImageVisualInSlot). */
export function renderImageVisual(...args: Parameters<typeof renderImageVisualInSlot>) {
  return inRenderSlot(renderImageVisualInSlot, ...args);
}
/** POST ORG/marketing/visuals/carousel (renderCarouselVisualInSlot). */
export function renderCarouselVisual(...args: Parameters<typeof renderCarouselVisualInSlot>) {
  return inRenderSlot(renderCarouselVisualInSlot, ...args);
}
/** POST ORG/marketing/visuals/screenshot (renderScreenshotVisualInSlot). */
export function renderScreenshotVisual(...args: Parameters<typeof renderScreenshotVisualInSlot>) {
  return inRenderSlot(renderScreenshotVisualInSlot, ...args);
}
/** POST ORG/marketing/visuals/preview (previewVisualInSlot). */
export function previewVisual(...args: Parameters<typeof previewVisualInSlot>) {
  return inRenderSlot(previewVisualInSlot, ...args);
}

/** The model to use, checked against the provider's; 400 when no provider is configured. */
function aiModelOf(deps: VisualsDeps, ai: AiBackgroundInput, prefix: string): string {
  const provider = deps.imageGeneration;
  if (!provider)
    throw new ValidationError(
      'AI backgrounds are not available: no image-generation provider is configured for this service (IMAGE_GENERATION_URL)',
      'ai_background_unavailable',
      [{ path: `${prefix}aiBackground`, message: 'no image-generation provider is configured' }],
    );
  const model = ai.model ?? provider.defaultModel;
  if (!provider.models.includes(model))
    throw new InvalidFields(`aiBackground.model: not one of ${provider.models.join(', ')}`, [
      { path: `${prefix}aiBackground.model`, message: `not one of ${provider.models.join(', ')}` },
    ]);
  return model;
}

/**
 * Generates the background, paid in credits: they are reserved before the provider is asked (too few left: 402
 * `fair_use_limit` and nothing is generated, however many renders run at once), charged once the image exists,
 * released when the generation fails (it costs nothing). The key is derived from the request's Idempotency-Key
 * when there is one (a retry after a crash is charged once).
 */
async function generateBackground(
  deps: VisualsDeps,
  caller: Caller,
  orgId: string,
  ai: AiBackgroundInput,
  model: string,
  size: { width: number; height: number },
  step: { seed: string | undefined; correlationId: string },
): Promise<{ background: ImageInput; used: AiBackgroundUsed }> {
  const provider = deps.imageGeneration!;
  const generate = async (): Promise<GeneratedImage> => {
    try {
      return await provider.generate({ prompt: ai.prompt, model, width: size.width, height: size.height });
    } catch (error) {
      if (!(error instanceof ImageGenerationError)) throw error;
      if (error.reason === 'refused')
        throw new Unprocessable(error.message, 'ai_background_refused', [
          { path: 'aiBackground.prompt', message: error.message },
        ]);
      throw new ServiceUnavailable(
        `The AI background could not be generated: ${error.message}`,
        error.reason === 'busy' ? 'ai_background_busy' : 'ai_background_failed',
      );
    }
  };
  let image: GeneratedImage;
  try {
    ({ result: image } = await deps.credits.withCredits(
      {
        orgId,
        key: `ai_background:${newId(step.seed ? [step.seed, 'ai-background'] : undefined)}`,
        actionKey: 'ai_background',
        feature: 'branded_visuals',
        provider: 'image_generation',
        model,
      },
      generate,
      {
        actual: (generated) => ({
          model: generated.model,
          metadata: { estimatedCostMilliUsd: generated.estimatedCostMilliUsd },
        }),
        context: {
          actor: caller.kind === 'assistant' ? `assistant:${caller.clientId}` : caller.userId,
          userId: caller.userId,
          correlationId: step.correlationId,
        },
      },
    ));
  } catch (error) {
    if (error instanceof PaymentRequired && error.code === 'fair_use_limit')
      throw new PaymentRequired(
        `An AI background costs ${deps.credits.aiBackgroundCost} credits; ${error.message}`,
        'fair_use_limit',
      );
    throw error;
  }
  return {
    background: imageInputOf(image.data, 'aiBackground', 'The generated background'),
    used: { model: image.model, estimatedCostMilliUsd: image.estimatedCostMilliUsd },
  };
}

function renderedItem(
  item: MediaItem,
  png: RenderedPng,
  format: VisualFormatId,
  page?: number,
): RenderedImageItem {
  const asset = item.asset as Extract<MediaAsset, { kind: 'image' }>;
  return {
    assetId: item.id,
    url: asset.url,
    contentType: asset.contentType,
    sizeBytes: item.sizeBytes,
    width: png.width,
    height: png.height,
    format,
    ...(page !== undefined ? { page } : {}),
  };
}

function imageItemOf(rendered: RenderedImageItem): ImageItem {
  return {
    assetId: rendered.assetId,
    url: rendered.url,
    contentType: rendered.contentType,
    sizeBytes: rendered.sizeBytes,
    width: rendered.width,
    height: rendered.height,
  };
}

function singleImage(rendered: RenderedImageItem | undefined): MediaAsset | null {
  return rendered ? { kind: 'image', ...imageItemOf(rendered) } : null;
}

function imageSet(items: readonly RenderedImageItem[], max: number): MediaAsset | null {
  const chosen = items.slice(0, max);
  if (chosen.length === 0) return null;
  if (chosen.length === 1) return singleImage(chosen[0]);
  return { kind: 'images', images: chosen.map(imageItemOf) };
}

/** What every render of the workspace shares: its brand, the theme, the logo, the handle. */
async function commonOf(
  deps: VisualsDeps,
  orgId: string,
  input: {
    theme?: RenderCommon['theme'] | undefined;
    includeLogo?: boolean | undefined;
    handle?: string | null | undefined;
  },
  scale?: number,
): Promise<RenderCommon> {
  const brand: RenderBrand = await deps.brandKit.renderBrand(orgId);
  const handle = input.handle?.trim();
  return {
    theme: input.theme ?? 'brand',
    // The logo is shown by default when the kit has one; asking for it without one renders without it.
    includeLogo: (input.includeLogo ?? true) && brand.logo !== null,
    handle: handle ? handle : null,
    brand,
    ...(scale !== undefined ? { scale } : {}),
  };
}

type RenderCommon = {
  theme: 'brand' | 'light' | 'dark';
  includeLogo: boolean;
  handle: string | null;
  brand: RenderBrand;
  scale?: number;
};

interface StoreContext {
  deps: VisualsDeps;
  orgId: string;
  caller: Caller;
  seed: string | undefined;
}

function store(
  ctx: StoreContext,
  source: MediaSource,
  bytes: Uint8Array,
  contentType: string,
  extra: {
    title: string | null;
    format?: VisualFormatId | null;
    aiGenerated: boolean;
    width?: number;
    height?: number;
    pageCount?: number;
    previewImageUrls?: string[];
    seedPart: string;
  },
): Promise<MediaItem> {
  const { seedPart, ...rest } = extra;
  return ctx.deps.library.store({
    orgId: ctx.orgId,
    caller: ctx.caller,
    source,
    bytes,
    contentType,
    ...rest,
    ...(ctx.seed ? { idSeed: `${ctx.seed}:${seedPart}` } : {}),
  });
}

/** POST ORG/marketing/visuals/image. */
async function renderImageVisualInSlot(
  deps: VisualsDeps,
  caller: Caller,
  orgId: string,
  input: ImageVisualInput,
  request: WriteRequest,
): Promise<Written<ImageVisualResult>> {
  authorize(caller, rendering(orgId));
  checkImageInput(input);
  const model = input.aiBackground ? aiModelOf(deps, input.aiBackground, '') : null;
  const primary = input.format ?? 'square';
  const formats = formatsToRender(primary, input.alsoFormats);
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    const common = await commonOf(deps, orgId, input);
    let background = input.backgroundImage
      ? await loadImage(deps, orgId, input.backgroundImage, 'backgroundImage')
      : null;
    let aiBackground: AiBackgroundUsed | null = null;
    if (input.aiBackground && model) {
      ({ background, used: aiBackground } = await generateBackground(
        deps,
        caller,
        orgId,
        input.aiBackground,
        model,
        formatSize(primary),
        {
          seed: idempotencySeed,
          correlationId: request.correlationId,
        },
      ));
    }
    const started = performance.now();
    const renderer = deps.renderer();
    const pngs = await Promise.all(
      formats.map((format) =>
        renderer.image({
          ...common,
          content: input.content,
          template: input.template ?? 'headline',
          format,
          background,
        }),
      ),
    );
    const renderMs = elapsedMs(started);
    const ctx: StoreContext = { deps, orgId, caller, seed: idempotencySeed };
    const images: RenderedImageItem[] = [];
    for (const [index, png] of pngs.entries()) {
      const format = formats[index]!;
      const item = await store(ctx, 'branded_image', png.png, 'image/png', {
        title: input.content.title,
        format,
        aiGenerated: aiBackground !== null,
        width: png.width,
        height: png.height,
        seedPart: `image:${format}`,
      });
      images.push(renderedItem(item, png, format));
    }
    return { images, postMedia: singleImage(images[0]), aiBackground, renderMs };
  });
}

/** POST ORG/marketing/visuals/carousel. */
async function renderCarouselVisualInSlot(
  deps: VisualsDeps,
  caller: Caller,
  orgId: string,
  input: CarouselVisualInput,
  request: WriteRequest,
): Promise<Written<CarouselVisualResult>> {
  authorize(caller, rendering(orgId));
  checkCarouselInput(input);
  const model = input.aiBackground ? aiModelOf(deps, input.aiBackground, '') : null;
  const format = input.format ?? 'portrait';
  const outputs = new Set(input.outputs ?? ['png', 'pdf']);
  const layouts = slideLayouts(input.slides);
  const title = input.slides[0]!.title;
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    const common = await commonOf(deps, orgId, input);
    let background: ImageInput | null = null;
    let aiBackground: AiBackgroundUsed | null = null;
    if (input.aiBackground && model) {
      ({ background, used: aiBackground } = await generateBackground(
        deps,
        caller,
        orgId,
        input.aiBackground,
        model,
        formatSize(format),
        {
          seed: idempotencySeed,
          correlationId: request.correlationId,
        },
      ));
    }
    const started = performance.now();
    const rendered = await deps.renderer().carousel({
      ...common,
      slides: input.slides.map(({ layout: _layout, ...slide }, index) => ({
        ...slide,
        layout: layouts[index]!,
      })),
      format,
      background,
      pdf: outputs.has('pdf'),
      title,
    });
    const renderMs = elapsedMs(started);
    const ctx: StoreContext = { deps, orgId, caller, seed: idempotencySeed };
    const slides: RenderedImageItem[] = [];
    if (outputs.has('png')) {
      for (const [index, png] of rendered.slides.entries()) {
        const item = await store(ctx, 'carousel', png.png, 'image/png', {
          title: input.slides[index]!.title,
          format,
          aiGenerated: aiBackground !== null,
          width: png.width,
          height: png.height,
          seedPart: `slide:${index}`,
        });
        slides.push(renderedItem(item, png, format, index + 1));
      }
    }
    let document: CarouselVisualResult['document'] = null;
    let documentAsset: MediaAsset | null = null;
    if (outputs.has('pdf') && rendered.pdf) {
      const item = await store(ctx, 'carousel', rendered.pdf, 'application/pdf', {
        title,
        format,
        aiGenerated: aiBackground !== null,
        pageCount: rendered.slides.length,
        ...(slides.length > 0 ? { previewImageUrls: slides.map((s) => s.url) } : {}),
        seedPart: 'pdf',
      });
      const asset = item.asset as Extract<MediaAsset, { kind: 'document' }>;
      document = {
        assetId: item.id,
        url: asset.url,
        contentType: 'application/pdf',
        sizeBytes: item.sizeBytes,
        pageCount: rendered.slides.length,
      };
      documentAsset = asset;
    }
    return {
      document,
      slides,
      postMedia: {
        // LinkedIn shows a PDF as a swipeable document post; without one, the slides as an image set.
        linkedin: documentAsset ?? imageSet(slides, 20),
        x: imageSet(slides, xMaxImages),
        facebook: imageSet(slides, slides.length),
        instagram: imageSet(slides, instagramMaxImages),
      },
      aiBackground,
      renderMs,
    };
  });
}

/** POST ORG/marketing/visuals/screenshot. */
async function renderScreenshotVisualInSlot(
  deps: VisualsDeps,
  caller: Caller,
  orgId: string,
  input: ScreenshotVisualInput,
  request: WriteRequest,
): Promise<Written<ScreenshotVisualResult>> {
  authorize(caller, rendering(orgId));
  checkScreenshotInput(input);
  const primary = input.format ?? 'landscape';
  const formats = formatsToRender(primary, input.alsoFormats);
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    const common = await commonOf(deps, orgId, input);
    const screenshot = await loadImage(deps, orgId, input.screenshot, 'screenshot');
    const started = performance.now();
    const renderer = deps.renderer();
    const pngs = await Promise.all(
      formats.map((format) => renderer.screenshot(screenshotRequest(common, input, screenshot, format))),
    );
    const renderMs = elapsedMs(started);
    const ctx: StoreContext = { deps, orgId, caller, seed: idempotencySeed };
    const images: RenderedImageItem[] = [];
    for (const [index, png] of pngs.entries()) {
      const format = formats[index]!;
      const item = await store(ctx, 'screenshot', png.png, 'image/png', {
        title: input.content?.title ?? input.addressBar ?? null,
        format,
        aiGenerated: false,
        width: png.width,
        height: png.height,
        seedPart: `screenshot:${format}`,
      });
      images.push(renderedItem(item, png, format));
    }
    return { images, postMedia: singleImage(images[0]), renderMs };
  });
}

function screenshotRequest(
  common: RenderCommon,
  input: ScreenshotVisualInput,
  screenshot: ImageInput,
  format: NonNullable<ScreenshotVisualInput['format']>,
) {
  const content = input.content
    ? Object.fromEntries(Object.entries(input.content).filter(([, v]) => v !== undefined && v.trim() !== ''))
    : null;
  return {
    ...common,
    screenshot,
    layout: input.layout ?? 'centered',
    format,
    content: content && Object.keys(content).length > 0 ? content : null,
    addressBar: input.addressBar?.trim() ? input.addressBar.trim() : null,
    windowTheme: input.windowTheme ?? 'auto',
    crop: input.crop ?? null,
  };
}

function dataUri(png: Uint8Array): string {
  return `data:image/png;base64,${Buffer.from(png).toString('base64')}`;
}

function previewScale(format: VisualFormatId): number {
  return Math.min(1, previewMaxWidth / formatSize(format).width);
}

/**
 * POST ORG/marketing/visuals/preview: the primary format only, at most previewMaxWidth pixels wide, answered
 * inline. Stores nothing, appends nothing and never calls the image-generation provider: an `aiBackground` is
 * previewed on the theme's own background.
 */
async function previewVisualInSlot(
  deps: VisualsDeps,
  caller: Caller,
  orgId: string,
  input: PreviewInput,
): Promise<PreviewResult> {
  authorize(caller, rendering(orgId));
  const renderer = deps.renderer();
  if (input.kind === 'image') {
    const body = input.content;
    checkImageInput(body, 'content.');
    const format = body.format ?? 'square';
    const common = await commonOf(deps, orgId, body, previewScale(format));
    const background = body.backgroundImage
      ? await loadImage(deps, orgId, body.backgroundImage, 'content.backgroundImage')
      : null;
    // An AI background is not generated for a preview: the photo template shows the theme's canvas instead.
    const template = body.template ?? 'headline';
    const started = performance.now();
    const png = await renderer.image({ ...common, content: body.content, template, format, background });
    return { image: dataUri(png.png), width: png.width, height: png.height, renderMs: elapsedMs(started) };
  }
  if (input.kind === 'carousel') {
    const body = input.content;
    checkCarouselInput(body, 'content.');
    const format = body.format ?? 'portrait';
    const common = await commonOf(deps, orgId, body, previewScale(format));
    const layouts = slideLayouts(body.slides);
    const started = performance.now();
    const rendered = await renderer.carousel({
      ...common,
      slides: body.slides.map(({ layout: _layout, ...slide }, index) => ({
        ...slide,
        layout: layouts[index]!,
      })),
      format,
      background: null,
      pdf: false,
    });
    const first = rendered.slides[0]!;
    return {
      image: dataUri(first.png),
      width: first.width,
      height: first.height,
      renderMs: elapsedMs(started),
      slides: rendered.slides.map((s) => dataUri(s.png)),
    };
  }
  const body = input.content;
  checkScreenshotInput(body, 'content.');
  const format = body.format ?? 'landscape';
  const common = await commonOf(deps, orgId, body, previewScale(format));
  const screenshot = await loadImage(deps, orgId, body.screenshot, 'content.screenshot');
  const started = performance.now();
  const png = await renderer.screenshot(screenshotRequest(common, body, screenshot, format));
  return { image: dataUri(png.png), width: png.width, height: png.height, renderMs: elapsedMs(started) };
}
