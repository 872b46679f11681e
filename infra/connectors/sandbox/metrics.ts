// The sandbox platforms' engagement numbers: deterministic, so a test can predict them, and shaped like a real
// audience's, so the scheduler's history has a signal to find (when posting does better and when it does not);
// and the sandbox accounts' follower counts, deterministic and growing with time.
import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import type { Platform } from '../../../domain/shared/platforms.js';
import type { PostMetricsReading } from '../port.js';

/**
 * The curve, by the LOCAL weekday and hour of publication in the workspace's time zone (`request.timezone`):
 *
 *   engagement = base(platform) × weekday(dow) × hour(h) × post(externalId) × growth(age)
 *
 * - weekday: Tuesday to Thursday are the best days (1.15–1.2), Monday and Friday middling (0.85, 0.8), the weekend
 *   weak (Saturday 0.5, Sunday 0.45);
 * - hour: nothing at night (0.15 from midnight to 5 am), rising from 6 am to a mid-morning peak at 10–11 am
 *   (1.2, 1.15), slowly falling through the afternoon (1.0 at noon, 0.8 at 4 pm) and the evening (0.5 at 8 pm);
 * - post: a per-post factor from 0.6 to 1.4, from a hash of the external id (some posts simply do better);
 * - growth: 1 − e^(−age/20 h) with the age in whole hours since publication: about 5 % after 1 h, 70 % after
 *   24 h, 97 % after 72 h, then flat (numbers saturate after about three days).
 *
 * The engagement is split into likes (≈70 %), reposts (≈12 %), replies (≈10 %), quotes (≈3 %, only where the
 * platform has quotes) and bookmarks (≈5 %, only where it counts them); impressions are the engagement times
 * 25–40 (an engagement rate of 2.5–4 %). The same post read within the same hour of its age gives the same numbers.
 */
export const sandboxWeekdayFactor: readonly number[] = [0.45, 0.85, 1.15, 1.2, 1.1, 0.8, 0.5];

/** By local hour 0–23. */
export const sandboxHourFactor: readonly number[] = [
  0.15, 0.15, 0.15, 0.15, 0.15, 0.15, 0.35, 0.55, 0.8, 1.0, 1.2, 1.15, 1.0, 0.95, 0.9, 0.85, 0.8, 0.7, 0.6,
  0.55, 0.5, 0.4, 0.3, 0.2,
];

/** Engagement of an average post at a factor of 1, fully grown. */
const base: Record<Platform, number> = {
  x: 120,
  linkedin: 80,
  tiktok: 400,
  reddit: 100,
  facebook: 60,
  instagram: 150,
  youtube: 90,
  bluesky: 60,
  threads: 70,
};

const hasQuotes: ReadonlySet<Platform> = new Set(['x', 'bluesky', 'threads']);
const hasBookmarks: ReadonlySet<Platform> = new Set(['x', 'bluesky', 'instagram']);

const GROWTH_HOURS = 20;

/** Uniform numbers in [0, 1) drawn from the post's id: the same post always draws the same ones. */
function draws(externalId: string): number[] {
  const digest = createHash('sha256').update(`sandbox-metrics:${externalId}`).digest();
  return Array.from({ length: 6 }, (_, i) => digest.readUInt32BE(i * 4) / 2 ** 32);
}

/** The local weekday (0 = Sunday) and hour of publication; an unknown zone counts as UTC. */
export function localSlot(publishedAt: string, timezone: string): { weekday: number; hour: number } {
  let local = DateTime.fromISO(publishedAt, { zone: timezone });
  if (!local.isValid) local = DateTime.fromISO(publishedAt, { zone: 'utc' });
  return { weekday: local.weekday % 7, hour: local.hour };
}

/** The share of a post's final engagement it has reached after `ageHours`. */
export function sandboxGrowth(ageHours: number): number {
  return 1 - Math.exp(-Math.max(0, ageHours) / GROWTH_HOURS);
}

export function sandboxMetrics(input: {
  platform: Platform;
  externalId: string;
  publishedAt: string;
  timezone: string;
  now: Date;
}): PostMetricsReading {
  const { weekday, hour } = localSlot(input.publishedAt, input.timezone);
  const [postDraw = 0, likeDraw = 0, repostDraw = 0, replyDraw = 0, rateDraw = 0, bookmarkDraw = 0] = draws(
    input.externalId,
  );
  const ageHours = Math.floor((input.now.getTime() - Date.parse(input.publishedAt)) / 3_600_000);
  const engagement =
    base[input.platform] *
    sandboxWeekdayFactor[weekday]! *
    sandboxHourFactor[hour]! *
    (0.6 + 0.8 * postDraw) *
    sandboxGrowth(Number.isFinite(ageHours) ? ageHours : 0);
  const share = (mean: number, draw: number) => Math.round(engagement * mean * (0.8 + 0.4 * draw));
  const bookmarks = hasBookmarks.has(input.platform) ? share(0.05, bookmarkDraw) : null;
  return {
    likes: share(0.7, likeDraw),
    reposts: share(0.12, repostDraw),
    replies: share(0.1, replyDraw),
    quotes: hasQuotes.has(input.platform) ? share(0.03, 1 - repostDraw) : 0,
    bookmarks,
    impressions: Math.round(engagement * (25 + 15 * rateDraw)),
  };
}

/** Where the sandbox accounts' audience started growing. */
export const SANDBOX_AUDIENCE_EPOCH = Date.parse('2024-01-01T00:00:00Z');

/**
 * A sandbox account's followers and the accounts it follows at `now`: from a hash of the account, a starting
 * audience of 300–5,000 followers growing by 0.2–0.8 % of it a day since SANDBOX_AUDIENCE_EPOCH, and 80–480
 * followed accounts growing by 0.05–0.3 a day. Whole hours count, so two readings within an hour agree; the
 * numbers never go down.
 */
export function sandboxAudience(input: { platform: Platform; accountExternalId: string; now: Date }): {
  followers: number;
  following: number;
} {
  const digest = createHash('sha256')
    .update(`sandbox-audience:${input.platform}:${input.accountExternalId}`)
    .digest();
  const [a = 0, b = 0, c = 0, d = 0] = Array.from(
    { length: 4 },
    (_, i) => digest.readUInt32BE(i * 4) / 2 ** 32,
  );
  const hours = Math.max(0, Math.floor((input.now.getTime() - SANDBOX_AUDIENCE_EPOCH) / 3_600_000));
  const days = hours / 24;
  const start = 300 + Math.floor(a * 4_700);
  const followingStart = 80 + Math.floor(c * 400);
  return {
    followers: Math.floor(start + start * (0.002 + 0.006 * b) * days),
    following: Math.floor(followingStart + (0.05 + 0.25 * d) * days),
  };
}
