// Layouts as satori element trees (plain `{ type, props }` objects built with `h`, no JSX). Every layout is
// computed at the format's real pixel size; text is fitted to its box by measuring it (measure.ts) and
// stepping font sizes down until every block fits, so nothing is cut off or overflows.

import { imageSize } from 'image-size';
import {
  defaultBodyFont,
  defaultHeadingFont,
  visualFormats,
  type CarouselSlide,
  type FontFamily,
  type ImageInput,
  type RenderBrand,
  type TemplateId,
  type ThemeId,
  type VisualContent,
  type VisualFormatId,
} from './contract.js';
import { familyStack } from './fonts.js';
import { metricsOf, type TextMeasurer } from './measure.js';
import {
  contrast,
  minContrast,
  mix,
  overPhoto,
  paletteFor,
  rgba,
  type Palette,
  type Scrim,
} from './theme.js';

export type Style = Record<string, string | number>;
export interface El {
  type: string;
  props: { style?: Style; children?: Child | Child[]; src?: string; width?: number; height?: number };
}
export type Child = El | string | null;

export function h(type: string, style: Style, ...children: Child[]): El {
  const kept = children.filter((c): c is El | string => c !== null && c !== '');
  return {
    type,
    props: { style, children: kept.length === 1 && typeof kept[0] === 'string' ? kept[0] : kept },
  };
}

function img(src: string, style: Style, width: number, height: number): El {
  return { type: 'img', props: { src, width: Math.round(width), height: Math.round(height), style } };
}

/** The image as a data URI, its type read from its bytes (PNG or JPEG; the declared type is not trusted). */
export function dataUri(image: ImageInput): string {
  const d = image.data;
  const type =
    d[0] === 0x89 && d[1] === 0x50 && d[2] === 0x4e && d[3] === 0x47
      ? 'image/png'
      : d[0] === 0xff && d[1] === 0xd8 && d[2] === 0xff
        ? 'image/jpeg'
        : null;
  if (!type) throw new Error(`the renderer draws PNG and JPEG images only (got ${image.contentType})`);
  return `data:${type};base64,${Buffer.from(d).toString('base64')}`;
}

/** The image's pixel size: as given, else read from its bytes. */
export function imageDimensions(image: ImageInput): { width: number; height: number } {
  if (image.width && image.height) return { width: image.width, height: image.height };
  const size = imageSize(image.data);
  if (!size.width || !size.height) throw new Error('image size could not be read');
  return { width: size.width, height: size.height };
}

export interface Canvas {
  width: number;
  height: number;
  /** min(width, height): the unit sizes scale with. */
  unit: number;
  margin: number;
  palette: Palette;
  /** Set when the content sits over a photo: the scrim laid over it (the palette is then the photo palette). */
  scrim: Scrim | null;
  heading: FontFamily;
  body: FontFamily;
  headingBold: TextMeasurer;
  headingRegular: TextMeasurer;
  bodyRegular: TextMeasurer;
  bodyBold: TextMeasurer;
  /** Banner formats keep the bottom-left clear for the profile picture the platform draws over it. */
  banner: boolean;
  decoration: string | null;
}

export async function canvasFor(
  format: VisualFormatId,
  theme: ThemeId,
  brand: RenderBrand,
  photo = false,
): Promise<Canvas> {
  const spec = visualFormats.find((f) => f.id === format);
  if (!spec) throw new Error(`unknown format ${format}`);
  const { width, height } = spec;
  const unit = Math.min(width, height);
  const banner = width / height >= 2.5;
  const margin = Math.round(banner ? Math.max(40, unit * 0.14) : Math.min(110, Math.max(44, unit * 0.085)));
  const themed = paletteFor(theme, brand);
  const photoPalette = photo ? overPhoto(themed) : null;
  const palette = photoPalette ?? themed;
  const heading = brand.headingFont ?? defaultHeadingFont;
  const body = brand.bodyFont ?? defaultBodyFont;
  const [headingBold, headingRegular, bodyRegular, bodyBold] = await Promise.all([
    metricsOf(heading, 700),
    metricsOf(heading, 400),
    metricsOf(body, 400),
    metricsOf(body, 700),
  ]);
  return {
    width,
    height,
    unit,
    margin,
    palette,
    scrim: photoPalette?.scrim ?? null,
    heading,
    body,
    headingBold,
    headingRegular,
    bodyRegular,
    bodyBold,
    banner,
    decoration: photo ? null : decorationFor(palette),
  };
}

/**
 * A soft decorative colour for shapes behind the content: a shade of the canvas moved away from the text
 * (darker under light text, lighter under dark text, so text over it only gains contrast), or a light tint of
 * the accent; whichever is visible while every text colour still passes on it. Null when none is.
 */
function decorationFor(palette: Palette): string | null {
  const away = palette.dark ? '#000000' : '#ffffff';
  const candidates: string[] = [];
  const tints: string[] = [];
  for (let w = 0.12; w >= 0.05; w -= 0.01) tints.push(mix(palette.accent, palette.background, w));
  for (let w = 0.3; w >= 0.1; w -= 0.05) candidates.push(mix(away, palette.background, w));
  // A canvas already at the end of the scale: on a light one a tint of the accent, on a dark one a faint
  // shade toward the text (an accent tint on near-black turns muddy).
  if (!palette.dark) candidates.push(...tints);
  for (let w = 0.07; w >= 0.04; w -= 0.01) candidates.push(mix(palette.text, palette.background, w));
  if (palette.dark) candidates.push(...tints);
  return (
    candidates.find(
      (color) =>
        contrast(color, palette.background) >= 1.1 &&
        [palette.text, palette.muted, palette.accent].every((t) => contrast(t, color) >= minContrast),
    ) ?? null
  );
}

// ---------------------------------------------------------------------------------------------- text fitting

/** One block of a text column: how big it may be, how it measures, and how it draws at the size found. */
export interface Block {
  /** Largest and smallest comfortable font size; below the smallest only when nothing else fits. */
  max: number;
  min: number;
  /** Height at `size` for a box `width` wide. */
  height(size: number, width: number): number;
  /** Space above the block at `size` (0 for the first block is applied by the column). */
  gap(size: number): number;
  draw(size: number, width: number): El;
}

interface TextBlockOptions {
  text: string;
  measurer: TextMeasurer;
  family: FontFamily;
  weight: 400 | 700;
  color: string;
  lineHeight: number;
  max: number;
  min: number;
  gap?: number;
  letterSpacing?: number;
  uppercase?: boolean;
  align?: 'left' | 'center';
  /** Width taken from the box before the text (an indent or a marker). */
  inset?: number;
  prefix?: (size: number) => El;
}

export function textBlock(o: TextBlockOptions): Block {
  const text = o.uppercase ? o.text.toUpperCase() : o.text;
  const spacing = (size: number) => (o.letterSpacing ?? 0) * size;
  const inner = (size: number, width: number) => width - (o.inset ?? 0) * size;
  return {
    max: o.max,
    min: o.min,
    height: (size, width) =>
      o.measurer.lines(text, size, inner(size, width), spacing(size)) * size * o.lineHeight,
    gap: (size) => (o.gap ?? 0.5) * size,
    draw: (size, width) => {
      const textEl = h(
        'div',
        {
          display: 'flex',
          width: inner(size, width),
          fontFamily: familyStack(o.family),
          fontWeight: o.weight,
          fontSize: size,
          lineHeight: o.lineHeight,
          letterSpacing: spacing(size),
          color: o.color,
          wordBreak: 'break-word',
          textAlign: o.align ?? 'left',
          justifyContent: o.align === 'center' ? 'center' : 'flex-start',
        },
        text,
      );
      if (!o.prefix) return textEl;
      return h(
        'div',
        { display: 'flex', flexDirection: 'row', alignItems: 'flex-start', width },
        o.prefix(size),
        textEl,
      );
    },
  };
}

/** A block of fixed proportions (a pill, a rule): height and gap scale with its size. */
export function fixedBlock(o: {
  max: number;
  min: number;
  height: (size: number, width: number) => number;
  gap: (size: number) => number;
  draw: (size: number, width: number) => El;
}): Block {
  return o;
}

/**
 * Sizes for `blocks` so the column fits `height`: first every block shrinks together from its largest size,
 * none below its smallest; when even the smallest sizes do not fit, all shrink further in proportion until
 * they do. Returns the sizes (px).
 */
export function fitBlocks(blocks: Block[], width: number, height: number): number[] {
  const total = (sizes: number[]) =>
    sizes.reduce(
      (sum, size, i) => sum + blocks[i]!.height(size, width) + (i === 0 ? 0 : blocks[i]!.gap(size)),
      0,
    );
  for (let s = 1; s >= 0.2; s *= 0.96) {
    const sizes = blocks.map((b) => Math.max(b.max * s, Math.min(b.min, b.max)));
    if (total(sizes) <= height) return sizes;
    if (sizes.every((size, i) => size <= Math.min(blocks[i]!.min, blocks[i]!.max))) break;
  }
  for (let t = 0.96; ; t *= 0.96) {
    const sizes = blocks.map((b) => Math.min(b.min, b.max) * t);
    if (total(sizes) <= height || sizes.every((size) => size < 3)) return sizes;
  }
}

/** Fits `blocks` into width × height and draws them as a column; also the column's fitted height. */
export function fitColumn(
  blocks: Block[],
  width: number,
  height: number,
  align: 'left' | 'center' = 'left',
  shrink = 1,
): { element: El; height: number } {
  const sizes = fitBlocks(blocks, width, height * shrink);
  const used = sizes.reduce(
    (sum, size, i) => sum + blocks[i]!.height(size, width) + (i ? blocks[i]!.gap(size) : 0),
    0,
  );
  const element = h(
    'div',
    {
      display: 'flex',
      flexDirection: 'column',
      width,
      alignItems: align === 'center' ? 'center' : 'flex-start',
    },
    ...blocks.map((b, i) =>
      h('div', { display: 'flex', marginTop: i === 0 ? 0 : b.gap(sizes[i]!) }, b.draw(sizes[i]!, width)),
    ),
  );
  return { element, height: used };
}

export function column(
  blocks: Block[],
  width: number,
  height: number,
  align: 'left' | 'center' = 'left',
  shrink = 1,
): El {
  return fitColumn(blocks, width, height, align, shrink).element;
}

// ------------------------------------------------------------------------------------------- shared pieces

export function eyebrowBlock(c: Canvas, text: string, align: 'left' | 'center' = 'left'): Block {
  return textBlock({
    text,
    measurer: c.bodyBold,
    family: c.body,
    weight: 700,
    color: c.palette.accent,
    lineHeight: 1.3,
    max: c.unit * 0.03,
    min: c.unit * 0.022,
    letterSpacing: 0.12,
    uppercase: true,
    align,
  });
}

export function titleBlock(
  c: Canvas,
  text: string,
  o: { max?: number; min?: number; align?: 'left' | 'center'; gap?: number; color?: string } = {},
): Block {
  return textBlock({
    text,
    measurer: c.headingBold,
    family: c.heading,
    weight: 700,
    color: o.color ?? c.palette.text,
    lineHeight: 1.15,
    max: o.max ?? c.unit * 0.095,
    min: o.min ?? c.unit * 0.045,
    letterSpacing: -0.015,
    align: o.align,
    gap: o.gap ?? 0.45,
  });
}

export function bodyBlock(c: Canvas, text: string, align: 'left' | 'center' = 'left'): Block {
  return textBlock({
    text,
    measurer: c.bodyRegular,
    family: c.body,
    weight: 400,
    color: c.palette.muted,
    lineHeight: 1.4,
    max: c.unit * 0.038,
    min: c.unit * 0.024,
    gap: 1,
    align,
  });
}

export function ctaBlock(c: Canvas, text: string): Block {
  const padX = 1.1;
  const padY = 0.62;
  return {
    max: c.unit * 0.034,
    min: c.unit * 0.024,
    height: (size, width) =>
      c.bodyBold.lines(text, size, width - 2 * padX * size) * size * 1.25 + 2 * padY * size,
    gap: (size) => size * 1.5,
    draw: (size, width) =>
      h(
        'div',
        {
          display: 'flex',
          maxWidth: width,
          padding: `${padY * size}px ${padX * size}px`,
          borderRadius: size * 2,
          backgroundColor: c.palette.ctaBackground,
          color: c.palette.ctaText,
          fontFamily: familyStack(c.body),
          fontWeight: 700,
          fontSize: size,
          lineHeight: 1.25,
          wordBreak: 'break-word',
        },
        text,
      ),
  };
}

export function attributionBlock(c: Canvas, text: string): Block {
  return textBlock({
    text: `— ${text}`,
    measurer: c.bodyBold,
    family: c.body,
    weight: 700,
    color: c.palette.accent,
    lineHeight: 1.35,
    max: c.unit * 0.034,
    min: c.unit * 0.024,
    gap: 1.2,
  });
}

export function statBlock(c: Canvas, text: string): Block {
  return textBlock({
    text,
    measurer: c.headingBold,
    family: c.heading,
    weight: 700,
    color: c.palette.accent,
    lineHeight: 1.05,
    max: c.unit * 0.24,
    min: c.unit * 0.08,
    letterSpacing: -0.03,
    gap: 0.2,
  });
}

export function bulletBlocks(c: Canvas, bullets: string[]): Block[] {
  const markerWidth = 2.1;
  return bullets.map((text, i) =>
    textBlock({
      text,
      measurer: c.bodyRegular,
      family: c.body,
      weight: 400,
      color: c.palette.text,
      lineHeight: 1.35,
      max: c.unit * 0.04,
      min: c.unit * 0.024,
      gap: i === 0 ? 1.3 : 0.7,
      inset: markerWidth,
      prefix: (size) =>
        h(
          'div',
          {
            display: 'flex',
            width: markerWidth * size,
            flexShrink: 0,
            fontFamily: familyStack(c.heading),
            fontWeight: 700,
            fontSize: size,
            lineHeight: 1.35,
            color: c.palette.accent,
          },
          String(i + 1).padStart(2, '0'),
        ),
    }),
  );
}

export function quoteMarkBlock(c: Canvas): Block {
  return fixedBlock({
    max: c.unit * 0.2,
    min: c.unit * 0.1,
    height: (size) => size * 0.5,
    gap: () => 0,
    draw: (size) =>
      h(
        'div',
        {
          display: 'flex',
          height: size * 0.5,
          overflow: 'hidden',
          fontFamily: familyStack(c.heading),
          fontWeight: 700,
          fontSize: size,
          lineHeight: 1,
          color: c.palette.accent,
        },
        '\u201C',
      ),
  });
}

/** A short accent rule above a title block. */
export function ruleBlock(c: Canvas): Block {
  return fixedBlock({
    max: c.unit * 0.012,
    min: c.unit * 0.008,
    height: (size) => size,
    gap: () => 0,
    draw: (size) =>
      h('div', {
        display: 'flex',
        width: size * 7,
        height: size,
        borderRadius: size,
        backgroundColor: c.palette.accent,
      }),
  });
}

export interface FooterOptions {
  includeLogo: boolean;
  handle: string | null;
  brand: RenderBrand;
  /** Drawn on the right (e.g. a carousel's "3/10"). */
  right?: string | null;
}

/** The footer's height for this canvas, 0 when it draws nothing. */
export function footerHeight(c: Canvas, o: FooterOptions): number {
  const logo = o.includeLogo && o.brand.logo;
  if (!logo && !o.handle && !o.right) return 0;
  return Math.round(c.unit * (logo ? 0.075 : 0.045));
}

export function footer(c: Canvas, o: FooterOptions, width: number): El | null {
  const height = footerHeight(c, o);
  if (height === 0) return null;
  const textSize = Math.round(c.unit * 0.028);
  const logo = o.includeLogo ? o.brand.logo : null;
  let logoEl: El | null = null;
  if (logo) {
    const size = imageDimensions(logo);
    const maxW = width * 0.35;
    let lh = height;
    let lw = (size.width / size.height) * lh;
    if (lw > maxW) {
      lw = maxW;
      lh = (size.height / size.width) * lw;
    }
    logoEl = img(dataUri(logo), { objectFit: 'contain' }, lw, lh);
  }
  // A long handle gets smaller rather than cut off.
  const handleRoom = width * (logoEl ? 0.5 : 0.7);
  const handleSize = o.handle
    ? Math.min(textSize, (textSize * handleRoom) / c.bodyBold.width(o.handle, textSize))
    : 0;
  const handleEl = o.handle
    ? h(
        'div',
        {
          display: 'flex',
          marginLeft: logoEl ? textSize * 0.8 : 0,
          fontFamily: familyStack(c.body),
          fontWeight: 700,
          fontSize: handleSize,
          color: c.palette.muted,
          whiteSpace: 'nowrap',
        },
        o.handle,
      )
    : null;
  const rightEl = o.right
    ? h(
        'div',
        {
          display: 'flex',
          fontFamily: familyStack(c.body),
          fontWeight: 700,
          fontSize: textSize,
          color: c.palette.muted,
          letterSpacing: textSize * 0.05,
        },
        o.right,
      )
    : null;
  return h(
    'div',
    {
      display: 'flex',
      flexDirection: 'row',
      alignItems: 'center',
      justifyContent: 'space-between',
      width,
      height,
    },
    h('div', { display: 'flex', flexDirection: 'row', alignItems: 'center' }, logoEl, handleEl),
    rightEl,
  );
}

/**
 * The canvas: background, decoration or a photo with its scrim, then `content` over it. With `scrimFrom` the
 * scrim is solid from that height down (where the text is) and fades out above it, so the photo shows clear
 * at the top; without it the scrim covers the whole photo.
 */
export function canvasRoot(
  c: Canvas,
  background: ImageInput | null,
  scrimFrom: number | null,
  ...content: Child[]
): El {
  const layers: Child[] = [];
  if (background) {
    const scrim = c.scrim ?? overPhoto(c.palette).scrim;
    const top = scrimFrom === null ? 0 : Math.max(0, Math.round(scrimFrom));
    const fade = scrimFrom === null ? 0 : Math.min(top, Math.round(c.unit * 0.3));
    layers.push(
      img(
        dataUri(background),
        { position: 'absolute', left: 0, top: 0, objectFit: 'cover' },
        c.width,
        c.height,
      ),
    );
    if (fade > 0) {
      layers.push(
        h('div', {
          position: 'absolute',
          left: 0,
          top: top - fade,
          width: c.width,
          // A pixel of overlap: no seam between the fade and the solid part.
          height: fade + 2,
          backgroundImage: `linear-gradient(to bottom, ${rgba(scrim.color, 0)}, ${rgba(scrim.color, scrim.opacity)})`,
        }),
      );
    }
    layers.push(
      h('div', {
        position: 'absolute',
        left: 0,
        top,
        width: c.width,
        height: c.height - top,
        backgroundColor: rgba(scrim.color, scrim.opacity),
      }),
    );
  } else if (c.decoration) {
    const d = c.unit * (c.banner ? 1.1 : 0.9);
    layers.push(
      h('div', {
        position: 'absolute',
        width: d,
        height: d,
        borderRadius: d,
        backgroundColor: c.decoration,
        ...(c.banner ? { left: -d * 0.45, top: -d * 0.2 } : { right: -d * 0.42, bottom: -d * 0.42 }),
      }),
      h('div', {
        position: 'absolute',
        width: d * 0.3,
        height: d * 0.3,
        borderRadius: d,
        border: `${Math.max(2, c.unit * 0.006)}px solid ${c.decoration}`,
        ...(c.banner
          ? { right: c.margin * 0.3, bottom: -d * 0.12 }
          : { right: c.unit * 0.06, top: -d * 0.08 }),
      }),
    );
  }
  return h(
    'div',
    {
      display: 'flex',
      position: 'relative',
      width: c.width,
      height: c.height,
      backgroundColor: c.palette.background,
      fontFamily: familyStack(c.body),
    },
    ...layers,
    ...content,
  );
}

/** The safe area the content sits in (inside the margins; banners keep their left part clear). */
export function contentArea(c: Canvas): { left: number; top: number; width: number; height: number } {
  const left = c.banner ? Math.round(c.width * 0.3) : c.margin;
  return { left, top: c.margin, width: c.width - left - c.margin, height: c.height - 2 * c.margin };
}

/** Blocks of a piece of content for a template or carousel layout. */
export function blocksFor(
  c: Canvas,
  kind: TemplateId | CarouselSlide['layout'],
  content: VisualContent,
  index?: number,
): Block[] {
  const blocks: Block[] = [];
  const eyebrow = content.eyebrow ? eyebrowBlock(c, content.eyebrow) : null;
  switch (kind) {
    case 'quote': {
      if (eyebrow) blocks.push(eyebrow);
      blocks.push(quoteMarkBlock(c));
      blocks.push(titleBlock(c, content.title, { max: c.unit * 0.085, min: c.unit * 0.036, gap: 0.2 }));
      if (content.attribution) blocks.push(attributionBlock(c, content.attribution));
      if (content.body) blocks.push(bodyBlock(c, content.body));
      break;
    }
    case 'stat': {
      if (eyebrow) blocks.push(eyebrow);
      blocks.push(statBlock(c, content.stat ?? content.title));
      if (content.stat)
        blocks.push(titleBlock(c, content.title, { max: c.unit * 0.06, min: c.unit * 0.034 }));
      if (content.body) blocks.push(bodyBlock(c, content.body));
      if (content.attribution) blocks.push(attributionBlock(c, content.attribution));
      break;
    }
    case 'list': {
      if (eyebrow) blocks.push(eyebrow);
      blocks.push(titleBlock(c, content.title, { max: c.unit * 0.085 }));
      if (content.body) blocks.push(bodyBlock(c, content.body));
      blocks.push(...bulletBlocks(c, content.bullets ?? []));
      break;
    }
    case 'point': {
      blocks.push(
        textBlock({
          text: String(index ?? 1).padStart(2, '0'),
          measurer: c.headingBold,
          family: c.heading,
          weight: 700,
          color: c.palette.accent,
          lineHeight: 1.05,
          max: c.unit * 0.11,
          min: c.unit * 0.06,
        }),
      );
      if (eyebrow) blocks.push(eyebrow);
      blocks.push(titleBlock(c, content.title, { max: c.unit * 0.1, gap: 0.4 }));
      if (content.body) blocks.push(bodyBlock(c, content.body));
      break;
    }
    case 'cta': {
      if (eyebrow) blocks.push(eyebrow);
      blocks.push(titleBlock(c, content.title, { max: c.unit * 0.1 }));
      if (content.body) blocks.push(bodyBlock(c, content.body));
      if (content.cta) blocks.push(ctaBlock(c, content.cta));
      break;
    }
    case 'cover':
    case 'headline':
    case 'photo': {
      if (eyebrow) blocks.push(ruleBlock(c), { ...eyebrow, gap: (size) => size * 1.1 });
      else blocks.push(ruleBlock(c));
      blocks.push(
        titleBlock(c, content.title, {
          max: c.unit * (kind === 'cover' ? 0.12 : 0.095),
          gap: eyebrow ? 0.3 : 0.9,
        }),
      );
      if (content.body) blocks.push(bodyBlock(c, content.body));
      if (content.bullets?.length) blocks.push(...bulletBlocks(c, content.bullets));
      if (content.cta) blocks.push(ctaBlock(c, content.cta));
      break;
    }
  }
  return blocks;
}

/** A full slide or image: root, content column fitted to the safe area above the footer, footer. */
export function composition(
  c: Canvas,
  blocks: Block[],
  background: ImageInput | null,
  footerOptions: FooterOptions,
  o: { shrink?: number; align?: 'top' | 'center' | 'bottom' } = {},
): El {
  const area = contentArea(c);
  const fh = footerHeight(c, footerOptions);
  const gap = fh ? Math.round(c.unit * 0.05) : 0;
  const columnHeight = area.height - fh - gap;
  const foot = footer(c, footerOptions, area.width);
  const fitted = fitColumn(blocks, area.width, columnHeight, 'left', o.shrink ?? 1);
  // Text at the bottom of a photo: the scrim starts a little above it and the photo shows clear above that.
  const scrimFrom =
    background && o.align === 'bottom' ? area.top + columnHeight - fitted.height - c.margin * 0.8 : null;
  return canvasRoot(
    c,
    background,
    scrimFrom,
    h(
      'div',
      {
        display: 'flex',
        position: 'absolute',
        left: area.left,
        top: area.top,
        width: area.width,
        height: columnHeight,
        flexDirection: 'column',
        justifyContent: o.align === 'top' ? 'flex-start' : o.align === 'bottom' ? 'flex-end' : 'center',
      },
      fitted.element,
    ),
    foot
      ? h(
          'div',
          {
            display: 'flex',
            position: 'absolute',
            left: area.left,
            top: c.height - c.margin - fh,
          },
          foot,
        )
      : null,
  );
}
