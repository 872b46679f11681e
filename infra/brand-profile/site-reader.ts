// Reads a few pages of a website for the brand profile (spec part 2, `POST ORG/brand/profile/from-website`): the
// home page, then its about and pricing pages when the home page links to them (same site only). This thread only
// fetches, through the SSRF-safe fetcher, each page cut at maxSitePageBytes and all of them within maxSiteBytes;
// the pages are parsed in the page-text pool's threads (page-text-parser.ts), under a deadline.
import type { SitePage, SitePageKind } from '../../domain/brand-profile/infer-job.js';
import type { OutboundPolicy } from '../http/safe-fetch.js';
import { checkedWebsiteUrl, fetchHtmlPrefix, WebsiteRefused } from '../brand/website-reader.js';
import { WebsiteParseFailed } from '../brand/website-parser.js';
import type { PageLink } from './page-text.js';
import { sharedPageTextParser, type PageTextParser } from './page-text-parser.js';

export { WebsiteRefused } from '../brand/website-reader.js';
export { WebsiteParseFailed } from '../brand/website-parser.js';

/** Each page is read up to this size; the rest is not read (the connection is closed). */
export const maxSitePageBytes = 512 * 1024;
/** Everything one read fetches, every page together. */
export const maxSiteBytes = 1280 * 1024;
export const sitePageTimeoutMs = 10_000;

/** The home page could not be read (whatever the network or the site said; the reason is only logged). */
export class SiteUnreachable extends Error {}

export interface ReadSiteOptions {
  policy?: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>;
  parser?: PageTextParser;
  /** Tests only: each page's deadline in place of sitePageTimeoutMs. */
  timeoutMs?: number;
  /** Why a page was not read, for the server's log only. */
  onUnreadable?: (url: string, reason: unknown) => void;
}

export interface SiteRead {
  /** The address as given, normalised. */
  websiteUrl: string;
  /** The pages read, home first. */
  pages: SitePage[];
}

const aboutPage = /^(about|about-us|about-me|company|who-we-are|our-story|story|team|me)(\.html?)?$/i;
const pricingPage = /^(pricing|prices|plans|plans-and-pricing|tarifs|preise)(\.html?)?$/i;

/**
 * Whether the path is a site's page of that kind: `/pricing`, `/en/pricing`, `/company/about`; not an article
 * deeper in the site that happens to be about pricing (`/blog/pricing`).
 */
function isPage(pathname: string, page: RegExp): boolean {
  const segments = pathname.split('/').filter((s) => s.length > 0);
  const last = segments[segments.length - 1];
  if (last === undefined || !page.test(last)) return false;
  if (segments.length === 1) return true;
  return segments.length === 2 && /^([a-z]{2}(-[a-z]{2})?|company)$/i.test(segments[0]!);
}

/** The about and pricing pages the home page links to, on the same site (host, www. aside). */
export function linkedPages(home: string, links: readonly PageLink[]): { kind: SitePageKind; url: string }[] {
  const base = new URL(home);
  const host = (h: string) => h.replace(/^www\./, '');
  const found = new Map<SitePageKind, string>();
  for (const link of links) {
    const url = new URL(link.url);
    if (host(url.hostname) !== host(base.hostname) || url.protocol !== base.protocol) continue;
    url.search = '';
    if (url.pathname === base.pathname || url.pathname === '/') continue;
    const text = link.text.toLowerCase();
    if (!found.has('about') && (isPage(url.pathname, aboutPage) || /^about\b/.test(text)))
      found.set('about', url.toString());
    else if (!found.has('pricing') && (isPage(url.pathname, pricingPage) || /^(pricing|plans)$/.test(text)))
      found.set('pricing', url.toString());
  }
  return [...found].map(([kind, url]) => ({ kind, url }));
}

/**
 * Reads the site at `input`. WebsiteRefused for an address refused by itself (not http(s), a private address
 * literal, a port) and for a home page the parser cannot finish; SiteUnreachable when the home page cannot be
 * fetched (the reason goes to onUnreadable only); WebsiteParseFailed (`busy`) when too many pages wait for a
 * parser. An about or pricing page that cannot be read is left out.
 */
export async function readSite(input: string, options: ReadSiteOptions = {}): Promise<SiteRead> {
  const policy = options.policy ?? {};
  const url = checkedWebsiteUrl(input, policy);
  const websiteUrl = url.toString();
  const parser = options.parser ?? sharedPageTextParser();
  let budget = maxSiteBytes;

  const readPage = async (pageUrl: string, kind: SitePageKind) => {
    const page = await fetchHtmlPrefix(pageUrl, policy, {
      maxBytes: Math.min(maxSitePageBytes, budget),
      timeoutMs: options.timeoutMs ?? sitePageTimeoutMs,
      userAgent: 'BrandProfileReader/1.0',
    });
    budget -= page.body.byteLength;
    return parser.run({ ...page, kind });
  };

  let home: Awaited<ReturnType<typeof readPage>>;
  try {
    home = await readPage(websiteUrl, 'home');
  } catch (error) {
    options.onUnreadable?.(websiteUrl, error);
    if (error instanceof WebsiteParseFailed) {
      if (error.reason === 'busy') throw error;
      throw new WebsiteRefused(`The website cannot be read: ${error.message}`);
    }
    throw new SiteUnreachable(`The website ${websiteUrl} could not be read`);
  }

  const pages: SitePage[] = [home.page];
  for (const { kind, url: pageUrl } of linkedPages(home.page.url, home.links)) {
    if (budget <= 0) break;
    try {
      pages.push((await readPage(pageUrl, kind)).page);
    } catch (error) {
      options.onUnreadable?.(pageUrl, error);
      if (error instanceof WebsiteParseFailed && error.reason === 'busy') throw error;
    }
  }
  return { websiteUrl, pages };
}
