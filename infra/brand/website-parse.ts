// Parses a fetched web page and its stylesheets into brand-kit candidates (spec part 2, `GET ORG/brand/kit/website`):
// colours, logos, images and fonts with where each was found, plus a suggested kit. Runs in the website worker
// thread (website-worker.ts), never on the request thread; its answer is bounded in count and length.
// HTML is parsed with cheerio, CSS with postcss and postcss-value-parser (no regular expressions over markup).
import * as cheerio from 'cheerio';
import { converter, differenceCiede2000, formatHex, parse as parseColor } from 'culori';
import postcss, { type Root } from 'postcss';
import valueParser, { type Node as ValueNode } from 'postcss-value-parser';
import { installedFontFamily } from '../visuals/contract.js';
import {
  colorSources,
  fontSources,
  maxColors,
  maxLogos,
  maxImages,
  maxFonts,
  maxUrlLength,
  maxSiteNameLength,
  maxTaglineLength,
  maxFamilyLength,
  maxDetailLength,
  type ColorSource,
  type LogoSource,
  type ImageSource,
  type FontSource,
  type ColorCandidate,
  type WebsiteSuggestion,
  type WebsiteCandidates,
} from './website-candidates.js';

export * from './website-candidates.js';

/** Candidates collected per logo or image source before the rest are ignored (dedupe stays cheap). */
const maxPerSource = 16;
/** Style attributes read per page. */
const maxStyleAttributes = 2000;
/** Families remembered for heading and body rules. */
const maxRoleFamilies = 16;

const emptyFonts = { counts: [], heading: [], body: [] };

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

  constructor(entries: readonly ColorCandidate[] = []) {
    for (const c of entries) this.counts.set(`${c.hex}|${c.source}|${c.detail ?? ''}`, { ...c });
  }

  add(hex: string, source: ColorSource, detail: string | null): void {
    // A custom property with an absurd name is no brand colour's name; it would only swell the answer.
    if (detail !== null && detail.length > maxDetailLength) return;
    const key = `${hex}|${source}|${detail ?? ''}`;
    const existing = this.counts.get(key);
    if (existing) existing.uses += 1;
    else this.counts.set(key, { hex, source, detail, uses: 1, neutral: isNeutral(hex) });
  }

  entries(): ColorCandidate[] {
    return [...this.counts.values()];
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

export interface FontCount {
  family: string;
  source: FontSource;
  uses: number;
  at: number;
}

class FontTally {
  private readonly counts = new Map<string, FontCount>();
  /** Families in the order the rules for headings and for body text name them first (the first few). */
  readonly heading: string[];
  readonly body: string[];

  constructor(state: { counts: readonly FontCount[]; heading: string[]; body: string[] } = emptyFonts) {
    for (const f of state.counts) this.counts.set(`${f.family.toLowerCase()}|${f.source}`, { ...f });
    this.heading = [...state.heading];
    this.body = [...state.body];
  }

  add(family: string, source: FontSource, role: FontRole = null): void {
    const name = family.trim();
    if (name === '' || name.length > maxFamilyLength || genericFamilies.has(name.toLowerCase())) return;
    if (role === 'heading' && this.heading.length < maxRoleFamilies && !this.heading.includes(name))
      this.heading.push(name);
    if (role === 'body' && this.body.length < maxRoleFamilies && !this.body.includes(name))
      this.body.push(name);
    const key = `${name.toLowerCase()}|${source}`;
    const existing = this.counts.get(key);
    if (existing) existing.uses += 1;
    else this.counts.set(key, { family: name, source, uses: 1, at: this.counts.size });
  }

  state(): { counts: FontCount[]; heading: string[]; body: string[] } {
    return { counts: [...this.counts.values()], heading: this.heading, body: this.body };
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

/** The http(s) URL `href` names against `base`; null for another scheme or one longer than maxUrlLength. */
function absolute(href: string | undefined, base: URL): string | null {
  if (!href || href.trim() === '' || href.length > maxUrlLength * 2) return null;
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    const text = url.toString();
    return text.length <= maxUrlLength ? text : null;
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

function clean(text: string | undefined): string | null {
  const collapsed = (text ?? '').split(/\s+/).filter(Boolean).join(' ');
  return collapsed === '' ? null : collapsed;
}

function shortened(text: string | null, max = maxTaglineLength): string | null {
  if (text === null || text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > 100 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export interface PageParseInput {
  /** The page's bytes as fetched (at most the reader's page cap). */
  body: Uint8Array;
  contentType: string;
  /** The URL that answered, after redirects (relative links resolve against it or the page's <base>). */
  url: string;
  websiteUrl: string;
  /** At most this many stylesheet links are listed, in document order. */
  maxStylesheets: number;
}

/** What the page itself gave, to be completed by its stylesheets (plain data: it crosses threads). */
export interface PageState {
  websiteUrl: string;
  siteName: string | null;
  tagline: string | null;
  colors: ColorCandidate[];
  fonts: { counts: FontCount[]; heading: string[]; body: string[] };
  logos: { url: string; source: LogoSource }[];
  images: { url: string; source: ImageSource }[];
}

export interface PageParse {
  state: PageState;
  /** Stylesheets the page links (Google Fonts aside), absolute, distinct, at most `maxStylesheets`. */
  stylesheets: string[];
}

/** Reads the page: its meta tags, inline styles, structured data, links, and the stylesheets it links. */
export function parsePage(input: PageParseInput): PageParse {
  const $ = cheerio.load(decodeHtml(input.body, input.contentType));
  const pageUrl = new URL(input.url);
  const base = absolute($('base[href]').first().attr('href'), pageUrl) ?? input.url;
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
  // The first few thousand style attributes tell the brand; the rest would only spend the parse's deadline.
  $('[style]')
    .slice(0, maxStyleAttributes)
    .each((_, el) => {
      const root = parseCss(`x{${$(el).attr('style') ?? ''}}`);
      if (root) readCss(root, 'inline', colors, fonts);
    });

  const stylesheets = new Set<string>();
  $('link[href]').each((_, el) => {
    const rel = ($(el).attr('rel') ?? '').toLowerCase().split(/\s+/);
    const href = absolute($(el).attr('href'), baseUrl);
    if (!href) return;
    for (const family of googleFamilies(href)) fonts.add(family, 'google-fonts');
    if (
      rel.includes('stylesheet') &&
      new URL(href).hostname !== 'fonts.googleapis.com' &&
      stylesheets.size < input.maxStylesheets
    )
      stylesheets.add(href);
  });

  const logos: PageState['logos'] = [];
  const logoCounts = new Map<LogoSource, number>();
  const seenLogos = new Set<string>();
  const addLogo = (href: string | undefined, source: LogoSource) => {
    const resolved = absolute(href, baseUrl);
    if (!resolved || seenLogos.has(resolved) || (logoCounts.get(source) ?? 0) >= maxPerSource) return;
    seenLogos.add(resolved);
    logoCounts.set(source, (logoCounts.get(source) ?? 0) + 1);
    logos.push({ url: resolved, source });
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
    for (const href of found.slice(0, maxPerSource)) addLogo(href, 'structured-data');
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

  const images: PageState['images'] = [];
  const seenImages = new Set<string>();
  const addImage = (href: string | undefined, source: ImageSource) => {
    const resolved = absolute(href, baseUrl);
    if (!resolved || seenImages.has(resolved) || images.length >= maxPerSource) return;
    seenImages.add(resolved);
    images.push({ url: resolved, source });
  };
  $('meta[property="og:image"], meta[name="og:image"], meta[property="og:image:url"]').each((_, el) =>
    addImage($(el).attr('content'), 'og:image'),
  );
  $('meta[name="twitter:image"], meta[property="twitter:image"], meta[name="twitter:image:src"]').each(
    (_, el) => addImage($(el).attr('content'), 'twitter:image'),
  );

  const siteName = shortened(
    clean($('meta[property="og:site_name"]').attr('content')) ?? clean($('title').first().text()),
    maxSiteNameLength,
  );
  const tagline = shortened(
    clean($('meta[name="description"]').attr('content')) ??
      clean($('meta[property="og:description"]').attr('content')),
  );

  return {
    state: {
      websiteUrl: input.websiteUrl,
      siteName,
      tagline,
      colors: colors.entries(),
      fonts: fonts.state(),
      logos,
      images,
    },
    stylesheets: [...stylesheets],
  };
}

/** Completes the page's candidates with its stylesheets (null: not read) and answers them, bounded. */
export function finishPage(state: PageState, sheets: readonly (string | null)[]): WebsiteCandidates {
  const colors = new ColorTally(state.colors);
  const fonts = new FontTally(state.fonts);
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
  const colorList = colors.list();
  const fontList = fonts.list();
  // The suggestion weighs everything found; the lists answered are the first few of each.
  return {
    websiteUrl: state.websiteUrl,
    reachable: true,
    siteName: state.siteName,
    tagline: state.tagline,
    colors: colorList.slice(0, maxColors),
    logos: state.logos.slice(0, maxLogos),
    images: state.images.slice(0, maxImages),
    fonts: fontList.slice(0, maxFonts),
    suggestion: suggest(state.websiteUrl, colorList, fontList, state.logos, {
      heading: fonts.heading,
      body: fonts.body,
    }),
  };
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
