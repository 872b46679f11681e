// The bundled font families (@fontsource packages, latin subset, weights 400 and 700) as satori wants them.
// Each file is read once per thread, when a render first needs its family; the arrays handed to satori are
// cached per family pair so satori's own font cache (keyed by the array) parses each font once too.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type postcssModule from 'postcss';
import { defaultBodyFont, defaultHeadingFont, fontFamilies, type FontFamily } from './contract.js';
import { graphemes, hasTwemoji, isEmojiLike } from './emoji.js';

export type FontWeight = 400 | 700;

export interface SatoriFont {
  name: string;
  data: Buffer;
  weight: FontWeight;
  style: 'normal';
}

const require = createRequire(import.meta.url);
const fileCache = new Map<string, Buffer | null>();
const setCache = new Map<string, SatoriFont[]>();

/** The package's file name stem: '@fontsource/open-sans' → 'open-sans'. */
function packageStem(pkg: string): string {
  return pkg.slice(pkg.indexOf('/') + 1);
}

/**
 * The unicode subsets loaded for each family, latin first: together they cover the languages written in
 * Latin, Greek and Cyrillic scripts and Vietnamese. A family lacking a subset falls back to the next family
 * (Inter last, which has them all).
 */
export const fontSubsets = [
  'latin',
  'latin-ext',
  'cyrillic',
  'cyrillic-ext',
  'greek',
  'greek-ext',
  'vietnamese',
] as const;
export type FontSubset = (typeof fontSubsets)[number];

/** The path of a family's .woff file for a subset and weight (satori reads woff, not woff2), or null. */
export function fontFilePath(
  family: FontFamily,
  weight: FontWeight,
  subset: FontSubset = 'latin',
): string | null {
  const entry = fontFamilies.find((f) => f.family === family);
  if (!entry) throw new Error(`font family ${family} is not bundled`);
  const stem = packageStem(entry.package);
  // The package's own directory, then the file in it: a subset the family lacks is simply absent.
  const dir = require.resolve(`${entry.package}/package.json`).replace(/package\.json$/, '');
  const path = `${dir}files/${stem}-${subset}-${weight}-normal.woff`;
  return existsSync(path) ? path : null;
}

/** The bytes of a family's font at `weight` for `subset`, read once per thread; null when it has none. */
export function fontData(
  family: FontFamily,
  weight: FontWeight,
  subset: FontSubset = 'latin',
): Buffer | null {
  const key = `${family}:${weight}:${subset}`;
  if (fileCache.has(key)) return fileCache.get(key) ?? null;
  const path = fontFilePath(family, weight, subset);
  const data = path ? readFileSync(path) : null;
  fileCache.set(key, data);
  return data;
}

/** The name a subset's font is registered under (satori keeps one font per name and weight). */
function subsetName(family: FontFamily, subset: FontSubset): string {
  return subset === 'latin' ? family : `${family} ${subset}`;
}

/** The subsets a family has files for. */
function subsetsOf(family: FontFamily): FontSubset[] {
  return fontSubsets.filter((subset) => fontData(family, 400, subset) !== null);
}

/**
 * The fonts a render with these heading and body families needs (both weights of every subset each has, the
 * default family last as a fallback for glyphs a family lacks). The same array is returned for the same
 * pair, so satori parses each font once.
 */
export function fontsFor(heading: FontFamily | null, body: FontFamily | null): SatoriFont[] {
  const families = [
    ...new Set<FontFamily>([heading ?? defaultHeadingFont, body ?? defaultBodyFont, 'Inter']),
  ];
  const key = families.join('|');
  let fonts = setCache.get(key);
  if (!fonts) {
    fonts = [];
    for (const family of families) {
      for (const subset of subsetsOf(family)) {
        for (const weight of [400, 700] as const) {
          const data = fontData(family, weight, subset);
          if (data) fonts.push({ name: subsetName(family, subset), data, weight, style: 'normal' });
        }
      }
    }
    setCache.set(key, fonts);
  }
  return fonts;
}

const stackCache = new Map<FontFamily, string>();

/**
 * A CSS font-family list for text in `family`: its subsets (each a font of its own name), then the bundled
 * default's, so a glyph the family lacks comes from the next font that has it.
 */
export function familyStack(family: FontFamily): string {
  let stack = stackCache.get(family);
  if (!stack) {
    const families = [...new Set<FontFamily>([family, 'Inter'])];
    stack = families.flatMap((f) => subsetsOf(f).map((subset) => `'${subsetName(f, subset)}'`)).join(', ');
    stackCache.set(family, stack);
  }
  return stack;
}

let coverage: [number, number][] | null = null;

/**
 * The code point ranges the loaded fonts cover: the unicode-range of each loaded subset of the default family
 * (every text falls back to it), read from its @fontsource stylesheet.
 */
function coveredRanges(): [number, number][] {
  if (coverage) return coverage;
  const css = readFileSync(require.resolve('@fontsource/inter/400.css'), 'utf8');
  const ranges: [number, number][] = [];
  // postcss is required here, on the first text checked, rather than imported by every process that loads this.
  const postcss = require('postcss') as typeof postcssModule;
  const root = postcss.parse(css);
  root.walkAtRules('font-face', (rule) => {
    const previous = rule.prev();
    const subset = previous?.type === 'comment' ? previous.text.replace(/^inter-|-400-normal$/g, '') : null;
    if (!subset || !(fontSubsets as readonly string[]).includes(subset)) return;
    rule.walkDecls('unicode-range', (decl) => {
      for (const part of decl.value.split(',')) {
        const [from, to] = part.trim().replace(/^U\+/i, '').split('-');
        const start = parseInt(from ?? '', 16);
        const end = to === undefined ? start : parseInt(to, 16);
        if (Number.isFinite(start) && Number.isFinite(end)) ranges.push([start, end]);
      }
    });
  });
  coverage = ranges;
  return ranges;
}

/** Is `char` (one code point) in a range the bundled fonts cover? */
function covered(char: string, ranges: [number, number][]): boolean {
  const code = char.codePointAt(0) ?? 0;
  return ranges.some(([start, end]) => code >= start && code <= end);
}

/**
 * Characters of `text` that cannot be drawn (they would show as empty boxes): scripts other than Latin, Greek,
 * Cyrillic and Vietnamese (Chinese, Japanese, Korean, Arabic, Hebrew, Devanagari, Thai…), symbols outside the
 * fonts, and emoji Twemoji has no image for. Emoji Twemoji draws (flags, skin tones and ZWJ sequences
 * included) are fine. Callers refuse such text with a clear error rather than render boxes. Line breaks and
 * tabs are fine. Each character (an emoji: its whole sequence) is listed once.
 */
export function unsupportedCharacters(text: string): string[] {
  const ranges = coveredRanges();
  const found = new Set<string>();
  for (const grapheme of graphemes(text)) {
    const missing = [...grapheme].filter(
      (char) => char !== '\n' && char !== '\t' && char !== '\r' && !covered(char, ranges),
    );
    if (missing.length === 0) continue;
    if (isEmojiLike(grapheme)) {
      if (!hasTwemoji(grapheme)) found.add(grapheme);
      continue;
    }
    for (const char of missing) found.add(char);
  }
  return [...found];
}

/** Is `grapheme` drawn as a Twemoji image (an emoji the fonts lack and Twemoji has)? */
export function drawnAsEmoji(grapheme: string): boolean {
  if (!isEmojiLike(grapheme)) return false;
  const ranges = coveredRanges();
  return [...grapheme].some((char) => !covered(char, ranges)) && hasTwemoji(grapheme);
}
