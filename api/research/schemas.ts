// The research tools' request and answer schemas (issue 31, part 3; paths not shown in the spec, docs/decisions.md
// "Research tools (issue 31)"). Every answer names where it came from (`source`: live, cached or curated, dated).
// Bodies check types and bound sizes; the domain checks the rules and names the refused field.
import { z } from '@hono/zod-openapi';
import { viralFormatKeys } from '../../domain/ai/viral-formats.js';
import { newsjackingLimits } from '../../domain/research/newsjacking-settings.js';
import { sourceKinds } from '../../domain/research/sources.js';
import { platforms } from '../../domain/shared/platforms.js';

export const researchSourceSchema = z
  .object({
    kind: z.enum(sourceKinds).openapi({
      description:
        'live: read now from the platform or the feed; cached: a live read kept from asOf; curated: the data set shipped with the project, compiled on asOf',
    }),
    name: z.string().openapi({ description: 'What was read, or the curated set’s name' }),
    asOf: z
      .string()
      .openapi({ description: 'When it was read (ISO), or the curated set’s date (YYYY-MM-DD)' }),
    url: z.string().nullable(),
  })
  .openapi('ResearchSource');

const limit = (fallback: number, max: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .optional()
    .openapi({ description: `1 to ${max}; default ${fallback}` });

// ---- Trends ----

const trendingTopicSchema = z
  .object({
    name: z.string(),
    category: z.string().nullable(),
    postCount: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Posts about it as the source counts them' }),
    trendingSince: z.string().nullable(),
    matchedTerms: z
      .array(z.string())
      .openapi({ description: 'The workspace terms (pillars, keywords) it mentions' }),
    source: researchSourceSchema,
  })
  .openapi('TrendingTopic');

const topicResearchSchema = z
  .object({
    topic: z.string(),
    sampleSize: z.number().int().openapi({ description: 'Recent posts sampled from X recent search' }),
    postsPerHour: z.number(),
    engagementPerPost: z.number().openapi({ description: 'Likes and replies per post sampled' }),
    score: z.number().int().openapi({ description: '0-100 momentum among the topics researched together' }),
    matchedTerms: z.array(z.string()),
    topPosts: z.array(
      z.object({
        url: z.string(),
        text: z.string(),
        authorHandle: z.string().nullable(),
        likes: z.number().int(),
        replies: z.number().int(),
      }),
    ),
  })
  .openapi('TopicResearch');

export const trendsAnswerSchema = z
  .object({
    source: researchSourceSchema,
    topics: z.array(trendingTopicSchema),
    research: z.array(topicResearchSchema),
    warnings: z.array(z.string()),
    creditsUsed: z.number(),
  })
  .openapi('TrendingTopics');

export const trendsQuery = z.object({ limit: limit(20, 50) }).strict();

export const findTrendsBody = z
  .object({
    topics: z
      .array(z.string().max(400))
      .max(20)
      .optional()
      .openapi({ description: "At most 5; default: the strategy's pillars and the newsjacking keywords" }),
    includeTrends: z
      .boolean()
      .optional()
      .openapi({ description: "Read the X account's personalized trends too (default true)" }),
  })
  .strict();

// ---- News ----

const newsItemSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    url: z.string().nullable(),
    summary: z.string(),
    publishedAt: z.string().nullable(),
    feedId: z
      .string()
      .nullable()
      .openapi({ description: 'The newsjacking feed it came from; null: curated' }),
    feedName: z.string(),
    source: researchSourceSchema,
    matchedTerms: z.array(z.string()),
    relevance: z.number().int().openapi({ description: '0-100: terms matched and freshness' }),
    alert: z.boolean().openapi({ description: 'At or above the newsjacking alert threshold' }),
  })
  .openapi('NewsItem');

export const newsAnswerSchema = z
  .object({
    items: z.array(newsItemSchema),
    sources: z.array(researchSourceSchema),
    terms: z.array(z.string()),
    alertThreshold: z.number().int(),
    warnings: z.array(z.string()),
  })
  .openapi('NicheNews');

export const newsQuery = z
  .object({
    query: z
      .string()
      .max(100)
      .optional()
      .openapi({ description: "Match this term instead of the workspace's" }),
    matchedOnly: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional()
      .openapi({ description: 'true (default): only items mentioning a term, when there are terms' }),
    limit: limit(20, 50),
  })
  .strict();

// ---- Formats and hints ----

export const viralFormatsAnswerSchema = z
  .object({
    items: z.array(
      z
        .object({
          key: z.enum(viralFormatKeys),
          name: z.string(),
          description: z.string(),
          structure: z.array(z.string()),
          suits: z.array(z.string()).openapi({ description: 'The thought kinds it suits best' }),
        })
        .openapi('ViralPostFormat'),
    ),
    source: researchSourceSchema,
  })
  .openapi('ViralPostFormats');

export const algorithmHintsQuery = z.object({ platform: z.enum(platforms).optional() }).strict();

export const algorithmHintsAnswerSchema = z
  .object({
    platforms: z.array(
      z.object({
        platform: z.enum(platforms),
        hints: z.array(
          z.object({
            title: z.string(),
            detail: z.string(),
            reference: z.object({ name: z.string(), url: z.string() }),
          }),
        ),
      }),
    ),
    source: researchSourceSchema,
  })
  .openapi('AlgorithmHints');

// ---- X accounts ----

export const suggestXAccountsBody = z
  .object({
    topics: z
      .array(z.string().max(400))
      .max(20)
      .optional()
      .openapi({ description: "At most 5; default: the strategy's pillars and the newsjacking keywords" }),
    limit: z.number().int().min(1).max(20).optional().openapi({ description: '1 to 20; default 10' }),
  })
  .strict();

export const xAccountsAnswerSchema = z
  .object({
    accounts: z.array(
      z
        .object({
          handle: z.string(),
          name: z.string().nullable(),
          followers: z.number().int().nullable(),
          reason: z.string(),
          matchedTerms: z.array(z.string()),
          samplePostUrl: z.string().nullable(),
          samplePostText: z.string().nullable(),
          score: z.number().int(),
          profileUrl: z.string(),
        })
        .openapi('SuggestedXAccount'),
    ),
    topics: z.array(z.string()),
    source: researchSourceSchema,
    warnings: z.array(z.string()),
    creditsUsed: z.number(),
  })
  .openapi('XAccountSuggestions');

// ---- Newsjacking settings ----

export const newsjackingSettingsSchema = z
  .object({
    enabled: z.boolean().openapi({ description: 'false: the feeds are not read (the curated set answers)' }),
    feeds: z.array(
      z
        .object({ id: z.string(), name: z.string(), url: z.string(), enabled: z.boolean() })
        .openapi('NewsFeed'),
    ),
    keywords: z.array(z.string()),
    excludeTerms: z.array(z.string()),
    alertThreshold: z
      .number()
      .int()
      .openapi({ description: '0-100: the relevance from which an item is an alert' }),
    updatedAt: z.string().nullable().openapi({ description: 'null: never saved (the defaults)' }),
    updatedBy: z.string().nullable(),
  })
  .openapi('NewsjackingSettings');

const termList = z
  .array(z.string().max(newsjackingLimits.termLength * 4))
  .max(newsjackingLimits.listItems * 4);

export const updateNewsjackingSettingsBody = z
  .object({
    enabled: z.boolean().optional(),
    feeds: z
      .array(
        z
          .object({
            id: z.string().max(200).optional(),
            name: z
              .string()
              .max(newsjackingLimits.feedNameLength * 4)
              .optional(),
            url: z.string().max(newsjackingLimits.urlLength * 2),
            enabled: z.boolean().optional(),
          })
          .strict(),
      )
      .max(newsjackingLimits.feeds * 4)
      .optional()
      .openapi({ description: 'Replaces the feeds: RSS, Atom, RDF or JSON Feed addresses (http or https)' }),
    keywords: termList.optional(),
    excludeTerms: termList.optional(),
    alertThreshold: z.number().int().optional(),
  })
  .strict();
