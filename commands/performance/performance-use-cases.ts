// The performance slice's use cases: GET ORG/marketing/analytics/performance (get_performance_summary) and
// GET …/analytics/top-posts (list_top_posts), read from the performance read models in the workspace's effective
// time zone, with the audience from the 'audience' service. The rules are domain/performance/performance.ts's.
import type { Kysely } from 'kysely';
import type { Audience, AudienceReader } from '../../domain/analytics/audience.js';
import {
  performanceWindow,
  summariseActivity,
  type ActivitySummary,
  type PerformanceWindow,
  type Totals,
  type TrendDay,
  type PlatformTotals,
} from '../../domain/performance/performance.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { toPage, type Page } from '../../domain/shared/page.js';
import type { Platform } from '../../domain/shared/platforms.js';
import {
  rankedPosts,
  summaryReads,
  type ContentTypeTotals,
  type RankedPost,
  type TopicTotals,
} from '../../projections/performance/queries.js';
import type { ReadModels } from '../../projections/read-models.js';

export interface PerformanceDeps {
  readModels: Kysely<ReadModels>;
  audience: AudienceReader;
  now: () => Date;
  /** The zone each workspace's days were last counted in, per runtime (`new ZoneGuesses()`). */
  zones: ZoneGuesses;
}

/**
 * The zone a workspace's days were last seen counted in. A read computes its window for the remembered zone and
 * its statement answers the zone the read model has; only when they differ (the zone changed since) is the read
 * made again, for the zone it answered. So a summary needs no statement of its own for the zone, and is not
 * answered in a stale one unless the zone changed again between its reads (the third read is then the last).
 * Bounded: the oldest entries go first.
 */
export class ZoneGuesses {
  private readonly zones = new Map<string, string>();

  constructor(private readonly maxEntries = 10_000) {}

  /**
   * Runs `read` for the window of `days` ending at `now` in the workspace's zone: first in the zone remembered (UTC
   * for a workspace not seen yet), again in the zone the read answered when it differs.
   */
  async read<T extends { zone: string }>(
    orgId: string,
    days: number,
    now: Date,
    read: (window: PerformanceWindow) => Promise<T>,
  ): Promise<{ window: PerformanceWindow; result: T }> {
    let zone = this.zones.get(orgId) ?? 'UTC';
    // A zone changing twice between two statements is the only reason for a third round; it ends there.
    for (let round = 0; ; round++) {
      const window = performanceWindow(now.getTime(), zone, days);
      const result = await read(window);
      this.remember(orgId, result.zone);
      if (result.zone === zone || round === 2) return { window, result };
      zone = result.zone;
    }
  }

  private remember(orgId: string, zone: string): void {
    this.zones.delete(orgId);
    this.zones.set(orgId, zone);
    if (this.zones.size > this.maxEntries) this.zones.delete(this.zones.keys().next().value!);
  }
}

export interface TopPost {
  postId: string;
  platform: Platform | null;
  publishedExternalId: string | null;
  publishedUrl: string | null;
  contentText: string;
  publishedAt: string | null;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  bookmarks: number | null;
  impressions: number | null;
  engagementScore: number;
  topic: string | null;
  contentType: string | null;
}

export interface PerformanceSummary {
  windowDays: number;
  generatedAt: string;
  summary: ActivitySummary['summary'] & { postsScheduledUpcoming: number };
  previousWindow: Totals;
  trends: TrendDay[];
  topPosts: TopPost[];
  topTopics: TopicTotals[];
  topContentTypes: ContentTypeTotals[];
  platforms: PlatformTotals[];
  audience: Audience;
}

export interface TopPostItem {
  postId: string;
  publishedExternalId: string | null;
  publishedUrl: string | null;
  contentText: string;
  scheduledForUtc: string | null;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  bookmarks: number | null;
  impressions: number | null;
  engagementScore: number;
  fetchedAt: string;
}

export function topPostOf(p: RankedPost): TopPost {
  return {
    postId: p.postId,
    platform: p.platform,
    publishedExternalId: p.publishedExternalId,
    publishedUrl: p.publishedUrl,
    contentText: p.contentText,
    publishedAt: p.publishedAt,
    likes: p.likes,
    reposts: p.reposts,
    replies: p.replies,
    quotes: p.quotes,
    bookmarks: p.bookmarks,
    impressions: p.impressions,
    engagementScore: p.engagementScore,
    topic: p.topic,
    contentType: p.contentType,
  };
}

/** The summary of the workspace's last `days` days, without checking a caller (the home summary asks it too). */
export async function performanceSummaryOf(
  deps: PerformanceDeps,
  orgId: string,
  options: { days: number; topLimit: number },
): Promise<PerformanceSummary> {
  const now = deps.now();
  const {
    window,
    result: [reads, audience],
  } = await deps.zones.read(orgId, options.days, now, async (w) => {
    const both = await Promise.all([
      summaryReads(deps.readModels, { orgId, window: w, topLimit: options.topLimit, now: now.toISOString() }),
      deps.audience.forOrg(orgId, { from: new Date(w.startMs), to: now }),
    ]);
    return Object.assign(both, { zone: both[0].zone });
  });
  const summarised = summariseActivity(window, reads.activity);
  return {
    windowDays: options.days,
    generatedAt: now.toISOString(),
    summary: { ...summarised.summary, postsScheduledUpcoming: reads.postsScheduledUpcoming },
    previousWindow: summarised.previousWindow,
    trends: summarised.trends,
    topPosts: reads.top.map(topPostOf),
    topTopics: reads.topics.slice(0, options.topLimit),
    topContentTypes: reads.contentTypes.slice(0, options.topLimit),
    platforms: summarised.platforms,
    audience,
  };
}

export interface RecentResults {
  window: PerformanceWindow;
  activity: ActivitySummary;
  topPost: TopPost | null;
}

/** What the performance slice offers others (the 'performance' service): the home summary's recent results. */
export interface PerformanceReads {
  recentResults(orgId: string, days: number): Promise<RecentResults>;
}

/** The window's activity and its best post alone (the home summary's recent results). */
export async function recentResultsOf(
  deps: Pick<PerformanceDeps, 'readModels' | 'now' | 'zones'>,
  orgId: string,
  days: number,
): Promise<RecentResults> {
  const now = deps.now();
  const { window, result: reads } = await deps.zones.read(orgId, days, now, (w) =>
    summaryReads(deps.readModels, { orgId, window: w, topLimit: 1, now: now.toISOString() }),
  );
  const best = reads.top[0];
  return {
    window,
    activity: summariseActivity(window, reads.activity),
    topPost: best ? topPostOf(best) : null,
  };
}

const reading = (orgId: string) => ({ orgId, permission: 'posts:read', scope: 'mcp:read' }) as const;

export async function getPerformanceSummary(
  deps: PerformanceDeps,
  caller: Caller,
  input: { orgId: string; days: number; topLimit: number },
): Promise<PerformanceSummary> {
  authorize(caller, reading(input.orgId));
  return performanceSummaryOf(deps, input.orgId, input);
}

export async function listTopPosts(
  deps: PerformanceDeps,
  caller: Caller,
  input: { orgId: string; days: number; page: number; limit: number },
): Promise<Page<TopPostItem>> {
  authorize(caller, reading(input.orgId));
  const { result: ranked } = await deps.zones.read(input.orgId, input.days, deps.now(), (w) =>
    rankedPosts(deps.readModels, {
      orgId: input.orgId,
      from: w.startMs,
      to: w.endMs,
      limit: input.limit,
      offset: (input.page - 1) * input.limit,
    }),
  );
  const items = ranked.items.map((p): TopPostItem => ({
    postId: p.postId,
    publishedExternalId: p.publishedExternalId,
    publishedUrl: p.publishedUrl,
    contentText: p.contentText,
    scheduledForUtc: p.scheduledForUtc,
    likes: p.likes,
    reposts: p.reposts,
    replies: p.replies,
    quotes: p.quotes,
    bookmarks: p.bookmarks,
    impressions: p.impressions,
    engagementScore: p.engagementScore,
    fetchedAt: p.fetchedAt,
  }));
  return toPage(items, ranked.total, input.page, input.limit);
}
