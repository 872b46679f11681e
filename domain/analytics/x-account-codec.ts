// X account analytics' events, declared once: the workspace's setting (`xAccountAnalytics-<orgId>`: the daily read
// switched on for one X account, or off) and each day's reading of that account (`xAccountReading-…`, one stream
// per workspace, account and local date, so a day is read and charged once).
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const count = z.number().int().min(0);

/** One local day's numbers of the account's own posts and replies made that day, as read at the reading. */
export const xAccountDaySchema = z.object({
  /** `YYYY-MM-DD` in the workspace's time zone at the reading. */
  date: z.string(),
  impressions: count,
  /** likes + reposts + replies + quotes + bookmarks. */
  engagements: count,
  likes: count,
  reposts: count,
  replies: count,
  quotes: count,
  bookmarks: count,
  /** Posts made that day (a reply to one's own post, a thread's next part, counts as a post). */
  posts: count,
  /** Replies to other people's posts made that day. */
  repliesSent: count,
  /** Null when X did not give the account's private numbers (older than 30 days, or not allowed). */
  profileVisits: count.nullable(),
  linkClicks: count.nullable(),
});
export type XAccountDay = z.output<typeof xAccountDaySchema>;

export const xAccountAudienceSchema = z.object({
  followers: count.nullable(),
  following: count.nullable(),
  postCount: count.nullable(),
});

const schemas = {
  XAccountAnalyticsEnabled: z.object({
    orgId: z.string(),
    socialAccountId: z.string(),
    /** Who switched it on: a user id, or `assistant:<clientId>`. */
    by: z.string(),
    at: z.string(),
  }),
  XAccountAnalyticsDisabled: z.object({
    orgId: z.string(),
    socialAccountId: z.string(),
    /** `requested`: someone switched it off; `account_gone`: the account was removed from the workspace. */
    reason: z.enum(['requested', 'account_gone']),
    by: z.string(),
    at: z.string(),
  }),
  XAccountRead: z.object({
    orgId: z.string(),
    socialAccountId: z.string(),
    accountExternalId: z.string(),
    /** The local date of the reading: one reading per account and date. */
    date: z.string(),
    timezone: z.string(),
    /** The first day the reading covers; `days` holds every day from it to `date`. */
    from: z.string(),
    /** True for the reading taken when the daily read was switched on (the last 30 days). */
    initial: z.boolean(),
    readAt: z.string(),
    audience: xAccountAudienceSchema,
    days: z.array(xAccountDaySchema),
    /** Posts and replies read from the timeline. */
    postsRead: count,
    /** Credits this reading was charged (0 when the day's charge was made before, by a reading that failed to record). */
    creditsUsed: count,
  }),
};

export type XAccountEvent = EventsOf<typeof schemas>;

export const xAccountEventCodec = zodEventCodec('x-account-analytics', schemas);
