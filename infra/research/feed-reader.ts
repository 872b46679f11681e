// Reading a workspace's news feeds (issue 31, part 3): each feed through the SSRF-safe fetcher (infra/http/safe-fetch.ts:
// http/https on 80/443, private addresses refused, a byte cap and one deadline), parsed in the feed parser's threads,
// and kept in research_feed_reads for `feedCacheTtlMs` (a failure for `feedFailureTtlMs`) so a feed is fetched at most
// that often whoever asks. A feed that cannot be read is a warning; an earlier good read still answers, labelled
// `cached` with its time.
import { sql, type Kysely } from 'kysely';
import type { FeedEntry } from '../../domain/research/news.js';
import type { NewsFeed } from '../../domain/research/newsjacking-settings.js';
import type { ResearchSource } from '../../domain/research/sources.js';
import { mapLimited } from '../async/each-limited.js';
import {
  fetchFailureReason,
  ResponseTooLargeError,
  safeFetch,
  UnsafeUrlError,
  type OutboundPolicy,
} from '../http/safe-fetch.js';
import { WebsiteParseFailed } from '../brand/website-parser.js';
import type { FeedParser } from './feed-parser.js';

export const feedLimits = {
  /** A feed document may be this long; a longer one is refused, not cut (a cut XML document does not parse). */
  maxBytes: 1024 * 1024,
  /** One deadline for resolving, connecting, redirects and the whole body. */
  timeoutMs: 10_000,
  /** Feeds fetched at once. */
  concurrency: 4,
} as const;

/** A good read is reused this long. */
export const feedCacheTtlMs = 30 * 60_000;
/** A failed read is not retried before this. */
export const feedFailureTtlMs = 5 * 60_000;

const userAgent = 'SocialPublishingService-NewsReader/1.0 (+RSS/Atom)';

export interface FeedRead {
  feed: NewsFeed;
  entries: FeedEntry[];
  /** Null when nothing could be read (and nothing earlier is kept). */
  source: ResearchSource | null;
  warning: string | null;
}

export interface FeedReaderDeps {
  db: Kysely<unknown>;
  parser: () => FeedParser;
  policy: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>;
  timeoutMs?: number;
  onUnreadable?: (url: string, reason: string) => void;
}

interface Row {
  fetched_at: Date | string | null;
  title: string | null;
  entries: FeedEntry[] | string | null;
  failed_at: Date | string | null;
  error: string | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();
const entriesOf = (value: Row['entries']): FeedEntry[] | null =>
  value === null ? null : typeof value === 'string' ? (JSON.parse(value) as FeedEntry[]) : value;

/** Fetches and parses one feed: its title and entries, or the reason it cannot be read (words for the member). */
export async function fetchFeed(
  deps: Pick<FeedReaderDeps, 'parser' | 'policy' | 'timeoutMs' | 'onUnreadable'>,
  url: string,
): Promise<{ ok: true; title: string | null; entries: FeedEntry[] } | { ok: false; error: string }> {
  let body: Uint8Array;
  try {
    const response = await safeFetch(url, {
      ...deps.policy,
      maxBytes: feedLimits.maxBytes,
      timeoutMs: deps.timeoutMs ?? feedLimits.timeoutMs,
      headers: {
        accept:
          'application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1',
        'user-agent': userAgent,
      },
    });
    if (response.status < 200 || response.status > 299) {
      deps.onUnreadable?.(url, `answered ${response.status}`);
      return { ok: false, error: `the feed answered ${response.status}` };
    }
    body = response.body;
  } catch (error) {
    if (error instanceof ResponseTooLargeError)
      return { ok: false, error: `the feed is larger than ${feedLimits.maxBytes / 1024} KiB` };
    deps.onUnreadable?.(url, fetchFailureReason(error));
    if (error instanceof UnsafeUrlError)
      return { ok: false, error: `the feed cannot be read: ${error.message}` };
    return { ok: false, error: 'the feed could not be fetched' };
  }
  try {
    const result = await deps.parser().parse({ document: new TextDecoder().decode(body) });
    if (!result.ok) return { ok: false, error: result.reason };
    return { ok: true, title: result.feed.title, entries: result.feed.entries };
  } catch (error) {
    if (error instanceof WebsiteParseFailed)
      return {
        ok: false,
        error:
          error.reason === 'busy'
            ? 'too many feeds are being read right now'
            : 'the feed is too large or too complex to read',
      };
    throw error;
  }
}

/** The feeds' entries, from the cache while fresh, else fetched now (and the cache updated). */
export async function readFeeds(
  deps: FeedReaderDeps,
  orgId: string,
  feeds: readonly NewsFeed[],
  now: Date,
): Promise<FeedRead[]> {
  return mapLimited(feeds, feedLimits.concurrency, async (feed) => {
    const { rows } = await sql<Row>`
      select fetched_at, title, entries, failed_at, error from research_feed_reads
      where org_id = ${orgId} and url = ${feed.url}`.execute(deps.db);
    const row = rows[0];
    const since = (at: Date | string | null | undefined) =>
      at ? now.getTime() - new Date(at).getTime() : Number.POSITIVE_INFINITY;
    const kept = row?.fetched_at ? entriesOf(row.entries) : null;
    const label = (kind: 'live' | 'cached', at: string, title: string | null): ResearchSource => ({
      kind,
      name: `News feed: ${feed.name || title || new URL(feed.url).hostname}`,
      asOf: at,
      url: feed.url,
    });
    const cached = (): ResearchSource | null =>
      kept && row?.fetched_at ? label('cached', iso(row.fetched_at), row.title) : null;
    if (row?.error && since(row.failed_at) < feedFailureTtlMs)
      return { feed, entries: kept ?? [], source: cached(), warning: `${feed.name}: ${row.error}` };
    if (kept && !row?.error && since(row?.fetched_at) < feedCacheTtlMs)
      return { feed, entries: kept, source: cached(), warning: null };
    const read = await fetchFeed(deps, feed.url);
    const at = now.toISOString();
    if (read.ok) {
      await sql`
        insert into research_feed_reads (org_id, url, fetched_at, title, entries, failed_at, error)
        values (${orgId}, ${feed.url}, ${at}, ${read.title}, ${JSON.stringify(read.entries)}::jsonb, null, null)
        on conflict (org_id, url) do update
          set fetched_at = excluded.fetched_at, title = excluded.title, entries = excluded.entries,
              failed_at = null, error = null`.execute(deps.db);
      return { feed, entries: read.entries, source: label('live', at, read.title), warning: null };
    }
    // A failure keeps the last good entries (answered as cached) and is not retried before feedFailureTtlMs.
    await sql`
      insert into research_feed_reads (org_id, url, failed_at, error)
      values (${orgId}, ${feed.url}, ${at}, ${read.error})
      on conflict (org_id, url) do update set failed_at = excluded.failed_at, error = excluded.error`.execute(
      deps.db,
    );
    return { feed, entries: kept ?? [], source: cached(), warning: `${feed.name}: ${read.error}` };
  });
}
