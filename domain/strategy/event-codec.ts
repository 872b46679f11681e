// The content strategy's events, declared once: each type's schema of its data as stored (domain/shared/event-codec.ts)
// and the event union read off them. A version's content is stored whole in the event that creates or edits it.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';
import { platforms } from '../shared/platforms.js';

export const contentTypes = ['educational', 'opinion', 'personal', 'community', 'promotional'] as const;
export type ContentType = (typeof contentTypes)[number];

export const pillarSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  priority: z.number().int().optional(),
  keywords: z.array(z.string()).optional(),
});

export const channelPrioritySchema = z.object({
  platform: z.enum(platforms),
  enabled: z.boolean().optional(),
  priority: z.number().int().optional(),
  postsPerWeek: z.number().optional(),
});

export const contentMixSchema = z.object({
  contentType: z.enum(contentTypes),
  targetPercent: z.number(),
});

export const opportunitySchema = z.object({
  id: z.string(),
  theme: z.string(),
  rationale: z.string().optional(),
  status: z.enum(['open', 'exploring', 'done', 'dismissed']),
});

/** A priority as stored: `expired` is never stored, it is read off endsAt and the clock (docs/decisions.md). */
export const prioritySchema = z.object({
  id: z.string(),
  text: z.string(),
  startsAt: z.string(),
  endsAt: z.string().nullable(),
  status: z.enum(['active', 'expired', 'cancelled']),
  createdAt: z.string().optional(),
  createdBy: z.string().nullable().optional(),
});

export const recommendationSchema = z.object({
  id: z.string(),
  summary: z.string(),
  createdAt: z.string(),
  rationale: z.string().optional(),
  proposedChange: z.string().optional(),
  status: z.enum(['pending', 'accepted', 'rejected']),
  confidence: z.enum(['high', 'medium', 'low']).optional(),
});

/** Everything of a version a person or the generator writes (the Strategy resource without ids, status, meta). */
export const strategyContentSchema = z.object({
  sourceGoal: z.string().nullable(),
  primaryObjective: z.string(),
  targetAudience: z.string(),
  pillars: z.array(pillarSchema),
  channelPriorities: z.array(channelPrioritySchema),
  contentMix: z.array(contentMixSchema),
  positioningAngles: z.array(z.string()),
  opportunities: z.array(opportunitySchema),
  priorities: z.array(prioritySchema),
  guardrailNotes: z.array(z.string()),
  recommendations: z.array(recommendationSchema),
});
export type StrategyContent = z.infer<typeof strategyContentSchema>;
export type Pillar = z.infer<typeof pillarSchema>;
export type ChannelPriority = z.infer<typeof channelPrioritySchema>;
export type ContentMixEntry = z.infer<typeof contentMixSchema>;
export type Opportunity = z.infer<typeof opportunitySchema>;
export type StrategyPriority = z.infer<typeof prioritySchema>;
export type Recommendation = z.infer<typeof recommendationSchema>;

/** Where a version's content came from: the model, the offline writer, or a person. */
export const strategySources = ['ai', 'heuristic', 'user'] as const;
export type StrategySource = (typeof strategySources)[number];

const base = { orgId: z.string(), strategyId: z.string(), version: z.number().int() };

const schemas = {
  /** A new version: generated (ai or heuristic) or written by a person (PATCH with nothing to edit). */
  StrategyVersionCreated: z.object({
    ...base,
    status: z.enum(['draft', 'active']),
    content: strategyContentSchema,
    source: z.enum(strategySources),
    providerModel: z.string().nullable(),
    agentRunId: z.string().nullable(),
    createdAt: z.string(),
    createdBy: z.string().nullable(),
  }),
  StrategyVersionEdited: z.object({
    ...base,
    content: strategyContentSchema,
    editedAt: z.string(),
    editedBy: z.string().nullable(),
  }),
  /** A person confirmed the version; a draft becomes active by it (the previous active is superseded apart). */
  StrategyVersionConfirmed: z.object({
    ...base,
    activated: z.boolean(),
    confirmedAt: z.string(),
    confirmedBy: z.string().nullable(),
  }),
  StrategyVersionSuperseded: z.object({
    ...base,
    supersededBy: z.number().int(),
    supersededAt: z.string(),
  }),
  StrategyPriorityAdded: z.object({ ...base, priority: prioritySchema, addedAt: z.string() }),
  StrategyRecommendationDecided: z.object({
    ...base,
    recommendationId: z.string(),
    decision: z.enum(['accepted', 'rejected']),
    decidedAt: z.string(),
    decidedBy: z.string().nullable(),
  }),
  /** The generator proposed a new version beside this active one (its meta.lastSuggestedAt). */
  StrategySuggested: z.object({ ...base, proposedVersion: z.number().int(), suggestedAt: z.string() }),
};
export type StrategyEvent = EventsOf<typeof schemas>;

export const strategyEventCodec = zodEventCodec('strategy', schemas);
