// The home summary's answer (GET ORG/home; the spec leaves endpoints under the tag `home` to us, docs/decisions.md
// "Home summary"), typed once in zod.
import { z } from '@hono/zod-openapi';
import { performanceTopPostSchema } from '../performance/schemas.js';
import { platformSchema } from '../post-groups/schemas.js';

const count = z.number().int();
const totals = { postsPublished: count, impressions: z.number().nullable(), engagements: z.number() };

export const homeQuery = z.object({}).strict();

export const homeSummarySchema = z
  .object({
    generatedAt: z.string(),
    timezone: z
      .string()
      .openapi({ description: "The workspace's effective time zone: the results' days are its" }),
    approvals: z
      .object({
        postsPending: count,
        groupsPending: count,
        groups: z.array(
          z.object({
            groupId: z.uuid(),
            title: z.string(),
            topic: z.string().nullable(),
            platforms: z.array(platformSchema),
            postsPending: count,
            waitingSince: z.string(),
          }),
        ),
      })
      .openapi({ description: 'Posts waiting for approval; the 5 groups waiting longest' }),
    scheduled: z
      .object({
        postsUpcoming: count,
        postsFailed: count,
        next: z.array(
          z.object({
            postId: z.uuid(),
            groupId: z.uuid(),
            title: z.string(),
            platform: platformSchema,
            contentText: z.string(),
            scheduledForUtc: z.string(),
          }),
        ),
      })
      .openapi({ description: 'Posts scheduled ahead (the next 5) and posts whose publishing failed' }),
    results: z
      .object({
        windowDays: count,
        ...totals,
        engagementRate: z.number().nullable(),
        previousWindow: z.object(totals),
        topPost: performanceTopPostSchema.nullable(),
      })
      .openapi({
        description: 'The last 7 days against the 7 before, counted as the performance summary counts them',
      }),
    credits: z
      .object({
        total: count,
        monthly: count,
        purchased: count,
        periodUsedCredits: count,
        periodBudgetCredits: count,
        usagePercent: z.number(),
        periodEnd: z.string(),
      })
      .nullable()
      .openapi({ description: 'Credits left and this period’s use; null without a subscription' }),
  })
  .openapi('HomeSummary');
