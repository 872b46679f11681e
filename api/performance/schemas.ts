// The performance summary's and top posts' request and answer shapes (spec part 1, "Analytics"), typed once in zod:
// requests are validated and the OpenAPI document generated from these.
import { z } from '@hono/zod-openapi';
import { pageParams, pageShape } from '../platform/paging.js';
import { platformSchema } from '../post-groups/schemas.js';

/** The longest window a summary or a ranking reads (its previous window doubles it). */
export const maxWindowDays = 365;
export const defaultWindowDays = 30;
export const defaultTopLimit = 5;
export const maxTopLimit = 50;

const days = z.coerce
  .number()
  .int()
  .min(1)
  .max(maxWindowDays)
  .default(defaultWindowDays)
  .openapi({
    type: 'integer',
    minimum: 1,
    maximum: maxWindowDays,
    default: defaultWindowDays,
    description:
      `The window: the last \`days\` days in the workspace's time zone, today included (default ` +
      `${defaultWindowDays}, at most ${maxWindowDays})`,
  });

export const performanceQuery = z
  .object({
    days,
    topLimit: z.coerce
      .number()
      .int()
      .min(1)
      .max(maxTopLimit)
      .default(defaultTopLimit)
      .openapi({
        type: 'integer',
        minimum: 1,
        maximum: maxTopLimit,
        default: defaultTopLimit,
        description: `How many top posts, topics and content types (default ${defaultTopLimit}, at most ${maxTopLimit})`,
      }),
  })
  .strict();

export const topPostsQuery = z.object({ days, ...pageParams(10, 50) }).strict();

const count = z.number().int();
const nullableNumber = z.number().nullable();

const totals = {
  postsPublished: count,
  impressions: nullableNumber,
  engagements: z.number(),
};

const metrics = {
  likes: z.number(),
  reposts: z.number(),
  replies: z.number(),
  quotes: z.number(),
  bookmarks: nullableNumber,
  impressions: nullableNumber,
  engagementScore: z.number().openapi({
    description: 'likes + bookmarks + 2 × reposts + 3 × replies + 3 × quotes, of the latest reading',
  }),
};

export const performanceTopPostSchema = z
  .object({
    postId: z.uuid(),
    platform: platformSchema.nullable(),
    publishedExternalId: z.string().nullable(),
    publishedUrl: z.string().nullable(),
    contentText: z.string(),
    publishedAt: z.string().nullable(),
    ...metrics,
    topic: z.string().nullable(),
    contentType: z.string().nullable(),
  })
  .openapi('PerformanceTopPost');

export const performanceSummarySchema = z
  .object({
    windowDays: count,
    generatedAt: z.string(),
    summary: z.object({
      postsPublished: count,
      postsScheduledUpcoming: count,
      impressions: nullableNumber,
      engagements: z.number(),
      engagementRate: nullableNumber.openapi({
        description: 'Engagements per impression, of the readings that count impressions (4 decimals)',
      }),
      publishingActiveDays: count,
      consistencyLabel: z.enum(['strong', 'steady', 'sparse', 'none']).openapi({
        description:
          'Days with a post published per week in the window: `strong` 3 or more, `steady` 1 or more, ' +
          '`sparse` fewer, `none` no day',
      }),
    }),
    previousWindow: z.object(totals),
    trends: z.array(z.object({ date: z.string().openapi({ example: '2026-03-28' }), ...totals })),
    topPosts: z.array(performanceTopPostSchema),
    topTopics: z.array(
      z.object({
        topic: z.string(),
        postsPublished: count,
        engagements: z.number(),
        impressions: nullableNumber,
      }),
    ),
    topContentTypes: z.array(
      z.object({ contentType: z.string(), postsPublished: count, engagements: z.number() }),
    ),
    platforms: z.array(z.object({ platform: platformSchema, ...totals })),
    audience: z.object({
      available: z.boolean(),
      note: z.string(),
      accounts: z.array(
        z.object({
          socialAccountId: z.string(),
          platform: platformSchema,
          name: z.string().nullable(),
          followers: count.nullable(),
          change: count.nullable(),
          tracking: z.enum(['live', 'pending', 'needs_permission']),
        }),
      ),
    }),
  })
  .openapi('PerformanceSummary');

export const topPostItemSchema = z
  .object({
    postId: z.uuid(),
    publishedExternalId: z.string().nullable(),
    publishedUrl: z.string().nullable(),
    contentText: z.string(),
    scheduledForUtc: z.string().nullable(),
    ...metrics,
    fetchedAt: z.string().openapi({ description: 'When the latest reading was taken' }),
  })
  .openapi('TopPostItem');

export const topPostsPageSchema = z.object(pageShape(topPostItemSchema)).openapi('TopPostsPage');
