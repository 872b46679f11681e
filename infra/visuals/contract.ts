// What the branded-visuals renderer offers the rest of the service (issue 15): the visual formats at their real
// pixel sizes, templates, themes, carousel and screenshot layouts, the installed font families, and the
// `Renderer` port. The visuals slice (api/visuals) codes against this file; the renderer (satori + resvg in a
// worker pool, infra/visuals/) implements it. The font names are the brand kit's (domain/brand/fonts.ts).
import { fontFamilyNames, type FontFamily } from '../../domain/brand/fonts.js';
import type { LogoFile, RenderableLogo } from '../brand/logo-image.js';
import type { RenderSlot } from './queue.js';

export {
  defaultBodyFont,
  defaultHeadingFont,
  installedFontFamily,
  type FontFamily,
} from '../../domain/brand/fonts.js';

export const visualFormats = [
  {
    id: 'square',
    label: 'Square',
    width: 1080,
    height: 1080,
    aspectRatio: '1:1',
    useFor: ['instagram', 'linkedin', 'facebook', 'x'],
  },
  {
    id: 'portrait',
    label: 'Portrait',
    width: 1080,
    height: 1350,
    aspectRatio: '4:5',
    useFor: ['instagram', 'linkedin', 'facebook'],
  },
  {
    id: 'landscape',
    label: 'Landscape',
    width: 1600,
    height: 900,
    aspectRatio: '16:9',
    useFor: ['x', 'linkedin', 'youtube', 'bluesky'],
  },
  {
    id: 'link',
    label: 'Link preview',
    width: 1200,
    height: 630,
    aspectRatio: '1.91:1',
    useFor: ['linkedin', 'facebook', 'x', 'threads'],
  },
  {
    id: 'story',
    label: 'Story',
    width: 1080,
    height: 1920,
    aspectRatio: '9:16',
    useFor: ['instagram', 'tiktok', 'facebook', 'youtube'],
  },
  { id: 'pin', label: 'Pin', width: 1000, height: 1500, aspectRatio: '2:3', useFor: ['pinterest'] },
  { id: 'x_header', label: 'X header', width: 1500, height: 500, aspectRatio: '3:1', useFor: ['x'] },
  {
    id: 'linkedin_banner',
    label: 'LinkedIn banner',
    width: 1584,
    height: 396,
    aspectRatio: '4:1',
    useFor: ['linkedin'],
  },
] as const satisfies readonly VisualFormat[];

export interface VisualFormat {
  id: string;
  label: string;
  width: number;
  height: number;
  aspectRatio: string;
  useFor: readonly string[];
}

export const visualFormatIds = [
  'square',
  'portrait',
  'landscape',
  'link',
  'story',
  'pin',
  'x_header',
  'linkedin_banner',
] as const;
export type VisualFormatId = (typeof visualFormatIds)[number];

export const themeIds = ['brand', 'light', 'dark'] as const;
export type ThemeId = (typeof themeIds)[number];

export const templateIds = ['headline', 'quote', 'stat', 'list', 'photo'] as const;
export type TemplateId = (typeof templateIds)[number];

export const carouselLayoutIds = ['cover', 'point', 'stat', 'quote', 'list', 'cta'] as const;
export type CarouselLayoutId = (typeof carouselLayoutIds)[number];
export const carouselFormatIds = ['portrait', 'square'] as const satisfies readonly VisualFormatId[];
export const minCarouselSlides = 2;
export const maxCarouselSlides = 15;

export const screenshotLayoutIds = ['centered', 'tilted', 'closeup'] as const;
export type ScreenshotLayoutId = (typeof screenshotLayoutIds)[number];
export const screenshotFormatIds = [
  'landscape',
  'square',
  'portrait',
  'link',
  'story',
] as const satisfies readonly VisualFormatId[];

/**
 * Font families bundled with the service (@fontsource packages, latin subset, weights 400 and 700), in the order
 * of the brand kit's list (domain/brand/fonts.ts), which names the families the kit accepts.
 */
const fontPackages: Readonly<Record<FontFamily, string>> = {
  Inter: '@fontsource/inter',
  Roboto: '@fontsource/roboto',
  'Open Sans': '@fontsource/open-sans',
  Lato: '@fontsource/lato',
  Montserrat: '@fontsource/montserrat',
  Poppins: '@fontsource/poppins',
  'Playfair Display': '@fontsource/playfair-display',
  Merriweather: '@fontsource/merriweather',
  'Source Sans 3': '@fontsource/source-sans-3',
  Raleway: '@fontsource/raleway',
  Oswald: '@fontsource/oswald',
  Nunito: '@fontsource/nunito',
  'DM Sans': '@fontsource/dm-sans',
  'Space Grotesk': '@fontsource/space-grotesk',
  'IBM Plex Sans': '@fontsource/ibm-plex-sans',
  'Work Sans': '@fontsource/work-sans',
  Lora: '@fontsource/lora',
  'JetBrains Mono': '@fontsource/jetbrains-mono',
};
export const fontFamilies: ReadonlyArray<{ readonly family: FontFamily; readonly package: string }> =
  fontFamilyNames.map((family) => ({ family, package: fontPackages[family] }));

/** An image's bytes handed to the renderer (PNG or JPEG; other types are converted or refused by the caller). */
export interface ImageInput {
  data: Uint8Array;
  contentType: string;
  width: number | null;
  height: number | null;
}

/** The workspace's brand as the renderer needs it (from the brand kit; `#rrggbb` colours, installed fonts). */
export interface RenderBrand {
  colors: {
    primary: string | null;
    secondary: string | null;
    accent: string | null;
    background: string | null;
  };
  headingFont: FontFamily | null;
  bodyFont: FontFamily | null;
  logo: ImageInput | null;
}

export interface VisualContent {
  title: string;
  eyebrow?: string;
  body?: string;
  stat?: string;
  attribution?: string;
  cta?: string;
  bullets?: string[];
}

interface Common {
  theme: ThemeId;
  includeLogo: boolean;
  handle: string | null;
  brand: RenderBrand;
  /**
   * 1 renders at the format's real size; a preview passes e.g. 0.25 and gets a small PNG of the same layout
   * (the layout is computed at full size and scaled when rasterised).
   */
  scale?: number;
}

export interface ImageRenderRequest extends Common {
  content: VisualContent;
  template: TemplateId;
  format: VisualFormatId;
  /** A photo behind the text (template `photo`, or any template when given): an uploaded, imported or AI image. */
  background: ImageInput | null;
}

export interface CarouselSlide extends VisualContent {
  layout: CarouselLayoutId;
}

export interface CarouselRenderRequest extends Common {
  slides: CarouselSlide[];
  format: (typeof carouselFormatIds)[number];
  background: ImageInput | null;
  /** Also assemble the slides into one PDF (pdf-lib), one page per slide. */
  pdf: boolean;
  /** The PDF's title metadata. */
  title?: string;
}

export interface ScreenshotRenderRequest extends Common {
  screenshot: ImageInput;
  layout: ScreenshotLayoutId;
  format: (typeof screenshotFormatIds)[number];
  content: { eyebrow?: string; title?: string; body?: string } | null;
  addressBar: string | null;
  windowTheme: 'auto' | 'light' | 'dark';
  /** Zoom ≥ 1; focus 0–1 across and down the screenshot. */
  crop: { zoom: number; focusX: number; focusY: number } | null;
}

export interface RenderedPng {
  png: Uint8Array;
  width: number;
  height: number;
}

/**
 * Renders off the request thread (a worker pool sized to the cores). Every method may be called concurrently.
 * Each render task runs under a deadline (RenderDeadlineExceeded, 503); a render is admitted first (`admit`).
 */
export interface Renderer {
  image(request: ImageRenderRequest): Promise<RenderedPng>;
  carousel(request: CarouselRenderRequest): Promise<{ slides: RenderedPng[]; pdf: Uint8Array | null }>;
  screenshot(request: ScreenshotRenderRequest): Promise<RenderedPng>;
  /**
   * One render of `workspace` (however many formats or slides) admitted to the bounded queue, held until it is
   * answered; throws 429 `rate_limit_exceeded` (the workspace's share is full) or 503 (the service's is).
   */
  admit(workspace: string): RenderSlot;
  /** Reads a logo file off the request thread (infra/brand/logo-image.ts): NotALogo when it is none. */
  readLogo(bytes: Uint8Array): Promise<LogoFile>;
  /** The logo as the renderer takes it (PNG or JPEG, at most renderableLogoLongSide long): NotALogo when none. */
  renderableLogo(bytes: Uint8Array): Promise<RenderableLogo>;
  /** Ends the pool's threads (the runtime calls it when it stops). */
  close(): Promise<void>;
}
