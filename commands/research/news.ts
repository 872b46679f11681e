// Niche news (issue 31, part 3), GET ORG/inspiration/news (get_niche_news): the items of the news feeds the
// newsjacking settings name (read through infra/research/feed-reader.ts: the safe fetcher, parsed off-thread, cached)
// and, when the workspace reads no feed of its own (or none could be read), the curated set's reference items — each labelled with its
// source — scored against the workspace's terms (domain/research/news.ts), the relevant first. Reads only; spends
// nothing; a feed that cannot be read is a warning.
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { newsRelevance, type FeedEntry, type NewsItem } from '../../domain/research/news.js';
import { matchedTerms, uniqueTerms, type ResearchSource } from '../../domain/research/sources.js';
import { readFeeds } from '../../infra/research/feed-reader.js';
import { curatedSet, curatedSource } from '../../infra/research/curated.js';
import { newsjackingSettingsOf, researchReading } from './newsjacking-settings.js';
import { workspaceTerms, type ResearchDeps } from './shared.js';

export interface NewsAnswer {
  items: NewsItem[];
  /** Every source read for this answer (each item names its own). */
  sources: ResearchSource[];
  /** The terms items were matched against (pillars and their keywords, newsjacking keywords, `query`). */
  terms: string[];
  alertThreshold: number;
  warnings: string[];
}

export interface NewsInput {
  orgId: string;
  /** Only items mentioning this term (besides the workspace's). */
  query?: string | undefined;
  /** `true` (default): only items that mention a term, when there are terms; `false`: every item. */
  matchedOnly?: boolean | undefined;
  limit?: number | undefined;
}

/** Tool: get_niche_news. */
export async function getNicheNews(
  deps: ResearchDeps,
  caller: Caller,
  input: NewsInput,
  now: string,
): Promise<NewsAnswer> {
  authorize(caller, researchReading(input.orgId));
  const [{ terms: workspace }, settingsState] = await Promise.all([
    workspaceTerms(deps.commands, input.orgId, now),
    newsjackingSettingsOf(deps.commands, input.orgId),
  ]);
  const settings = settingsState.settings;
  const query = input.query?.trim() || null;
  const terms = query ? [query] : workspace;
  const warnings: string[] = [];
  const sources: ResearchSource[] = [];
  const candidates: { entry: FeedEntry; feedId: string | null; feedName: string; source: ResearchSource }[] =
    [];

  const feeds = settings.enabled ? settings.feeds.filter((f) => f.enabled) : [];
  if (!settings.enabled && settings.feeds.length > 0)
    warnings.push(
      'Newsjacking is off: the workspace’s feeds were not read (update_newsjacking_settings enabled: true)',
    );
  for (const read of await readFeeds(deps.feeds, input.orgId, feeds, new Date(now))) {
    if (read.warning) warnings.push(read.warning);
    if (!read.source) continue;
    sources.push(read.source);
    for (const entry of read.entries)
      candidates.push({ entry, feedId: read.feed.id, feedName: read.feed.name, source: read.source });
  }
  // The curated set answers where no live source does: no feed of its own, newsjacking off, or none could be read.
  if (sources.length === 0) {
    if (feeds.length > 0) warnings.push('No feed could be read: the curated set answers meanwhile');
    const set = curatedSet();
    sources.push(curatedSource(set));
    for (const item of set.news)
      candidates.push({
        entry: {
          key: item.url,
          title: item.title,
          url: item.url,
          summary: item.summary,
          publishedAt: item.publishedAt,
        },
        feedId: null,
        feedName: item.publisher,
        source: curatedSource(set, item.url),
      });
  }

  const matchedOnly = (input.matchedOnly ?? true) && terms.length > 0;
  const seen = new Set<string>();
  const items: NewsItem[] = [];
  for (const c of candidates) {
    // An item holding an exclude term stays out, whatever else is asked.
    if (matchedTerms(`${c.entry.title}\n${c.entry.summary}`, settings.excludeTerms).length > 0) continue;
    const scored = newsRelevance(c.entry, terms, settings.excludeTerms, now);
    if (matchedOnly && scored.matched.length === 0) continue;
    const id = deterministicUuid('news-item', input.orgId, c.entry.url ?? c.entry.key);
    if (seen.has(id)) continue;
    seen.add(id);
    items.push({
      id,
      title: c.entry.title,
      url: c.entry.url,
      summary: c.entry.summary,
      publishedAt: c.entry.publishedAt,
      feedId: c.feedId,
      feedName: c.feedName,
      source: c.source,
      matchedTerms: scored.matched,
      relevance: scored.relevance,
      alert: scored.relevance >= settings.alertThreshold,
    });
  }
  items.sort((a, b) => b.relevance - a.relevance || (b.publishedAt ?? '').localeCompare(a.publishedAt ?? ''));
  return {
    items: items.slice(0, input.limit ?? 20),
    sources,
    terms: uniqueTerms(terms),
    alertThreshold: settings.alertThreshold,
    warnings,
  };
}
