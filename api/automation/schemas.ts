// The X automation's request and answer schemas (spec "X automation rules", "X automation"): the rules resource,
// the PUT body (every field optional; null clears a threshold), the run body and answer, the automation action
// record. The limits are the domain's (domain/automation/rules.ts), so the document and the checks agree.
import { z } from '@hono/zod-openapi';
import { automationKinds, rankByValues } from '../../domain/automation/event-codec.js';
import { ruleLimits, type LimitedField } from '../../domain/automation/rules.js';
import { canonicalUuid } from '../shared/params.js';

const kind = z.enum(automationKinds);

function limited(field: LimitedField, description: string) {
  const range = ruleLimits[field];
  const base = range.integer ? z.number().int() : z.number();
  return base.min(range.min).max(range.max).openapi({ description });
}

const thresholdSelectionSchema = z
  .object({
    mode: z.literal('threshold'),
    minImpressions: z.number().int().nullable(),
    minLikes: z.number().int().nullable(),
    minEngagementRate: z.number().nullable(),
  })
  .openapi('XAutomationThresholdSelection');

const topNSelectionSchema = z
  .object({ mode: z.literal('top_n'), n: z.number().int(), rankBy: z.enum(rankByValues) })
  .openapi('XAutomationTopNSelection');

export const autoRepostRuleSchema = z
  .object({
    channel: z.literal('x'),
    socialAccountId: z.string().nullable(),
    enabled: z.boolean(),
    minAgeHours: z.number().int(),
    maxAgeDays: z.number().int(),
    selection: z.discriminatedUnion('mode', [thresholdSelectionSchema, topNSelectionSchema]),
    cooldownHoursPerPost: z.number().int(),
    maxRepostsPerPost: z.number().int(),
    maxActionsPerDay: z.number().int(),
    action: z.literal('retweet'),
    dryRun: z.boolean(),
  })
  .openapi('XAutoRepostRule');

export const autoDeleteRuleSchema = z
  .object({
    channel: z.literal('x'),
    socialAccountId: z.string().nullable(),
    enabled: z.boolean(),
    minAgeHours: z.number().int(),
    maxAgeDays: z.number().int(),
    maxImpressions: z.number().int().nullable(),
    maxLikes: z.number().int().nullable(),
    requireMetricsFetched: z.literal(true),
    metricsMaxAgeHours: z.number().int(),
    skipIfRepliesGte: z.number().int(),
    maxActionsPerDay: z.number().int(),
    dryRun: z.boolean(),
  })
  .openapi('XAutoDeleteRule');

export const xAutomationRulesSchema = z
  .object({
    autoRepost: autoRepostRuleSchema.nullable().openapi({ description: 'null: never set up' }),
    autoDelete: autoDeleteRuleSchema.nullable().openapi({ description: 'null: never set up' }),
    updatedAt: z.string().nullable(),
    updatedBy: z.string().nullable().openapi({ description: 'The user who saved the rules last' }),
  })
  .openapi('XAutomationRules');

const ruleCommon = {
  channel: z.literal('x').optional(),
  socialAccountId: canonicalUuid()
    .nullable()
    .optional()
    .openapi({ description: "One of the workspace's X accounts; null: posts of any X account" }),
  enabled: z.boolean().optional(),
  minAgeHours: limited('minAgeHours', 'Only posts at least this many hours old').optional(),
  maxAgeDays: limited('maxAgeDays', 'Only posts at most this many days old').optional(),
  maxActionsPerDay: limited(
    'maxActionsPerDay',
    'At most this many actions of the rule in any 24 hours',
  ).optional(),
  dryRun: z.boolean().optional().openapi({ description: 'Record what it would do, touch nothing on X' }),
};

const selectionPatch = z
  .object({
    mode: z.enum(['threshold', 'top_n']).optional().openapi({ description: 'Left out: the saved mode' }),
    minImpressions: limited('minImpressions', 'threshold mode; null clears it').nullable().optional(),
    minLikes: limited('minLikes', 'threshold mode; null clears it').nullable().optional(),
    minEngagementRate: limited(
      'minEngagementRate',
      'threshold mode: engagements per impression (0.02 is 2 %); null clears it',
    )
      .nullable()
      .optional(),
    n: limited('n', 'top_n mode: how many of the best posts').optional(),
    rankBy: z.enum(rankByValues).optional().openapi({ description: 'top_n mode' }),
  })
  .strict();

export const autoRepostPatchSchema = z
  .object({
    ...ruleCommon,
    selection: selectionPatch.optional(),
    cooldownHoursPerPost: limited('cooldownHoursPerPost', 'Hours between two reposts of one post').optional(),
    maxRepostsPerPost: limited('maxRepostsPerPost', 'Reposts of one post, ever').optional(),
    action: z.literal('retweet').optional(),
  })
  .strict()
  .openapi('XAutoRepostRuleUpdate');

export const autoDeletePatchSchema = z
  .object({
    ...ruleCommon,
    maxImpressions: limited(
      'maxImpressions',
      'Delete only posts with at most this many impressions; null clears it',
    )
      .nullable()
      .optional(),
    maxLikes: limited('maxLikes', 'Delete only posts with at most this many likes; null clears it')
      .nullable()
      .optional(),
    requireMetricsFetched: z.literal(true).optional(),
    metricsMaxAgeHours: limited(
      'metricsMaxAgeHours',
      'Only posts whose metrics were read within this many hours',
    ).optional(),
    skipIfRepliesGte: limited('skipIfRepliesGte', 'Keep posts with at least this many replies').optional(),
  })
  .strict()
  .openapi('XAutoDeleteRuleUpdate');

export const updateXAutomationRulesBody = z
  .object({
    autoRepost: autoRepostPatchSchema.optional().openapi({ description: 'Left out: the saved rule stays' }),
    autoDelete: autoDeletePatchSchema.optional().openapi({ description: 'Left out: the saved rule stays' }),
  })
  .strict()
  .openapi('UpdateXAutomationRules');

export const runXAutomationBody = z
  .object({
    kinds: z
      .array(kind)
      .min(1)
      .max(2)
      .optional()
      .openapi({ description: 'The rules to apply; both when left out' }),
    dryRun: z.boolean().optional().openapi({
      description: 'true: record what would be done, touch nothing (a rule in dry run is always one)',
    }),
  })
  .strict()
  .openapi('RunXAutomation');

export const automationActionSchema = z
  .object({
    id: z.string(),
    kind,
    socialAccountId: z.string().nullable(),
    sourcePostId: z.string().nullable(),
    externalTweetId: z.string().nullable(),
    status: z.enum(['planned', 'succeeded', 'failed', 'skipped']).openapi({
      description: '`planned`: recorded in a dry run, or a live action X has not answered yet',
    }),
    reason: z.string().nullable(),
    dryRun: z.boolean(),
    error: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('XAutomationAction');

export const xAutomationRunSchema = z
  .object({
    dryRun: z.boolean(),
    kinds: z.array(kind).openapi({ description: 'The rules applied (enabled ones among those asked for)' }),
    counts: z.object({
      evaluated: z.number().int(),
      matched: z.number().int(),
      acted: z.number().int().openapi({ description: 'Actions X carried out (none in a dry run)' }),
      skipped: z.number().int(),
      failed: z.number().int(),
    }),
    actions: z.array(automationActionSchema),
    warnings: z.array(z.string()),
  })
  .openapi('XAutomationRun');

export const xAutomationRunsQuery = z
  .object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'Newest first; default 50, at most 200' }),
  })
  .strict();

export const xAutomationRunsSchema = z
  .object({ items: z.array(automationActionSchema) })
  .openapi('XAutomationRuns');
