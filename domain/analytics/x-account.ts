// X account analytics (spec part 1, "Analytics", x-account): whether the daily read of a workspace's X account is
// on (`xAccountAnalytics-<orgId>`), each day's reading of the account's own timeline (`xAccountReading-…`, one
// stream per workspace, account and local date: a day is read and recorded once), and the pure arithmetic of it:
// which days a reading covers, each local day's numbers from the posts read, totals and the engagement rate.
import { assertNever, type Decider } from '../shared/decider.js';
import { InvalidFields } from '../shared/errors.js';
import { addLocalDays, daysBetween, isLocalDate, localParts } from '../scheduling/time.js';
import { xAccountEventCodec, type XAccountDay, type XAccountEvent } from './x-account-codec.js';
import type { DataOf } from '../shared/event-codec.js';

export type { XAccountDay, XAccountEvent } from './x-account-codec.js';

export const xAccountAnalyticsCategory = 'xAccountAnalytics';
export const xAccountReadingCategory = 'xAccountReading';

/** The reading stream's id: one per workspace, account and local date. */
export const xAccountReadingStreamId = (orgId: string, socialAccountId: string, date: string) =>
  `${orgId}_${socialAccountId}_${date}`;

/** Switching the daily read on reads this many days at once (spec "Limits"). */
export const X_ACCOUNT_INITIAL_DAYS = 30;
/** A daily reading reads again this many days back (today included): posts' numbers keep growing for days. */
export const X_ACCOUNT_DAILY_DAYS = 7;

/** One post or reply of the account's own timeline, with its numbers at the reading (the connector's answer). */
export interface XAccountPost {
  id: string;
  /** ISO instant. */
  createdAt: string;
  /** `reply`: an answer to someone else's post; `post`: anything else (a thread's next part included). */
  kind: 'post' | 'reply';
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  bookmarks: number;
  impressions: number | null;
  /** The post's private numbers; null when X did not give them. */
  profileVisits: number | null;
  linkClicks: number | null;
}

// ------------------------------------------------------------------------------------------------ setting

export type XAccountAnalyticsState =
  | { status: 'never' }
  | {
      status: 'on' | 'off';
      orgId: string;
      socialAccountId: string;
      changedAt: string;
      changedBy: string;
    };

export type XAccountAnalyticsCommand =
  | { type: 'EnableXAccountAnalytics'; orgId: string; socialAccountId: string; by: string; now: string }
  | {
      type: 'DisableXAccountAnalytics';
      orgId: string;
      reason: 'requested' | 'account_gone';
      /** With `account_gone`: the account that is gone (nothing changes when the setting names another). */
      socialAccountId?: string;
      by: string;
      now: string;
    };

const requireText = (value: string, path: string) => {
  if (typeof value !== 'string' || value.trim().length === 0)
    throw new InvalidFields(`Invalid ${path}`, [{ path, message: 'required' }]);
};

export const xAccountAnalyticsDecider: Decider<
  XAccountAnalyticsState,
  XAccountAnalyticsCommand,
  XAccountEvent
> = {
  initialState: { status: 'never' },
  codec: xAccountEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'EnableXAccountAnalytics': {
        requireText(command.socialAccountId, 'socialAccountId');
        // On already for this account: switching on again changes nothing.
        if (state.status === 'on' && state.socialAccountId === command.socialAccountId) return [];
        return [
          {
            type: 'XAccountAnalyticsEnabled',
            data: {
              orgId: command.orgId,
              socialAccountId: command.socialAccountId,
              by: command.by,
              at: command.now,
            },
          },
        ];
      }
      case 'DisableXAccountAnalytics': {
        if (state.status !== 'on') return [];
        if (
          command.reason === 'account_gone' &&
          command.socialAccountId !== undefined &&
          command.socialAccountId !== state.socialAccountId
        )
          return [];
        return [
          {
            type: 'XAccountAnalyticsDisabled',
            data: {
              orgId: state.orgId,
              socialAccountId: state.socialAccountId,
              reason: command.reason,
              by: command.by,
              at: command.now,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'XAccountAnalyticsEnabled':
        return {
          status: 'on',
          orgId: event.data.orgId,
          socialAccountId: event.data.socialAccountId,
          changedAt: event.data.at,
          changedBy: event.data.by,
        };
      case 'XAccountAnalyticsDisabled':
        return {
          status: 'off',
          orgId: event.data.orgId,
          socialAccountId: event.data.socialAccountId,
          changedAt: event.data.at,
          changedBy: event.data.by,
        };
      case 'XAccountRead':
        return state;
      default:
        return assertNever(event);
    }
  },
};

// ------------------------------------------------------------------------------------------------ reading

export type XAccountReadingData = DataOf<XAccountEvent, 'XAccountRead'>;

export type XAccountReadingState = { status: 'none' } | { status: 'read'; reading: XAccountReadingData };

export type XAccountReadingCommand = { type: 'RecordXAccountReading'; reading: XAccountReadingData };

const countFields = [
  'impressions',
  'engagements',
  'likes',
  'reposts',
  'replies',
  'quotes',
  'bookmarks',
  'posts',
  'repliesSent',
] as const;

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/** Every rule of a reading, each refusal naming the field. */
function checkReading(r: XAccountReadingData): void {
  const problems: Array<{ path: string; message: string }> = [];
  if (!isLocalDate(r.date)) problems.push({ path: 'date', message: 'a local date YYYY-MM-DD' });
  if (!isLocalDate(r.from)) problems.push({ path: 'from', message: 'a local date YYYY-MM-DD' });
  if (problems.length === 0) {
    const span = daysBetween(r.from, r.date) + 1;
    if (span < 1) problems.push({ path: 'from', message: 'on or before date' });
    else if (span > X_ACCOUNT_INITIAL_DAYS)
      problems.push({ path: 'from', message: `at most ${X_ACCOUNT_INITIAL_DAYS} days before date` });
    else if (r.days.length !== span || r.days.some((d, i) => d.date !== addLocalDays(r.from, i)))
      problems.push({ path: 'days', message: 'one entry per day from `from` to `date`, in order' });
  }
  r.days.forEach((day, i) => {
    for (const field of countFields)
      if (!isCount(day[field])) problems.push({ path: `days.${i}.${field}`, message: 'a count' });
    for (const field of ['profileVisits', 'linkClicks'] as const)
      if (day[field] !== null && !isCount(day[field]))
        problems.push({ path: `days.${i}.${field}`, message: 'a count or null' });
    if (day.engagements !== day.likes + day.reposts + day.replies + day.quotes + day.bookmarks)
      problems.push({
        path: `days.${i}.engagements`,
        message: 'likes + reposts + replies + quotes + bookmarks',
      });
  });
  for (const field of ['followers', 'following', 'postCount'] as const)
    if (r.audience[field] !== null && !isCount(r.audience[field]))
      problems.push({ path: `audience.${field}`, message: 'a count or null' });
  if (!isCount(r.postsRead)) problems.push({ path: 'postsRead', message: 'a count' });
  if (!isCount(r.creditsUsed)) problems.push({ path: 'creditsUsed', message: 'a count' });
  if (problems.length > 0) throw new InvalidFields('Invalid X account reading', problems);
}

export const xAccountReadingDecider: Decider<XAccountReadingState, XAccountReadingCommand, XAccountEvent> = {
  initialState: { status: 'none' },
  codec: xAccountEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'RecordXAccountReading': {
        checkReading(command.reading);
        // A day is read once: a second reading of the same account and date (another instance, a retry) adds nothing.
        if (state.status === 'read') return [];
        return [{ type: 'XAccountRead', data: command.reading }];
      }
      default:
        return assertNever(command.type);
    }
  },

  evolve(state, event) {
    return event.type === 'XAccountRead' ? { status: 'read', reading: event.data } : state;
  },
};

// --------------------------------------------------------------------------------------------- arithmetic

/**
 * The first day a reading on `date` covers: the last 30 days when switching on (or when nothing was read before);
 * otherwise the last week, or back to the previous reading's date when that is older (days missed while the
 * service was down are read again), never more than 30 days.
 */
export function xAccountReadingFrom(
  date: string,
  previousReadingDate: string | null,
  initial: boolean,
): string {
  const earliest = addLocalDays(date, -(X_ACCOUNT_INITIAL_DAYS - 1));
  if (initial || previousReadingDate === null) return earliest;
  const week = addLocalDays(date, -(X_ACCOUNT_DAILY_DAYS - 1));
  const from = previousReadingDate < week ? previousReadingDate : week;
  return from < earliest ? earliest : from;
}

const emptyDay = (date: string): XAccountDay => ({
  date,
  impressions: 0,
  engagements: 0,
  likes: 0,
  reposts: 0,
  replies: 0,
  quotes: 0,
  bookmarks: 0,
  posts: 0,
  repliesSent: 0,
  profileVisits: null,
  linkClicks: null,
});

const addNullable = (a: number | null, b: number | null) => (b === null ? a : (a ?? 0) + b);

/**
 * Each local day's numbers from `from` to `to` (both included, every day listed) of the posts made that day in
 * `timezone`: a post's numbers count on the day it was made. Posts made outside the days are left out.
 */
export function dailyNumbers(
  posts: readonly XAccountPost[],
  window: { from: string; to: string; timezone: string },
): XAccountDay[] {
  const span = daysBetween(window.from, window.to) + 1;
  if (span < 1) return [];
  const days = Array.from({ length: span }, (_, i) => emptyDay(addLocalDays(window.from, i)));
  const byDate = new Map(days.map((d) => [d.date, d]));
  for (const post of posts) {
    const day = byDate.get(localParts(post.createdAt, window.timezone).localDate);
    if (!day) continue;
    day.impressions += post.impressions ?? 0;
    day.likes += post.likes;
    day.reposts += post.reposts;
    day.replies += post.replies;
    day.quotes += post.quotes;
    day.bookmarks += post.bookmarks;
    day.engagements += post.likes + post.reposts + post.replies + post.quotes + post.bookmarks;
    if (post.kind === 'reply') day.repliesSent += 1;
    else day.posts += 1;
    day.profileVisits = addNullable(day.profileVisits, post.profileVisits);
    day.linkClicks = addNullable(day.linkClicks, post.linkClicks);
  }
  return days;
}

export interface XAccountTotals {
  impressions: number;
  engagements: number;
  engagementRate: number | null;
  profileVisits: number | null;
  linkClicks: number | null;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  bookmarks: number;
  posts: number;
  repliesSent: number;
}

/** Engagements per impression, to four decimals (0.0321 is 3.21 %); null without impressions. */
export function engagementRate(engagements: number, impressions: number): number | null {
  return impressions > 0 ? Math.round((engagements / impressions) * 10_000) / 10_000 : null;
}

/** The sum of days; profile visits and link clicks stay null when no day has them. */
export function xAccountTotals(days: readonly Omit<XAccountDay, 'date'>[]): XAccountTotals {
  const t = {
    impressions: 0,
    engagements: 0,
    profileVisits: null as number | null,
    linkClicks: null as number | null,
    likes: 0,
    reposts: 0,
    replies: 0,
    quotes: 0,
    bookmarks: 0,
    posts: 0,
    repliesSent: 0,
  };
  for (const d of days) {
    t.impressions += d.impressions;
    t.engagements += d.engagements;
    t.likes += d.likes;
    t.reposts += d.reposts;
    t.replies += d.replies;
    t.quotes += d.quotes;
    t.bookmarks += d.bookmarks;
    t.posts += d.posts;
    t.repliesSent += d.repliesSent;
    t.profileVisits = addNullable(t.profileVisits, d.profileVisits);
    t.linkClicks = addNullable(t.linkClicks, d.linkClicks);
  }
  return {
    impressions: t.impressions,
    engagements: t.engagements,
    engagementRate: engagementRate(t.engagements, t.impressions),
    profileVisits: t.profileVisits,
    linkClicks: t.linkClicks,
    likes: t.likes,
    reposts: t.reposts,
    replies: t.replies,
    quotes: t.quotes,
    bookmarks: t.bookmarks,
    posts: t.posts,
    repliesSent: t.repliesSent,
  };
}
