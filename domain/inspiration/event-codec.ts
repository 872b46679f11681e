// An inspiration item's events (spec part 2, "Inspiration item"; issue 31), declared once: each type's schema of its
// data as stored (domain/shared/event-codec.ts) and the event union read off them. One stream per item,
// `inspiration-<itemId>`. The interpretation against the strategy is never stored: it is computed from the item and
// the strategy wherever the item is shown (domain/inspiration/interpretation.ts).
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

export const inspirationPlatforms = ['x', 'linkedin'] as const;
export type InspirationPlatform = (typeof inspirationPlatforms)[number];
export const inspirationSourceTypes = ['own_account', 'manual_url', 'manual_text', 'extension'] as const;
export type InspirationSourceType = (typeof inspirationSourceTypes)[number];
export const analysisStatuses = ['pending', 'processing', 'ready', 'failed', 'skipped'] as const;
export type AnalysisStatus = (typeof analysisStatuses)[number];
export const opportunityStatuses = ['open', 'saved', 'hidden', 'dismissed', 'acted_on'] as const;
export type OpportunityStatus = (typeof opportunityStatuses)[number];
export const draftDestinations = ['x', 'linkedin', 'thread', 'article'] as const;
export type DraftDestination = (typeof draftDestinations)[number];
export const mediaTypes = ['image', 'video', 'document', 'link', 'other'] as const;

export const mediaSchema = z.object({
  items: z.array(
    z.object({ type: z.enum(mediaTypes), url: z.string(), alt: z.string(), mimeType: z.string() }),
  ),
});
export type InspirationMedia = z.infer<typeof mediaSchema>;

export const engagementSchema = z.object({
  likes: z.number().int().nullable(),
  comments: z.number().int().nullable(),
  shares: z.number().int().nullable(),
  impressions: z.number().int().nullable(),
  bookmarks: z.number().int().nullable(),
  quotes: z.number().int().nullable(),
  raw: z.record(z.string(), z.unknown()).nullable(),
});
export type InspirationEngagement = z.infer<typeof engagementSchema>;

export const analysisSchema = z.object({
  topic: z.string(),
  hook: z.string(),
  format: z.string(),
  tone: z.string(),
  audience: z.string(),
  cta: z.string(),
  writingFramework: z.string(),
  keywords: z.array(z.string()),
  qualityScore: z.number(),
});
export type InspirationAnalysis = z.infer<typeof analysisSchema>;

export const generatedDraftSchema = z.object({
  destination: z.enum(draftDestinations),
  styleKey: z.string(),
  text: z.string(),
});
export type GeneratedDraft = z.infer<typeof generatedDraftSchema>;

const ids = { orgId: z.string(), itemId: z.string() };

/** What an item holds of its source: the post as read (by link) or as given (by text). */
export const inspirationSourceSchema = z.object({
  platform: z.enum(inspirationPlatforms),
  sourceType: z.enum(inspirationSourceTypes),
  sourceExternalId: z.string().nullable(),
  sourceUrl: z.string().nullable(),
  authorName: z.string().nullable(),
  authorHandle: z.string().nullable(),
  authorProfileUrl: z.string().nullable(),
  contentText: z.string(),
  media: mediaSchema.nullable(),
  publishedAt: z.string().nullable(),
  engagement: engagementSchema.nullable(),
  socialAccountId: z.string().nullable(),
});
export type InspirationSource = z.infer<typeof inspirationSourceSchema>;

const schemas = {
  InspirationItemSaved: z.object({
    ...ids,
    ...inspirationSourceSchema.shape,
    notes: z.string().nullable(),
    tags: z.array(z.string()),
    createdBy: z.string().nullable(),
    createdAt: z.string(),
  }),
  /** The item's editable words after the edit, whole; `textChanged` sends the analysis back to pending. */
  InspirationItemEdited: z.object({
    ...ids,
    notes: z.string().nullable(),
    tags: z.array(z.string()),
    contentText: z.string(),
    authorName: z.string().nullable(),
    authorHandle: z.string().nullable(),
    textChanged: z.boolean(),
    updatedAt: z.string(),
  }),
  InspirationAnalysisStarted: z.object({ ...ids, at: z.string() }),
  InspirationAnalysisCompleted: z.object({
    ...ids,
    analysis: analysisSchema,
    provider: z.string(),
    model: z.string(),
    promptVersion: z.string(),
    agentRunId: z.string().nullable(),
    at: z.string(),
  }),
  InspirationAnalysisFailed: z.object({ ...ids, error: z.string(), at: z.string() }),
  InspirationAnalysisSkipped: z.object({ ...ids, reason: z.string(), at: z.string() }),
  /** Drafts written from the item (`generated`, by an agent run) or edited by a person (`edited`), whole. */
  InspirationDraftsSet: z.object({
    ...ids,
    drafts: z.array(generatedDraftSchema),
    source: z.enum(['generated', 'edited']),
    agentRunId: z.string().nullable(),
    reviewGroupId: z.string().nullable(),
    at: z.string(),
  }),
  InspirationOpportunityChanged: z.object({
    ...ids,
    from: z.enum(opportunityStatuses),
    status: z.enum(opportunityStatuses),
    feedbackReason: z.string().nullable(),
    at: z.string(),
  }),
  InspirationItemDeleted: z.object({ ...ids, deletedAt: z.string() }),
};
export type InspirationEvent = EventsOf<typeof schemas>;

export const inspirationEventCodec = zodEventCodec('inspiration', schemas);
