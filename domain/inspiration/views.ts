// An inspiration item as callers see it (spec part 2, "Inspiration item" and its compact form): the item with its
// interpretation against the strategy (domain/inspiration/interpretation.ts) beside it. Write answers render it
// from the aggregate; the read model stores the same item and interpretation, so reads answer alike.
import type { Interpretation } from './interpretation.js';
import type {
  AnalysisStatus,
  DraftDestination,
  InspirationAnalysis,
  InspirationEngagement,
  InspirationItem,
  InspirationMedia,
  InspirationPlatform,
  InspirationSourceType,
  OpportunityStatus,
} from './item.js';

export interface InspirationItemView {
  id: string;
  orgId: string;
  platform: InspirationPlatform;
  sourceType: InspirationSourceType;
  sourceExternalId: string | null;
  sourceUrl: string | null;
  authorName: string | null;
  authorHandle: string | null;
  authorProfileUrl: string | null;
  contentText: string;
  media: InspirationMedia | null;
  publishedAt: string | null;
  engagement: InspirationEngagement | null;
  analysisStatus: AnalysisStatus;
  analysisError: string | null;
  analysis: InspirationAnalysis | null;
  analysisProvider: string | null;
  analysisModel: string | null;
  analysisPromptVersion: string | null;
  analyzedAt: string | null;
  generatedAt: string | null;
  notes: string | null;
  tags: string[];
  socialAccountId: string | null;
  createdBy: string | null;
  feedbackReason: string | null;
  relevanceScore: number | null;
  whyItMatters: string | null;
  interpretation: {
    relevanceScore: number;
    whyItMatters: string;
    scoreBreakdown: Interpretation['scoreBreakdown'];
    matchedPillars: string[];
    matchedPriorities: string[];
    strategyNotes: string[];
  } | null;
  strategyId: string | null;
  strategyVersion: number | null;
  createdAt: string;
  updatedAt: string;
  generatedDrafts: { destination: DraftDestination; styleKey: string; text: string }[];
  opportunityStatus: OpportunityStatus;
}

export interface InspirationCompactView {
  id: string;
  platform: InspirationPlatform;
  sourceUrl: string | null;
  authorName: string | null;
  contentExcerpt: string;
  contentTruncated: boolean;
  analysisStatus: AnalysisStatus;
  topic: string | null;
  hook: string | null;
  keywords: string[];
  opportunityStatus: OpportunityStatus;
  relevanceScore: number | null;
  whyItMatters: string | null;
  scoreBreakdown: Interpretation['scoreBreakdown'] | null;
  matchedPillars: string[];
  matchedPriorities: string[];
  strategyNotes: string[];
  generatedDrafts: InspirationItemView['generatedDrafts'];
  tags: string[];
  createdAt: string;
}

/** How much of the text the compact form carries. */
export const excerptLength = 280;

export function inspirationItemView(
  item: InspirationItem,
  interpretation: Interpretation | null,
): InspirationItemView {
  const i = interpretation;
  return {
    id: item.itemId,
    orgId: item.orgId,
    platform: item.platform,
    sourceType: item.sourceType,
    sourceExternalId: item.sourceExternalId,
    sourceUrl: item.sourceUrl,
    authorName: item.authorName,
    authorHandle: item.authorHandle,
    authorProfileUrl: item.authorProfileUrl,
    contentText: item.contentText,
    media: item.media,
    publishedAt: item.publishedAt,
    engagement: item.engagement,
    analysisStatus: item.analysisStatus,
    analysisError: item.analysisError,
    analysis: item.analysis,
    analysisProvider: item.analysisProvider,
    analysisModel: item.analysisModel,
    analysisPromptVersion: item.analysisPromptVersion,
    analyzedAt: item.analyzedAt,
    generatedAt: item.generatedAt,
    notes: item.notes,
    tags: item.tags,
    socialAccountId: item.socialAccountId,
    createdBy: item.createdBy,
    feedbackReason: item.feedbackReason,
    relevanceScore: i?.relevanceScore ?? null,
    whyItMatters: i?.whyItMatters ?? null,
    interpretation: i
      ? {
          relevanceScore: i.relevanceScore,
          whyItMatters: i.whyItMatters,
          scoreBreakdown: i.scoreBreakdown,
          matchedPillars: i.matchedPillars,
          matchedPriorities: i.matchedPriorities,
          strategyNotes: i.strategyNotes,
        }
      : null,
    strategyId: i?.strategyId ?? null,
    strategyVersion: i?.strategyVersion ?? null,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    generatedDrafts: item.generatedDrafts,
    opportunityStatus: item.opportunityStatus,
  };
}

export function inspirationCompactView(view: InspirationItemView): InspirationCompactView {
  const chars = Array.from(view.contentText);
  const truncated = chars.length > excerptLength;
  return {
    id: view.id,
    platform: view.platform,
    sourceUrl: view.sourceUrl,
    authorName: view.authorName,
    contentExcerpt: truncated
      ? `${chars
          .slice(0, excerptLength - 1)
          .join('')
          .trimEnd()}…`
      : view.contentText,
    contentTruncated: truncated,
    analysisStatus: view.analysisStatus,
    topic: view.analysis?.topic ?? null,
    hook: view.analysis?.hook ?? null,
    keywords: view.analysis?.keywords ?? [],
    opportunityStatus: view.opportunityStatus,
    relevanceScore: view.relevanceScore,
    whyItMatters: view.whyItMatters,
    scoreBreakdown: view.interpretation?.scoreBreakdown ?? null,
    matchedPillars: view.interpretation?.matchedPillars ?? [],
    matchedPriorities: view.interpretation?.matchedPriorities ?? [],
    strategyNotes: view.interpretation?.strategyNotes ?? [],
    generatedDrafts: view.generatedDrafts,
    tags: view.tags,
    createdAt: view.createdAt,
  };
}
