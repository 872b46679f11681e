// GET ORG/marketing/visuals/options: what a client (or an assistant) picks from before rendering: formats at
// their pixel sizes, templates and the fields each shows, themes, carousel and screenshot layouts, whether AI
// backgrounds are available and with which models, and the workspace's brand as renders will use it.
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  carouselFormatIds,
  defaultBodyFont,
  defaultHeadingFont,
  maxCarouselSlides,
  minCarouselSlides,
  screenshotFormatIds,
  visualFormats,
  type CarouselLayoutId,
  type ScreenshotLayoutId,
  type TemplateId,
  type ThemeId,
} from '../../infra/visuals/contract.js';
import type { VisualsDeps } from './visuals-use-cases.js';

export const templateCatalog: ReadonlyArray<{
  id: TemplateId;
  label: string;
  description: string;
  fields: string[];
}> = [
  {
    id: 'headline',
    label: 'Headline',
    description: 'A bold headline with an optional eyebrow above it, a supporting line and a call to action.',
    fields: ['title', 'eyebrow', 'body', 'bullets', 'cta'],
  },
  {
    id: 'quote',
    label: 'Quote',
    description: 'A pull quote (the title) with the name of who said it (attribution).',
    fields: ['title', 'attribution', 'eyebrow', 'body'],
  },
  {
    id: 'stat',
    label: 'Stat',
    description: 'One large number (stat, required) with the title explaining it and an optional source.',
    fields: ['stat', 'title', 'eyebrow', 'body', 'attribution'],
  },
  {
    id: 'list',
    label: 'List',
    description: 'A title and a short list of points (bullets, required).',
    fields: ['title', 'bullets', 'eyebrow', 'body'],
  },
  {
    id: 'photo',
    label: 'Photo',
    description:
      'The title over a photo (backgroundImage or aiBackground, required), darkened where the text sits so it stays readable.',
    fields: ['title', 'eyebrow', 'body', 'bullets', 'cta'],
  },
];

export const themeCatalog: ReadonlyArray<{ id: ThemeId; label: string; description: string }> = [
  {
    id: 'brand',
    label: 'Brand',
    description:
      "The workspace's brand colours and fonts, with text in a colour that meets WCAG AA contrast against them.",
  },
  { id: 'light', label: 'Light', description: 'A light canvas with dark text and brand-coloured accents.' },
  { id: 'dark', label: 'Dark', description: 'A dark canvas with light text and brand-coloured accents.' },
];

export const carouselLayoutCatalog: ReadonlyArray<{ id: CarouselLayoutId; description: string }> = [
  {
    id: 'cover',
    description: 'The opening slide: a large title, an optional eyebrow and subtitle (default for slide 1).',
  },
  { id: 'point', description: 'One point: a title and a short paragraph (the default for other slides).' },
  { id: 'stat', description: 'A large number (stat) with the title explaining it.' },
  { id: 'quote', description: 'A quote (the title) with its attribution.' },
  { id: 'list', description: 'A title and a few bullets.' },
  {
    id: 'cta',
    description: 'The closing slide with the call to action (default for the last slide when it has a cta).',
  },
];

export const screenshotLayoutCatalog: ReadonlyArray<{
  id: ScreenshotLayoutId;
  label: string;
  description: string;
}> = [
  {
    id: 'centered',
    label: 'Centered',
    description: 'The browser window centred on the branded canvas, with the optional title above it.',
  },
  {
    id: 'tilted',
    label: 'Tilted',
    description: 'The window turned slightly in perspective beside the title, for a product-launch look.',
  },
  {
    id: 'closeup',
    label: 'Close-up',
    description:
      'The window large and cropped to a part of the screenshot (crop: zoom and focus), to show a detail.',
  },
];

export interface VisualOptions {
  formats: Array<{
    id: string;
    label: string;
    width: number;
    height: number;
    aspectRatio: string;
    useFor: string[];
  }>;
  templates: Array<{ id: string; label: string; description: string; fields: string[] }>;
  themes: Array<{ id: string; label: string; description: string }>;
  carousel: {
    formats: string[];
    layouts: Array<{ id: string; description: string }>;
    minSlides: number;
    maxSlides: number;
  };
  screenshot: { formats: string[]; layouts: Array<{ id: string; label: string; description: string }> };
  aiBackground: {
    available: boolean;
    defaultModel: string | null;
    recommendedModels: Array<{ id: string; useFor: string }>;
    totalModels: number;
    models?: string[];
  };
  brand: {
    colors: string[];
    headingFont: string;
    bodyFont: string;
    background: string | null;
    hasLogo: boolean;
    logo: { width: number; height: number } | null;
  };
}

export async function visualOptions(
  deps: Pick<VisualsDeps, 'brandKit' | 'imageGeneration'>,
  caller: Caller,
  orgId: string,
  query: { includeAllModels: boolean },
): Promise<VisualOptions> {
  authorize(caller, { orgId, permission: 'posts:read', scope: 'mcp:read' });
  const [kit, brand] = await Promise.all([deps.brandKit.get(orgId), deps.brandKit.renderBrand(orgId)]);
  const provider = deps.imageGeneration;
  const colors = [brand.colors.primary, brand.colors.secondary, brand.colors.accent].filter(
    (c): c is string => c !== null,
  );
  const logoSize =
    brand.logo?.width && brand.logo.height
      ? { width: brand.logo.width, height: brand.logo.height }
      : kit.logo?.width && kit.logo.height
        ? { width: kit.logo.width, height: kit.logo.height }
        : null;
  return {
    formats: visualFormats.map((f) => ({ ...f, useFor: [...f.useFor] })),
    templates: templateCatalog.map((t) => ({ ...t, fields: [...t.fields] })),
    themes: themeCatalog.map((t) => ({ ...t })),
    carousel: {
      formats: [...carouselFormatIds],
      layouts: carouselLayoutCatalog.map((l) => ({ ...l })),
      minSlides: minCarouselSlides,
      maxSlides: maxCarouselSlides,
    },
    screenshot: {
      formats: [...screenshotFormatIds],
      layouts: screenshotLayoutCatalog.map((l) => ({ ...l })),
    },
    aiBackground: {
      available: provider !== null,
      defaultModel: provider?.defaultModel ?? null,
      recommendedModels: provider ? provider.recommendedModels.map((m) => ({ ...m })) : [],
      totalModels: provider?.models.length ?? 0,
      ...(query.includeAllModels ? { models: provider ? [...provider.models] : [] } : {}),
    },
    brand: {
      colors,
      headingFont: brand.headingFont ?? defaultHeadingFont,
      bodyFont: brand.bodyFont ?? defaultBodyFont,
      background: brand.colors.background,
      hasLogo: brand.logo !== null || (kit.logo !== null && (kit.logo.assetId ?? kit.logo.url) !== null),
      logo: logoSize,
    },
  };
}
