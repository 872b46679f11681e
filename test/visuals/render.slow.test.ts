// The in-thread renderer: every template × format × theme lays out inside its margins with no overlapping
// text and rasterises at the format's pixel size; palettes meet WCAG AA for tricky brand colours; very long
// text is shrunk and wrapped, never cut off; carousels make a PDF that pdf-lib opens; screenshots frame.

import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  carouselLayoutIds,
  fontFamilies,
  screenshotLayoutIds,
  templateIds,
  themeIds,
  visualFormats,
  type ImageInput,
  type RenderBrand,
  type ScreenshotRenderRequest,
  type VisualContent,
} from '../../infra/visuals/contract.js';
import { familyStack, fontData, fontsFor, unsupportedCharacters } from '../../infra/visuals/fonts.js';
import { contentArea } from '../../infra/visuals/layout.js';
import {
  layoutImage,
  layoutScreenshot,
  layoutSlides,
  overlappingText,
  renderCarousel,
  renderImage,
  renderScreenshot,
  textInside,
  type TextBox,
} from '../../infra/visuals/render.js';
import { windowColors } from '../../infra/visuals/screenshot.js';
import {
  contrast,
  contrastPairs,
  ensureContrast,
  paletteFor,
  photoContrastPairs,
} from '../../infra/visuals/theme.js';
import {
  emptyBrand,
  longContent,
  makeBrand,
  makePhoto,
  makeScreenshot,
  sampleContent,
  sampleSlides,
} from './fixtures.js';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Uint8Array): { width: number; height: number } {
  expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function brandWith(colors: Partial<RenderBrand['colors']>, base: RenderBrand = emptyBrand): RenderBrand {
  return { ...base, colors: { ...emptyBrand.colors, ...colors } };
}

/** Brand kits that make contrast hard: yellow, mid-grey, white, black, an accent equal to the canvas… */
const trickyBrands: [string, RenderBrand][] = [
  ['empty kit', emptyBrand],
  ['yellow primary', brandWith({ primary: '#ffd400' })],
  ['mid-grey primary and accent', brandWith({ primary: '#777777', accent: '#777777' })],
  ['white primary, yellow accent', brandWith({ primary: '#ffffff', accent: '#ffd400' })],
  ['black primary, navy accent', brandWith({ primary: '#000000', accent: '#000080' })],
  ['pure red, pure green', brandWith({ primary: '#ff0000', secondary: '#00ff00' })],
  [
    'mid blue everywhere',
    brandWith({ primary: '#3b82f6', secondary: '#3b82f6', accent: '#3b82f6', background: '#3b82f6' }),
  ],
  ['background only, light', brandWith({ background: '#f5f0e6', accent: '#f5f0e6' })],
  ['orange on teal', brandWith({ primary: '#0f3d3e', accent: '#ff6b35' })],
];

/** Every piece of content must be drawn in full: each text reaches satori whole, none shortened. */
function drawnTexts(boxes: TextBox[]): string {
  return boxes.map((b) => b.text).join('\n');
}

function expectFits(boxes: TextBox[], area: ReturnType<typeof contentArea>, label: string) {
  const outside = boxes.filter((b) => !textInside([b], area));
  expect(outside, `${label}: text outside the margins`).toEqual([]);
  expect(overlappingText(boxes), `${label}: overlapping text`).toEqual([]);
}

let brand: RenderBrand;
let photo: ImageInput;
let screenshot: ImageInput;

beforeAll(async () => {
  brand = await makeBrand();
  photo = await makePhoto();
  screenshot = await makeScreenshot();
});

describe('fonts', () => {
  it('every bundled family has latin woff files at 400 and 700, handed to satori once per pair', () => {
    for (const { family } of fontFamilies) {
      for (const weight of [400, 700] as const) {
        const data = fontData(family, weight);
        // WOFF 1 signature: satori reads woff, not woff2.
        expect(data?.subarray(0, 4).toString('latin1'), `${family} ${weight}`).toBe('wOFF');
      }
    }
    expect(fontsFor('Lora', 'Inter')).toBe(fontsFor('Lora', 'Inter'));
    const names = fontsFor('Lora', 'Inter').map((f) => `${f.name} ${f.weight}`);
    expect(names.slice(0, 4)).toEqual(['Lora 400', 'Lora 700', 'Lora latin-ext 400', 'Lora latin-ext 700']);
    // Lora has no Greek: Greek text falls back to Inter's Greek.
    expect(names).not.toContain('Lora greek 400');
    expect(names).toContain('Inter greek 700');
    expect(familyStack('Lora')).toMatch(/^'Lora', 'Lora latin-ext', .*'Inter greek'/);
  });

  it('names the characters no bundled font can draw', () => {
    expect(unsupportedCharacters('Café “naïve” €5 — © ™ ½ №\nTiếng Việt, Ελληνικά, Привет')).toEqual([]);
    // Emoji are drawn as Twemoji (test/visuals/emoji.slow.test.ts); the arrow and CJK are not drawable.
    expect(unsupportedCharacters('Launch 🚀 → 日本語 day 🚀')).toEqual(['→', '日', '本', '語']);
  });

  it('Greek and Cyrillic titles lay out and fit like Latin ones', async () => {
    const { canvas, drawn } = await layoutImage({
      template: 'headline',
      format: 'square',
      theme: 'brand',
      content: {
        title: 'Ελληνικά και Привет, мир: ένας τίτλος που αναδιπλώνεται σε πολλές γραμμές',
        body: 'Tiếng Việt',
      },
      includeLogo: false,
      handle: null,
      brand,
      background: null,
    });
    expectFits(drawn.textBoxes, contentArea(canvas), 'greek and cyrillic');
  });
});

describe('contrast', () => {
  it.each(trickyBrands)('every text/background pair meets WCAG AA in every theme: %s', (_name, kit) => {
    for (const theme of themeIds) {
      const palette = paletteFor(theme, kit);
      for (const pair of [...contrastPairs(palette), ...photoContrastPairs(palette)]) {
        expect(
          pair.ratio,
          `${theme}: ${pair.name} ${pair.foreground} on ${pair.background}`,
        ).toBeGreaterThanOrEqual(4.5);
      }
    }
  });

  it('a mid-tone brand canvas moves just enough for its text to pass', () => {
    const palette = paletteFor('brand', brandWith({ primary: '#777777' }));
    expect(contrast(palette.text, palette.background)).toBeGreaterThanOrEqual(4.5);
    expect(Math.abs(contrast(palette.background, '#777777'))).toBeLessThan(1.3);
  });

  it('the brand theme paints the brand colour as the canvas and keeps a passing accent', () => {
    const palette = paletteFor('brand', brandWith({ primary: '#ffd400', accent: '#e11d48' }));
    expect(palette.background).toBe('#ffd400');
    expect(palette.text).toBe('#111111');
    expect(contrast(palette.accent, palette.background)).toBeGreaterThanOrEqual(4.5);
    // The accent keeps its hue: a darker red, not black.
    expect(palette.accent).not.toBe('#111111');
    expect(paletteFor('brand', emptyBrand).background).toBe('#1e1b4b');
  });

  it('a failing colour moves to the nearest passing shade, or near-white/near-black', () => {
    const fixed = ensureContrast('#ffd400', '#ffffff');
    expect(contrast(fixed, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(fixed).not.toBe('#111111');
    // Black on black: the nearest passing shade is a mid grey, not white.
    const grey = ensureContrast('#000000', '#000000');
    expect(contrast(grey, '#000000')).toBeGreaterThanOrEqual(4.5);
    expect(contrast(grey, '#000000')).toBeLessThan(5);
    expect(ensureContrast('#222222', '#ffffff')).toBe('#222222');
  });

  it('the browser window chrome keeps its address text legible', () => {
    for (const colors of Object.values(windowColors)) {
      expect(contrast(colors.addressText, colors.addressBackground)).toBeGreaterThanOrEqual(4.5);
    }
  });
});

describe('images', () => {
  it('every template × format × theme lays out inside its margins without overlapping text', async () => {
    for (const template of templateIds) {
      for (const format of visualFormats) {
        for (const theme of themeIds) {
          const { canvas, drawn } = await layoutImage({
            template,
            format: format.id,
            theme,
            content: sampleContent,
            includeLogo: true,
            handle: '@acme',
            brand,
            background: template === 'photo' ? photo : null,
          });
          expect([canvas.width, canvas.height]).toEqual([format.width, format.height]);
          expectFits(drawn.textBoxes, contentArea(canvas), `${template} ${format.id} ${theme}`);
          expect(drawnTexts(drawn.textBoxes)).toContain(sampleContent.title);
        }
      }
    }
  }, 240_000);

  it('renders each format at its real pixel size, and a preview scale at that scale', async () => {
    for (const format of visualFormats) {
      const full = await renderImage({
        template: 'headline',
        format: format.id,
        theme: 'brand',
        content: sampleContent,
        includeLogo: true,
        handle: '@acme',
        brand,
        background: null,
      });
      expect(pngSize(full.png)).toEqual({ width: format.width, height: format.height });
      expect([full.width, full.height]).toEqual([format.width, format.height]);
      const preview = await renderImage({
        template: 'quote',
        format: format.id,
        theme: 'dark',
        content: sampleContent,
        includeLogo: false,
        handle: null,
        brand,
        background: null,
        scale: 0.25,
      });
      expect(pngSize(preview.png).width).toBe(Math.round(format.width * 0.25));
      expect(Math.abs(pngSize(preview.png).height - format.height * 0.25)).toBeLessThanOrEqual(1);
    }
  }, 120_000);

  it('very long text is wrapped and shrunk to fit in every format and template, none of it cut', async () => {
    for (const template of templateIds) {
      for (const format of visualFormats) {
        const { canvas, drawn } = await layoutImage({
          template,
          format: format.id,
          theme: 'light',
          content: longContent,
          includeLogo: true,
          handle: '@a_handle_that_is_long_for_a_handle',
          brand,
          background: null,
        });
        const label = `${template} ${format.id}`;
        expectFits(drawn.textBoxes, contentArea(canvas), label);
        const texts = drawnTexts(drawn.textBoxes);
        expect(texts, label).toContain(longContent.title);
        const shown: (keyof VisualContent)[] =
          template === 'quote'
            ? ['attribution', 'body']
            : template === 'stat'
              ? ['stat', 'body', 'eyebrow']
              : ['body'];
        for (const key of shown) {
          const value = longContent[key] as string;
          expect(texts.toLowerCase(), `${label} ${key}`).toContain(value.toLowerCase());
        }
        if (template === 'list')
          for (const bullet of longContent.bullets!) expect(texts, label).toContain(bullet);
      }
    }
  }, 240_000);

  it('a word longer than the line breaks instead of running off the canvas', async () => {
    const { canvas, drawn } = await layoutImage({
      template: 'headline',
      format: 'linkedin_banner',
      theme: 'dark',
      content: { title: `Supercalifragilistic${'expialidocious'.repeat(12)}` },
      includeLogo: false,
      handle: null,
      brand,
      background: null,
    });
    expectFits(drawn.textBoxes, contentArea(canvas), 'long word');
  });
});

describe('carousels', () => {
  it('every layout fits, each slide carries its "n/total" marker, and the PDF has one page per slide', async () => {
    const slides = [
      ...sampleSlides,
      { ...sampleSlides[1]!, title: longContent.title, body: longContent.body },
    ];
    const request = {
      slides,
      format: 'portrait' as const,
      theme: 'brand' as const,
      includeLogo: true,
      handle: '@acme',
      brand,
      background: null,
      pdf: true,
      title: 'Five ways to make your changelog sell',
    };
    const { canvas, drawn } = await layoutSlides(request);
    drawn.forEach((d, i) => {
      expectFits(d.textBoxes, contentArea(canvas), `slide ${i + 1}`);
      expect(d.textBoxes.map((b) => b.text)).toContain(`${i + 1}/${slides.length}`);
    });
    expect(new Set(sampleSlides.map((s) => s.layout))).toEqual(new Set(carouselLayoutIds));

    const rendered = await renderCarousel(request);
    expect(rendered.slides).toHaveLength(slides.length);
    for (const slide of rendered.slides) expect(pngSize(slide.png)).toEqual({ width: 1080, height: 1350 });
    const pdf = await PDFDocument.load(rendered.pdf!);
    expect(pdf.getPageCount()).toBe(slides.length);
    for (const page of pdf.getPages()) expect(page.getSize()).toEqual({ width: 1080, height: 1350 });
    expect(pdf.getTitle()).toBe('Five ways to make your changelog sell');
  }, 60_000);

  it('square slides over a photo, no PDF when none is asked for', async () => {
    const rendered = await renderCarousel({
      slides: sampleSlides.slice(0, 2),
      format: 'square',
      theme: 'dark',
      includeLogo: false,
      handle: null,
      brand,
      background: photo,
      pdf: false,
    });
    expect(rendered.pdf).toBeNull();
    expect(rendered.slides.map((s) => pngSize(s.png))).toEqual([
      { width: 1080, height: 1080 },
      { width: 1080, height: 1080 },
    ]);
  });

  it('a preview scale keeps PDF pages at the full slide size in points', async () => {
    const rendered = await renderCarousel({
      slides: sampleSlides.slice(0, 3),
      format: 'square',
      theme: 'light',
      includeLogo: false,
      handle: null,
      brand,
      background: null,
      pdf: true,
      scale: 0.5,
    });
    expect(pngSize(rendered.slides[0]!.png)).toEqual({ width: 540, height: 540 });
    const pdf = await PDFDocument.load(rendered.pdf!);
    expect(pdf.getPageCount()).toBe(3);
    expect(pdf.getPage(0).getSize()).toEqual({ width: 1080, height: 1080 });
  });
});

describe('screenshots', () => {
  const base = (): ScreenshotRenderRequest => ({
    screenshot,
    layout: 'centered',
    format: 'landscape',
    theme: 'brand',
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
    crop: null,
  });

  it('every layout × screenshot format fits its text and renders at the format size', async () => {
    const formats = ['landscape', 'square', 'portrait', 'link', 'story'] as const;
    for (const layout of screenshotLayoutIds) {
      for (const format of formats) {
        const request = {
          ...base(),
          layout,
          format,
          crop: layout === 'closeup' ? { zoom: 1.5, focusX: 0.3, focusY: 0.2 } : null,
        };
        const { canvas, drawn } = await layoutScreenshot(request);
        expectFits(drawn.textBoxes, contentArea(canvas), `${layout} ${format}`);
        expect(drawn.textBoxes.map((b) => b.text)).toContain('app.acme.com/dashboard');
      }
      const png = await renderScreenshot({ ...base(), layout, scale: 0.5 });
      expect(pngSize(png.png)).toEqual({ width: 800, height: 450 });
    }
  }, 120_000);

  it('a long address is shortened with an ellipsis inside the bar; no content and no footer also render', async () => {
    const { canvas, drawn } = await layoutScreenshot({
      ...base(),
      content: null,
      includeLogo: false,
      handle: null,
      addressBar: `https://app.acme.com/${'very-long-path/'.repeat(20)}`,
      windowTheme: 'light',
    });
    expectFits(drawn.textBoxes, contentArea(canvas), 'long address');
    const address = drawn.textBoxes.find((b) => b.text.startsWith('https://app.acme.com/'))!;
    expect(address.text.endsWith('…')).toBe(true);
  });

  it('crop zooms in: a zoomed render differs from the plain one, focus moves what is shown', async () => {
    const plain = await renderScreenshot({ ...base(), scale: 0.25 });
    const zoomed = await renderScreenshot({
      ...base(),
      scale: 0.25,
      crop: { zoom: 2, focusX: 0.1, focusY: 0.1 },
    });
    const otherFocus = await renderScreenshot({
      ...base(),
      scale: 0.25,
      crop: { zoom: 2, focusX: 0.9, focusY: 0.9 },
    });
    expect(Buffer.from(zoomed.png).equals(Buffer.from(plain.png))).toBe(false);
    expect(Buffer.from(zoomed.png).equals(Buffer.from(otherFocus.png))).toBe(false);
  });
});

describe('images handed to the renderer', () => {
  it('reads PNG from the bytes whatever the declared type, and refuses what is neither PNG nor JPEG', async () => {
    const request = {
      template: 'headline' as const,
      format: 'square' as const,
      theme: 'light' as const,
      content: sampleContent,
      includeLogo: true,
      handle: null,
      background: null,
      scale: 0.1,
    };
    const mislabelled = await renderImage({
      ...request,
      brand: { ...brand, logo: { ...brand.logo!, contentType: 'image/jpeg' } },
    });
    expect(pngSize(mislabelled.png)).toEqual({ width: 108, height: 108 });
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    await expect(
      renderImage({
        ...request,
        brand: { ...brand, logo: { data: svg, contentType: 'image/png', width: 10, height: 10 } },
      }),
    ).rejects.toThrow(/PNG and JPEG images only/);
  });
});
