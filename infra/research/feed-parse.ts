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

type Textish = string | { value?: string | undefined } | undefined | null;

const textOf = (value: Textish): string =>
  typeof value === 'string' ? value : typeof value?.value === 'string' ? value.value : '';

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
  title: Textish;
  url: unknown;
  summary: Textish;
  published: unknown;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- feedsmith's item types differ per format; read defensively */
function rawItems(format: ParsedFeed['format'], feed: any): Raw[] {
  switch (format) {
    case 'rss':
    case 'rdf':
      return ((feed.items ?? []) as any[]).map((i) => ({
        key: i.guid?.value ?? i.guid ?? i.link ?? i.title,
        title: i.title,
        url: i.link ?? (i.guid?.isPermaLink !== false ? i.guid?.value : undefined),
        summary: i.description ?? i.content?.encoded ?? i.dc?.description,
        published: i.pubDate ?? i.dc?.date ?? i.dc?.dates?.[0],
      }));
    case 'atom':
      return ((feed.entries ?? []) as any[]).map((e) => {
        const links = (e.links ?? []) as { href?: string; rel?: string }[];
        const link = links.find((l) => !l.rel || l.rel === 'alternate') ?? links[0];
        return {
          key: e.id ?? link?.href ?? textOf(e.title),
          title: e.title,
          url: link?.href,
          summary: e.summary ?? e.content,
          published: e.published ?? e.updated,
        };
      });
    case 'json':
      return ((feed.items ?? []) as any[]).map((i) => ({
        key: i.id ?? i.url ?? i.title,
        title: i.title,
        url: i.url ?? i.external_url,
        summary: i.summary ?? i.content_text ?? i.content_html,
        published: i.date_published ?? i.date_modified,
      }));
  }
}

/** Parses a feed document; FeedFormatError when it is not RSS, Atom, RDF or JSON Feed, or is broken. */
export function parseNewsFeed(document: string): ParsedFeed {
  let parsed: { format: string; feed: any };
  try {
    parsed = parseFeed(document) as { format: string; feed: any };
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
  for (const raw of rawItems(format, parsed.feed)) {
    const title = plainText(textOf(raw.title), newsLimits.titleLength);
    const summary = plainText(textOf(raw.summary), newsLimits.summaryLength);
    if (!title && !summary) continue;
    const url = httpUrl(raw.url);
    const key = String(textOf(raw.key as Textish) || url || title).slice(0, 500);
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
    title: plainText(textOf(parsed.feed.title), newsLimits.titleLength) || null,
    entries: entries.slice(0, newsLimits.itemsPerFeed),
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */
