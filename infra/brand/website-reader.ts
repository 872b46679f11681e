// Reads a public web page for brand-kit candidates (spec part 2, `GET ORG/brand/kit/website`): colours, logos,
// images and fonts with where each was found, plus a suggested kit. The page and up to a few of its stylesheets
// are fetched through the SSRF-safe fetcher; HTML is parsed with cheerio, CSS with postcss and
// postcss-value-parser (no regular expressions over markup or styles). Nothing is saved.
import * as cheerio from 'cheerio';
import { converter, differenceCiede2000, formatHex, parse as parseColor } from 'culori';
import postcss, { type Root } from 'postcss';
import valueParser, { type Node as ValueNode } from 'postcss-value-parser';
import { installedFontFamily } from '../visuals/contract.js';
import { safeFetch, UnsafeUrlError, type OutboundPolicy, type SafeFetchResult } from '../http/safe-fetch.js';

export const colorSources = ['theme-color', 'css-variable', 'stylesheet', 'inline'] as const;
export type ColorSource = (typeof colorSources)[number];
export const logoSources = ['structured-data', 'og:logo', 'img', 'apple-touch-icon', 'icon'] as const;
export type LogoSource = (typeof logoSources)[number];
export const imageSources = ['og:image', 'twitter:image'] as const;
export type ImageSource = (typeof imageSources)[number];
export const fontSources = ['google-fonts', 'css'] as const;
export type FontSource = (typeof fontSources)[number];

export interface ColorCandidate {
  hex: string;
  source: ColorSource;
  /** The custom property's name for `css-variable` (`--brand-blue`), else null. */
  detail: string | null;
  uses: number;
  /** Near white, black or grey (low chroma): a background or text colour rather than a brand colour. */
  neutral: boolean;
}

export interface WebsiteSuggestion {
  website: string;
  colors?: { primary?: string; secondary?: string; accent?: string; background?: string };
  headingFont?: string;
  bodyFont?: string;
  logo?: { url: string };
}

export interface WebsiteCandidates {
  websiteUrl: string;
  reachable: boolean;
  siteName: string | null;
  tagline: string | null;
  colors: ColorCandidate[];
  logos: { url: string; source: LogoSource }[];
  images: { url: string; source: ImageSource }[];
  fonts: { family: string; source: FontSource }[];
  suggestion: WebsiteSuggestion;
}

/** The page is read up to this size; a larger one is refused (400). */
export const maxPageBytes = 2 * 1024 * 1024;
/** Each stylesheet up to this size; larger ones are skipped. */
export const maxStylesheetBytes = 1024 * 1024;
/** At most this many linked stylesheets are read, in document order. */
export const maxStylesheets = 5;
export const pageTimeoutMs = 10_000;
export const stylesheetTimeoutMs = 5_000;

/** The URL is refused before or while fetching it (scheme, private address, size, deadline): a 400. */
export class WebsiteRefused extends Error {}

const maxTaglineLength = 200;

/** Families CSS names by kind, not a font a brand can pick. */
const genericFamilies = new Set([
  'serif',
  'sans-serif',
  'monospace',
  'cursive',
  'fantasy',
  'system-ui',
  'ui-serif',
  'ui-sans-serif',
  'ui-monospace',
  'ui-rounded',
  'emoji',
  'math',
  'fangsong',
  '-apple-system',
  'blinkmacsystemfont',
  'inherit',
  'initial',
  'unset',
  'revert',
  'revert-layer',
  'apple color emoji',
  'segoe ui emoji',
  'segoe ui symbol',
  'noto color emoji',
]);

/** Properties whose bare words may be colour names (`color: navy`); elsewhere only hex and colour functions count. */
const colorProperties = new Set([
  'color',
  'background',
  'background-color',
  'border',
  'border-color',
  'border-top',
  'border-bottom',
  'border-left',
  'border-right',
  'border-top-color',
  'border-bottom-color',
  'border-left-color',
  'border-right-color',
  'outline',
  'outline-color',
  'fill',
  'stroke',
  'text-decoration-color',
  'caret-color',
  'accent-color',
  'column-rule-color',
]);

const colorFunctions = new Set([
  'rgb',
  'rgba',
  'hsl',
  'hsla',
  'hwb',
  'lab',
  'lch',
  'oklab',
  'oklch',
  'color',
]);

const toLch = converter('lch');
const difference = differenceCiede2000();

/** `#rrggbb` of an opaque colour, or null (transparent ones are no brand colour). */
function hexOf(text: string): string | null {
  const parsed = parseColor(text);
  if (!parsed || (parsed.alpha !== undefined && parsed.alpha < 1)) return null;
  return formatHex(parsed).toLowerCase();
}

export function isNeutral(hex: string): boolean {
  const lch = toLch(hex);
  if (!lch) return true;
  return (lch.c ?? 0) < 12 || lch.l > 96 || lch.l < 6;
}

class ColorTally {
  private readonly counts = new Map<string, ColorCandidate>();

  add(hex: string, source: ColorSource, detail: string | null): void {
    const key = `${hex}|${source}|${detail ?? ''}`;
    const existing = this.counts.get(key);
    if (existing) existing.uses += 1;
    else this.counts.set(key, { hex, source, detail, uses: 1, neutral: isNeutral(hex) });
  }

  list(): ColorCandidate[] {
    const order = (s: ColorSource) => colorSources.indexOf(s);
    return [...this.counts.values()].sort(
      (a, b) => b.uses - a.uses || order(a.source) - order(b.source) || a.hex.localeCompare(b.hex),
    );
  }
}

/** What text a rule's font is for, judged by its selectors: headings (`h1`–`h6`, `.title`), body text, or unknown. */
export type FontRole = 'heading' | 'body' | null;

const headingTags = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const bodyTags = new Set(['body', 'html', ':root', 'p', 'main', 'article']);

/** The role of a selector list: the last part of each selector names what the rule styles. */
export function fontRoleOf(selector: string | undefined): FontRole {
  if (!selector) return null;
  let role: FontRole = null;
  for (const one of selector.split(',')) {
    const last = one.trim().split(' ').filter(Boolean).at(-1)?.toLowerCase() ?? '';
    const tag = last.split(/[.#:[]/)[0] ?? '';
    if (headingTags.has(tag) || last.includes('heading') || last.includes('title')) return 'heading';
    if (bodyTags.has(tag) || bodyTags.has(last)) role = 'body';
  }
  return role;
}

class FontTally {
  private readonly counts = new Map<
    string,
    { family: string; source: FontSource; uses: number; at: number }
  >();
  /** Families in the order the rules for headings and for body text name them first. */
  readonly heading: string[] = [];
  readonly body: string[] = [];

  add(family: string, source: FontSource, role: FontRole = null): void {
    const name = family.trim();
    if (name === '' || genericFamilies.has(name.toLowerCase())) return;
    if (role === 'heading' && !this.heading.includes(name)) this.heading.push(name);
    if (role === 'body' && !this.body.includes(name)) this.body.push(name);
    const key = `${name.toLowerCase()}|${source}`;
    const existing = this.counts.get(key);
    if (existing) existing.uses += 1;
    else this.counts.set(key, { family: name, source, uses: 1, at: this.counts.size });
  }

  list(): { family: string; source: FontSource }[] {
    const order = (s: FontSource) => fontSources.indexOf(s);
    return [...this.counts.values()]
      .sort((a, b) => order(a.source) - order(b.source) || b.uses - a.uses || a.at - b.at)
      .map(({ family, source }) => ({ family, source }));
  }
}

/** The colours a CSS value names: hex words, colour functions, and names in colour properties. */
function colorsInValue(prop: string, value: string): string[] {
  const found: string[] = [];
  const namesAllowed = colorProperties.has(prop.toLowerCase()) || prop.startsWith('--');
  const visit = (nodes: ValueNode[]) => {
    for (const node of nodes) {
      if (node.type === 'word') {
        if (node.value.startsWith('#') || namesAllowed) {
          const hex = hexOf(node.value);
          if (hex) found.push(hex);
        }
      } else if (node.type === 'function') {
        const name = node.value.toLowerCase();
        if (colorFunctions.has(name)) {
          const hex = hexOf(valueParser.stringify(node));
          if (hex) found.push(hex);
        } else if (name !== 'url' && name !== 'var') visit(node.nodes);
      }
    }
  };
  visit(valueParser(value).nodes);
  return found;
}

/** The families a `font-family` value lists, in order (quoted or as words). */
function familiesInValue(value: string): string[] {
  const families: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) families.push(current.join(' '));
    current = [];
  };
  for (const node of valueParser(value).nodes) {
    if (node.type === 'div' && node.value === ',') flush();
    else if (node.type === 'string') current.push(node.value);
    else if (node.type === 'word') current.push(node.value);
    else if (node.type === 'function') current = [];
  }
  flush();
  return families.filter((f) => !f.startsWith('!'));
}

function parseCss(text: string): Root | null {
  try {
    return postcss.parse(text);
  } catch {
    return null;
  }
}

/** Tallies a stylesheet's colours (custom properties as `css-variable`) and font families. */
function readCss(root: Root, source: 'stylesheet' | 'inline', colors: ColorTally, fonts: FontTally): void {
  root.walkDecls((decl) => {
    const prop = decl.prop;
    if (prop.startsWith('--')) {
      for (const hex of colorsInValue(prop, decl.value)) colors.add(hex, 'css-variable', prop);
      return;
    }
    const lower = prop.toLowerCase();
    if (lower === 'font-family') {
      const role = decl.parent?.type === 'rule' ? fontRoleOf(decl.parent.selector) : null;
      // The first family of a stack is what the site means; the others are fallbacks.
      familiesInValue(decl.value).forEach((family, index) =>
        fonts.add(family, 'css', index === 0 ? role : null),
      );
      return;
    }
    for (const hex of colorsInValue(prop, decl.value)) colors.add(hex, source, null);
  });
}

function absolute(href: string | undefined, base: URL): string | null {
  if (!href || href.trim() === '') return null;
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/** Google Fonts families named in a stylesheet link (`family=Inter:wght@400;700`, `family=Open+Sans|Lato`). */
function googleFamilies(href: string): string[] {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return [];
  }
  if (url.hostname !== 'fonts.googleapis.com') return [];
  return url.searchParams
    .getAll('family')
    .flatMap((value) => value.split('|'))
    .map((spec) => spec.split(':')[0]!.trim())
    .filter((family) => family !== '');
}

/** `logo` in a JSON-LD node: a URL, an ImageObject (`url`/`contentUrl`), or a list of those. */
function logoUrlsOf(logo: unknown): string[] {
  if (typeof logo === 'string') return [logo];
  if (Array.isArray(logo)) return logo.flatMap(logoUrlsOf);
  if (logo && typeof logo === 'object') {
    const record = logo as Record<string, unknown>;
    const url = record.url ?? record.contentUrl;
    return typeof url === 'string' ? [url] : [];
  }
  return [];
}

const organizationTypes = new Set([
  'organization',
  'corporation',
  'localbusiness',
  'onlinebusiness',
  'onlinestore',
  'brand',
  'educationalorganization',
  'ngo',
  'newsmediaorganization',
]);

/** Organisation logos anywhere in a JSON-LD document (`@graph`, nested `publisher`, lists). */
function structuredDataLogos(data: unknown, out: string[], depth = 0): void {
  if (depth > 8 || data === null || typeof data !== 'object') return;
  if (Array.isArray(data)) {
    for (const item of data) structuredDataLogos(item, out, depth + 1);
    return;
  }
  const record = data as Record<string, unknown>;
  const types = ([] as unknown[]).concat(record['@type'] ?? []);
  if (types.some((t) => typeof t === 'string' && organizationTypes.has(t.toLowerCase())))
    out.push(...logoUrlsOf(record.logo));
  for (const value of Object.values(record))
    if (value && typeof value === 'object') structuredDataLogos(value, out, depth + 1);
}

function charsetOf(contentType: string | undefined): string | undefined {
  return contentType
    ?.split(';')
    .map((part) => part.trim())
    .find((part) => part.toLowerCase().startsWith('charset='))
    ?.slice('charset='.length)
    .replaceAll('"', '')
    .trim();
}

/**
 * The page as text: in the charset the response names, else the one the page declares in its first kilobyte
 * (`<meta charset>` or its http-equiv form, read with the HTML parser), else UTF-8.
 */
function decodeHtml(bytes: Uint8Array, contentType: string): string {
  let charset = charsetOf(contentType);
  if (!charset) {
    const head = cheerio.load(new TextDecoder('latin1').decode(bytes.subarray(0, 1024)));
    charset =
      head('meta[charset]').first().attr('charset')?.trim() ??
      charsetOf(head('meta[http-equiv="Content-Type" i]').first().attr('content'));
  }
  try {
    return new TextDecoder(charset || 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

function clean(text: string | undefined): string | null {
  const collapsed = (text ?? '').split(/\s+/).filter(Boolean).join(' ');
  return collapsed === '' ? null : collapsed;
}

function shortened(text: string | null): string | null {
  if (text === null || text.length <= maxTaglineLength) return text;
  const cut = text.slice(0, maxTaglineLength - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > 100 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function unreachable(websiteUrl: string): WebsiteCandidates {
  return {
    websiteUrl,
    reachable: false,
    siteName: null,
    tagline: null,
    colors: [],
    logos: [],
    images: [],
    fonts: [],
    suggestion: { website: websiteUrl },
  };
}

/** The URL as given, checked to be http(s); WebsiteRefused otherwise. */
export function websiteUrlOf(input: string): URL {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new WebsiteRefused(
      `"${input}" is not a URL; give the site's full address, e.g. https://example.com`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new WebsiteRefused(`Only http and https websites can be read (got ${url.protocol})`);
  return url;
}

export interface ReadWebsiteOptions {
  policy?: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>;
}

/**
 * Reads the page at `input` and lists its brand candidates. WebsiteRefused (a 400) for a URL that is not
 * http(s) or that the fetcher refuses (private or reserved addresses, also after a redirect or through DNS; a
 * page over the size cap; no complete answer before the deadline). A site that cannot be reached, answers an
 * error status or is not HTML gives `reachable: false` and empty lists.
 */
export async function readWebsite(
  input: string,
  options: ReadWebsiteOptions = {},
): Promise<WebsiteCandidates> {
  const url = websiteUrlOf(input);
  const websiteUrl = url.toString();
  const policy = options.policy ?? {};
  let page: SafeFetchResult;
  try {
    page = await safeFetch(websiteUrl, {
      ...policy,
      maxBytes: maxPageBytes,
      timeoutMs: pageTimeoutMs,
      headers: {
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
        'user-agent': 'BrandKitReader/1.0',
      },
    });
  } catch (error) {
    if (error instanceof UnsafeUrlError)
      throw new WebsiteRefused(`The website cannot be read: ${error.message}`);
    if ((error as { name?: string }).name === 'TimeoutError')
      throw new WebsiteRefused(
        `The website cannot be read: it did not answer in full within ${pageTimeoutMs / 1000} s`,
      );
    return unreachable(websiteUrl);
  }
  const type = mediaTypeOf(page.contentType);
  if (page.status < 200 || page.status > 299 || (type !== 'text/html' && type !== 'application/xhtml+xml'))
    return unreachable(websiteUrl);

  const $ = cheerio.load(decodeHtml(page.body, page.contentType));
  const base = absolute($('base[href]').first().attr('href'), new URL(page.url)) ?? page.url;
  const baseUrl = new URL(base);
  const colors = new ColorTally();
  const fonts = new FontTally();

  $('meta[name="theme-color"]').each((_, el) => {
    const hex = hexOf($(el).attr('content')?.trim() ?? '');
    if (hex) colors.add(hex, 'theme-color', null);
  });

  $('style').each((_, el) => {
    const root = parseCss($(el).text());
    if (root) readCss(root, 'inline', colors, fonts);
  });
  $('[style]').each((_, el) => {
    const root = parseCss(`x{${$(el).attr('style') ?? ''}}`);
    if (root) readCss(root, 'inline', colors, fonts);
  });

  const stylesheetLinks: string[] = [];
  $('link[href]').each((_, el) => {
    const rel = ($(el).attr('rel') ?? '').toLowerCase().split(/\s+/);
    const href = absolute($(el).attr('href'), baseUrl);
    if (!href) return;
    for (const family of googleFamilies(href)) fonts.add(family, 'google-fonts');
    if (rel.includes('stylesheet') && new URL(href).hostname !== 'fonts.googleapis.com')
      stylesheetLinks.push(href);
  });
  const sheets = await Promise.all(
    [...new Set(stylesheetLinks)].slice(0, maxStylesheets).map((href) => fetchStylesheet(href, policy)),
  );
  for (const text of sheets) {
    const root = text === null ? null : parseCss(text);
    if (!root) continue;
    root.walkAtRules('import', (rule) => {
      // `@import url(https://fonts.googleapis.com/css2?family=…)` names Google fonts too.
      valueParser(rule.params).walk((node) => {
        if (node.type === 'function' && node.value !== 'url') return;
        const href =
          node.type === 'function' && node.value === 'url'
            ? node.nodes[0]?.value
            : node.type === 'string'
              ? node.value
              : undefined;
        if (href) for (const family of googleFamilies(href)) fonts.add(family, 'google-fonts');
        // The url's own argument is not read a second time.
        return node.type !== 'function';
      });
    });
    readCss(root, 'stylesheet', colors, fonts);
  }

  const logos: WebsiteCandidates['logos'] = [];
  const addLogo = (href: string | undefined, source: LogoSource) => {
    const resolved = absolute(href, baseUrl);
    if (resolved && !logos.some((l) => l.url === resolved)) logos.push({ url: resolved, source });
  };
  $('script[type="application/ld+json"]').each((_, el) => {
    let data: unknown;
    try {
      data = JSON.parse($(el).text());
    } catch {
      return;
    }
    const found: string[] = [];
    structuredDataLogos(data, found);
    for (const href of found) addLogo(href, 'structured-data');
  });
  $('meta[property="og:logo"], meta[name="og:logo"]').each((_, el) =>
    addLogo($(el).attr('content'), 'og:logo'),
  );
  $('img').each((_, el) => {
    const img = $(el);
    const mentions = ['src', 'alt', 'class', 'id'].some((attr) =>
      (img.attr(attr) ?? '').toLowerCase().includes('logo'),
    );
    if (mentions) addLogo(img.attr('src'), 'img');
  });
  $('link[href]').each((_, el) => {
    const rel = ($(el).attr('rel') ?? '').toLowerCase().split(/\s+/);
    if (rel.includes('apple-touch-icon') || rel.includes('apple-touch-icon-precomposed'))
      addLogo($(el).attr('href'), 'apple-touch-icon');
  });
  $('link[href]').each((_, el) => {
    const rel = ($(el).attr('rel') ?? '').toLowerCase().split(/\s+/);
    if (rel.includes('icon')) addLogo($(el).attr('href'), 'icon');
  });

  const images: WebsiteCandidates['images'] = [];
  const addImage = (href: string | undefined, source: ImageSource) => {
    const resolved = absolute(href, baseUrl);
    if (resolved && !images.some((i) => i.url === resolved)) images.push({ url: resolved, source });
  };
  $('meta[property="og:image"], meta[name="og:image"], meta[property="og:image:url"]').each((_, el) =>
    addImage($(el).attr('content'), 'og:image'),
  );
  $('meta[name="twitter:image"], meta[property="twitter:image"], meta[name="twitter:image:src"]').each(
    (_, el) => addImage($(el).attr('content'), 'twitter:image'),
  );

  const siteName =
    clean($('meta[property="og:site_name"]').attr('content')) ?? clean($('title').first().text());
  const tagline = shortened(
    clean($('meta[name="description"]').attr('content')) ??
      clean($('meta[property="og:description"]').attr('content')),
  );

  const colorList = colors.list();
  const fontList = fonts.list();
  return {
    websiteUrl,
    reachable: true,
    siteName,
    tagline,
    colors: colorList,
    logos,
    images,
    fonts: fontList,
    suggestion: suggest(websiteUrl, colorList, fontList, logos, {
      heading: fonts.heading,
      body: fonts.body,
    }),
  };
}

async function fetchStylesheet(
  href: string,
  policy: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>,
): Promise<string | null> {
  try {
    const sheet = await safeFetch(href, {
      ...policy,
      maxBytes: maxStylesheetBytes,
      timeoutMs: stylesheetTimeoutMs,
      headers: { accept: 'text/css,*/*;q=0.1' },
    });
    if (sheet.status < 200 || sheet.status > 299) return null;
    const type = mediaTypeOf(sheet.contentType);
    if (type !== 'text/css' && type !== 'text/plain' && type !== 'application/octet-stream') return null;
    return new TextDecoder('utf-8').decode(sheet.body);
  } catch {
    // A stylesheet that is refused, too large, slow or unreachable is left out; the page itself was fine.
    return null;
  }
}

const logoPreference: Record<LogoSource, number> = {
  'structured-data': 0,
  'og:logo': 1,
  img: 2,
  'apple-touch-icon': 3,
  icon: 4,
};

function pathOf(url: string): string {
  return new URL(url).pathname.toLowerCase();
}

/**
 * The kit the candidates suggest: the most used brand (non-neutral) colours, a declared theme colour first, each
 * clearly different from the ones before; a light neutral background; installed fonts (Google Fonts first);
 * the most telling logo (structured data, og:logo, an SVG logo image, then touch icons and favicons).
 */
export function suggest(
  websiteUrl: string,
  colors: ColorCandidate[],
  fonts: { family: string; source: FontSource }[],
  logos: { url: string; source: LogoSource }[],
  roles: { heading: string[]; body: string[] } = { heading: [], body: [] },
): WebsiteSuggestion {
  const suggestion: WebsiteSuggestion = { website: websiteUrl };
  const totals = new Map<string, { uses: number; theme: boolean; neutral: boolean }>();
  for (const c of colors) {
    const t = totals.get(c.hex) ?? { uses: 0, theme: false, neutral: c.neutral };
    t.uses += c.uses;
    if (c.source === 'theme-color') t.theme = true;
    totals.set(c.hex, t);
  }
  const ranked = [...totals.entries()].sort(
    ([a, x], [b, y]) => Number(y.theme) - Number(x.theme) || y.uses - x.uses || a.localeCompare(b),
  );
  const picked: string[] = [];
  for (const [hex, t] of ranked) {
    if (t.neutral) continue;
    if (picked.some((p) => difference(p, hex) < 12)) continue;
    picked.push(hex);
    if (picked.length === 3) break;
  }
  const palette: NonNullable<WebsiteSuggestion['colors']> = {};
  if (picked[0]) palette.primary = picked[0];
  if (picked[1]) palette.secondary = picked[1];
  if (picked[2]) palette.accent = picked[2];
  const background = ranked.find(([hex, t]) => t.neutral && (toLch(hex)?.l ?? 0) >= 90)?.[0];
  if (background) palette.background = background;
  if (Object.keys(palette).length > 0) suggestion.colors = palette;

  const installedOf = (names: string[]) => [
    ...new Set(
      names.map((name) => installedFontFamily(name)).filter((f): f is NonNullable<typeof f> => f !== null),
    ),
  ];
  const installed = installedOf(fonts.map((f) => f.family));
  // A font the site's heading rules use, else the first installed one; body text likewise, else another one.
  const heading = installedOf(roles.heading)[0] ?? installed[0];
  const bodyFonts = installedOf(roles.body);
  const body =
    bodyFonts.find((f) => f !== heading) ?? bodyFonts[0] ?? installed.find((f) => f !== heading) ?? heading;
  if (heading) suggestion.headingFont = heading;
  if (body) suggestion.bodyFont = body;

  const best = [...logos].sort(
    (a, b) =>
      logoPreference[a.source] - logoPreference[b.source] ||
      Number(pathOf(b.url).endsWith('.svg')) - Number(pathOf(a.url).endsWith('.svg')),
  )[0];
  if (best) suggestion.logo = { url: best.url };
  return suggestion;
}
