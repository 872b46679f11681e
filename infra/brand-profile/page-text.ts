// Reads a fetched web page for the brand profile (spec part 2, `POST ORG/brand/profile/from-website`): its title,
// site name, description, headings, main text (Mozilla Readability on jsdom), first paragraphs, the plans of a
// pricing page, and its links (to find the about and pricing pages). Runs in the page-text worker thread
// (page-text-worker.ts), never on the request thread; the answer is bounded in count and length. No script runs
// and nothing the page links to is loaded (jsdom's defaults).
import { createRequire } from 'node:module';
import { Readability } from '@mozilla/readability';
import type { SitePage, SitePageKind } from '../../domain/brand-profile/infer-job.js';

// jsdom ships no typings of its own (see infra/brand/svg.ts): the little used here is declared locally.
interface Node {
  nodeType: number;
  textContent: string | null;
  childNodes: ArrayLike<Node>;
}
interface Element extends Node {
  localName: string;
  getAttribute(name: string): string | null;
  closest(selector: string): Element | null;
  querySelectorAll(selector: string): ArrayLike<Element>;
  remove(): void;
}
interface Document {
  title: string;
  body: Element | null;
  documentElement: Element;
  querySelector(selector: string): Element | null;
  querySelectorAll(selector: string): ArrayLike<Element>;
}
const require = createRequire(import.meta.url);
const { JSDOM } = require('jsdom') as {
  JSDOM: new (
    html: Uint8Array | string,
    options: { url: string; contentType: string },
  ) => { window: { document: Document; close(): void } };
};

// Readability's typings name the DOM's types, which this project does not load: typed here for jsdom's.
const ReadabilityOnJsdom = Readability as unknown as new (
  document: Document,
  options: { serializer: (node: Node) => Element; charThreshold: number },
) => { parse(): { content: Element | null | undefined } | null };

export interface PageTextInput {
  body: Uint8Array;
  contentType: string;
  /** The page's address after redirects (links are resolved against it). */
  url: string;
  kind: SitePageKind;
}

export interface PageLink {
  url: string;
  text: string;
}

export interface PageText {
  page: SitePage;
  /** http(s) links of the page, absolute, without fragments (at most maxLinks). */
  links: PageLink[];
}

export const maxHeadings = 40;
export const maxParagraphs = 12;
export const maxTextChars = 8000;
export const maxLinks = 200;
export const maxPlans = 8;
const maxShortText = 300;
const maxParagraphChars = 600;
/** Elements looked at for plans and prices. */
const maxScannedElements = 20_000;

const squash = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();
const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;

const pricePattern =
  /(?:[$€£¥]\s?\d[\d,.]*(?:\s?(?:\/|per)\s?(?:mo|month|yr|year|user|seat)\b)?)|(?:\d[\d,.]*\s?(?:€|EUR|USD|GBP)(?:\s?(?:\/|per)\s?(?:mo|month|yr|year|user|seat)\b)?)/i;

function meta(doc: Document, ...names: string[]): string | null {
  for (const name of names) {
    const el = doc.querySelector(`meta[name="${name}" i], meta[property="${name}" i]`);
    const content = squash(el?.getAttribute('content'));
    if (content) return clip(content, maxShortText);
  }
  return null;
}

/** Headings outside navigation and footers, in document order. */
function headingsOf(doc: Document): SitePage['headings'] {
  const out: SitePage['headings'] = [];
  for (const el of Array.from(doc.querySelectorAll('h1, h2, h3'))) {
    if (out.length >= maxHeadings) break;
    if (el.closest('nav, footer')) continue;
    const text = clip(squash(el.textContent), 200);
    if (text) out.push({ level: Number(el.localName.slice(1)), text });
  }
  return out;
}

/** Each plan heading (h2–h4) of the page with the first price that follows it before the next heading. */
function plansOf(doc: Document): SitePage['plans'] {
  const plans: SitePage['plans'] = [];
  let current: SitePage['plans'][number] | null = null;
  const all = Array.from(doc.body?.querySelectorAll('*') ?? []).slice(0, maxScannedElements);
  for (const el of all) {
    if (el.closest('nav, footer')) continue;
    if (/^h[2-4]$/.test(el.localName)) {
      const name = clip(squash(el.textContent), 60);
      current = name ? { name, price: null } : null;
      if (current) plans.push(current);
      continue;
    }
    if (!current || current.price !== null) continue;
    const own = Array.from(el.childNodes)
      .filter((n) => n.nodeType === 3)
      .map((n) => n.textContent ?? '')
      .join(' ');
    const price = pricePattern.exec(own)?.[0];
    if (!price) continue;
    // `<span>€12</span> per month`: the price's period may follow in the parent's text.
    const parent = (el as unknown as { parentElement: Element | null }).parentElement;
    const wider = pricePattern.exec(squash(parent?.textContent))?.[0];
    current.price = squash(wider && wider.startsWith(price.trim()) ? wider : price);
  }
  return plans.filter((p) => p.price !== null).slice(0, maxPlans);
}

function linksOf(doc: Document, base: string): PageLink[] {
  const links: PageLink[] = [];
  for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
    if (links.length >= maxLinks) break;
    try {
      const url = new URL(a.getAttribute('href') ?? '', base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      url.hash = '';
      links.push({ url: url.toString(), text: clip(squash(a.textContent), 100) });
    } catch {
      // Not a link one can follow.
    }
  }
  return links;
}

const blocks = 'h1, h2, h3, h4, h5, h6, p, li, td, th, dd, dt, blockquote, figcaption, pre';

/** The text of the block elements under `root` (outside navigation and footers), one block per line. */
function blockText(root: Element): string {
  const out: string[] = [];
  for (const el of Array.from(root.querySelectorAll(blocks))) {
    if (el.closest('nav, footer')) continue;
    // A block inside another (a paragraph in a list item) is read with it.
    const parent = (el as unknown as { parentElement: Element | null }).parentElement;
    if (parent?.closest(blocks)) continue;
    const text = squash(el.textContent);
    if (text) out.push(text);
  }
  return out.join('\n');
}

/**
 * The page's media type with a charset: the server's, the page's own <meta charset>, else UTF-8 when the bytes are
 * valid UTF-8 (jsdom would otherwise read them as windows-1252, as old browsers did).
 */
function contentTypeOf(input: PageTextInput): string {
  const given = input.contentType || 'text/html';
  if (/;\s*charset=/i.test(given)) return given;
  const head = new TextDecoder('latin1').decode(input.body.subarray(0, 2048));
  if (/<meta[^>]+charset/i.test(head)) return given;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(input.body);
    return `${given.split(';')[0]}; charset=utf-8`;
  } catch {
    return given;
  }
}

function paragraphsIn(root: Element): string[] {
  const out: string[] = [];
  for (const p of Array.from(root.querySelectorAll('p, li'))) {
    if (out.length >= maxParagraphs) break;
    if (p.closest('nav, footer')) continue;
    const text = squash(p.textContent);
    if (text.length >= 20) out.push(clip(text, maxParagraphChars));
  }
  return out;
}

/** Reads the page (in a worker thread). */
export function extractPageText(input: PageTextInput): PageText {
  const dom = new JSDOM(input.body, { url: input.url, contentType: contentTypeOf(input) });
  try {
    const doc = dom.window.document;
    for (const el of Array.from(doc.querySelectorAll('script, style, noscript, template, iframe, svg')))
      el.remove();
    const title = clip(squash(doc.title), maxShortText) || null;
    const siteName = meta(doc, 'og:site_name', 'application-name');
    const description = meta(doc, 'description', 'og:description', 'twitter:description');
    const headings = headingsOf(doc);
    const plans = plansOf(doc);
    const links = linksOf(doc, input.url);
    const fallbackParagraphs = doc.body ? paragraphsIn(doc.body) : [];
    const fallbackText = doc.body ? blockText(doc.body) : '';

    // Readability changes the document it reads: everything else was taken first.
    const article = new ReadabilityOnJsdom(doc, {
      serializer: (node) => node as Element,
      charThreshold: 200,
    }).parse();
    const paragraphs = article?.content ? paragraphsIn(article.content) : [];
    const text = (article?.content ? blockText(article.content) : '') || fallbackText;
    return {
      page: {
        url: input.url,
        kind: input.kind,
        title,
        siteName,
        description,
        headings,
        paragraphs: paragraphs.length > 0 ? paragraphs : fallbackParagraphs,
        text: clip(text, maxTextChars),
        plans,
      },
      links,
    };
  } finally {
    dom.window.close();
  }
}
