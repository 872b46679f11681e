// The post metrics' events, declared once: each type's schema of its data as stored (domain/shared/event-codec.ts)
// and the event union read off them.
import { z } from 'zod';
import { platforms } from '../shared/platforms.js';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const count = z.number();

/**
 * The numbers a platform gave (the connector port's PostMetricsReading): counts it does not have are 0,
 * `bookmarks` and `impressions` null when it does not say.
 */
const metricsReading = z.object({
  likes: count,
  reposts: count,
  replies: count,
  quotes: count,
  bookmarks: count.nullable(),
  impressions: count.nullable(),
});
export type MetricsReading = z.output<typeof metricsReading>;

/** The post a reading is of, as it was published. */
const metricsSubject = z.object({
  orgId: z.string(),
  postId: z.string(),
  groupId: z.string(),
  platform: z.enum(platforms),
  /** The account it was published with. */
  socialAccountId: z.string(),
  externalId: z.string(),
  /** When it was published (ISO). */
  publishedAt: z.string(),
  /** The group's content type (strategy link), when it has one. */
  contentType: z.string().nullable(),
});
export type MetricsSubject = z.output<typeof metricsSubject>;

const schemas = {
  PostMetricsFetched: z.object({
    ...metricsSubject.shape,
    metrics: metricsReading,
    /** likes + reposts + replies + quotes + (bookmarks ?? 0). */
    engagement: count,
    /** 1 for the post's first reading, then 2, 3, … */
    fetchNumber: z.number().int(),
    fetchedAt: z.string(),
  }),
};

export type PostMetricsEvent = EventsOf<typeof schemas>;

export const postMetricsEventCodec = zodEventCodec('analytics', schemas);
