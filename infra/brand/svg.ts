// SVG logos: recognising one by parsing it, sanitising it with DOMPurify (on a jsdom window) so that what is
// stored can do nothing but draw, reading its size, and rasterising it to PNG with resvg for the renderer.
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import createDOMPurify, { type DOMPurify, type WindowLike } from 'dompurify';
import postcss, { type Root } from 'postcss';
import valueParser from 'postcss-value-parser';
import {
  checkImageDimensions,
  ImageDimensionsError,
  maxImagePixels,
  maxImageSide,
} from '../images/dimensions.js';

// jsdom ships no typings of its own (and @types/jsdom would bring the DOM's into the project): the little used
// here is declared locally.
interface JsdomElement {
  localName: string;
  namespaceURI: string | null;
  getAttribute(name: string): string | null;
  removeAttribute(name: string): void;
  setAttribute(name: string, value: string): void;
  textContent: string | null;
  remove(): void;
}
interface JsdomDocument {
  documentElement: JsdomElement | null;
  getElementsByTagName(name: string): { length: number };
}
interface JsdomTree {
  getElementsByTagName(name: string): ArrayLike<JsdomElement>;
}
interface JsdomWindow {
  DOMParser: new () => { parseFromString(text: string, type: string): JsdomDocument };
  XMLSerializer: new () => { serializeToString(node: JsdomDocument | JsdomElement): string };
}
const require = createRequire(import.meta.url);
const { JSDOM } = require('jsdom') as {
  JSDOM: new (html: string, options?: { contentType?: string }) => { window: JsdomWindow };
};

const svgNamespace = 'http://www.w3.org/2000/svg';

/** The most elements a logo may have once sanitised (a detailed logo has hundreds). */
export const maxSvgElements = 10_000;
/**
 * Filters and patterns are removed from logos: resvg sizes their pixmaps by the filter region or the pattern
 * tile, in the document's own units and unclipped by the canvas, so 200 bytes of filter ask minutes of CPU and a
 * large tile tens of gigabytes (which aborts the process). A logo keeps its shapes, gradients, masks and clips.
 */
const costlyTags = [
  'filter',
  'pattern',
  'feBlend',
  'feColorMatrix',
  'feComponentTransfer',
  'feComposite',
  'feConvolveMatrix',
  'feDiffuseLighting',
  'feDisplacementMap',
  'feDistantLight',
  'feDropShadow',
  'feFlood',
  'feFuncA',
  'feFuncB',
  'feFuncG',
  'feFuncR',
  'feGaussianBlur',
  'feImage',
  'feMerge',
  'feMergeNode',
  'feMorphology',
  'feOffset',
  'fePointLight',
  'feSpecularLighting',
  'feSpotLight',
  'feTile',
  'feTurbulence',
];

/** An SVG past the budget a logo may cost to draw (the message says which part). */
export class SvgTooComplex extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SvgTooComplex';
  }
}

let shared: { window: JsdomWindow; purify: DOMPurify } | undefined;

/** One jsdom window and DOMPurify instance per process (building a window takes tens of milliseconds). */
function dom(): { window: JsdomWindow; purify: DOMPurify } {
  if (shared) return shared;
  const window = new JSDOM('<!DOCTYPE html><html><body></body></html>').window;
  const purify = createDOMPurify(window as unknown as WindowLike);
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    const name = data.attrName.toLowerCase();
    const value = data.attrValue;
    if (name === 'href' || name === 'xlink:href') {
      const element = (node as unknown as JsdomElement).localName;
      if (!localReference(value) && !(element === 'image' && embeddedRaster(value))) data.keepAttr = false;
      return;
    }
    // The filters themselves are removed; a reference left behind would hide its element (SVG 1.1, 15.25).
    if (name === 'filter') {
      data.keepAttr = false;
      return;
    }
    if (name === 'style') {
      const cleaned = cleanStyleAttribute(value);
      if (cleaned === null) data.keepAttr = false;
      else data.attrValue = cleaned;
      return;
    }
    if (mentionsUrl(value) && !onlyLocalUrls(value)) data.keepAttr = false;
  });
  purify.addHook('uponSanitizeElement', (node, data) => {
    if (data.tagName !== 'style') return;
    const element = node as unknown as JsdomElement;
    const cleaned = cleanStylesheet(element.textContent ?? '');
    if (cleaned === null) element.remove();
    else element.textContent = cleaned;
  });
  shared = { window, purify };
  return shared;
}

/** `#id`: a reference inside the document itself. */
function localReference(value: string): boolean {
  return value.trim().startsWith('#');
}

/** A raster image embedded as a data URL (no fetch, nothing that runs). */
function embeddedRaster(value: string): boolean {
  return /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*$/i.test(value.trim());
}

/**
 * Every `url(…)` in a CSS or presentation-attribute value points inside the document (`url(#gradient)`); also
 * false for `image-set(…)`/`src(…)`, which name resources without `url`.
 */
function onlyLocalUrls(value: string): boolean {
  let local = true;
  valueParser(value).walk((node) => {
    if (node.type !== 'function') return;
    const name = node.value.toLowerCase();
    if (['image-set', '-webkit-image-set', 'src', 'expression'].includes(name)) local = false;
    if (name !== 'url') return;
    const target = node.nodes.length === 1 ? node.nodes[0]!.value.trim() : '';
    if (!target.startsWith('#')) local = false;
  });
  return local;
}

/** Whether a value uses a CSS function that loads something. */
function mentionsUrl(value: string): boolean {
  let found = false;
  valueParser(value).walk((node) => {
    if (
      node.type === 'function' &&
      ['url', 'image-set', '-webkit-image-set', 'src', 'expression'].includes(node.value.toLowerCase())
    )
      found = true;
  });
  return found;
}

function parseCss(text: string): Root | null {
  try {
    return postcss.parse(text);
  } catch {
    return null;
  }
}

/** A `<style>` sheet without imports, external `url(…)`s or legacy script hooks; null when it cannot be read. */
function cleanStylesheet(text: string): string | null {
  const root = parseCss(text);
  if (!root) return null;
  root.walkAtRules((rule) => {
    if (['import', 'font-face', 'namespace'].includes(rule.name.toLowerCase())) rule.remove();
  });
  root.walkDecls((decl) => {
    if (!safeDeclaration(decl.prop, decl.value)) decl.remove();
  });
  return root.toString();
}

function cleanStyleAttribute(text: string): string | null {
  const root = parseCss(`x{${text}}`);
  if (!root) return null;
  const kept: string[] = [];
  root.walkDecls((decl) => {
    if (safeDeclaration(decl.prop, decl.value))
      kept.push(`${decl.prop}:${decl.value}${decl.important ? ' !important' : ''}`);
  });
  return kept.length > 0 ? kept.join(';') : null;
}

function safeDeclaration(prop: string, value: string): boolean {
  const p = prop.toLowerCase();
  if (p === 'behavior' || p === '-moz-binding' || p === 'filter') return false;
  return !mentionsUrl(value) || onlyLocalUrls(value);
}

function decodeText(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}

/**
 * The text of an SVG document, or null: UTF-8 text that starts (after an optional XML declaration, comments and
 * a doctype) with an `<svg>` root and parses as XML with that root in the SVG namespace.
 */
export function svgText(bytes: Uint8Array): string | null {
  const text = decodeText(bytes.subarray(0, Math.min(bytes.byteLength, 10 * 1024 * 1024)));
  if (text === null || !text.trimStart().startsWith('<')) return null;
  const { window } = dom();
  const document = new window.DOMParser().parseFromString(text, 'image/svg+xml');
  const root = document.documentElement;
  if (!root || document.getElementsByTagName('parsererror').length > 0) return null;
  return root.localName === 'svg' && root.namespaceURI === svgNamespace ? text : null;
}

/**
 * The SVG with everything that could run or reach out removed: scripts, event handlers, `foreignObject`,
 * `javascript:` and external links (`href`/`xlink:href` only to `#id`, or a raster data URL on `<image>`),
 * external `url(…)` in attributes and styles, `@import` and `@font-face`. Drawing elements, gradients and
 * filters stay. Null when nothing drawable is left.
 */
export function sanitizeSvg(text: string): string | null {
  const { window, purify } = dom();
  // Parsed as XML, as an SVG file is (the HTML parser would read everything after a self-closed <iframe/> or
  // <style/> as its text), then sanitised in place and serialised as XML: the root element only, without any
  // doctype or processing instruction.
  const document = new window.DOMParser().parseFromString(text, 'image/svg+xml');
  const root = document.documentElement;
  if (!root || document.getElementsByTagName('parsererror').length > 0) return null;
  if (root.localName !== 'svg' || root.namespaceURI !== svgNamespace) return null;
  // Counted before sanitising too: DOMPurify's walk over a huge document is itself the cost.
  countElements(root as unknown as JsdomElement & JsdomTree);
  // DOMPurify's typings name the DOM's Node, which this project does not load (any): the jsdom element is one.
  purify.sanitize(root, {
    USE_PROFILES: { svg: true, svgFilters: true },
    ADD_TAGS: ['use'],
    FORBID_TAGS: ['foreignObject', 'script', 'iframe', 'embed', 'object', 'animate', 'set', ...costlyTags],
    FORBID_ATTR: ['onload', 'onerror', 'onclick', 'onbegin', 'onend', 'onrepeat'],
    IN_PLACE: true,
  });
  checkBudget(root as unknown as JsdomElement & JsdomTree);
  const clean = new window.XMLSerializer().serializeToString(root);
  return clean.startsWith('<svg') ? clean : null;
}

/**
 * Throws SvgTooComplex for a sanitised logo that would cost too much to draw: more than maxSvgElements
 * elements, a declared width or height past maxImageSide, or embedded raster images past the pixel cap
 * (together, read from their headers).
 */
function countElements(root: JsdomTree): ArrayLike<JsdomElement> {
  const elements = root.getElementsByTagName('*');
  if (elements.length + 1 > maxSvgElements)
    throw new SvgTooComplex(
      `the SVG has ${elements.length + 1} elements; at most ${maxSvgElements} are accepted`,
    );
  return elements;
}

function checkBudget(root: JsdomElement & JsdomTree): void {
  const elements = countElements(root);
  for (const name of ['width', 'height']) {
    const declared = pxLength(root.getAttribute(name));
    if (declared !== null && declared > maxImageSide)
      throw new SvgTooComplex(
        `the SVG declares a ${name} of ${declared}; at most ${maxImageSide} is accepted`,
      );
  }
  let pixels = 0;
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i]!;
    if (element.localName !== 'image') continue;
    const href = (element.getAttribute('href') ?? element.getAttribute('xlink:href') ?? '').trim();
    const comma = href.indexOf(',');
    if (!href.startsWith('data:') || comma < 0) continue;
    try {
      const size = checkImageDimensions(Buffer.from(href.slice(comma + 1), 'base64'));
      pixels += size.width * size.height;
    } catch (error) {
      if (!(error instanceof ImageDimensionsError)) throw error;
      throw new SvgTooComplex(`an image inside the SVG cannot be used: ${error.message}`);
    }
    if (pixels > maxImagePixels)
      throw new SvgTooComplex(
        `the images inside the SVG have ${pixels} pixels together; at most ${maxImagePixels} are accepted`,
      );
  }
}

/**
 * A unitless or `px` length (`12`, `12.5px`, ` .5 `) as a number, or null. A single forward scan: the regex it
 * replaces (`[0-9]*\.?[0-9]+`) backtracked quadratically on a long run of digits.
 */
export function pxLength(value: string | null): number | null {
  if (value === null) return null;
  let i = 0;
  const n = value.length;
  const space = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
  const digit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  while (i < n && space(value[i])) i++;
  const start = i;
  while (i < n && digit(value[i])) i++;
  const before = i - start;
  let after = 0;
  if (value[i] === '.') {
    i++;
    while (i < n && digit(value[i])) {
      i++;
      after++;
    }
  }
  if (after === 0 && (before === 0 || value[i - 1] === '.')) return null;
  const end = i;
  while (i < n && space(value[i])) i++;
  if (value.startsWith('px', i)) i += 2;
  while (i < n && space(value[i])) i++;
  if (i !== n) return null;
  const number = Number(value.slice(start, end));
  return Number.isFinite(number) ? number : null;
}

/** Width and height in pixels from `width`/`height` (unitless or px) or the `viewBox`; null when neither says. */
export function svgSize(text: string): { width: number; height: number } | null {
  const { window } = dom();
  const root = new window.DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
  if (!root) return null;
  const px = pxLength;
  const box = (root.getAttribute('viewBox') ?? '')
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  const boxWidth = box.length === 4 && box[2]! > 0 ? box[2]! : null;
  const boxHeight = box.length === 4 && box[3]! > 0 ? box[3]! : null;
  let width = px(root.getAttribute('width'));
  let height = px(root.getAttribute('height'));
  if (width === null && height !== null && boxWidth && boxHeight) width = (height * boxWidth) / boxHeight;
  if (height === null && width !== null && boxWidth && boxHeight) height = (width * boxHeight) / boxWidth;
  width ??= boxWidth;
  height ??= boxHeight;
  if (!width || !height) return null;
  return { width: Math.round(width), height: Math.round(height) };
}

/** The document with `width` and `height` on its root element. */
function withSize(text: string, size: { width: number; height: number }): string {
  const { window } = dom();
  const document = new window.DOMParser().parseFromString(text, 'image/svg+xml');
  const root = document.documentElement;
  if (!root) return text;
  root.setAttribute('width', String(size.width));
  root.setAttribute('height', String(size.height));
  return new window.XMLSerializer().serializeToString(document);
}

/**
 * A PNG of the SVG whose longer side is `longSide` pixels (the renderer places logos at a few hundred pixels at
 * most). Throws when resvg cannot read it. Nothing is fetched: external resources were removed by sanitising,
 * and resvg resolves none.
 */
export function rasterizeSvg(
  text: string,
  longSide = 1024,
): { png: Uint8Array; width: number; height: number } {
  const size = svgSize(text) ?? { width: longSide, height: longSide };
  // resvg reads a missing width or height as the viewBox's; both are set so the drawing keeps its proportions.
  const sized = withSize(text, size);
  const fit =
    size.width >= size.height
      ? ({ mode: 'width', value: longSide } as const)
      : ({ mode: 'height', value: longSide } as const);
  const rendered = new Resvg(sized, { fitTo: fit, font: { loadSystemFonts: false } }).render();
  return { png: new Uint8Array(rendered.asPng()), width: rendered.width, height: rendered.height };
}

/**
 * A raster image (PNG, JPEG, GIF or WebP) redrawn as PNG through resvg, for the renderer, which takes PNG and
 * JPEG only.
 */
export function rasterToPng(
  bytes: Uint8Array,
  contentType: string,
  width: number,
  height: number,
): Uint8Array {
  const href = `data:${contentType};base64,${Buffer.from(bytes).toString('base64')}`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<image href="${href}" width="${width}" height="${height}"/></svg>`;
  return new Uint8Array(new Resvg(svg).render().asPng());
}
