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

/** The more legible of near-white and near-black on `background`. */
export function textOn(background: string): string {
  return contrast(nearWhite, background) >= contrast(nearBlack, background) ? nearWhite : nearBlack;
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

function build(theme: ThemeId, background: string, surface: string, accentWish: string): Palette {
  const text = textOn(background);
  const dark = isDark(background);
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
      const surface = mix(textOn(background), background, 0.08);
      return build('brand', background, surface, wish);
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

/**
 * A scrim over a photo: the palette's canvas at the smallest opacity (≥ `floor`) at which every text colour
 * still reaches 4.5 against the scrim over the brightest and the darkest possible photo pixel. Text is then
 * legible over any photo, and the colours it is drawn on are the two composites.
 */
export function scrimFor(
  palette: Palette,
  floor = 0.55,
): { color: string; opacity: number; worst: string[] } {
  const texts = [palette.text, palette.muted, palette.accent];
  for (let opacity = floor; opacity < 1; opacity += 0.01) {
    const worst = [mix(palette.background, '#ffffff', opacity), mix(palette.background, '#000000', opacity)];
    if (worst.every((bg) => texts.every((t) => contrast(t, bg) >= minContrast))) {
      return { color: palette.background, opacity: Math.round(opacity * 100) / 100, worst };
    }
  }
  return { color: palette.background, opacity: 1, worst: [palette.background] };
}

/** The pairs of `contrastPairs` plus each text colour over a photo's scrim composites. */
export function photoContrastPairs(palette: Palette): ContrastPair[] {
  const scrim = scrimFor(palette);
  return [
    ...contrastPairs(palette),
    ...scrim.worst.flatMap((bg, i) => [
      pair(`text on scrim ${i}`, palette.text, bg),
      pair(`muted on scrim ${i}`, palette.muted, bg),
      pair(`accent on scrim ${i}`, palette.accent, bg),
    ]),
  ];
}
