// Emoji drawn as Twemoji (@twemoji/svg: one SVG per emoji, named by its lowercase hex code points joined by
// '-', e.g. 1f680.svg, 1f1fa-1f1f8.svg, 1f468-200d-1f4bb.svg). Satori asks for an emoji grapheme the fonts
// lack through `loadAdditionalAsset('emoji', grapheme)` and draws the image we return in its place, one em
// wide. Files are looked up and read lazily and cached per thread. Graphics: Twemoji by Twitter and
// contributors, CC-BY 4.0.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let directory: string | null = null;

function twemojiDirectory(): string {
  directory ??= require.resolve('@twemoji/svg/package.json').replace(/package\.json$/, '');
  return directory;
}

const variationSelector = 0xfe0f;

/** The Twemoji file names to try for a grapheme: the full sequence, then without U+FE0F. */
function candidateNames(grapheme: string): string[] {
  const codes = [...grapheme].map((c) => c.codePointAt(0) ?? 0);
  const full = codes.map((c) => c.toString(16)).join('-');
  const bare = codes
    .filter((c) => c !== variationSelector)
    .map((c) => c.toString(16))
    .join('-');
  return bare === full || bare === '' ? [full] : [full, bare];
}

const pathCache = new Map<string, string | null>();
const uriCache = new Map<string, string | null>();

/** The path of the Twemoji SVG drawing `grapheme`, or null when Twemoji has none. */
export function twemojiPath(grapheme: string): string | null {
  const cached = pathCache.get(grapheme);
  if (cached !== undefined) return cached;
  let found: string | null = null;
  for (const name of candidateNames(grapheme)) {
    const path = `${twemojiDirectory()}${name}.svg`;
    if (existsSync(path)) {
      found = path;
      break;
    }
  }
  pathCache.set(grapheme, found);
  return found;
}

/** Can `grapheme` be drawn as a Twemoji? */
export function hasTwemoji(grapheme: string): boolean {
  return twemojiPath(grapheme) !== null;
}

/** The Twemoji SVG of `grapheme` as a data URI (what satori draws), or null when Twemoji has none. */
export function twemojiDataUri(grapheme: string): string | null {
  const cached = uriCache.get(grapheme);
  if (cached !== undefined) return cached;
  const path = twemojiPath(grapheme);
  const uri = path ? `data:image/svg+xml;base64,${readFileSync(path).toString('base64')}` : null;
  uriCache.set(grapheme, uri);
  return uri;
}

/**
 * Satori's `loadAdditionalAsset`: an emoji grapheme's Twemoji; nothing for anything else (scripts no bundled
 * font covers are refused before a render, see unsupportedCharacters), nor for an emoji Twemoji lacks.
 */
export function loadAdditionalAsset(code: string, segment: string): Promise<string | never[]> {
  if (code !== 'emoji') return Promise.resolve([]);
  return Promise.resolve(twemojiDataUri(segment) ?? []);
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The graphemes (user-perceived characters) of `text`: an emoji sequence, flag or accented letter is one. */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** Does `grapheme` look like an emoji (a pictograph, flag or keycap) rather than a letter or mark? */
export function isEmojiLike(grapheme: string): boolean {
  return /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u.test(grapheme);
}
