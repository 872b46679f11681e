// Golden images: each template in each theme (square), each format once, each carousel layout, each
// screenshot layout and one with emoji (drawn as Twemoji), rendered at half size and compared with the PNGs
// checked in under test/visuals/golden/ within a small tolerance (font rasterisation differs slightly between
// platforms and builds). Each render's palette is also checked for WCAG AA. `UPDATE_GOLDEN=1` rewrites the
// goldens.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  carouselLayoutIds,
  screenshotLayoutIds,
  templateIds,
  themeIds,
  visualFormats,
  type ImageInput,
  type RenderBrand,
  type ThemeId,
} from '../../infra/visuals/contract.js';
import { renderCarousel, renderImage, renderScreenshot } from '../../infra/visuals/render.js';
import { contrastPairs, paletteFor, photoContrastPairs } from '../../infra/visuals/theme.js';
import { makeBrand, makePhoto, makeScreenshot, sampleContent, sampleSlides } from './fixtures.js';

const goldenDir = fileURLToPath(new URL('./golden/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';
const scale = 0.5;

/** A pixel "differs" when a channel moves by more than this… */
const channelTolerance = 32;
/** …and the image matches while at most this share of its pixels differ. */
const maxDifferingShare = 0.004;

function compare(name: string, png: Uint8Array) {
  const path = `${goldenDir}${name}.png`;
  if (update || !existsSync(path)) {
    if (!update) throw new Error(`no golden image ${name}.png: run with UPDATE_GOLDEN=1 to create it`);
    mkdirSync(goldenDir, { recursive: true });
    writeFileSync(path, png);
    return;
  }
  const expected = PNG.sync.read(readFileSync(path));
  const actual = PNG.sync.read(Buffer.from(png));
  expect([actual.width, actual.height], `${name}: size`).toEqual([expected.width, expected.height]);
  let differing = 0;
  for (let i = 0; i < expected.data.length; i += 4) {
    for (let c = 0; c < 4; c++) {
      if (Math.abs(expected.data[i + c]! - actual.data[i + c]!) > channelTolerance) {
        differing++;
        break;
      }
    }
  }
  const share = differing / (expected.width * expected.height);
  expect(share, `${name}: share of differing pixels`).toBeLessThanOrEqual(maxDifferingShare);
}

function expectPaletteAA(theme: ThemeId, brand: RenderBrand, overPhoto: boolean) {
  const palette = paletteFor(theme, brand);
  for (const pair of overPhoto ? photoContrastPairs(palette) : contrastPairs(palette)) {
    expect(pair.ratio, `${theme}: ${pair.name}`).toBeGreaterThanOrEqual(4.5);
  }
}

let brand: RenderBrand;
let photo: ImageInput;
let screenshot: ImageInput;

beforeAll(async () => {
  brand = await makeBrand();
  photo = await makePhoto();
  screenshot = await makeScreenshot();
});

describe('golden images', () => {
  for (const template of templateIds) {
    for (const theme of themeIds) {
      it(`${template} · square · ${theme}`, async () => {
        const background = template === 'photo' ? photo : null;
        const { png } = await renderImage({
          template,
          format: 'square',
          theme,
          content: sampleContent,
          includeLogo: true,
          handle: '@acme',
          brand,
          background,
          scale,
        });
        expectPaletteAA(theme, brand, background !== null);
        compare(`${template}-square-${theme}`, png);
      });
    }
  }

  for (const format of visualFormats) {
    it(`headline · ${format.id} · brand`, async () => {
      const { png } = await renderImage({
        template: 'headline',
        format: format.id,
        theme: 'brand',
        content: sampleContent,
        includeLogo: true,
        handle: '@acme',
        brand,
        background: null,
        scale,
      });
      expectPaletteAA('brand', brand, false);
      compare(`format-${format.id}`, png);
    });
  }

  it('emoji · list · square · light', async () => {
    const { png } = await renderImage({
      template: 'list',
      format: 'square',
      theme: 'light',
      content: {
        eyebrow: 'Launch day 🚀',
        title: 'Three things we shipped ❤️',
        bullets: ['🇺🇸 US English spelling', '👩🏽‍💻 A faster editor', '1️⃣ One-click publishing 🎉'],
      },
      includeLogo: true,
      handle: '@acme',
      brand,
      background: null,
      scale,
    });
    expectPaletteAA('light', brand, false);
    compare('emoji-list-square-light', png);
  });

  it('carousel: every layout (portrait, brand)', async () => {
    expect(sampleSlides.map((s) => s.layout)).toEqual([...carouselLayoutIds]);
    const { slides } = await renderCarousel({
      slides: sampleSlides,
      format: 'portrait',
      theme: 'brand',
      includeLogo: true,
      handle: '@acme',
      brand,
      background: null,
      pdf: false,
      scale,
    });
    expectPaletteAA('brand', brand, false);
    slides.forEach((slide, i) => compare(`carousel-${sampleSlides[i]!.layout}`, slide.png));
  }, 60_000);

  for (const layout of screenshotLayoutIds) {
    it(`screenshot · ${layout}`, async () => {
      const theme: ThemeId = layout === 'tilted' ? 'dark' : layout === 'closeup' ? 'light' : 'brand';
      const { png } = await renderScreenshot({
        screenshot,
        layout,
        format: 'landscape',
        theme,
        includeLogo: true,
        handle: '@acme',
        brand,
        content: {
          eyebrow: 'New',
          title: 'A calmer dashboard for busy teams',
          body: 'Everything scheduled, in one view.',
        },
        addressBar: 'app.acme.com/dashboard',
        windowTheme: 'auto',
        crop: layout === 'closeup' ? { zoom: 1.4, focusX: 0.35, focusY: 0.2 } : null,
        scale,
      });
      expectPaletteAA(theme, brand, false);
      compare(`screenshot-${layout}`, png);
    });
  }
});
