// Palettes: the colours a render uses, derived from the theme and the brand kit. Every colour drawn as text is
// checked against what it is drawn on and moved (lighter or darker in OKLCH, keeping its hue) until the pair
// meets WCAG AA for normal text (4.5:1); when no shade of it passes, near-white or near-black is used.
// `contrastPairs` lists every text/background pair a palette draws, for tests and for the renderer's own check.

import { clampChroma, converter, formatHex, parse, wcagContrast } from 'culori';
import type { RenderBrand, ThemeId } from './contract.js';

export const minContrast = 4.5;
export const nearWhite = '#fafafa';
export const nearBlack = '#111111';

export interface Palette {
  theme: ThemeId;
  /** The canvas. */
  background: string;
  /** Cards, bullets' markers' plates and the like: drawn on the canvas, text on it keeps the text colour. */
  surface: string;
  text: string;
  muted: string;
  /** Highlights drawn as text on the canvas (eyebrow, stat, quote mark, bullet numbers). */
  accent: string;
  /** The call-to-action pill's fill and its text. */
  ctaBackground: string;
  ctaText: string;
  /** A soft decorative colour (shapes only, never behind text that is not checked). */
  decoration: string;
  /** Is the canvas dark (luminance below the middle)? */
  dark: boolean;
}

const toOklch = converter('oklch');
const toRgb = converter('rgb');

/** `#rrggbb` of a CSS colour, or null when it does not parse. */
export function normaliseColor(value: string | null | undefined): string | null {
  if (!value) return null;
  const parsed = parse(value);
  return parsed ? formatHex(parsed) : null;
}

export function contrast(a: string, b: string): number {
  return wcagContrast(a, b);
}

/** Relative luminance (WCAG) of a colour, 0–1. */
export function luminance(color: string): number {
  return (contrast(color, '#000000') - 1) / 20;
}

export function isDark(color: string): boolean {
  // Below the point where white and black text contrast equally (luminance ≈ 0.179).
  return contrast(color, '#ffffff') >= contrast(color, '#000000');
}

/** Mixes `a` into `b`: weight 1 is all `a`. */
export function mix(a: string, b: string, weight: number): string {
  const ca = toRgb(a);
  const cb = toRgb(b);
  if (!ca || !cb) return a;
  return formatHex({
    mode: 'rgb',
    r: ca.r * weight + cb.r * (1 - weight),
    g: ca.g * weight + cb.g * (1 - weight),
    b: ca.b * weight + cb.b * (1 - weight),
  });
}

/** `color` at OKLCH lightness `l` (same hue, chroma brought into sRGB). */
function withLightness(color: string, l: number): string {
  const c = toOklch(color);
  if (!c) return color;
  return formatHex(clampChroma({ ...c, l }, 'oklch'));
}

/**
 * The shade of `color` nearest to it that reaches `min` contrast against `background`: its OKLCH lightness is
 * moved away from the background's in small steps (the direction with the most room first); near-white or
 * near-black when no shade passes.
 */
export function ensureContrast(color: string, background: string, min = minContrast): string {
  if (contrast(color, background) >= min) return color;
  const start = toOklch(color)?.l ?? 0.5;
  const directions = isDark(background) ? [1, -1] : [-1, 1];
  for (const direction of directions) {
    for (let l = start + direction * 0.02; l >= 0 && l <= 1; l += direction * 0.02) {
      const candidate = withLightness(color, l);
      if (contrast(candidate, background) >= min) return candidate;
    }
  }
  return contrast(nearWhite, background) >= contrast(nearBlack, background) ? nearWhite : nearBlack;
}

/**
 * The text colour for `background`: near-white or near-black, whichever reads better; pure white or black
 * when the near ones fall short (mid-tone canvases).
 */
export function textOn(background: string): string {
  const light = contrast(nearWhite, background) >= contrast(nearBlack, background);
  const near = light ? nearWhite : nearBlack;
  if (contrast(near, background) >= minContrast) return near;
  return light ? '#ffffff' : '#000000';
}

/**
 * A canvas colour on which text can reach 4.5: `color` itself when it allows that, else the nearest shade
 * of it (lighter under black text or darker under white text, whichever is the smaller move).
 */
export function legibleCanvas(color: string): string {
  if (contrast(textOn(color), color) >= minContrast) return color;
  const l = toOklch(color)?.l ?? 0.5;
  const lighter = ensureContrast(color, nearBlack);
  const darker = ensureContrast(color, nearWhite);
  const distance = (c: string) => Math.abs((toOklch(c)?.l ?? 0.5) - l);
  return distance(lighter) <= distance(darker) ? lighter : darker;
}

/** Used when the brand kit names no colour. */
export const defaultBrandColors = {
  primary: '#1e1b4b',
  accent: '#f59e0b',
  light: '#4f46e5',
};

function brandColors(brand: RenderBrand) {
  const c = brand.colors;
  return {
    primary: normaliseColor(c.primary),
    secondary: normaliseColor(c.secondary),
    accent: normaliseColor(c.accent),
    background: normaliseColor(c.background),
  };
}

/** A colour with some chroma, preferred for highlights over greys. */
function chromatic(color: string | null): boolean {
  if (!color) return false;
  return (toOklch(color)?.c ?? 0) > 0.04;
}

function firstOf(...colors: (string | null)[]): string | null {
  return colors.find((c) => c !== null) ?? null;
}

function build(theme: ThemeId, canvas: string, surfaceWish: string | null, accentWish: string): Palette {
  const background = legibleCanvas(canvas);
  const text = textOn(background);
  const dark = isDark(background);
  // Cards sit a shade away from the text (darker under light text, lighter under dark), so text gains contrast.
  const surface =
    surfaceWish !== null && contrast(text, surfaceWish) >= minContrast
      ? surfaceWish
      : mix(dark ? '#000000' : '#ffffff', background, 0.12);
  const muted = ensureContrast(mix(text, background, 0.72), background);
  const accent = ensureContrast(accentWish, background);
  // The pill: the accent as fill when its best text passes on it (it always does: near-white or near-black
  // reach 4.5 on any colour whose luminance is not in a narrow middle band, else the text colour is used).
  let ctaBackground = accentWish;
  let ctaText = textOn(ctaBackground);
  if (contrast(ctaText, ctaBackground) < minContrast) {
    ctaBackground = accent;
    ctaText = textOn(ctaBackground);
  }
  if (contrast(ctaText, ctaBackground) < minContrast) {
    ctaBackground = text;
    ctaText = background;
  }
  const decoration = mix(accentWish, background, dark ? 0.22 : 0.16);
  return { theme, background, surface, text, muted, accent, ctaBackground, ctaText, decoration, dark };
}

/** The palette of `theme` for `brand`. */
export function paletteFor(theme: ThemeId, brand: RenderBrand): Palette {
  const colors = brandColors(brand);
  switch (theme) {
    case 'brand': {
      const background = firstOf(colors.primary, colors.background) ?? defaultBrandColors.primary;
      const others = [colors.accent, colors.secondary, colors.primary === background ? null : colors.primary];
      const wish =
        others.find((c) => c !== null && chromatic(c) && contrast(c, background) >= 1.6) ??
        others.find((c) => c !== null && contrast(c, background) >= 1.6) ??
        (isDark(background) ? defaultBrandColors.accent : textOn(background));
      return build('brand', background, null, wish);
    }
    case 'light': {
      const background = '#fbfaf8';
      const wish =
        [colors.primary, colors.accent, colors.secondary].find((c) => chromatic(c)) ??
        defaultBrandColors.light;
      return build('light', background, '#ffffff', wish);
    }
    case 'dark': {
      const background = '#0d1117';
      const wish =
        [colors.accent, colors.primary, colors.secondary].find((c) => chromatic(c)) ??
        defaultBrandColors.accent;
      return build('dark', background, '#161b24', wish);
    }
  }
}

export interface ContrastPair {
  name: string;
  foreground: string;
  background: string;
  ratio: number;
}

function pair(name: string, foreground: string, background: string): ContrastPair {
  return { name, foreground, background, ratio: contrast(foreground, background) };
}

/** Every text/background pair a layout in this palette draws (the tests require each ≥ 4.5). */
export function contrastPairs(palette: Palette): ContrastPair[] {
  return [
    pair('text on background', palette.text, palette.background),
    pair('muted on background', palette.muted, palette.background),
    pair('accent on background', palette.accent, palette.background),
    pair('text on surface', palette.text, palette.surface),
    pair('cta text on cta', palette.ctaText, palette.ctaBackground),
  ];
}

/** `rgba(…)` of a `#rrggbb` colour at `alpha`. */
export function rgba(color: string, alpha: number): string {
  const c = toRgb(color);
  if (!c) return color;
  const channel = (v: number) => Math.round(Math.min(1, Math.max(0, v)) * 255);
  return `rgba(${channel(c.r)},${channel(c.g)},${channel(c.b)},${alpha})`;
}

export interface Scrim {
  color: string;
  opacity: number;
  /** What text over the scrim can end up on: the scrim over the brightest and the darkest photo pixel. */
  worst: [string, string];
}

/**
 * The palette for text over a photo: the canvas colour becomes a scrim laid over the photo at the smallest
 * opacity (≥ 0.5) at which the text colour reaches 4.5 against the scrim over the brightest and over the
 * darkest possible pixel, so text is legible over any photo while the photo still shows. Body text takes the
 * text colour; the accent stays where it passes on both, else it takes the text colour too.
 */
export function overPhoto(palette: Palette): Palette & { scrim: Scrim } {
  const composites = (opacity: number): [string, string] => [
    mix(palette.background, '#ffffff', opacity),
    mix(palette.background, '#000000', opacity),
  ];
  let opacity = 0.5;
  while (opacity < 1 && !composites(opacity).every((bg) => contrast(palette.text, bg) >= minContrast)) {
    opacity = Math.round((opacity + 0.02) * 100) / 100;
  }
  opacity = Math.min(1, opacity);
  const worst = composites(opacity);
  const accent = worst.every((bg) => contrast(palette.accent, bg) >= minContrast)
    ? palette.accent
    : palette.text;
  return {
    ...palette,
    muted: palette.text,
    accent,
    decoration: palette.background,
    scrim: { color: palette.background, opacity, worst },
  };
}

/** The pairs of `contrastPairs` for text over a photo: each text colour on each worst composite. */
export function photoContrastPairs(palette: Palette): ContrastPair[] {
  const photo = overPhoto(palette);
  return [
    pair('cta text on cta', photo.ctaText, photo.ctaBackground),
    ...photo.scrim.worst.flatMap((bg, i) => [
      pair(`text on scrim ${i}`, photo.text, bg),
      pair(`muted on scrim ${i}`, photo.muted, bg),
      pair(`accent on scrim ${i}`, photo.accent, bg),
    ]),
  ];
}
