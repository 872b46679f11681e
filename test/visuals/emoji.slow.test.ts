// Emoji in branded visuals: drawn as Twemoji images (not empty boxes) where the text puts them, flags, skin
// tones, keycaps and ZWJ sequences resolved to their own Twemoji file, measured so text with emoji still fits
// its margins; what Twemoji lacks and scripts no bundled font covers are named for callers to refuse.

import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import satori from 'satori';
import { describe, expect, it } from 'vitest';
import { visualFormats, type TemplateId } from '../../infra/visuals/contract.js';
import { graphemes, loadAdditionalAsset, twemojiDataUri, twemojiPath } from '../../infra/visuals/emoji.js';
import { drawnAsEmoji, fontsFor, unsupportedCharacters } from '../../infra/visuals/fonts.js';
import { contentArea } from '../../infra/visuals/layout.js';
import { metricsOf } from '../../infra/visuals/measure.js';
import {
  layoutImage,
  overlappingText,
  rasterise,
  textInside,
  type TextBox,
} from '../../infra/visuals/render.js';
import { emptyBrand } from './fixtures.js';

type Pixel = [number, number, number];

/** Pixels of an RGBA raster inside a box that satisfy `test`. */
function countPixels(
  raster: { rgba: Uint8Array | null; width: number },
  box: { left: number; top: number; width: number; height: number },
  test: (p: Pixel) => boolean,
): number {
  const rgba = raster.rgba!;
  let count = 0;
  for (let y = Math.floor(box.top); y < Math.ceil(box.top + box.height); y++) {
    for (let x = Math.floor(box.left); x < Math.ceil(box.left + box.width); x++) {
      const i = (y * raster.width + x) * 4;
      if (test([rgba[i]!, rgba[i + 1]!, rgba[i + 2]!])) count++;
    }
  }
  return count;
}

/**
 * Twemoji's reds (#DD2E44 the heart, #B22334 the US flag's stripes, #A0041E the rocket's fins) and orange
 * (#FFAC33, the rocket's flame).
 */
const isRed = ([r, g, b]: Pixel) => r > 140 && g < 90 && b < 110;
const isOrange = ([r, g, b]: Pixel) => r > 220 && g > 130 && g < 200 && b < 90;
/** The blue of the US flag's canton (#3C3B6E) and the laptop's blue screen in 👨‍💻. */
const isNavy = ([r, g, b]: Pixel) => r < 90 && g < 90 && b > 90 && b - r > 40;

async function titleRender(title: string, template: TemplateId = 'headline') {
  const { canvas, drawn } = await layoutImage({
    template,
    format: 'square',
    theme: 'light',
    content: { title },
    includeLogo: false,
    handle: null,
    brand: emptyBrand,
    background: null,
  });
  const raster = rasterise(drawn.svg, canvas.width, canvas.height, 1, true);
  const box = drawn.textBoxes.find((b) => title.includes(b.text.trim()) || b.text.includes(title));
  expect(box, `the title "${title}" is laid out`).toBeDefined();
  return { canvas, drawn, raster, box: box! };
}

describe('Twemoji files', () => {
  it('resolve plain emoji, U+FE0F variants, flags, skin tones, keycaps and ZWJ sequences', () => {
    const file = (g: string) => twemojiPath(g)?.replace(/^.*\//, '') ?? null;
    expect(file('🚀')).toBe('1f680.svg');
    // ❤️ is U+2764 U+FE0F; Twemoji names it without the selector.
    expect(file('❤️')).toBe('2764.svg');
    expect(file('❤')).toBe('2764.svg');
    expect(file('🇺🇸')).toBe('1f1fa-1f1f8.svg');
    expect(file('👍🏽')).toBe('1f44d-1f3fd.svg');
    expect(file('1️⃣')).toBe('31-20e3.svg');
    expect(file('👨‍💻')).toBe('1f468-200d-1f4bb.svg');
    // A ZWJ sequence Twemoji names with its selector kept: the full sequence is tried first.
    expect(file('❤️‍🔥')).toBe('2764-fe0f-200d-1f525.svg');
    expect(file('🏳️‍🌈')).toBe('1f3f3-fe0f-200d-1f308.svg');
    // Not an emoji at all, and an emoji newer than the bundled Twemoji (U+1FAE9, Unicode 16).
    expect(file('a')).toBeNull();
    expect(file('\u{1FAE9}')).toBeNull();
  });

  it('are handed to satori as SVG data URIs, read once; anything else gets no asset', async () => {
    const uri = await loadAdditionalAsset('emoji', '🚀');
    expect(typeof uri).toBe('string');
    expect(Buffer.from((uri as string).split(',')[1]!, 'base64').toString('utf8')).toMatch(/^<svg/);
    expect(twemojiDataUri('🚀')).toBe(uri);
    expect(await loadAdditionalAsset('emoji', '\u{1FAE9}')).toEqual([]);
    expect(await loadAdditionalAsset('ja-JP', '日本')).toEqual([]);
  });

  it('graphemes keep an emoji sequence whole', () => {
    expect(graphemes('a👨‍💻🇺🇸👍🏽b')).toEqual(['a', '👨‍💻', '🇺🇸', '👍🏽', 'b']);
  });
});

describe('satori and Twemoji agree', () => {
  it('satori asks for every emoji Twemoji has and the fonts lack, so none we accept is drawn as a box', async () => {
    const dir = createRequire(import.meta.url)
      .resolve('@twemoji/svg/package.json')
      .replace(/package\.json$/, '');
    const all = readdirSync(dir)
      .filter((n) => n.endsWith('.svg'))
      .map((n) =>
        String.fromCodePoint(
          ...n
            .slice(0, -4)
            .split('-')
            .map((h) => parseInt(h, 16)),
        ),
      );
    // Lone regional indicators aside: satori joins the emoji it asks about, which would pair them up.
    const accepted = all.filter((g) => drawnAsEmoji(g) && !/^\p{Regional_Indicator}$/u.test(g));
    expect(accepted.length).toBeGreaterThan(3000);
    const asked = new Set<string>();
    const other: string[] = [];
    await satori(
      {
        type: 'div',
        props: { style: { display: 'flex', flexWrap: 'wrap', width: 4000 }, children: accepted.join(' ') },
      },
      {
        width: 4000,
        height: 4000,
        fonts: fontsFor('Inter', 'Inter'),
        loadAdditionalAsset: (code, segment) => {
          if (code === 'emoji') asked.add(segment);
          else other.push(segment);
          return Promise.resolve([]);
        },
      },
    );
    expect(accepted.filter((g) => !asked.has(g))).toEqual([]);
    expect(other).toEqual([]);
  }, 60_000);
});

describe('unsupported characters', () => {
  it('emoji Twemoji draws are fine; other scripts and emoji it lacks are named once each', () => {
    expect(unsupportedCharacters('🚀 Launch day ❤️ 🇺🇸 👨‍💻 👍🏽 1️⃣ ❤️‍🔥 © ™ → ok')).toEqual(['→']);
    expect(unsupportedCharacters('日本語 and 日本, עברית')).toEqual([
      '日',
      '本',
      '語',
      'ע',
      'ב',
      'ר',
      'י',
      'ת',
    ]);
    expect(unsupportedCharacters('new \u{1FAE9} \u{1FAE9}')).toEqual(['\u{1FAE9}']);
    expect(unsupportedCharacters('مرحبا नमस्ते สวัสดี').length).toBeGreaterThan(0);
  });
});

describe('emoji in renders', () => {
  it('a ❤️ and a 🚀 in a title on the light theme are drawn in their colours where the title is', async () => {
    const plain = await titleRender('Launch day');
    expect(countPixels(plain.raster, plain.box, isRed)).toBe(0);
    expect(countPixels(plain.raster, plain.box, isOrange)).toBe(0);

    const heart = await titleRender('Launch day ❤️');
    expect(countPixels(heart.raster, heart.box, isRed)).toBeGreaterThan(400);
    // The heart sits at the end of the title: its red is in the right part of the box.
    const right = { ...heart.box, left: heart.box.left + heart.box.width / 2, width: heart.box.width / 2 };
    expect(countPixels(heart.raster, right, isRed)).toBe(countPixels(heart.raster, heart.box, isRed));

    const rocket = await titleRender('🚀 Launch day');
    expect(countPixels(rocket.raster, rocket.box, isRed)).toBeGreaterThan(50);
    expect(countPixels(rocket.raster, rocket.box, isOrange)).toBeGreaterThan(50);
    // Nothing red or orange anywhere outside the title.
    const whole = { left: 0, top: 0, width: rocket.canvas.width, height: rocket.canvas.height };
    expect(countPixels(rocket.raster, whole, isOrange)).toBe(
      countPixels(rocket.raster, rocket.box, isOrange),
    );
  });

  it('a flag, a skin tone, a keycap and a ZWJ sequence are drawn, not boxes', async () => {
    const flag = await titleRender('Made in 🇺🇸');
    expect(countPixels(flag.raster, flag.box, isRed)).toBeGreaterThan(200);
    expect(countPixels(flag.raster, flag.box, isNavy)).toBeGreaterThan(100);
    const coder = await titleRender('Hiring 👨‍💻');
    expect(
      countPixels(coder.raster, coder.box, ([r, g, b]) => r > 200 && g > 150 && b < 120),
    ).toBeGreaterThan(200);
    const plain = await titleRender('Hiring');
    const notGrey = ([r, g, b]: Pixel) => Math.max(r, g, b) - Math.min(r, g, b) > 60;
    expect(countPixels(plain.raster, plain.box, notGrey)).toBe(0);
    for (const title of ['Thumbs 👍🏽', 'Step 1️⃣', 'Hot ❤️‍🔥']) {
      const r = await titleRender(title);
      expect(countPixels(r.raster, r.box, notGrey), title).toBeGreaterThan(200);
    }
  });

  it('an emoji is measured about 1.1 em wide, wider than a letter', async () => {
    const m = await metricsOf('Inter', 700);
    expect(m.width('🚀', 100)).toBeCloseTo(110 * 1.04, 5);
    expect(m.width('👨‍💻🇺🇸', 100)).toBeCloseTo(220 * 1.04, 5);
    expect(m.width('a🚀', 100)).toBeGreaterThan(m.width('aa', 100));
  });

  it('titles full of emoji are wrapped and shrunk to fit in every format and template', async () => {
    const title = '🚀 Launch day 🎉 is here ❤️ 🇺🇸 👨‍💻 👍🏽 🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥🔥 done ✅';
    for (const template of ['headline', 'quote', 'list'] as const) {
      for (const format of visualFormats) {
        const { canvas, drawn } = await layoutImage({
          template,
          format: format.id,
          theme: 'dark',
          content: {
            title,
            body: `Emoji 😀 everywhere 🙌 ${'✨ sparkle '.repeat(10)}`,
            bullets: ['🚀 first', '🎯 second', '✅ third'],
            attribution: '— 🧑‍🚀 an astronaut',
          },
          includeLogo: true,
          handle: '@launch 🚀',
          brand: emptyBrand,
          background: null,
        });
        const label = `${template} ${format.id}`;
        const boxes: TextBox[] = drawn.textBoxes;
        expect(
          boxes.filter((b) => !textInside([b], contentArea(canvas))),
          `${label}: outside`,
        ).toEqual([]);
        expect(overlappingText(boxes), `${label}: overlapping`).toEqual([]);
        expect(boxes.map((b) => b.text).join(' '), label).toContain('🔥🔥');
      }
    }
  }, 240_000);
});
