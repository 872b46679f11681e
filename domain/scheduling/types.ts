// The scheduling vocabulary shared by the workspace's scheduling aggregate (settings and time zone), the slot
// ranking and the coverage assessment. Times of day are local `HH:MM` in the effective time zone; weekdays are
// 0–6 with 0 = Sunday; dates are local `YYYY-MM-DD`. All arithmetic between local and UTC goes through Luxon.
import type { Platform } from '../shared/platforms.js';

export const audienceTypes = ['b2b', 'b2c', 'mixed'] as const;
export type AudienceType = (typeof audienceTypes)[number];

/** The platforms whose posting windows a workspace can edit (the spec's `postingWindows` keys). */
export const windowPlatforms = ['x', 'linkedin', 'tiktok'] as const;
export type WindowPlatform = (typeof windowPlatforms)[number];

export const isWindowPlatform = (p: string): p is WindowPlatform =>
  (windowPlatforms as readonly string[]).includes(p);

export interface PostingWindow {
  /** Weekdays 0–6, 0 = Sunday; at least one, no repeats. */
  days: number[];
  /** Local `HH:MM`, `00:00`–`23:59`. */
  start: string;
  /** Local `HH:MM`, later than `start`; `24:00` means the end of the day. */
  end: string;
  /** Relative preference, ≥ 0; 0 keeps the window but never chooses it. */
  weight: number;
}

/** A deep copy (windows are handed out and may be changed by the receiver). */
export const copyWindows = (windows: readonly PostingWindow[]): PostingWindow[] =>
  windows.map((w) => ({ ...w, days: [...w.days] }));

export interface AvailabilityWindow {
  days: number[];
  start: string;
  end: string;
}

/** What the workspace has set; null (or a platform missing from postingWindows) means "use the default". */
export interface SchedulingSettings {
  audienceTimezone: string | null;
  audienceType: AudienceType | null;
  includeWeekends: boolean | null;
  /** Custom windows only: a platform listed here was edited and no longer follows the defaults. */
  postingWindows: Partial<Record<WindowPlatform, PostingWindow[]>>;
  blackoutDates: string[] | null;
  minGapMinutes: number | null;
  maxPostsPerDay: number | null;
  ownerAvailability: AvailabilityWindow[] | null;
}

export const emptySchedulingSettings: SchedulingSettings = {
  audienceTimezone: null,
  audienceType: null,
  includeWeekends: null,
  postingWindows: {},
  blackoutDates: null,
  minGapMinutes: null,
  maxPostsPerDay: null,
  ownerAvailability: null,
};

/** The scheduling profile as the API shows it: every field resolved (unset fields report the defaults). */
export interface SchedulingProfile {
  /** The workspace's time zone; `UTC` until set. */
  timezone: string;
  timezoneIsSet: boolean;
  audienceTimezone: string | null;
  /** audienceTimezone, else the workspace's time zone, else UTC. */
  effectiveTimezone: string;
  audienceType: AudienceType;
  includeWeekends: boolean;
  postingWindows: Record<WindowPlatform, PostingWindow[]>;
  /** The platforms whose windows were edited (the others report the audience type's defaults). */
  customPostingWindows: WindowPlatform[];
  /** Local dates in the effective time zone, sorted, no repeats. */
  blackoutDates: string[];
  minGapMinutes: number;
  /** Per platform and local day. */
  maxPostsPerDay: number;
  /** Empty: any time inside the posting windows. */
  ownerAvailability: AvailabilityWindow[];
}

/** The defaults of one audience type (docs/decisions.md, "Scheduler defaults"). */
export interface AudienceDefaults {
  includeWeekends: boolean;
  postingWindows: Record<WindowPlatform, PostingWindow[]>;
  /** Windows for the platforms without editable windows (facebook, instagram, …). */
  otherPlatforms: PostingWindow[];
  minGapMinutes: number;
  maxPostsPerDay: number;
}

/**
 * The workspace's own results by local weekday and hour (in the effective time zone), from published posts
 * whose metrics were fetched. `engagement` is the mean engagement per post of the bucket.
 */
export interface HistoryBucket {
  weekday: number;
  hour: number;
  posts: number;
  engagement: number;
}

export interface History {
  /** Published posts with results counted (the response's `historyPosts`). */
  posts: number;
  buckets: HistoryBucket[];
}

export type SlotBasis = 'defaults' | 'history';

export interface SlotQuery {
  profile: SchedulingProfile;
  /** The platform to place for; null ranks for the workspace as a whole (every editable platform's windows). */
  platform: Platform | null;
  /** ISO; the clock every result is computed from (slots start at least `leadMinutes` after it). */
  now: string;
  /** Local days to look ahead from today (1–90). */
  days: number;
  count: number;
  /** Instead of the profile's effective time zone (suggested-times). */
  timezone?: string;
  /** Only this local date (suggested-times). */
  localDate?: string;
  /**
   * Times of the scheduled posts that clash (ISO, or epoch milliseconds): the platform's, or every platform's when
   * platform is null.
   */
  scheduled: ReadonlyArray<string | number>;
  history: History | null;
}

export interface RankedSlot {
  scheduledForUtc: string;
  localDate: string;
  /** `HH:MM` */
  localTime: string;
  /** English weekday name, e.g. `Tuesday`. */
  weekday: string;
  /** 0–100, higher is better; rounded to one decimal. */
  score: number;
  /** For a person: why this time (window, basis, what history showed). */
  reason: string;
  basis: SlotBasis;
  /** The window that admitted the slot. */
  window: PostingWindow;
}
