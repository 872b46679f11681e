// The X automation's events, declared once (domain/shared/event-codec.ts): the rules as saved, each run's start
// and end, and every action a run decided (planned in a dry run, skipped, or started on X and then settled).
// The rule and action types are read off the same schemas.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

export const automationKinds = ['auto_repost', 'auto_delete'] as const;
export type AutomationKind = (typeof automationKinds)[number];

export const rankByValues = ['impressions', 'likes', 'engagement'] as const;
export type RankBy = (typeof rankByValues)[number];

const thresholdSelection = z.object({
  mode: z.literal('threshold'),
  minImpressions: z.number().nullable(),
  minLikes: z.number().nullable(),
  minEngagementRate: z.number().nullable(),
});
const topNSelection = z.object({
  mode: z.literal('top_n'),
  n: z.number(),
  rankBy: z.enum(rankByValues),
});
const repostSelection = z.discriminatedUnion('mode', [thresholdSelection, topNSelection]);
export type RepostSelection = z.output<typeof repostSelection>;

const autoRepostRule = z.object({
  channel: z.literal('x'),
  socialAccountId: z.string().nullable(),
  enabled: z.boolean(),
  minAgeHours: z.number(),
  maxAgeDays: z.number(),
  selection: repostSelection,
  cooldownHoursPerPost: z.number(),
  maxRepostsPerPost: z.number(),
  maxActionsPerDay: z.number(),
  action: z.literal('retweet'),
  dryRun: z.boolean(),
});
export type AutoRepostRule = z.output<typeof autoRepostRule>;

const autoDeleteRule = z.object({
  channel: z.literal('x'),
  socialAccountId: z.string().nullable(),
  enabled: z.boolean(),
  minAgeHours: z.number(),
  maxAgeDays: z.number(),
  maxImpressions: z.number().nullable(),
  maxLikes: z.number().nullable(),
  requireMetricsFetched: z.literal(true),
  metricsMaxAgeHours: z.number(),
  skipIfRepliesGte: z.number(),
  maxActionsPerDay: z.number(),
  dryRun: z.boolean(),
});
export type AutoDeleteRule = z.output<typeof autoDeleteRule>;

/** What the run knew of the post when it decided: the aggregate checks its rules against it. */
const evidence = z.object({
  postId: z.string(),
  socialAccountId: z.string(),
  externalTweetId: z.string(),
  publishedAt: z.string(),
  /** When the metrics below were read from X. */
  metricsFetchedAt: z.string(),
  likes: z.number(),
  replies: z.number(),
  impressions: z.number().nullable(),
  engagement: z.number(),
});
export type ActionEvidence = z.output<typeof evidence>;

const counts = z.object({
  evaluated: z.number(),
  matched: z.number(),
  acted: z.number(),
  skipped: z.number(),
  failed: z.number(),
});
export type RunCounts = z.output<typeof counts>;

const kindSummary = z.object({
  planned: z.number(),
  acted: z.number(),
  skipped: z.number(),
  failed: z.number(),
});
export type KindSummary = z.output<typeof kindSummary>;

const trigger = z.enum(['manual', 'nightly']);
export type RunTrigger = z.output<typeof trigger>;

const schemas = {
  XAutomationRulesUpdated: z.object({
    orgId: z.string(),
    autoRepost: autoRepostRule.nullable(),
    autoDelete: autoDeleteRule.nullable(),
    updatedAt: z.string(),
    /** The user who saved them (an assistant's user for an assistant). */
    updatedBy: z.string().nullable(),
  }),
  XAutomationRunStarted: z.object({
    orgId: z.string(),
    runId: z.string(),
    trigger,
    /** The workspace's night (its local date when the night began) a nightly run is for. */
    localDate: z.string().nullable(),
    kinds: z.array(z.enum(automationKinds)),
    /** The run was asked to record only (every rule in dry run for it). */
    dryRun: z.boolean(),
    /** The user who asked for it; null for the nightly sweep. */
    by: z.string().nullable(),
    startedAt: z.string(),
    /** The run holds its night (and counts as live) until then; every action it decides renews it. */
    leaseMs: z.number(),
  }),
  /** An action that touched nothing: `planned` (dry run) or `skipped` (with why). */
  XAutomationActionRecorded: z.object({
    orgId: z.string(),
    runId: z.string(),
    actionId: z.string(),
    kind: z.enum(automationKinds),
    status: z.enum(['planned', 'skipped']),
    dryRun: z.boolean(),
    reason: z.string(),
    evidence,
    at: z.string(),
  }),
  /** A live action claimed before X is called: it counts against the caps from here on. */
  XAutomationActionStarted: z.object({
    orgId: z.string(),
    runId: z.string(),
    actionId: z.string(),
    kind: z.enum(automationKinds),
    reason: z.string(),
    /** A repost of a post this workspace reposted before (the earlier repost is undone first). */
    again: z.boolean(),
    evidence,
    at: z.string(),
  }),
  XAutomationActionSucceeded: z.object({
    orgId: z.string(),
    actionId: z.string(),
    warnings: z.array(z.string()),
    at: z.string(),
  }),
  XAutomationActionFailed: z.object({
    orgId: z.string(),
    actionId: z.string(),
    error: z.string(),
    /** X certainly did nothing (it refused before acting): the action stops counting against the caps. */
    definite: z.boolean(),
    at: z.string(),
  }),
  XAutomationRunCompleted: z.object({
    orgId: z.string(),
    runId: z.string(),
    trigger,
    localDate: z.string().nullable(),
    by: z.string().nullable(),
    dryRun: z.boolean(),
    kinds: z.array(z.enum(automationKinds)),
    counts,
    byKind: z.object({ auto_repost: kindSummary, auto_delete: kindSummary }),
    warnings: z.array(z.string()),
    completedAt: z.string(),
  }),
};

export type XAutomationEvent = EventsOf<typeof schemas>;

export const xAutomationEventCodec = zodEventCodec('automation', schemas);
