// Launch kit use cases for a caller (a member, or an assistant with posts:write / mcp:read): create a kit (the
// launch_kits.create job writes the copy; its posts are drafted into review as pending approval through the
// post-groups' createDraftPost; the plan is laid out in the workspace's zone; nothing is scheduled), list kits,
// show one with its posts' current statuses, and mark a step done.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import type { AiJobRunner } from '../../domain/ai/job.js';
import {
  createLaunchKitJob,
  type LaunchKitCopy,
  type LaunchKitJobInput,
} from '../../domain/launch-kits/create-job.js';
import type { LaunchChannel, PlannedStep } from '../../domain/launch-kits/event-codec.js';
import {
  launchKitCategory,
  launchKitDecider,
  type LaunchKitCommand,
  type LaunchKitState,
} from '../../domain/launch-kits/launch-kit.js';
import { launchPlan, type PlanStep, type PostSlot } from '../../domain/launch-kits/plan.js';
import {
  launchKitListItem,
  launchKitView,
  type DraftedPosts,
  type LaunchKitListItem,
  type LaunchKitView,
} from '../../domain/launch-kits/views.js';
import { checkPostContent } from '../../domain/post-groups/content-rules.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { InvalidFields, NotFound, type ErrorDetail } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { toPage, type Page } from '../../domain/shared/page.js';
import { streamName } from '../../infra/event-store/port.js';
import { draftedPostsOf, findLaunchKit, listLaunchKits } from '../../projections/launch-kits/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import { schedulingProfileOf, workspaceTimezoneOf } from '../../projections/scheduling/queries.js';
import { writingContextOf } from '../ai/writing-context.js';
import { createDraftPost, type PostGroupUseCaseDeps } from '../post-groups/post-group-use-cases.js';
import { handleCommand, type CommandMetadata, type SideWriteDb } from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export interface LaunchKitDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
  /** Runs the launch_kits.create job (the ai slice's `ai jobs` service). */
  aiJobs: AiJobRunner;
  /** The workspace's public brand context (the brand-profile slice's `brand context` service). */
  brandContext: BrandContextReader;
  /** Where the kit's posts are drafted (the post-groups use cases' dependencies). */
  postGroups: PostGroupUseCaseDeps;
  /** The workspace's credits left after a run (monthly + purchased). */
  remainingCredits: (orgId: string) => Promise<number>;
}

export const launchKitStream = (kitId: string) => streamName(launchKitCategory, kitId);

export const defaultLaunchChannels: readonly LaunchChannel[] = [
  'product_hunt',
  'hacker_news',
  'x',
  'linkedin',
];

const reading = (orgId: string) => ({ orgId, permission: 'posts:read', scope: 'mcp:read' }) as const;
const drafting = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

export interface CreateLaunchKitInput {
  orgId: string;
  pitch: string;
  launchDate: string;
  productName?: string;
  url?: string;
  channels?: LaunchChannel[];
  subreddits?: string[];
  guidance?: string;
}

export interface CreatedLaunchKit {
  kit: LaunchKitView;
  providerModel: string;
  creditsUsed: number;
  remainingCredits: number;
}

const blankToNull = (s: string | undefined) => (s?.trim() ? s.trim() : null);

/** Reddit needs a subreddit per post: named as the content rules check them, before any credit is spent. */
function checkSubreddits(channels: readonly LaunchChannel[], subreddits: readonly string[]): void {
  const details: ErrorDetail[] = [];
  if (channels.includes('reddit') && subreddits.length === 0)
    details.push({ path: 'subreddits', message: 'Name at least one subreddit to launch on Reddit' });
  if (!channels.includes('reddit') && subreddits.length > 0)
    details.push({
      path: 'subreddits',
      message: 'Subreddits are for the reddit channel, which is not chosen',
    });
  subreddits.forEach((subreddit, index) => {
    const problems = checkPostContent({
      platform: 'reddit',
      contentText: 'x',
      media: null,
      platformPayload: { reddit: { subreddit, title: 'x' } },
    });
    for (const p of problems.filter((p) => p.path === 'platformPayload.reddit.subreddit'))
      details.push({ path: `subreddits.${index}`, message: p.message });
  });
  if (details.length > 0) throw new InvalidFields('Invalid launch channels', details);
}

/** A key of its own for each draft a keyed creation makes, so a retried request drafts the same groups. */
function draftRequest(request: WriteRequest, slot: PostSlot): WriteRequest {
  const keyed = request.idempotency;
  if (!keyed) return { correlationId: request.correlationId, now: request.now };
  const key = `launch-kit:${createHash('sha256').update(`${keyed.key}\u0000${slot.key}`).digest('hex').slice(0, 40)}`;
  return {
    correlationId: request.correlationId,
    now: request.now,
    idempotency: { key, requestHash: `${keyed.requestHash}:${slot.key}`, status: 201 },
  };
}

/** The copy the writer gave for a post slot; the offline writer's where a model left one out. */
function copyOf(copy: LaunchKitCopy, fallback: LaunchKitCopy, slot: PostSlot) {
  const match = (c: LaunchKitCopy) => c.posts.find((p) => p.key === slot.key && p.channel === slot.channel);
  return (match(copy) ?? match(fallback))!;
}

/** Drafts the plan's posts into review (pending approval) and answers the plan's steps with their group ids. */
async function draftPosts(
  deps: LaunchKitDeps,
  caller: Caller,
  request: WriteRequest,
  input: { orgId: string; productName: string },
  plan: readonly PlanStep[],
  copy: LaunchKitCopy,
  fallback: LaunchKitCopy,
): Promise<{ steps: PlannedStep[]; drafted: Map<string, { status: 'pending_approval'; text: string }> }> {
  const drafted = new Map<string, { status: 'pending_approval'; text: string }>();
  const steps: PlannedStep[] = [];
  // One group per post step, one after the other (each its own write): a step has its own moment and time.
  for (const { key: _key, post, ...step } of plan) {
    if (!post) {
      steps.push({ ...step, groupId: null });
      continue;
    }
    const text = copyOf(copy, fallback, post);
    const written = await createDraftPost(
      deps.postGroups,
      caller,
      {
        orgId: input.orgId,
        title: `${input.productName} launch: ${step.title}`,
        topic: input.productName,
        objective: 'Product launch',
        posts: [
          {
            platform: post.platform,
            contentText: text.contentText,
            ...(post.subreddit !== null
              ? { reddit: { subreddit: post.subreddit, title: text.title ?? input.productName } }
              : {}),
          },
        ],
      },
      draftRequest(request, post),
    );
    const group = written.output.group;
    drafted.set(group.id, {
      status: 'pending_approval',
      text: written.output.posts[0]?.contentText ?? text.contentText,
    });
    steps.push({ ...step, groupId: group.id });
  }
  return { steps, drafted };
}

/** A task's detail as the writer tailored it, else the template's. */
const withTaskDetails = (plan: PlanStep[], copy: LaunchKitCopy): PlanStep[] =>
  plan.map((s) => {
    const tailored = s.kind !== 'post' ? copy.tasks.find((t) => t.key === s.key)?.detail : undefined;
    return tailored ? { ...s, detail: tailored } : s;
  });

/** POST ORG/launch-kits: the copy (an AI job), the posts drafted into review, the plan; never scheduled. */
export async function createLaunchKit(
  deps: LaunchKitDeps,
  caller: Caller,
  input: CreateLaunchKitInput,
  request: WriteRequest,
): Promise<Written<CreatedLaunchKit>> {
  const { orgId } = input;
  authorize(caller, drafting(orgId));
  const channels = [...new Set(input.channels ?? defaultLaunchChannels)];
  const subreddits = [...new Set(input.subreddits ?? [])];
  checkSubreddits(channels, subreddits);
  const productName = blankToNull(input.productName);
  const url = blankToNull(input.url);
  const guidance = blankToNull(input.guidance);
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const [writing, timezone, profile] = await Promise.all([
      writingContextOf(
        {
          commands: deps.commands,
          readModels: deps.readModels,
          brandContext: deps.brandContext,
        },
        orgId,
        new Date(request.now),
      ),
      // The workspace's zone, as a new post group is planned in (UTC until one is set).
      workspaceTimezoneOf(deps.readModels, orgId),
      schedulingProfileOf(deps.readModels, orgId),
    ]);
    const planned = launchPlan({ launchDate: input.launchDate, timezone, channels, subreddits, profile });
    const jobInput: LaunchKitJobInput = {
      writing,
      productName,
      pitch: input.pitch.trim(),
      url,
      launchDate: input.launchDate,
      channels,
      guidance,
      posts: planned.flatMap((s) => (s.post ? [s.post] : [])),
      tasks: planned.filter((s) => s.kind !== 'post').map((s) => ({ key: s.key, title: s.title })),
    };
    // A provider failure throws here: nothing drafted, nothing appended, the credits released.
    const result = await deps.aiJobs.run(createLaunchKitJob, {
      orgId,
      userId: caller.userId,
      input: jobInput,
      idempotencyKey: idempotencySeed ?? null,
      payload: { pitch: jobInput.pitch, launchDate: input.launchDate, channels, productName, url },
    });
    const copy = result.output;
    const fallback = createLaunchKitJob.heuristic(jobInput);
    const name = productName ?? copy.productName;
    const { steps, drafted } = await draftPosts(
      deps,
      caller,
      request,
      { orgId, productName: name },
      withTaskDetails(planned, copy),
      copy,
      fallback,
    );
    const has = (c: LaunchChannel) => channels.includes(c);
    const kitId = deterministicUuid('launch-kit', result.runId);
    const command: LaunchKitCommand = {
      type: 'CreateLaunchKit',
      orgId,
      kitId,
      content: {
        productName: name,
        pitch: jobInput.pitch,
        url,
        launchDate: input.launchDate,
        timezone,
        channels,
        productHunt: has('product_hunt') ? (copy.productHunt ?? fallback.productHunt) : null,
        hackerNews: has('hacker_news')
          ? { ...(copy.hackerNews ?? fallback.hackerNews)!, url: url ?? copy.hackerNews?.url ?? null }
          : null,
        steps,
      },
      agentRunId: result.runId,
      providerModel: result.providerModel,
      source: result.source,
      by: caller.userId,
      now: request.now,
    };
    const remainingCredits = await deps.remainingCredits(orgId);
    const answer = (state: LaunchKitState): CreatedLaunchKit => ({
      kit: launchKitView(kitOf(state, kitId), drafted),
      providerModel: result.providerModel,
      creditsUsed: result.creditsUsed,
      remainingCredits,
    });
    const outcome = await decide(
      deps,
      orgId,
      kitId,
      command,
      metadata,
      idempotencySeed,
      record && ((trx, s) => record(trx, answer(s))),
    );
    return answer(outcome);
  });
}

function kitOf(state: LaunchKitState, kitId: string) {
  // decide refused the command already when the kit is missing; reaching this is a broken invariant.
  if (state.status !== 'exists') throw new Error(`Launch kit ${kitId} missing after its write`);
  return state.kit;
}

async function decide(
  deps: WriteDeps,
  orgId: string,
  kitId: string,
  command: LaunchKitCommand,
  metadata: CommandMetadata,
  idempotencySeed: string | undefined,
  record: ((trx: SideWriteDb, state: LaunchKitState) => Promise<void>) | undefined,
): Promise<LaunchKitState> {
  const outcome = await handleCommand(deps.commands, {
    stream: launchKitStream(kitId),
    decider: launchKitDecider,
    command,
    metadata: { ...metadata, orgId },
    eventId: deterministicEventIds(idempotencySeed, 'launch-kit'),
    sideWrite: record ? (trx, o) => record(trx, o.state) : undefined,
  });
  return outcome.state;
}

async function draftedOf(
  deps: Pick<LaunchKitDeps, 'readModels'>,
  orgId: string,
  kit: { steps: { groupId: string | null }[] },
): Promise<DraftedPosts> {
  return draftedPostsOf(
    deps.readModels,
    orgId,
    kit.steps.flatMap((s) => (s.groupId ? [s.groupId] : [])),
  );
}

/** GET ORG/launch-kits: newest first, paged. */
export async function listKits(
  deps: Pick<LaunchKitDeps, 'readModels'>,
  caller: Caller,
  input: { orgId: string; page: number; limit: number },
): Promise<Page<LaunchKitListItem>> {
  authorize(caller, reading(input.orgId));
  const offset = (input.page - 1) * input.limit;
  const { rows, total } = await listLaunchKits(deps.readModels, input.orgId, { limit: input.limit, offset });
  return toPage(rows.map(launchKitListItem), total, input.page, input.limit);
}

/** GET ORG/launch-kits/{kitId}: the kit with its posts' statuses and texts as the post groups have them now. */
export async function getKit(
  deps: Pick<LaunchKitDeps, 'readModels'>,
  caller: Caller,
  input: { orgId: string; kitId: string },
): Promise<LaunchKitView> {
  authorize(caller, reading(input.orgId));
  const kit = await findLaunchKit(deps.readModels, input.orgId, input.kitId);
  if (!kit) throw new NotFound('Launch kit not found');
  return launchKitView(kit, await draftedOf(deps, input.orgId, kit));
}

/** PATCH ORG/launch-kits/{kitId}: a step marked done or not done; answers the kit. */
export async function updateLaunchStep(
  deps: LaunchKitDeps,
  caller: Caller,
  input: { orgId: string; kitId: string; stepId: string; done: boolean },
  request: WriteRequest,
): Promise<Written<LaunchKitView>> {
  authorize(caller, drafting(input.orgId));
  // A kit of another workspace is not found (its stream is read only for a kit this workspace has).
  if (!(await findLaunchKit(deps.readModels, input.orgId, input.kitId)))
    throw new NotFound('Launch kit not found');
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const answer = async (db: Kysely<ReadModels>, state: LaunchKitState) => {
      const kit = kitOf(state, input.kitId);
      return launchKitView(kit, await draftedOf({ readModels: db }, input.orgId, kit));
    };
    let recorded: LaunchKitView | undefined;
    const state = await decide(
      deps,
      input.orgId,
      input.kitId,
      {
        type: 'MarkLaunchStep',
        kitId: input.kitId,
        stepId: input.stepId,
        done: input.done,
        now: request.now,
      },
      metadata,
      idempotencySeed,
      record &&
        (async (trx, s) => {
          recorded = await answer(trx, s);
          await record(trx, recorded);
        }),
    );
    return recorded ?? answer(deps.readModels, state);
  });
}
