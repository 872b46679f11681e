// The performance summary's rules (spec part 1, "Analytics"): the engagement score posts are ranked by, what a
// reading adds to the day it was read, the window and the one before it in the workspace's time zone, the
// consistency label, and the summary, trends and platforms folded from activity per local day. Pure: the clock
// and the zone come in; the read model (projections/performance) keeps the activity these rules read.
import { engagementOf, type MetricsReading } from '../analytics/post-metrics.js';
import { addLocalDays, localDays, todayAt } from '../scheduling/time.js';
import type { Platform } from '../shared/platforms.js';

/**
 * The engagement score's weights (docs/decisions.md, "Performance summary"): a reply or a quote is someone writing
 * back (3), a repost carries the post to new people (2), a like or a bookmark is one tap (1).
 */
export const engagementWeights = { likes: 1, bookmarks: 1, reposts: 2, replies: 3, quotes: 3 } as const;

/** likes + bookmarks + 2 × reposts + 3 × replies + 3 × quotes (a missing bookmark count counts 0). */
export function engagementScore(m: MetricsReading): number {
  const w = engagementWeights;
  return (
    w.likes * m.likes +
    w.bookmarks * (m.bookmarks ?? 0) +
    w.reposts * m.reposts +
    w.replies * m.replies +
    w.quotes * m.quotes
  );
}

/** What one reading adds to the day it was read: its numbers minus the post's previous reading. */
export interface ReadingIncrease {
  /** Engagement (likes + reposts + replies + quotes + bookmarks) gained since the previous reading. */
  engagements: number;
  /** Impressions gained since the previous reading; null when this reading has no impression count. */
  impressions: number | null;
  /**
   * The part of `engagements` that impressions cover (the engagement rate's numerator): the reading's engagement
   * minus what the previous reading had under an impression count; 0 when this reading has none.
   */
  ratedEngagements: number;
}

/**
 * A reading's increase over `previous` (null for a post's first reading: everything it shows is new). Counts can
 * go down (an unlike); the increase is then negative, so a post's increases always add up to its latest numbers.
 */
export function readingIncrease(previous: MetricsReading | null, current: MetricsReading): ReadingIncrease {
  const engagement = engagementOf(current);
  const before = previous === null ? 0 : engagementOf(previous);
  if (current.impressions === null)
    return { engagements: engagement - before, impressions: null, ratedEngagements: 0 };
  const ratedBefore = previous !== null && previous.impressions !== null ? before : 0;
  return {
    engagements: engagement - before,
    impressions: current.impressions - (previous?.impressions ?? 0),
    ratedEngagements: engagement - ratedBefore,
  };
}

/** Activity is kept in 15-minute buckets: every zone in use today starts its days on a quarter hour. */
export const activityBucketMs = 15 * 60_000;

/** The start (ISO) of the 15-minute bucket an instant falls in. */
export function activityBucket(iso: string): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) throw new RangeError(`Not an ISO instant: ${JSON.stringify(iso)}`);
  return new Date(Math.floor(ms / activityBucketMs) * activityBucketMs).toISOString();
}

export type ConsistencyLabel = 'strong' | 'steady' | 'sparse' | 'none';

/**
 * How regularly the workspace published, from the days with at least one post in the window: `strong` for 3 or
 * more such days a week on average, `steady` for 1 or more, `sparse` for fewer, `none` for no day at all.
 */
export function consistencyLabel(activeDays: number, windowDays: number): ConsistencyLabel {
  if (activeDays <= 0) return 'none';
  // activeDays / (windowDays / 7) ≥ n, in integers.
  if (activeDays * 7 >= 3 * windowDays) return 'strong';
  if (activeDays * 7 >= windowDays) return 'steady';
  return 'sparse';
}

/**
 * The window of a summary: the last `days` local days in `timezone`, today included (to now), and the `days`
 * local days before them (the previous window). Days are the zone's own, 23 or 25 hours long across a change
 * of clocks.
 */
export interface PerformanceWindow {
  days: number;
  timezone: string;
  /** The window's local dates, oldest first; the last is today. */
  dates: string[];
  /** The previous window's local dates, oldest first. */
  previousDates: string[];
  /** Where each of the 2 × `days` local days starts (UTC ms), previous window first, and where today ends. */
  bounds: number[];
  previousStartMs: number;
  /** The window's first instant. */
  startMs: number;
  /** The end of today (exclusive). */
  endMs: number;
}

export function performanceWindow(nowMs: number, timezone: string, days: number): PerformanceWindow {
  if (!Number.isInteger(days) || days < 1) throw new RangeError(`Not a number of days: ${days}`);
  const today = todayAt(nowMs, timezone);
  const first = addLocalDays(today, -(2 * days - 1));
  const run = localDays(first, 2 * days, timezone);
  const dates = run.map((d) => d.localDate);
  const bounds = [...run.map((d) => d.startMs), run[run.length - 1]!.endMs];
  return {
    days,
    timezone,
    dates: dates.slice(days),
    previousDates: dates.slice(0, days),
    bounds,
    previousStartMs: bounds[0]!,
    startMs: bounds[days]!,
    endMs: bounds[2 * days]!,
  };
}

/** Activity of one platform on one local day of the workspace's zone (the read model's days). */
export interface DayActivity {
  /** The local date (YYYY-MM-DD); dates outside the two windows are left out. */
  date: string;
  platform: Platform;
  postsPublished: number;
  engagements: number;
  /** Null when no reading of the day had an impression count. */
  impressions: number | null;
  ratedEngagements: number;
}

export interface Totals {
  postsPublished: number;
  impressions: number | null;
  engagements: number;
}

export interface TrendDay extends Totals {
  date: string;
}

export interface PlatformTotals extends Totals {
  platform: Platform;
}

export interface ActivitySummary {
  summary: {
    postsPublished: number;
    impressions: number | null;
    engagements: number;
    engagementRate: number | null;
    publishingActiveDays: number;
    consistencyLabel: ConsistencyLabel;
  };
  previousWindow: Totals;
  trends: TrendDay[];
  platforms: PlatformTotals[];
}

interface Sum {
  postsPublished: number;
  engagements: number;
  impressions: number | null;
  ratedEngagements: number;
}

const emptySum = (): Sum => ({ postsPublished: 0, engagements: 0, impressions: null, ratedEngagements: 0 });

function add(sum: Sum, a: Omit<DayActivity, 'date' | 'platform'>): void {
  sum.postsPublished += a.postsPublished;
  sum.engagements += a.engagements;
  sum.ratedEngagements += a.ratedEngagements;
  if (a.impressions !== null) sum.impressions = (sum.impressions ?? 0) + a.impressions;
}

const totals = ({ postsPublished, impressions, engagements }: Sum): Totals => ({
  postsPublished,
  impressions,
  engagements,
});

/** Engagements per impression (covered engagement only), 4 decimals; null without impressions. */
export function engagementRate(ratedEngagements: number, impressions: number | null): number | null {
  if (impressions === null || impressions <= 0) return null;
  return Math.round((ratedEngagements / impressions) * 10_000) / 10_000;
}

/**
 * The summary, the previous window, a trend entry per day of the window (days without activity included) and the
 * platforms with activity in the window (most engagement first), from activity per day and platform. The trends
 * and the platforms add up to the summary.
 */
export function summariseActivity(
  window: PerformanceWindow,
  activity: readonly DayActivity[],
): ActivitySummary {
  const { days } = window;
  const indexOf = new Map([...window.previousDates, ...window.dates].map((date, i) => [date, i]));
  const perDay = Array.from({ length: 2 * days }, emptySum);
  const perPlatform = new Map<Platform, Sum>();
  for (const a of activity) {
    const day = indexOf.get(a.date);
    if (day === undefined) continue;
    add(perDay[day]!, a);
    if (day < days) continue;
    let p = perPlatform.get(a.platform);
    if (!p) perPlatform.set(a.platform, (p = emptySum()));
    add(p, a);
  }
  const current = emptySum();
  const previous = emptySum();
  perDay.forEach((d, i) => add(i < days ? previous : current, { ...d }));
  const activeDays = perDay.slice(days).filter((d) => d.postsPublished > 0).length;
  return {
    summary: {
      postsPublished: current.postsPublished,
      impressions: current.impressions,
      engagements: current.engagements,
      engagementRate: engagementRate(current.ratedEngagements, current.impressions),
      publishingActiveDays: activeDays,
      consistencyLabel: consistencyLabel(activeDays, days),
    },
    previousWindow: totals(previous),
    trends: perDay.slice(days).map((d, i) => ({ date: window.dates[i]!, ...totals(d) })),
    platforms: [...perPlatform.entries()]
      .map(([platform, sum]) => ({ platform, ...totals(sum) }))
      .sort(
        (a, b) =>
          b.engagements - a.engagements ||
          b.postsPublished - a.postsPublished ||
          (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0),
      ),
  };
}
