// The inspiration slice's request and response shapes (spec part 2, "Inspiration item", its compact form and the
// "Inspiration" endpoints): the item, the list query with every filter, the save, edit, opportunity and drafting
// bodies and drafting's answer. Shapes only: trimming, limits across fields and the moves are the domain's.
import { z } from '@hono/zod-openapi';
import { draftStyleKeys } from '../../domain/inspiration/drafts-job.js';
import {
  analysisStatuses,
  draftDestinations,
  inspirationLimits,
  inspirationPlatforms,
  inspirationSourceTypes,
  mediaTypes,
  opportunityStatuses,
} from '../../domain/inspiration/item.js';
import { inspirationSorts, opportunityListStatuses } from '../../projections/inspiration/queries.js';
import { pageParams } from '../platform/paging.js';
import { groupWithPostsSchema } from '../post-groups/schemas.js';
import { canonicalUuid, orgParams } from '../shared/params.js';

const scoreBreakdown = z
  .object({
    strategyFit: z.number(),
    audienceFit: z.number(),
    quality: z.number(),
    freshness: z.number(),
    engagement: z.number(),
  })
  .openapi('InspirationScoreBreakdown');

const generatedDraft = z
  .object({ destination: z.enum(draftDestinations), styleKey: z.string(), text: z.string() })
  .openapi('InspirationDraft');

export const inspirationItemSchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid(),
    platform: z.enum(inspirationPlatforms),
    sourceType: z.enum(inspirationSourceTypes),
    sourceExternalId: z.string().nullable(),
    sourceUrl: z.string().nullable(),
    authorName: z.string().nullable(),
    authorHandle: z.string().nullable(),
    authorProfileUrl: z.string().nullable(),
    contentText: z.string(),
    media: z
      .object({
        items: z.array(
          z.object({ type: z.enum(mediaTypes), url: z.string(), alt: z.string(), mimeType: z.string() }),
        ),
      })
      .nullable(),
    publishedAt: z.string().nullable(),
    engagement: z
      .object({
        likes: z.number().int().nullable(),
        comments: z.number().int().nullable(),
        shares: z.number().int().nullable(),
        impressions: z.number().int().nullable(),
        bookmarks: z.number().int().nullable(),
        quotes: z.number().int().nullable(),
        raw: z.record(z.string(), z.unknown()).nullable(),
      })
      .nullable(),
    analysisStatus: z.enum(analysisStatuses),
    analysisError: z.string().nullable(),
    analysis: z
      .object({
        topic: z.string(),
        hook: z.string(),
        format: z.string(),
        tone: z.string(),
        audience: z.string(),
        cta: z.string(),
        writingFramework: z.string(),
        keywords: z.array(z.string()),
        qualityScore: z.number(),
      })
      .nullable(),
    analysisProvider: z.string().nullable().openapi({ description: '`offline` for the offline writer' }),
    analysisModel: z.string().nullable(),
    analysisPromptVersion: z.string().nullable(),
    analyzedAt: z.string().nullable(),
    generatedAt: z.string().nullable(),
    notes: z.string().nullable(),
    tags: z.array(z.string()),
    socialAccountId: z.uuid().nullable(),
    createdBy: z.string().nullable(),
    feedbackReason: z.string().nullable(),
    relevanceScore: z
      .number()
      .nullable()
      .openapi({ description: '0–100 against the strategy; null without one' }),
    whyItMatters: z.string().nullable(),
    interpretation: z
      .object({
        relevanceScore: z.number(),
        whyItMatters: z.string(),
        scoreBreakdown,
        matchedPillars: z.array(z.string()).optional(),
        matchedPriorities: z.array(z.string()).optional(),
        strategyNotes: z.array(z.string()).optional(),
      })
      .nullable(),
    strategyId: z.uuid().nullable(),
    strategyVersion: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    generatedDrafts: z.array(generatedDraft),
    opportunityStatus: z.enum(opportunityStatuses).optional(),
  })
  .openapi('InspirationItem');

export const inspirationCompactSchema = z
  .object({
    id: z.uuid(),
    platform: z.enum(inspirationPlatforms),
    sourceUrl: z.string().nullable(),
    authorName: z.string().nullable(),
    contentExcerpt: z.string(),
    contentTruncated: z.boolean(),
    analysisStatus: z.enum(analysisStatuses),
    topic: z.string().nullable(),
    hook: z.string().nullable(),
    keywords: z.array(z.string()),
    opportunityStatus: z.enum(opportunityStatuses),
    relevanceScore: z.number().nullable(),
    whyItMatters: z.string().nullable(),
    scoreBreakdown: scoreBreakdown.nullable(),
    matchedPillars: z.array(z.string()),
    matchedPriorities: z.array(z.string()),
    strategyNotes: z.array(z.string()),
    generatedDrafts: z.array(generatedDraft),
    tags: z.array(z.string()),
    createdAt: z.string(),
  })
  .openapi('InspirationItemCompact');

export const inspirationListSchema = z
  .object({
    items: z.array(z.union([inspirationItemSchema, inspirationCompactSchema])),
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    hasMore: z.boolean(),
  })
  .openapi('InspirationPage');

export const opportunitiesSchema = z
  .object({
    items: z.array(inspirationCompactSchema),
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    hasMore: z.boolean(),
  })
  .openapi('InspirationOpportunities');

export const itemParams = orgParams.extend({
  itemId: canonicalUuid().openapi({ param: { name: 'itemId', in: 'path' } }),
});

const flag = (description: string) =>
  z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .openapi({ description });
const savedBound = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .openapi({ description: 'A date-time, or a date (UTC; from its start, to its end)' });
const contains = (what: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: `Items whose ${what} contains this (any case)` });

export const listInspirationQuery = z
  .object({
    includeHidden: flag('true: hidden and dismissed items too (an opportunityStatus filter shows its own)'),
    verbose: flag('true: full items; false: the compact form'),
    platform: z.enum(inspirationPlatforms).optional(),
    topic: contains("analysis' topic"),
    hook: contains("analysis' hook"),
    audience: contains("analysis' audience"),
    creator: contains("author's name or handle"),
    tag: z
      .string()
      .min(1)
      .max(inspirationLimits.tag)
      .optional()
      .openapi({ description: 'Items with this tag (any case)' }),
    analysisStatus: z.enum(analysisStatuses).optional(),
    opportunityStatus: z.enum(opportunityStatuses).optional(),
    sort: z.enum(inspirationSorts).optional().openapi({ description: '`recent` (default) or `relevance`' }),
    savedFrom: savedBound.optional(),
    savedTo: savedBound.optional(),
    ...pageParams(20, 100),
  })
  .strict();

export const listOpportunitiesQuery = z
  .object({
    status: z
      .enum(opportunityListStatuses)
      .optional()
      .openapi({ description: 'open or saved; default both' }),
    platform: z.enum(inspirationPlatforms).optional(),
    ...pageParams(10, 50),
  })
  .strict();

const tags = z
  .array(z.string().max(inspirationLimits.tag + 50))
  .max(inspirationLimits.tags)
  .openapi({
    description: `At most ${inspirationLimits.tags}, each 1 to ${inspirationLimits.tag} characters`,
  });
const author = z.string().max(inspirationLimits.author + 50);

export const saveInspirationBody = z
  .object({
    url: z.string().min(1).max(2000).optional().openapi({
      description:
        'A link to an X or LinkedIn post, read through the platform (an X read costs x_post_read credits)',
      example: 'https://x.com/acme/status/1790000000000000000',
    }),
    contentText: z
      .string()
      .max(inspirationLimits.contentText + 200)
      .optional()
      .openapi({ description: `Or the post's text (1 to ${inspirationLimits.contentText} characters)` }),
    platform: z
      .enum(inspirationPlatforms)
      .optional()
      .openapi({ description: 'With contentText: where it was posted' }),
    authorName: author.nullable().optional(),
    authorHandle: author.nullable().optional(),
    authorProfileUrl: z.url().max(2000).nullable().optional(),
    sourceUrl: z
      .url()
      .max(2000)
      .nullable()
      .optional()
      .openapi({ description: 'With contentText: where it was seen' }),
    publishedAt: z.iso.datetime({ offset: true }).nullable().optional(),
    notes: z
      .string()
      .max(inspirationLimits.notes + 100)
      .nullable()
      .optional(),
    tags: tags.optional(),
    socialAccountId: canonicalUuid().optional().openapi({
      description: 'The X or LinkedIn account to read the link with, when the workspace has several',
    }),
  })
  .strict()
  .openapi('SaveInspiration');

export const updateInspirationBody = z
  .object({
    notes: z
      .string()
      .max(inspirationLimits.notes + 100)
      .nullable()
      .optional(),
    tags: tags.optional().openapi({ description: 'Replaces the tags' }),
    contentText: z
      .string()
      .max(inspirationLimits.contentText + 200)
      .optional()
      .openapi({
        description: 'New text sends the analysis back to pending and runs it again',
      }),
    authorName: author.nullable().optional(),
    authorHandle: author.nullable().optional(),
    generatedDrafts: z
      .array(
        z.object({
          destination: z.enum(draftDestinations),
          styleKey: z.string().max(inspirationLimits.styleKey + 20),
          text: z.string().max(inspirationLimits.draftText + 100),
        }),
      )
      .max(inspirationLimits.drafts)
      .optional()
      .openapi({ description: 'Replaces the drafts' }),
  })
  .strict()
  .openapi('UpdateInspiration');

export const opportunityBody = z
  .object({
    status: z.enum(opportunityStatuses).openapi({
      description:
        'open or saved items may be saved, hidden, dismissed or acted on; hidden and dismissed ones come back as open or saved; acted_on is final',
    }),
    reason: z
      .string()
      .max(inspirationLimits.feedbackReason + 50)
      .nullable()
      .optional()
      .openapi({
        description: 'Why (kept as feedbackReason)',
      }),
  })
  .strict()
  .openapi('InspirationOpportunityMove');

export const draftFromInspirationBody = z
  .object({
    destinations: z.array(z.enum(draftDestinations)).min(1).max(draftDestinations.length).optional().openapi({
      description: 'Default x and linkedin; thread is an X thread, article a long-form text kept on the item',
    }),
    styleKey: z.enum(draftStyleKeys).optional().openapi({
      description: 'A viral format to follow, or auto (default): the format that fits best',
    }),
    guidance: z.string().max(2000).optional().openapi({ description: 'What to stress, the angle, the tone' }),
    review: z.boolean().optional().openapi({
      description: 'true: the drafts also go to review as one post group pending approval; default false',
    }),
  })
  .strict()
  .openapi('DraftFromInspiration');

export const draftFromInspirationResult = z
  .object({
    item: inspirationItemSchema,
    drafts: z.array(generatedDraft),
    group: groupWithPostsSchema.shape.group.nullable(),
    posts: groupWithPostsSchema.shape.posts,
    providerModel: z.string().openapi({ description: '`provider:model`, or `offline`' }),
    creditsUsed: z.number(),
  })
  .openapi('InspirationDrafts');
