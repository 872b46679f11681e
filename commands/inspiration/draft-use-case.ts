// POST ORG/inspiration/{itemId}/drafts (issue 31): the `inspiration.draft` AI job writes drafts from a saved item
// for the destinations asked (x, linkedin, thread, article) in one style, grounded in the workspace's writing
// context (public brand context only; commands/ai/writing-context.ts). The drafts are kept on the item
// (generatedDrafts: a new draft replaces the one of the same destination and style). Only when the caller asks
// (`review: true`) do they go to review, as one post group pending approval, through the post-group use case
// `createDraftPost` (an article stays on the item: no platform here takes one); the item is then acted on.
// Nothing is scheduled or published.
import type { AiJobRunner } from '../../domain/ai/job.js';
import {
  defaultDraftDestinations,
  inspirationDraftsJob,
  threadParts,
  type DraftStyleKey,
} from '../../domain/inspiration/drafts-job.js';
import { interpret } from '../../domain/inspiration/interpretation.js';
import {
  inspirationItemOf,
  inspirationLimits,
  type DraftDestination,
  type GeneratedDraft,
} from '../../domain/inspiration/item.js';
import type { InspirationItemView } from '../../domain/inspiration/views.js';
import type { PostGroupView, PostView } from '../../domain/post-groups/views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { writingContextOf } from '../ai/writing-context.js';
import {
  createDraftPost,
  type NewPostRequest,
  type PostGroupUseCaseDeps,
} from '../post-groups/post-group-use-cases.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import {
  decideItem,
  inspirationWriting,
  loadInspirationItem,
  strategyLensFor,
  viewWith,
  type InspirationDeps,
} from './inspiration-use-cases.js';

export interface InspirationDraftDeps extends InspirationDeps {
  aiJobs: AiJobRunner;
  postGroups: PostGroupUseCaseDeps;
}

export interface DraftFromInspirationInput {
  orgId: string;
  itemId: string;
  destinations?: DraftDestination[] | undefined;
  styleKey?: DraftStyleKey | undefined;
  guidance?: string | undefined;
  review?: boolean | undefined;
}

export interface DraftFromInspirationAnswer {
  item: InspirationItemView;
  drafts: GeneratedDraft[];
  /** The group put in review (review: true), else null. */
  group: PostGroupView | null;
  posts: PostView[];
  providerModel: string;
  creditsUsed: number;
}

/** The destinations that go to review, as posts: an X thread is an X post with its further parts. */
function reviewPost(draft: GeneratedDraft): NewPostRequest | null {
  switch (draft.destination) {
    case 'x':
    case 'linkedin':
      return { platform: draft.destination, contentText: draft.text };
    case 'thread': {
      const [first = draft.text, ...rest] = threadParts(draft.text);
      return { platform: 'x', contentText: first, ...(rest.length > 0 ? { thread: rest } : {}) };
    }
    case 'article':
      return null;
  }
}

function nestedRequest(request: WriteRequest, seed: string | undefined, part: string): WriteRequest {
  const keyed = request.idempotency;
  if (!keyed || !seed) return { correlationId: request.correlationId, now: request.now };
  return {
    correlationId: request.correlationId,
    now: request.now,
    idempotency: {
      key: `inspiration-draft-${part}-${deterministicUuid(seed, part)}`,
      requestHash: keyed.requestHash,
      status: 200,
    },
  };
}

/** Drafts from an item (see the file's comment). */
export async function draftFromInspiration(
  deps: InspirationDraftDeps,
  caller: Caller,
  input: DraftFromInspirationInput,
  request: WriteRequest,
): Promise<Written<DraftFromInspirationAnswer>> {
  const { orgId, itemId } = input;
  authorize(caller, inspirationWriting(orgId));
  const destinations = [...new Set(input.destinations ?? defaultDraftDestinations)];
  const styleKey = input.styleKey ?? 'auto';
  const guidance = input.guidance?.trim() ? input.guidance.trim() : null;
  if (input.review && !destinations.some((d) => d !== 'article'))
    throw new InvalidFields('An article is kept on the item; nothing could go to review', [
      { path: 'review', message: 'review needs an x, linkedin or thread destination' },
    ]);
  return runWrite(deps.idempotency, caller, request, async ({ metadata, idempotencySeed }) => {
    // 404 for an unknown or deleted item: before any model call or charge.
    const item = inspirationItemOf(await loadInspirationItem(deps.commands, itemId), orgId);
    const now = new Date(metadata.now);
    const [context, lens] = await Promise.all([
      writingContextOf(
        { commands: deps.commands, readModels: deps.readModels, brandContext: deps.brandContext },
        orgId,
        now,
      ),
      strategyLensFor(deps.commands, orgId, metadata.now),
    ]);
    const pillar = interpret(item, lens)?.matchedPillars[0] ?? null;
    // The runner records the run, charges it once and throws a provider failure: nothing is kept then.
    const run = await deps.aiJobs.run(inspirationDraftsJob(destinations), {
      orgId,
      userId: caller.userId,
      input: {
        item: {
          contentText: item.contentText,
          authorName: item.authorName,
          analysis: item.analysis,
          tags: item.tags,
        },
        context,
        destinations,
        styleKey,
        guidance,
        pillar,
      },
      idempotencyKey: idempotencySeed ?? null,
      payload: { itemId, destinations, styleKey, guidance, review: input.review ?? false },
    });
    const drafts = destinations.map((d) => run.output.drafts.find((x) => x.destination === d)!);

    let group: PostGroupView | null = null;
    let posts: PostView[] = [];
    if (input.review) {
      const created = await createDraftPost(
        deps.postGroups,
        caller,
        {
          orgId,
          title: (item.analysis?.topic ?? item.contentText).slice(0, 120) || 'From the inspiration library',
          ...(item.analysis ? { topic: item.analysis.topic.slice(0, 200) } : {}),
          posts: drafts.flatMap((d) => {
            const post = reviewPost(d);
            return post ? [post] : [];
          }),
        },
        nestedRequest(request, idempotencySeed, 'group'),
      );
      group = created.output.group;
      posts = created.output.posts;
    }
    // New drafts replace those of the same destination and style; the newest are kept within the limit.
    const kept = item.generatedDrafts.filter(
      (old) => !drafts.some((d) => d.destination === old.destination && d.styleKey === old.styleKey),
    );
    const all = [...kept, ...drafts].slice(-inspirationLimits.drafts);
    const after = await decideItem(
      deps,
      {
        type: 'RecordDrafts',
        orgId,
        itemId,
        drafts: all,
        agentRunId: run.runId,
        reviewGroupId: group?.id ?? null,
        now: metadata.now,
      },
      metadata,
      { idempotencySeed, step: 'drafts' },
    );
    return {
      item: viewWith(lens)(after),
      drafts,
      group,
      posts,
      providerModel: run.providerModel,
      creditsUsed: run.creditsUsed,
    };
  });
}
