// Niche news (issue 31, part 3): a news item as every feed format becomes it, and how relevant it is to the
// workspace: the terms it mentions (the strategy's pillars and their keywords, the newsjacking keywords), less
// when it holds an exclude term, more when it is fresh. Pure: the clock comes in with the call.
import { matchedTerms, type ResearchSource } from './sources.js';

/** An item of a feed, normalised (infra/research/feed-parse.ts makes them from RSS, Atom, RDF and JSON Feed). */
export interface FeedEntry {
  /** The feed's guid or id, else the link, else the title. */
  key: string;
  title: string;
  url: string | null;
  /** Plain text, at most `newsLimits.summaryLength` characters. */
  summary: string;
  publishedAt: string | null;
}

export const newsLimits = {
  summaryLength: 500,
  titleLength: 300,
  /** Items kept of one feed (the newest). */
  itemsPerFeed: 50,
} as const;

export interface NewsItem {
  id: string;
  title: string;
  url: string | null;
  summary: string;
  publishedAt: string | null;
  feedId: string | null;
  feedName: string;
  source: ResearchSource;
  /** The workspace's terms it mentions. */
  matchedTerms: string[];
  /** 0-100: terms matched and freshness. */
  relevance: number;
  /** At or above the newsjacking alert threshold: worth reacting to now. */
  alert: boolean;
}

/**
 * Relevance 0-100: 50 for the first term matched, 10 for each other (at most 30 more), and up to 20 for
 * freshness (20 within a day, 10 within three days); 0 when it holds an exclude term. With no terms at all every
 * item counts by freshness alone.
 */
export function newsRelevance(
  entry: Pick<FeedEntry, 'title' | 'summary' | 'publishedAt'>,
  terms: readonly string[],
  excludeTerms: readonly string[],
  now: string,
): { relevance: number; matched: string[] } {
  const text = `${entry.title}\n${entry.summary}`;
  if (matchedTerms(text, excludeTerms).length > 0) return { relevance: 0, matched: [] };
  const matched = matchedTerms(text, terms);
  const ageHours = entry.publishedAt
    ? (Date.parse(now) - Date.parse(entry.publishedAt)) / 3_600_000
    : Number.POSITIVE_INFINITY;
  const freshness = ageHours <= 24 ? 20 : ageHours <= 72 ? 10 : 0;
  const termScore = matched.length === 0 ? 0 : 50 + Math.min(30, (matched.length - 1) * 10);
  return { relevance: Math.min(100, termScore + freshness), matched };
}
