// Reads a public web page for brand-kit candidates (spec part 2, `GET ORG/brand/kit/website`). This thread only
// fetches: the page (its first maxPageBytes) and a few of its stylesheets through the SSRF-safe fetcher, within
// one byte budget; website-parse.ts parses them in the parser pool's threads, under a deadline. Nothing is saved.
import {
  checkUrl,
  safeFetch,
  safeFetchStream,
  UnsafeUrlError,
  type OutboundPolicy,
} from '../http/safe-fetch.js';
import type { WebsiteCandidates } from './website-candidates.js';
import { sharedWebsiteParser, WebsiteParseFailed, type WebsiteParser } from './website-parser.js';

export {
  colorSources,
  fontSources,
  imageSources,
  logoSources,
  maxAnswerBytes,
  maxColors,
  maxFonts,
  maxImages,
  maxLogos,
  maxUrlLength,
  type ColorCandidate,
  type ColorSource,
  type FontSource,
  type ImageSource,
  type LogoSource,
  type WebsiteCandidates,
  type WebsiteSuggestion,
} from './website-candidates.js';
export { WebsiteParseFailed } from './website-parser.js';

/** The media type of a Content-Type header, without its parameters, lower case. */
export function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** The page is read up to this size; what follows is not read (the head, where brands live, comes first). */
export const maxPageBytes = 512 * 1024;
/** Each stylesheet up to this size (or its share of the budget left); larger ones are skipped. */
export const maxStylesheetBytes = 256 * 1024;
/** At most this many linked stylesheets are read, in document order. */
export const maxStylesheets = 4;
/** Everything one read fetches, the page and its stylesheets together. */
export const maxFetchedBytes = 1024 * 1024;
export const pageTimeoutMs = 10_000;
export const stylesheetTimeoutMs = 5_000;

/** The URL is refused by itself (not a URL, not http(s), a private address literal, a port): a 400. */
export class WebsiteRefused extends Error {}

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

/** The website's address, checked against the outbound policy by itself (WebsiteRefused when refused). */
export function checkedWebsiteUrl(input: string, policy: OutboundPolicy): URL {
  const url = websiteUrlOf(input);
  try {
    checkUrl(url, policy);
  } catch (error) {
    if (error instanceof UnsafeUrlError)
      throw new WebsiteRefused(`The website cannot be read: ${error.message}`);
    throw error;
  }
  return url;
}

export interface ReadWebsiteOptions {
  policy?: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>;
  /** Where pages are parsed (default: the process's shared pool). */
  parser?: WebsiteParser;
  /**
   * Why a site could not be read, for the server's log only: the caller is answered `reachable: false` alike
   * whether the name does not resolve, resolves to a private address, refuses, answers 404 or is too slow.
   */
  onUnreadable?: (url: string, reason: unknown) => void;
  /** Tests only: the deadline of the page and of each stylesheet, in place of pageTimeoutMs and stylesheetTimeoutMs. */
  timeoutMs?: number;
}

/** The first `limit` bytes of a body; the rest is never read (the connection is closed). */
/**
 * Fetches an HTML page through the SSRF-safe fetcher and keeps its first `maxBytes` (no byte cap in the fetcher: a
 * longer page is cut here rather than refused). A non-2xx answer or a body that is not HTML throws.
 */
export async function fetchHtmlPrefix(
  url: string,
  policy: OutboundPolicy,
  options: { maxBytes: number; timeoutMs: number; userAgent: string },
): Promise<{ body: Uint8Array; contentType: string; url: string }> {
  const response = await safeFetchStream(url, {
    ...policy,
    maxBytes: Number.MAX_SAFE_INTEGER,
    timeoutMs: options.timeoutMs,
    headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1', 'user-agent': options.userAgent },
  });
  const type = mediaTypeOf(response.contentType);
  if (
    response.status < 200 ||
    response.status > 299 ||
    (type !== 'text/html' && type !== 'application/xhtml+xml')
  ) {
    await response.body.cancel();
    throw new Error(`answered ${response.status} ${type}`);
  }
  return {
    body: await readPrefix(response.body, options.maxBytes),
    contentType: response.contentType,
    url: response.url,
  };
}

export async function readPrefix(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const out = new Uint8Array(limit);
  let size = 0;
  const reader = body.getReader();
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.byteLength, limit - size);
      out.set(value.subarray(0, take), size);
      size += take;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return out.slice(0, size);
}

/**
 * Reads the page at `input` and lists its brand candidates, bounded (see website-parse.ts: at most a few of
 * each kind, URLs and names of bounded length). WebsiteRefused (a 400) for a URL that says by itself that it
 * cannot be read (not http(s), credentials, a port other than 80/443, a private address literal or `localhost`)
 * and for a page the parser cannot finish within its deadline and memory. Every failure of the fetch itself
 * (no such name, a private address behind a name or a redirect, a refusal, an error status, not HTML, too
 * slow) answers the same `reachable: false`, so the answer tells nothing of the network behind this server.
 * WebsiteParseFailed (`busy`) when too many pages are waiting for a parser thread.
 */
export async function readWebsite(
  input: string,
  options: ReadWebsiteOptions = {},
): Promise<WebsiteCandidates> {
  const policy = options.policy ?? {};
  const url = checkedWebsiteUrl(input, policy);
  const websiteUrl = url.toString();
  const parser = options.parser ?? sharedWebsiteParser();
  const unreadable = (reason: unknown) => {
    options.onUnreadable?.(websiteUrl, reason);
    return unreachable(websiteUrl);
  };

  let page: { body: Uint8Array; contentType: string; url: string };
  try {
    page = await fetchHtmlPrefix(websiteUrl, policy, {
      maxBytes: maxPageBytes,
      timeoutMs: options.timeoutMs ?? pageTimeoutMs,
      userAgent: 'BrandKitReader/1.0',
    });
  } catch (error) {
    return unreadable(error);
  }

  try {
    const { parse } = await parser.run({
      kind: 'page',
      input: { ...page, websiteUrl, maxStylesheets },
    });
    // The stylesheets share what the page left of the budget.
    const budget = maxFetchedBytes - page.body.byteLength;
    const share = Math.min(maxStylesheetBytes, Math.floor(budget / Math.max(1, parse.stylesheets.length)));
    const sheetTimeoutMs = options.timeoutMs ?? stylesheetTimeoutMs;
    const sheets = await Promise.all(
      parse.stylesheets.map((href) => fetchStylesheet(href, policy, share, sheetTimeoutMs)),
    );
    const { candidates } = await parser.run({ kind: 'sheets', state: parse.state, sheets });
    return candidates;
  } catch (error) {
    if (error instanceof WebsiteParseFailed && error.reason !== 'busy') {
      options.onUnreadable?.(websiteUrl, error.cause ?? error);
      throw new WebsiteRefused(`The website cannot be read: ${error.message}`);
    }
    throw error;
  }
}

async function fetchStylesheet(
  href: string,
  policy: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>,
  maxBytes: number,
  timeoutMs: number,
): Promise<string | null> {
  try {
    const sheet = await safeFetch(href, {
      ...policy,
      maxBytes,
      timeoutMs,
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
