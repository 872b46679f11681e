// The inspiration item aggregate (spec part 2, "Inspiration item"; issue 31): a post of X or LinkedIn saved by link
// or by text, its analysis (`analysisStatus` pending → processing → ready | failed | skipped), the drafts written
// from it and where it stands as an opportunity (`opportunityStatus`). One stream per item
// (`inspiration-<itemId>`). Decisions are pure: time, ids, the analysis and the drafts come in the command.
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields, NotFound, type ErrorDetail } from '../shared/errors.js';
import {
  inspirationEventCodec,
  type AnalysisStatus,
  type GeneratedDraft,
  type InspirationAnalysis,
  type InspirationEvent,
  type InspirationSource,
  type OpportunityStatus,
} from './event-codec.js';

export * from './event-codec.js';

export const inspirationCategory = 'inspiration';

export const inspirationLimits = {
  contentText: 10_000,
  notes: 2_000,
  tags: 20,
  tag: 50,
  author: 200,
  drafts: 20,
  draftText: 40_000,
  styleKey: 60,
  feedbackReason: 500,
  /** A run left in processing longer than this (a crash mid-analysis) may be started again. */
  staleAnalysisMs: 10 * 60_000,
} as const;

export interface InspirationItem extends InspirationSource {
  itemId: string;
  orgId: string;
  analysisStatus: AnalysisStatus;
  analysisError: string | null;
  analysis: InspirationAnalysis | null;
  analysisProvider: string | null;
  analysisModel: string | null;
  analysisPromptVersion: string | null;
  analysisStartedAt: string | null;
  analyzedAt: string | null;
  generatedAt: string | null;
  notes: string | null;
  tags: string[];
  createdBy: string | null;
  feedbackReason: string | null;
  generatedDrafts: GeneratedDraft[];
  /** Post groups put in review from the item's drafts. */
  reviewGroupIds: string[];
  opportunityStatus: OpportunityStatus;
  createdAt: string;
  updatedAt: string;
}

export type InspirationState =
  { status: 'none' } | { status: 'exists'; item: InspirationItem } | { status: 'deleted'; orgId: string };

type Ids = { orgId: string; itemId: string; now: string };

export type InspirationCommand =
  | ({
      type: 'SaveInspirationItem';
      source: InspirationSource;
      notes?: string | null | undefined;
      tags?: string[] | undefined;
      by: string | null;
    } & Ids)
  /** Omitted fields stay; tags and drafts replace. */
  | ({
      type: 'EditInspirationItem';
      notes?: string | null | undefined;
      tags?: string[] | undefined;
      contentText?: string | undefined;
      authorName?: string | null | undefined;
      authorHandle?: string | null | undefined;
      generatedDrafts?: GeneratedDraft[] | undefined;
    } & Ids)
  | ({ type: 'StartAnalysis' } & Ids)
  | ({
      type: 'CompleteAnalysis';
      analysis: InspirationAnalysis;
      provider: string;
      model: string;
      promptVersion: string;
      agentRunId: string | null;
    } & Ids)
  | ({ type: 'FailAnalysis'; error: string } & Ids)
  | ({
      type: 'RecordDrafts';
      drafts: GeneratedDraft[];
      agentRunId: string | null;
      reviewGroupId: string | null;
    } & Ids)
  | ({
      type: 'ChangeOpportunity';
      status: OpportunityStatus;
      feedbackReason?: string | null | undefined;
    } & Ids)
  | ({ type: 'DeleteInspirationItem' } & Ids);

/**
 * The opportunity moves (spec: "not shown"; docs/decisions.md): an open or saved item may be saved, hidden,
 * dismissed or acted on (and a saved one opened again); a hidden or dismissed one comes back (open, saved);
 * acted_on is final. The same status again decides nothing.
 */
export const opportunityMoves: Record<OpportunityStatus, readonly OpportunityStatus[]> = {
  open: ['saved', 'hidden', 'dismissed', 'acted_on'],
  saved: ['open', 'hidden', 'dismissed', 'acted_on'],
  hidden: ['open', 'saved'],
  dismissed: ['open', 'saved'],
  acted_on: [],
};

const clean = (text: string) => text.trim();

function refuseIfAny(details: ErrorDetail[]): void {
  if (details.length > 0)
    throw new InvalidFields(details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
}

function checkText(text: string, required: boolean, details: ErrorDetail[]): string {
  const t = text.replace(/\r\n/g, '\n').trim();
  if ((required && t.length === 0) || t.length > inspirationLimits.contentText)
    details.push({
      path: 'contentText',
      message: `${required ? 1 : 0} to ${inspirationLimits.contentText} characters after trimming`,
    });
  return t;
}

function checkOptional(
  value: string | null | undefined,
  path: string,
  max: number,
  details: ErrorDetail[],
): string | null {
  if (value === undefined || value === null) return null;
  const v = clean(value);
  if (v.length > max) details.push({ path, message: `at most ${max} characters` });
  return v === '' ? null : v;
}

function checkTags(tags: readonly string[], details: ErrorDetail[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  tags.forEach((tag, i) => {
    const t = clean(tag);
    if (t.length === 0 || t.length > inspirationLimits.tag) {
      details.push({ path: `tags.${i}`, message: `1 to ${inspirationLimits.tag} characters after trimming` });
      return;
    }
    if (seen.has(t.toLowerCase())) return;
    seen.add(t.toLowerCase());
    out.push(t);
  });
  if (out.length > inspirationLimits.tags)
    details.push({ path: 'tags', message: `at most ${inspirationLimits.tags} tags` });
  return out;
}

function checkDrafts(drafts: readonly GeneratedDraft[], details: ErrorDetail[]): GeneratedDraft[] {
  if (drafts.length > inspirationLimits.drafts)
    details.push({ path: 'generatedDrafts', message: `at most ${inspirationLimits.drafts} drafts` });
  return drafts.map((d, i) => {
    const text = d.text.trim();
    const styleKey = d.styleKey.trim();
    if (text.length === 0 || text.length > inspirationLimits.draftText)
      details.push({
        path: `generatedDrafts.${i}.text`,
        message: `1 to ${inspirationLimits.draftText} characters after trimming`,
      });
    if (styleKey.length === 0 || styleKey.length > inspirationLimits.styleKey)
      details.push({
        path: `generatedDrafts.${i}.styleKey`,
        message: `1 to ${inspirationLimits.styleKey} characters`,
      });
    return { destination: d.destination, styleKey, text };
  });
}

/** The item of the workspace, or 404: another workspace's item is not found either. */
function liveItem(state: InspirationState, orgId: string): InspirationItem {
  if (state.status !== 'exists' || state.item.orgId !== orgId)
    throw new NotFound('Inspiration item not found', 'inspiration_item_not_found');
  return state.item;
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);
const sameDrafts = (a: readonly GeneratedDraft[], b: readonly GeneratedDraft[]) =>
  a.length === b.length &&
  a.every(
    (x, i) => x.destination === b[i]!.destination && x.styleKey === b[i]!.styleKey && x.text === b[i]!.text,
  );

/** Whether an item has text to analyse (an image-only post has none: its analysis is skipped). */
export const hasText = (item: Pick<InspirationItem, 'contentText'>) => item.contentText.trim().length > 0;

function startAnalysis(item: InspirationItem, now: string): InspirationEvent[] {
  const ids = { orgId: item.orgId, itemId: item.itemId };
  if (item.analysisStatus === 'processing') {
    const started = item.analysisStartedAt ? Date.parse(item.analysisStartedAt) : 0;
    if (Date.parse(now) - started < inspirationLimits.staleAnalysisMs)
      throw new Conflict('The item is being analysed already', 'analysis_in_progress');
  }
  if (!hasText(item))
    return [
      {
        type: 'InspirationAnalysisSkipped',
        data: { ...ids, reason: 'The item has no text to analyse', at: now },
      },
    ];
  return [{ type: 'InspirationAnalysisStarted', data: { ...ids, at: now } }];
}

function processing(item: InspirationItem): void {
  if (item.analysisStatus !== 'processing')
    throw new Conflict(
      `The item's analysis is ${item.analysisStatus}, not processing`,
      'analysis_not_running',
    );
}

export const inspirationDecider: Decider<InspirationState, InspirationCommand, InspirationEvent> = {
  initialState: { status: 'none' },
  codec: inspirationEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'SaveInspirationItem': {
        const details: ErrorDetail[] = [];
        const s = command.source;
        const source: InspirationSource = {
          ...s,
          contentText: checkText(s.contentText, s.sourceType === 'manual_text', details),
          authorName: checkOptional(s.authorName, 'authorName', inspirationLimits.author, details),
          authorHandle: checkOptional(s.authorHandle, 'authorHandle', inspirationLimits.author, details),
        };
        const notes = checkOptional(command.notes, 'notes', inspirationLimits.notes, details);
        const tags = checkTags(command.tags ?? [], details);
        refuseIfAny(details);
        if (state.status === 'exists') {
          const i = state.item;
          // The same save again (a retry under one Idempotency-Key) changes nothing.
          if (
            i.orgId === command.orgId &&
            i.contentText === source.contentText &&
            i.sourceUrl === source.sourceUrl
          )
            return [];
          throw new Conflict('Inspiration item already exists');
        }
        if (state.status === 'deleted') throw new Conflict('Inspiration item already exists');
        return [
          {
            type: 'InspirationItemSaved',
            data: {
              orgId: command.orgId,
              itemId: command.itemId,
              ...source,
              notes,
              tags,
              createdBy: command.by,
              createdAt: command.now,
            },
          },
        ];
      }
      case 'EditInspirationItem': {
        const item = liveItem(state, command.orgId);
        const details: ErrorDetail[] = [];
        const notes =
          command.notes === undefined
            ? item.notes
            : checkOptional(command.notes, 'notes', inspirationLimits.notes, details);
        const tags = command.tags === undefined ? item.tags : checkTags(command.tags, details);
        const contentText =
          command.contentText === undefined
            ? item.contentText
            : checkText(command.contentText, item.sourceType === 'manual_text', details);
        const authorName =
          command.authorName === undefined
            ? item.authorName
            : checkOptional(command.authorName, 'authorName', inspirationLimits.author, details);
        const authorHandle =
          command.authorHandle === undefined
            ? item.authorHandle
            : checkOptional(command.authorHandle, 'authorHandle', inspirationLimits.author, details);
        const drafts =
          command.generatedDrafts === undefined ? undefined : checkDrafts(command.generatedDrafts, details);
        refuseIfAny(details);
        const ids = { orgId: item.orgId, itemId: item.itemId };
        const events: InspirationEvent[] = [];
        const textChanged = contentText !== item.contentText;
        if (
          textChanged ||
          notes !== item.notes ||
          !sameList(tags, item.tags) ||
          authorName !== item.authorName ||
          authorHandle !== item.authorHandle
        )
          events.push({
            type: 'InspirationItemEdited',
            data: {
              ...ids,
              notes,
              tags,
              contentText,
              authorName,
              authorHandle,
              textChanged,
              updatedAt: command.now,
            },
          });
        if (drafts && !sameDrafts(drafts, item.generatedDrafts))
          events.push({
            type: 'InspirationDraftsSet',
            data: {
              ...ids,
              drafts,
              source: 'edited',
              agentRunId: null,
              reviewGroupId: null,
              at: command.now,
            },
          });
        return events;
      }
      case 'StartAnalysis':
        return startAnalysis(liveItem(state, command.orgId), command.now);
      case 'CompleteAnalysis': {
        const item = liveItem(state, command.orgId);
        processing(item);
        return [
          {
            type: 'InspirationAnalysisCompleted',
            data: {
              orgId: item.orgId,
              itemId: item.itemId,
              analysis: command.analysis,
              provider: command.provider,
              model: command.model,
              promptVersion: command.promptVersion,
              agentRunId: command.agentRunId,
              at: command.now,
            },
          },
        ];
      }
      case 'FailAnalysis': {
        const item = liveItem(state, command.orgId);
        processing(item);
        return [
          {
            type: 'InspirationAnalysisFailed',
            data: {
              orgId: item.orgId,
              itemId: item.itemId,
              error: command.error.slice(0, 500),
              at: command.now,
            },
          },
        ];
      }
      case 'RecordDrafts': {
        const item = liveItem(state, command.orgId);
        const details: ErrorDetail[] = [];
        const drafts = checkDrafts(command.drafts, details);
        refuseIfAny(details);
        const ids = { orgId: item.orgId, itemId: item.itemId };
        const events: InspirationEvent[] = [
          {
            type: 'InspirationDraftsSet',
            data: {
              ...ids,
              drafts,
              source: 'generated',
              agentRunId: command.agentRunId,
              reviewGroupId: command.reviewGroupId,
              at: command.now,
            },
          },
        ];
        // Drafts put in review act on the opportunity (unless it was acted on already).
        if (command.reviewGroupId && item.opportunityStatus !== 'acted_on')
          events.push({
            type: 'InspirationOpportunityChanged',
            data: {
              ...ids,
              from: item.opportunityStatus,
              status: 'acted_on',
              feedbackReason: null,
              at: command.now,
            },
          });
        return events;
      }
      case 'ChangeOpportunity': {
        const item = liveItem(state, command.orgId);
        const details: ErrorDetail[] = [];
        const reason = checkOptional(
          command.feedbackReason,
          'reason',
          inspirationLimits.feedbackReason,
          details,
        );
        refuseIfAny(details);
        if (command.status === item.opportunityStatus) return [];
        if (!opportunityMoves[item.opportunityStatus].includes(command.status))
          throw new Conflict(
            `An item ${item.opportunityStatus.replace('_', ' ')} cannot become ${command.status.replace('_', ' ')}`,
            'opportunity_move_refused',
          );
        return [
          {
            type: 'InspirationOpportunityChanged',
            data: {
              orgId: item.orgId,
              itemId: item.itemId,
              from: item.opportunityStatus,
              status: command.status,
              feedbackReason: reason,
              at: command.now,
            },
          },
        ];
      }
      case 'DeleteInspirationItem': {
        const item = liveItem(state, command.orgId);
        return [
          {
            type: 'InspirationItemDeleted',
            data: { orgId: item.orgId, itemId: item.itemId, deletedAt: command.now },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    if (event.type === 'InspirationItemSaved') {
      const { orgId, itemId, notes, tags, createdBy, createdAt, ...source } = event.data;
      return {
        status: 'exists',
        item: {
          ...source,
          itemId,
          orgId,
          analysisStatus: 'pending',
          analysisError: null,
          analysis: null,
          analysisProvider: null,
          analysisModel: null,
          analysisPromptVersion: null,
          analysisStartedAt: null,
          analyzedAt: null,
          generatedAt: null,
          notes,
          tags,
          createdBy,
          feedbackReason: null,
          generatedDrafts: [],
          reviewGroupIds: [],
          opportunityStatus: 'open',
          createdAt,
          updatedAt: createdAt,
        },
      };
    }
    if (event.type === 'InspirationItemDeleted') return { status: 'deleted', orgId: event.data.orgId };
    if (state.status !== 'exists') return state;
    const item = state.item;
    const next = (changes: Partial<InspirationItem>): InspirationState => ({
      status: 'exists',
      item: { ...item, ...changes },
    });
    switch (event.type) {
      case 'InspirationItemEdited': {
        const d = event.data;
        return next({
          notes: d.notes,
          tags: d.tags,
          contentText: d.contentText,
          authorName: d.authorName,
          authorHandle: d.authorHandle,
          updatedAt: d.updatedAt,
          // New words make the analysis stale: it waits to be run again.
          ...(d.textChanged
            ? { analysisStatus: 'pending' as const, analysis: null, analysisError: null, analyzedAt: null }
            : {}),
        });
      }
      case 'InspirationAnalysisStarted':
        return next({
          analysisStatus: 'processing',
          analysisError: null,
          analysisStartedAt: event.data.at,
          updatedAt: event.data.at,
        });
      case 'InspirationAnalysisCompleted': {
        const d = event.data;
        return next({
          analysisStatus: 'ready',
          analysisError: null,
          analysis: d.analysis,
          analysisProvider: d.provider,
          analysisModel: d.model,
          analysisPromptVersion: d.promptVersion,
          analyzedAt: d.at,
          updatedAt: d.at,
        });
      }
      case 'InspirationAnalysisFailed':
        return next({ analysisStatus: 'failed', analysisError: event.data.error, updatedAt: event.data.at });
      case 'InspirationAnalysisSkipped':
        return next({
          analysisStatus: 'skipped',
          analysisError: event.data.reason,
          analysis: null,
          updatedAt: event.data.at,
        });
      case 'InspirationDraftsSet': {
        const d = event.data;
        return next({
          generatedDrafts: d.drafts,
          ...(d.source === 'generated' ? { generatedAt: d.at } : {}),
          reviewGroupIds: d.reviewGroupId ? [...item.reviewGroupIds, d.reviewGroupId] : item.reviewGroupIds,
          updatedAt: d.at,
        });
      }
      case 'InspirationOpportunityChanged':
        return next({
          opportunityStatus: event.data.status,
          feedbackReason: event.data.feedbackReason ?? item.feedbackReason,
          updatedAt: event.data.at,
        });
      default:
        return assertNever(event);
    }
  },
};

/** The item of `orgId` in the state, or 404. */
export const inspirationItemOf = liveItem;
