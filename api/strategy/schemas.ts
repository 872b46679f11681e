// The strategy slice's request and response shapes (spec part 2, "Strategy"): the Strategy resource, the PATCH
// body (also confirm's `updates`), generate, priorities and a recommendation's decision. Shapes only: the rules
// across fields (a mix summing to 100, unique pillars and platforms, endsAt after startsAt) are the domain's and
// answer 400 naming the field the same way.
import { z } from '@hono/zod-openapi';
import { platforms } from '../../domain/shared/platforms.js';
import { contentTypes, strategyLimits, strategySources } from '../../domain/strategy/strategy.js';

const text = (max: number = strategyLimits.text) => z.string().max(max);
const list = <T extends z.ZodType>(item: T) => z.array(item).max(strategyLimits.listItems);
const instant = z.iso.datetime({ offset: true }).openapi({ example: '2026-12-01T00:00:00Z' });
const confidence = z.enum(['high', 'medium', 'low']);

const pillar = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  priority: z.number().int().optional(),
  keywords: z.array(z.string()).optional(),
});
const channelPriority = z.object({
  platform: z.enum(platforms),
  enabled: z.boolean().optional(),
  priority: z.number().int().optional(),
  postsPerWeek: z.number().optional(),
});
const contentMixEntry = z.object({ contentType: z.enum(contentTypes), targetPercent: z.number() });
const opportunityStatus = z.enum(['open', 'exploring', 'done', 'dismissed']);
const priorityStatus = z.enum(['active', 'expired', 'cancelled']);
const recommendationStatus = z.enum(['pending', 'accepted', 'rejected']);

export const strategySchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid(),
    version: z.number().int(),
    status: z.enum(['draft', 'active', 'superseded']),
    sourceGoal: z.string().nullable(),
    primaryObjective: z.string(),
    targetAudience: z.string(),
    pillars: z.array(pillar),
    channelPriorities: z.array(channelPriority),
    contentMix: z.array(contentMixEntry),
    positioningAngles: z.array(z.string()),
    opportunities: z.array(
      z.object({
        id: z.string(),
        theme: z.string(),
        rationale: z.string().optional(),
        status: opportunityStatus,
      }),
    ),
    priorities: z.array(
      z.object({
        id: z.string(),
        text: z.string(),
        startsAt: z.string(),
        endsAt: z.string().nullable(),
        status: priorityStatus.openapi({
          description: '`expired` once endsAt has passed (read at the time of the call)',
        }),
        createdAt: z.string().optional(),
        createdBy: z.string().nullable().optional(),
      }),
    ),
    guardrailNotes: z.array(z.string()),
    recommendations: z.array(
      z.object({
        id: z.string(),
        summary: z.string(),
        createdAt: z.string(),
        rationale: z.string().optional(),
        proposedChange: z.string().optional(),
        status: recommendationStatus,
        confidence: confidence.optional(),
      }),
    ),
    meta: z.object({
      schemaVersion: z.number().int(),
      generatedAt: z.string().nullable(),
      confirmedAt: z.string().nullable(),
      confirmedBy: z.uuid().nullable(),
      lastEditedAt: z.string().nullable(),
      lastSuggestedAt: z.string().nullable(),
      source: z.enum(strategySources).openapi({
        description: '`ai` (a model), `heuristic` (the offline writer) or `user` (written by a person)',
      }),
      providerModel: z.string().nullable().openapi({ description: '`provider:model`, `offline`, or null' }),
      agentRunId: z.string().nullable(),
      supersededAt: z.string().nullable(),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Strategy');

/** The PATCH body's fields, and confirm's `updates`: every field optional; lists replace the version's list. */
const strategyChangesShape = {
  sourceGoal: text().nullable().optional(),
  primaryObjective: text().optional(),
  targetAudience: text().optional(),
  pillars: list(
    z
      .object({
        id: z.string().min(1).max(100).optional(),
        name: text(strategyLimits.name),
        description: text().optional(),
        priority: z.number().int().optional(),
        keywords: z.array(text(100)).max(strategyLimits.keywords).optional(),
      })
      .strict(),
  ).optional(),
  channelPriorities: list(
    z
      .object({
        platform: z.enum(platforms),
        enabled: z.boolean().optional(),
        priority: z.number().int().optional(),
        postsPerWeek: z
          .number()
          .min(strategyLimits.postsPerWeek.min)
          .max(strategyLimits.postsPerWeek.max)
          .optional(),
      })
      .strict(),
  ).optional(),
  contentMix: list(
    z.object({ contentType: z.enum(contentTypes), targetPercent: z.number().min(0).max(100) }).strict(),
  )
    .optional()
    .openapi({
      description: 'targetPercent values sum to 100 (an empty list sets no mix); each contentType once',
    }),
  positioningAngles: list(text()).optional(),
  opportunities: list(
    z
      .object({
        id: z.string().min(1).max(100),
        theme: text(),
        rationale: text().optional(),
        status: opportunityStatus.optional(),
      })
      .strict(),
  ).optional(),
  priorities: list(
    z
      .object({
        id: z.string().min(1).max(100),
        text: text(),
        startsAt: instant,
        endsAt: instant.nullable().optional(),
        status: priorityStatus.optional(),
        createdAt: z.string().optional(),
        createdBy: z.string().nullable().optional(),
      })
      .strict(),
  ).optional(),
  guardrailNotes: list(text()).optional(),
  recommendations: list(
    z
      .object({
        id: z.string().min(1).max(100),
        summary: text(),
        createdAt: instant,
        rationale: text().optional(),
        proposedChange: text().optional(),
        status: recommendationStatus.optional(),
        confidence: confidence.optional(),
      })
      .strict(),
  ).optional(),
};

export const updateStrategyBody = z.object(strategyChangesShape).strict().openapi('UpdateStrategy');

export const confirmStrategyBody = z
  .object({ updates: z.object(strategyChangesShape).strict().optional() })
  .strict()
  .openapi('ConfirmStrategy');

export const generateStrategyBody = z
  .object({
    goal: text()
      .optional()
      .openapi({ description: 'What the strategy should achieve; inferred from the brand when absent' }),
    replaceActive: z.boolean().optional().openapi({
      description:
        'true: the generated version becomes active at once (the active one is superseded); false (default): a draft to confirm',
    }),
  })
  .strict()
  .openapi('GenerateStrategy');

export const addPriorityBody = z
  .object({
    text: text().min(1),
    startsAt: instant.optional().openapi({ description: 'Default: now' }),
    endsAt: instant.nullable().optional().openapi({ description: 'Null or absent: no end' }),
  })
  .strict()
  .openapi('AddStrategyPriority');

export const decideRecommendationBody = z
  .object({ decision: z.enum(['accepted', 'rejected']) })
  .strict()
  .openapi('DecideStrategyRecommendation');

export const versionsQuery = z
  .object({
    page: z.coerce.number().int().min(1).max(10_000).optional().openapi({ description: 'Default 1' }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'Newest versions first; default 20, at most 100' }),
  })
  .strict();
