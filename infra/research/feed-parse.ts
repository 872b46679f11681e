// A news feed's bytes to its entries (issue 31, part 3): feedsmith (a maintained RSS/Atom/RDF/JSON Feed parser)
// reads the document, and each item becomes a FeedEntry (domain/research/news.ts): plain-text title and summary
// (markup dropped with cheerio), the link, the date as ISO, bounded lengths, the newest first. Runs in the feed
// parser's threads (feed-worker.ts): the document is untrusted.
import { load } from 'cheerio';
import { parseFeed } from 'feedsmith';
import { newsLimits, type FeedEntry } from '../../domain/research/news.js';

export interface ParsedFeed {
  format: 'rss' | 'atom' | 'rdf' | 'json';
  title: string | null;
  entries: FeedEntry[];
}

/** Why a document is not a feed: not one of the formats, or broken. */
export class FeedFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedFormatError';
  }
}

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (v !== null && typeof v === 'object' ? (v as Node) : {});
const arr = (v: unknown): Node[] => (Array.isArray(v) ? v.map(obj) : []);
/** The first value that is there (not undefined, null or empty). */
const first = (...values: unknown[]): unknown =>
  values.find((v) => v !== undefined && v !== null && v !== '');

/** A text construct as feedsmith gives it: a string, or `{ value }` (Atom's, RSS guids). */
const textOf = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const inner = obj(value).value;
  return typeof inner === 'string' ? inner : '';
};

/** Markup to plain text, whitespace collapsed, cut at `max` characters (an ellipsis marks the cut). */
export function plainText(html: string, max: number): string {
  const text = (/[<&]/.test(html) ? load(`<body>${html}</body>`)('body').text() : html)
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

function isoOf(value: unknown): string | null {
  if (typeof value !== 'string' && !(value instanceof Date)) return null;
  const time = new Date(value).getTime();
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}

function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

interface Raw {
  key: unknown;
  title: unknown;
  url: unknown;
  summary: unknown;
  published: unknown;
}

/** The items of a parsed feed, read field by field: feedsmith's item types differ per format. */
function rawItems(format: ParsedFeed['format'], feed: Node): Raw[] {
  switch (format) {
    case 'rss':
    case 'rdf':
      return arr(feed.items).map((i) => {
        const guid = obj(i.guid);
        const dc = obj(i.dc);
        return {
          key: first(guid.value, i.guid, i.link, i.title),
          title: i.title,
          url: first(i.link, guid.isPermaLink !== false ? guid.value : undefined),
          summary: first(i.description, obj(i.content).encoded, dc.description),
          published: first(
            i.pubDate,
            dc.date,
            Array.isArray(dc.dates) ? (dc.dates as unknown[])[0] : undefined,
          ),
        };
      });
    case 'atom':
      return arr(feed.entries).map((e) => {
        const links = arr(e.links);
        const link = links.find((l) => !l.rel || l.rel === 'alternate') ?? links[0] ?? {};
        return {
          key: first(e.id, link.href, textOf(e.title)),
          title: e.title,
          url: link.href,
          summary: first(e.summary, e.content),
          published: first(e.published, e.updated),
        };
      });
    case 'json':
      return arr(feed.items).map((i) => ({
        key: first(i.id, i.url, i.title),
        title: i.title,
        url: first(i.url, i.external_url),
        summary: first(i.summary, i.content_text, i.content_html),
        published: first(i.date_published, i.date_modified),
      }));
  }
}

/** Parses a feed document; FeedFormatError when it is not RSS, Atom, RDF or JSON Feed, or is broken. */
export function parseNewsFeed(document: string): ParsedFeed {
  let parsed: { format: string; feed: unknown };
  try {
    parsed = parseFeed(document);
  } catch (error) {
    const name = (error as Error).name;
    throw new FeedFormatError(
      name === 'DetectError'
        ? 'not an RSS, Atom, RDF or JSON feed'
        : `the feed is malformed (${(error as Error).message})`,
    );
  }
  const format = parsed.format as ParsedFeed['format'];
  const entries: FeedEntry[] = [];
  const keys = new Set<string>();
  for (const raw of rawItems(format, obj(parsed.feed))) {
    const title = plainText(textOf(raw.title), newsLimits.titleLength);
    const summary = plainText(textOf(raw.summary), newsLimits.summaryLength);
    if (!title && !summary) continue;
    const url = httpUrl(raw.url);
    const key = (textOf(raw.key) || url || title).slice(0, 500);
    if (keys.has(key)) continue;
    keys.add(key);
    entries.push({
      key,
      title: title || plainText(summary, 80),
      url,
      summary,
      publishedAt: isoOf(raw.published),
    });
  }
  entries.sort((a, b) => (b.publishedAt ?? '').localeCompare(a.publishedAt ?? ''));
  return {
    format,
    title: plainText(textOf(obj(parsed.feed).title), newsLimits.titleLength) || null,
    entries: entries.slice(0, newsLimits.itemsPerFeed),
  };
}
