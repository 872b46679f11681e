// The bundled font families (@fontsource packages, latin subset, weights 400 and 700) as satori wants them.
// Each file is read once per thread, when a render first needs its family; the arrays handed to satori are
// cached per family pair so satori's own font cache (keyed by the array) parses each font once too.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { defaultBodyFont, defaultHeadingFont, fontFamilies, type FontFamily } from './contract.js';

export type FontWeight = 400 | 700;

export interface SatoriFont {
  name: string;
  data: Buffer;
  weight: FontWeight;
  style: 'normal';
}

const require = createRequire(import.meta.url);
const fileCache = new Map<string, Buffer>();
const setCache = new Map<string, SatoriFont[]>();

/** The package's file name stem: '@fontsource/open-sans' → 'open-sans'. */
function packageStem(pkg: string): string {
  return pkg.slice(pkg.indexOf('/') + 1);
}

/** The path of a family's latin .woff file at `weight` (satori reads woff, not woff2). */
export function fontFilePath(family: FontFamily, weight: FontWeight): string {
  const entry = fontFamilies.find((f) => f.family === family);
  if (!entry) throw new Error(`font family ${family} is not bundled`);
  const stem = packageStem(entry.package);
  return require.resolve(`${entry.package}/files/${stem}-latin-${weight}-normal.woff`);
}

/** The bytes of a family's font at `weight`, read once per thread. */
export function fontData(family: FontFamily, weight: FontWeight): Buffer {
  const key = `${family}:${weight}`;
  let data = fileCache.get(key);
  if (!data) {
    data = readFileSync(fontFilePath(family, weight));
    fileCache.set(key, data);
  }
  return data;
}

/**
 * The fonts a render with these heading and body families needs (both weights of each, the default family
 * last as a fallback for glyphs a family lacks). The same array is returned for the same pair.
 */
export function fontsFor(heading: FontFamily | null, body: FontFamily | null): SatoriFont[] {
  const families = [
    ...new Set<FontFamily>([heading ?? defaultHeadingFont, body ?? defaultBodyFont, 'Inter']),
  ];
  const key = families.join('|');
  let fonts = setCache.get(key);
  if (!fonts) {
    fonts = families.flatMap((family) =>
      ([400, 700] as const).map((weight) => ({
        name: family,
        data: fontData(family, weight),
        weight,
        style: 'normal' as const,
      })),
    );
    setCache.set(key, fonts);
  }
  return fonts;
}
