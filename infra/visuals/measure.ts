// Text measurement for fitting: the advance width of each printable ASCII character of a family and weight,
// measured once per thread with satori itself (so it matches how satori lays the text out), then greedy word
// wrapping like satori's to count the lines a text takes in a box at a font size. Characters outside ASCII
// use the family's average advance; an emoji drawn as a Twemoji image counts as emojiWidth em. A small safety
// factor covers kerning and rounding.

import satori from 'satori';
import type { FontFamily } from './contract.js';
import { graphemes } from './emoji.js';
import { drawnAsEmoji, fontsFor, type FontWeight } from './fonts.js';

const calibrationSize = 200;
const first = 32;
const last = 126;
/** Measured widths are padded by this much so kerning and rounding never push a line over the box. */
const safety = 1.04;
/** The width of an emoji in em: satori draws a Twemoji image one em wide; a little more covers its spacing. */
export const emojiWidth = 1.1;
const printableAscii = /^[\x20-\x7e]*$/;

interface Metrics {
  /** Advance of each character 32..126 in em. */
  advances: Float64Array;
  average: number;
}

const metricsCache = new Map<string, Promise<Metrics>>();

async function calibrate(family: FontFamily, weight: FontWeight): Promise<Metrics> {
  const samples: string[] = ['aa'];
  for (let code = first; code <= last; code++) samples.push(`a${String.fromCharCode(code)}a`);
  const widths = new Map<string, number>();
  const element = {
    type: 'div',
    props: {
      style: {
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'flex-start',
        fontFamily: family,
        fontWeight: weight,
        fontSize: calibrationSize,
      },
      children: samples.map((text, i) => ({
        type: 'div',
        key: String(i),
        props: { style: { display: 'flex', whiteSpace: 'pre' }, children: text },
      })),
    },
  };
  await satori(element, {
    width: calibrationSize * 8,
    height: calibrationSize * 2 * samples.length,
    fonts: fontsFor(family, family),
    onNodeDetected: (node) => {
      if (typeof node.textContent === 'string') widths.set(node.textContent, node.width);
    },
  });
  const base = widths.get('aa') ?? calibrationSize;
  const advances = new Float64Array(last - first + 1);
  let sum = 0;
  let letters = 0;
  for (let code = first; code <= last; code++) {
    const char = String.fromCharCode(code);
    const measured = widths.get(`a${char}a`);
    const em = measured === undefined ? 0.6 : Math.max(0, measured - base) / calibrationSize;
    advances[code - first] = em;
    if (/[a-zA-Z]/.test(char)) {
      sum += em;
      letters++;
    }
  }
  return { advances, average: letters ? sum / letters : 0.6 };
}

/** The family's metrics at `weight`, measured once per thread. */
export async function metricsOf(family: FontFamily, weight: FontWeight): Promise<TextMeasurer> {
  const key = `${family}:${weight}`;
  let metrics = metricsCache.get(key);
  if (!metrics) {
    metrics = calibrate(family, weight);
    metricsCache.set(key, metrics);
  }
  return new TextMeasurer(await metrics);
}

export class TextMeasurer {
  constructor(private readonly metrics: Metrics) {}

  /** Width in px of `text` on one line at `size` with `letterSpacing` px between characters. */
  width(text: string, size: number, letterSpacing = 0): number {
    let em = 0;
    let count = 0;
    const units = printableAscii.test(text) ? text : graphemes(text);
    for (const unit of units) {
      count++;
      if (unit.length > 1 || unit.codePointAt(0)! > last) {
        if (drawnAsEmoji(unit)) {
          em += emojiWidth;
          continue;
        }
        // A letter with combining marks, or a character outside ASCII: the family's average per code point.
        for (const char of unit) em += this.charAdvance(char);
        continue;
      }
      em += this.charAdvance(unit);
    }
    return (em * size + letterSpacing * count) * safety;
  }

  private charAdvance(char: string): number {
    const code = char.codePointAt(0) ?? 0;
    return code >= first && code <= last ? (this.metrics.advances[code - first] ?? 0) : this.metrics.average;
  }

  /**
   * The number of lines `text` wraps to in `boxWidth` at `size`: greedy word wrapping, words wider than the
   * box broken between characters (the layout uses `wordBreak: 'break-word'`), explicit newlines kept.
   */
  lines(text: string, size: number, boxWidth: number, letterSpacing = 0): number {
    let total = 0;
    for (const paragraph of text.split('\n')) {
      const words = paragraph.split(/\s+/).filter(Boolean);
      if (words.length === 0) {
        total++;
        continue;
      }
      const space = this.width(' ', size, letterSpacing);
      let lines = 1;
      let used = 0;
      for (const word of words) {
        const w = this.width(word, size, letterSpacing);
        const needed = used === 0 ? w : used + space + w;
        if (needed <= boxWidth) {
          used = needed;
          continue;
        }
        if (used > 0) lines++;
        if (w <= boxWidth) {
          used = w;
          continue;
        }
        // A word wider than the box: broken across as many lines as it takes.
        let part = 0;
        for (const char of graphemes(word)) {
          const c = this.width(char, size, letterSpacing);
          if (part + c > boxWidth && part > 0) {
            lines++;
            part = 0;
          }
          part += c;
        }
        used = part;
      }
      total += lines;
    }
    return total;
  }
}
