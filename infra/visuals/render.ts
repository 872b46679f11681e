// The in-thread renderer: layouts (layout.ts, screenshot.ts) drawn by satori to SVG (emoji as Twemoji, see
// emoji.ts) and rasterised by resvg, carousels assembled into a PDF with pdf-lib. The worker pool (pool.ts) runs these functions off the main
// thread; tests call them directly.

import { Resvg } from '@resvg/resvg-js';
import { deflateSync } from 'node:zlib';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import satori from 'satori';
import type {
  CarouselRenderRequest,
  ImageRenderRequest,
  RenderedPng,
  ScreenshotRenderRequest,
} from './contract.js';
import { loadAdditionalAsset } from './emoji.js';
import { fontsFor } from './fonts.js';
import { blocksFor, canvasFor, composition, contentArea, type Canvas, type El } from './layout.js';
import { screenshotLayout } from './screenshot.js';

/** A text box satori laid out: where it ended up on the canvas (px at full size). */
export interface TextBox {
  text: string;
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface Drawn {
  svg: string;
  textBoxes: TextBox[];
}

/** Lays `element` out with satori, collecting where every text box landed. */
export async function draw(c: Canvas, element: El): Promise<Drawn> {
  const textBoxes: TextBox[] = [];
  const svg = await satori(element, {
    width: c.width,
    height: c.height,
    fonts: fontsFor(c.heading, c.body),
    // Emoji the fonts lack are drawn as Twemoji images.
    loadAdditionalAsset,
    onNodeDetected: (node) => {
      if (typeof node.textContent === 'string' && node.textContent.trim() !== '') {
        textBoxes.push({
          text: node.textContent,
          left: node.left,
          top: node.top,
          width: node.width,
          height: node.height,
        });
      }
    },
  });
  return { svg, textBoxes };
}

/** Decorative glyphs (the quote mark) that are drawn larger than their box on purpose. */
const decorative = new Set(['\u201C']);

export interface Area {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Does every text box stay inside the rectangle (1 px of rounding allowed)? */
export function textInside(boxes: TextBox[], area: Area): boolean {
  return boxes.every(
    (b) =>
      b.left >= area.left - 1 &&
      b.top >= area.top - 1 &&
      b.left + b.width <= area.left + area.width + 1 &&
      b.top + b.height <= area.top + area.height + 1,
  );
}

/** Pairs of text boxes that overlap (more than a pixel of rounding), decorative glyphs aside. */
export function overlappingText(boxes: TextBox[]): [TextBox, TextBox][] {
  const real = boxes.filter((b) => !decorative.has(b.text));
  const found: [TextBox, TextBox][] = [];
  for (let i = 0; i < real.length; i++) {
    for (let j = i + 1; j < real.length; j++) {
      const a = real[i]!;
      const b = real[j]!;
      const x = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);
      const y = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
      if (x > 1 && y > 1) found.push([a, b]);
    }
  }
  return found;
}

/** Text stays in its area and no two text boxes overlap. */
export function textFits(boxes: TextBox[], area: Area): boolean {
  return textInside(boxes, area) && overlappingText(boxes).length === 0;
}

export interface Raster extends RenderedPng {
  /** The raw RGBA pixels (kept only when a PDF is made from them). */
  rgba: Uint8Array | null;
}

export function rasterise(svg: string, width: number, height: number, scale = 1, keepPixels = false): Raster {
  const target = Math.max(1, Math.round(width * scale));
  const resvg = new Resvg(svg, { fitTo: { mode: 'width', value: target }, font: { loadSystemFonts: false } });
  const image = resvg.render();
  // A copy in its own buffer: it can be transferred from a worker thread without taking anything with it.
  return {
    png: new Uint8Array(image.asPng()),
    width: image.width,
    height: image.height,
    rgba: keepPixels ? new Uint8Array(image.pixels) : null,
  };
}

/**
 * Lays out with `build(shrink)` and checks that no text left `area`; the measured fit is padded so this holds,
 * but if it ever does not, the layout is redone with the text boxes made smaller until it does.
 */
async function fitted(c: Canvas, area: Area, build: (shrink: number) => El): Promise<Drawn> {
  let shrink = 1;
  let drawn = await draw(c, build(shrink));
  for (let attempt = 0; attempt < 6 && !textFits(drawn.textBoxes, area); attempt++) {
    shrink *= 0.88;
    drawn = await draw(c, build(shrink));
  }
  return drawn;
}

/** Where text may go: inside the margins (a banner's content area). */
export function textArea(c: Canvas): Area {
  return contentArea(c);
}

export async function layoutImage(request: ImageRenderRequest): Promise<{ canvas: Canvas; drawn: Drawn }> {
  const c = await canvasFor(request.format, request.theme, request.brand, request.background !== null);
  const blocks = () => blocksFor(c, request.template, request.content);
  const drawn = await fitted(c, textArea(c), (shrink) =>
    composition(
      c,
      blocks(),
      request.background,
      { includeLogo: request.includeLogo, handle: request.handle, brand: request.brand },
      { shrink, align: request.template === 'photo' && request.background ? 'bottom' : 'center' },
    ),
  );
  return { canvas: c, drawn };
}

export async function renderImage(request: ImageRenderRequest): Promise<RenderedPng> {
  const { canvas, drawn } = await layoutImage(request);
  return rasterise(drawn.svg, canvas.width, canvas.height, request.scale ?? 1);
}

/** Lays out slides `from` to `to` (exclusive) of a carousel; markers count all of its slides. */
export async function layoutSlides(
  request: CarouselRenderRequest,
  from = 0,
  to = request.slides.length,
): Promise<{ canvas: Canvas; drawn: Drawn[] }> {
  const c = await canvasFor(request.format, request.theme, request.brand, request.background !== null);
  const total = request.slides.length;
  const drawn: Drawn[] = [];
  for (let i = from; i < to; i++) {
    const slide = request.slides[i]!;
    drawn.push(
      await fitted(c, textArea(c), (shrink) =>
        composition(
          c,
          blocksFor(c, slide.layout, slide, i + 1),
          request.background,
          {
            includeLogo: request.includeLogo,
            handle: request.handle,
            brand: request.brand,
            right: `${i + 1}/${total}`,
          },
          { shrink, align: 'center' },
        ),
      ),
    );
  }
  return { canvas: c, drawn };
}

/** A slide's image as a PDF page needs it: RGB (the canvases are opaque, alpha is dropped), zlib-compressed. */
export interface PdfPageImage {
  width: number;
  height: number;
  deflated: Uint8Array;
}

export function pdfPageImage(raster: Raster): PdfPageImage {
  if (!raster.rgba) throw new Error('the slide was rasterised without its pixels');
  const pixels = raster.width * raster.height;
  const rgb = new Uint8Array(pixels * 3);
  const rgba = raster.rgba;
  for (let p = 0, q = 0, r = 0; p < pixels; p++, q += 4, r += 3) {
    rgb[r] = rgba[q]!;
    rgb[r + 1] = rgba[q + 1]!;
    rgb[r + 2] = rgba[q + 2]!;
  }
  return {
    width: raster.width,
    height: raster.height,
    deflated: new Uint8Array(deflateSync(rgb, { level: 3 })),
  };
}

/**
 * Renders slides `from` to `to` of a carousel: their PNGs and, when the carousel has a PDF, their page images
 * (the worker pool renders a carousel's slides on several threads and assembles the PDF from these).
 */
export async function renderSlides(
  request: CarouselRenderRequest,
  from = 0,
  to = request.slides.length,
): Promise<{ slides: RenderedPng[]; pages: PdfPageImage[] | null; width: number; height: number }> {
  const { canvas, drawn } = await layoutSlides(request, from, to);
  const slides: RenderedPng[] = [];
  const pages: PdfPageImage[] = [];
  for (const d of drawn) {
    const raster = rasterise(d.svg, canvas.width, canvas.height, request.scale ?? 1, request.pdf);
    slides.push({ png: raster.png, width: raster.width, height: raster.height });
    if (request.pdf) pages.push(pdfPageImage(raster));
  }
  return { slides, pages: request.pdf ? pages : null, width: canvas.width, height: canvas.height };
}

export async function renderCarousel(
  request: CarouselRenderRequest,
): Promise<{ slides: RenderedPng[]; pdf: Uint8Array | null }> {
  const { slides, pages, width, height } = await renderSlides(request);
  const pdf = pages ? await carouselPdf(pages, width, height, request.title) : null;
  return { slides, pdf };
}

/** One page per slide at the slide's full pixel size in points, each page the slide's image. */
export async function carouselPdf(
  pages: PdfPageImage[],
  width: number,
  height: number,
  title: string | undefined,
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  doc.setCreator('Branded visuals');
  for (const [i, image] of pages.entries()) {
    const page = doc.addPage([width, height]);
    const ref = doc.context.register(
      doc.context.stream(image.deflated, {
        Type: 'XObject',
        Subtype: 'Image',
        Width: image.width,
        Height: image.height,
        ColorSpace: 'DeviceRGB',
        BitsPerComponent: 8,
        Filter: 'FlateDecode',
      }),
    );
    const name = page.node.newXObject(`Slide${i + 1}`, ref);
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(width, 0, 0, height, 0, 0),
      drawObject(name),
      popGraphicsState(),
    );
  }
  return doc.save({ useObjectStreams: false });
}

export async function layoutScreenshot(
  request: ScreenshotRenderRequest,
): Promise<{ canvas: Canvas; drawn: Drawn }> {
  const c = await canvasFor(request.format, request.theme, request.brand);
  const drawn = await fitted(c, textArea(c), (shrink) => screenshotLayout(c, request, shrink));
  return { canvas: c, drawn };
}

export async function renderScreenshot(request: ScreenshotRenderRequest): Promise<RenderedPng> {
  const { canvas, drawn } = await layoutScreenshot(request);
  return rasterise(drawn.svg, canvas.width, canvas.height, request.scale ?? 1);
}
