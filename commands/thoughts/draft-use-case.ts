// POST ORG/thoughts/{thoughtId}/drafts (draft_post_from_thought; issue 29): the `thoughts.draft` AI job writes
// one post per platform from the thought, grounded in the workspace's writing context; an optional branded visual
// (image or carousel) is rendered through the visuals use cases and attached to the posts; the posts go to review
// as one group, pending approval, through the post-group use case `createDraftPost`; the thought records the group
// (status drafted). Nothing is scheduled or published. A provider failure is thrown by the runner before anything
// is created or charged; a visual that fails leaves the text drafts and answers `visualError`.
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import type { AiJobRunner } from '../../domain/ai/job.js';
import type { PostGroupView, PostView } from '../../domain/post-groups/views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { AppError, ValidationError } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import {
  carouselSlidesOf,
  defaultDraftPlatforms,
  draftFromThoughtJob,
  type DraftPlatform,
  type DraftVisual,
  type ThoughtDraftOutput,
} from '../../domain/thoughts/draft-job.js';
import { assertDraftable, thoughtOf, type Thought } from '../../domain/thoughts/thought.js';
import { thoughtBrief, type ThoughtView } from '../../domain/thoughts/views.js';
import { activeThoughtBriefs } from '../../projections/thoughts/queries.js';
import { writingContextOf } from '../ai/writing-context.js';
import type { CreditSummary } from '../billing/credits.js';
import { createDraftPost, type PostGroupUseCaseDeps } from '../post-groups/post-group-use-cases.js';
import {
  renderCarouselVisual,
  renderImageVisual,
  type RenderedImageItem,
  type VisualsDeps,
} from '../visuals/visuals-use-cases.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import { decideThought, loadThought, thoughtWriting, type ThoughtDeps } from './thought-use-cases.js';

export interface ThoughtDraftDeps extends ThoughtDeps {
  aiJobs: AiJobRunner;
  brandContext: BrandContextReader;
  postGroups: PostGroupUseCaseDeps;
  visuals: VisualsDeps;
  credits: { summaryOf(orgId: string, options: { recentLimit?: number }): Promise<CreditSummary> };
}

export interface DraftFromThoughtInput {
  orgId: string;
  thoughtId: string;
  platforms?: DraftPlatform[] | undefined;
  visual?: DraftVisual | undefined;
  guidance?: string | undefined;
  aiBackground?: boolean | undefined;
}

/** The spec's visual object: the rendered images (a carousel's slides) and its PDF's link. */
export interface DraftVisualAnswer {
  kind: 'image' | 'carousel';
  images: RenderedImageItem[];
  documentUrl: string | null;
}

export interface DraftFromThoughtAnswer {
  thought: ThoughtView;
  group: PostGroupView;
  posts: PostView[];
  visual: DraftVisualAnswer | null;
  visualError: string | null;
  providerModel: string;
  creditsUsed: number;
  remainingCredits: number;
}

/** A visual rendered for the drafts: what to answer and what each platform's post carries. */
interface RenderedVisual {
  answer: DraftVisualAnswer;
  mediaFor: (platform: DraftPlatform) => MediaAsset | null;
  /** Credits the AI background cost (0 without one). */
  credits: number;
}

/**
 * A nested write's request (the group, the visual): with the caller's key, a key derived from it, so a retried
 * request replays the group and the visual it made the first time instead of making them again.
 */
function nestedRequest(request: WriteRequest, seed: string | undefined, part: string): WriteRequest {
  const keyed = request.idempotency;
  if (!keyed || !seed) return { correlationId: request.correlationId, now: request.now };
  return {
    correlationId: request.correlationId,
    now: request.now,
    idempotency: {
      key: `thought-draft-${part}-${deterministicUuid(seed, part)}`,
      requestHash: keyed.requestHash,
      status: 200,
    },
  };
}

async function renderVisual(
  deps: ThoughtDraftDeps,
  caller: Caller,
  orgId: string,
  kind: 'image' | 'carousel',
  drafts: ThoughtDraftOutput,
  thought: Thought,
  aiBackground: boolean,
  request: WriteRequest,
): Promise<RenderedVisual> {
  const ai = aiBackground
    ? { prompt: `An abstract, calm background for a social media visual about: ${drafts.title}` }
    : undefined;
  const backgroundCost = (used: unknown) => (used ? deps.visuals.credits.aiBackgroundCost : 0);
  if (kind === 'image') {
    const { output } = await renderImageVisual(
      deps.visuals,
      caller,
      orgId,
      { content: { title: drafts.title }, template: 'headline', format: 'square', aiBackground: ai },
      request,
    );
    return {
      answer: { kind, images: output.images, documentUrl: null },
      mediaFor: () => output.postMedia,
      credits: backgroundCost(output.aiBackground),
    };
  }
  const { output } = await renderCarouselVisual(
    deps.visuals,
    caller,
    orgId,
    { slides: carouselSlidesOf(drafts, thoughtBrief(thought)), format: 'portrait', aiBackground: ai },
    request,
  );
  const media = output.postMedia;
  return {
    answer: { kind, images: output.slides, documentUrl: output.document?.url ?? null },
    // X, Threads and Bluesky take a few images; LinkedIn the PDF as a document; Facebook every slide.
    mediaFor: (platform) =>
      platform === 'linkedin' ? media.linkedin : platform === 'facebook' ? media.facebook : media.x,
    credits: backgroundCost(output.aiBackground),
  };
}

const messageOf = (error: unknown) =>
  error instanceof Error ? error.message : 'The visual could not be made';

/** Draft posts from a thought into review (see the file's comment). */
export async function draftFromThought(
  deps: ThoughtDraftDeps,
  caller: Caller,
  input: DraftFromThoughtInput,
  request: WriteRequest,
): Promise<Written<DraftFromThoughtAnswer>> {
  const { orgId, thoughtId } = input;
  authorize(caller, thoughtWriting(orgId));
  const platforms = [...new Set(input.platforms ?? defaultDraftPlatforms)];
  if (platforms.length === 0)
    throw new ValidationError('Give at least one platform', undefined, [
      { path: 'platforms', message: 'at least one platform' },
    ]);
  const visual = input.visual ?? 'none';
  const guidance = input.guidance?.trim() ? input.guidance.trim() : null;
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    // 404 for an unknown or deleted thought, 409 for an archived one: before any model call or charge.
    const thought = thoughtOf(await loadThought(deps.commands, thoughtId), orgId);
    assertDraftable(thought);
    const context = await writingContextOf(
      {
        commands: deps.commands,
        readModels: deps.readModels,
        brandContext: deps.brandContext,
        // The thought drafted is the subject, not context: the other active thoughts only.
        activeThoughts: async (org, limit) =>
          (await activeThoughtBriefs(deps.readModels, org, limit + 1))
            .filter((t) => t.id !== thoughtId)
            .slice(0, limit),
      },
      orgId,
      new Date(metadata.now),
    );
    // The runner records the run, charges it once and throws a provider failure: nothing is created then.
    const run = await deps.aiJobs.run(draftFromThoughtJob(platforms), {
      orgId,
      userId: caller.userId,
      input: { thought: thoughtBrief(thought), context, platforms, visual, guidance },
      idempotencyKey: idempotencySeed ?? null,
      payload: { thoughtId, platforms, visual, guidance, aiBackground: input.aiBackground ?? false },
    });
    const drafts = run.output;

    let rendered: RenderedVisual | null = null;
    let visualError: string | null = null;
    if (visual !== 'none') {
      try {
        rendered = await renderVisual(
          deps,
          caller,
          orgId,
          visual,
          drafts,
          thought,
          input.aiBackground ?? false,
          nestedRequest(request, idempotencySeed, 'visual'),
        );
      } catch (error) {
        visualError = messageOf(error);
      }
    }

    const posts = platforms.map((platform) => {
      const post = drafts.posts.find((p) => p.platform === platform)!;
      const media = rendered?.mediaFor(platform) ?? null;
      return { platform, contentText: post.contentText, ...(media ? { media } : {}) };
    });
    const draftInput = { orgId, title: drafts.title, topic: thought.text.slice(0, 200), posts };
    let created;
    try {
      created = await createDraftPost(
        deps.postGroups,
        caller,
        draftInput,
        nestedRequest(request, idempotencySeed, 'group'),
      );
    } catch (error) {
      // A visual a platform does not take (its content rules): the drafts go to review without it.
      if (!rendered || !(error instanceof AppError) || error.status >= 500) throw error;
      visualError = `The visual could not be attached: ${error.message}`;
      rendered = null;
      created = await createDraftPost(
        deps.postGroups,
        caller,
        { ...draftInput, posts: posts.map(({ platform, contentText }) => ({ platform, contentText })) },
        nestedRequest(request, idempotencySeed, 'group-text'),
      );
    }
    const { group, posts: postViews } = created.output;
    const { creditBalance } = await deps.credits.summaryOf(orgId, { recentLimit: 0 });
    const answer = (thoughtAfter: ThoughtView): DraftFromThoughtAnswer => ({
      thought: thoughtAfter,
      group,
      posts: postViews,
      visual: rendered?.answer ?? null,
      visualError,
      providerModel: run.providerModel,
      creditsUsed: run.creditsUsed + (rendered?.credits ?? 0),
      remainingCredits: creditBalance.total,
    });
    let recorded: DraftFromThoughtAnswer | null = null;
    const thoughtAfter = await decideThought(
      deps,
      {
        type: 'RecordThoughtDrafts',
        orgId,
        thoughtId,
        groupIds: [group.id],
        agentRunId: run.runId,
        now: metadata.now,
      },
      metadata,
      {
        idempotencySeed,
        record: record
          ? async (trx, view) => {
              recorded = answer(view);
              await record(trx, recorded);
            }
          : undefined,
      },
    );
    return recorded ?? answer(thoughtAfter);
  });
}
