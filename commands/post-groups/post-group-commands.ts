// Post group commands: each loads the group's stream, checks it belongs to the caller's workspace, asks the
// slot finder for times where the decision needs them, and appends what the decider decided.
import {
  postGroupCategory,
  postGroupDecider,
  approvalTargets,
  scheduleTargets,
  type ActivePostGroup,
  type GroupFields,
  type GroupStatus,
  type PostGroupCommand,
  type PostGroupState,
  type PostState,
  type RejectReason,
  type SlotAssignment,
} from '../../domain/post-groups/post-group.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { ContentContext } from '../../domain/post-groups/content-rules.js';
import { decideAll, inSequence } from '../../domain/shared/decider.js';
import { Forbidden, NotFound } from '../../domain/shared/errors.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteOption,
} from '../shared/command-handler.js';
import { deterministicEventIds, newId } from '../shared/ids.js';

export const postGroupStream = (groupId: string) => streamName(postGroupCategory, groupId);

/** Port: picks publishing times for posts (the scheduling-intelligence work replaces the simple finder). */
export interface SlotFinder {
  findSlots(
    orgId: string,
    requests: ReadonlyArray<{ postId: string; platform: Platform }>,
    now: Date,
  ): Promise<Record<string, SlotAssignment>>;
}

export interface PostGroupDeps extends CommandDeps {
  slotFinder: SlotFinder;
}

/** The side write (the idempotency record) is given the state the command left. */
export interface WriteOptions extends SideWriteOption<ActivePostGroup> {
  /** Seed from the Idempotency-Key: the same key yields the same event and record ids. */
  idempotencySeed?: string;
}

export interface WriteResult {
  group: ActivePostGroup;
  /** False when the command changed nothing (nothing appended). */
  appended: boolean;
}

/** The group as the caller's workspace sees it: another workspace's group does not exist. */
function inWorkspace(state: PostGroupState, orgId: string): ActivePostGroup {
  if (state.kind === 'absent' || state.orgId !== orgId) throw new NotFound('Post group not found');
  return state;
}

/** Several decisions on one group taken in order and appended together: all of them or nothing. */
const stepsDecider = inSequence(postGroupDecider);

/**
 * The one append of every post-group command: decides the commands in order against the group's stream
 * (all of them or nothing), with ids from the idempotency seed and the idempotency record in the append.
 */
async function appendToGroup(
  deps: PostGroupDeps,
  orgId: string,
  groupId: string,
  metadata: CommandMetadata,
  options: WriteOptions,
  commands: (state: PostGroupState) => Promise<PostGroupCommand[]>,
): Promise<WriteResult> {
  const outcome = await handleCommand(deps, {
    stream: postGroupStream(groupId),
    decider: stepsDecider,
    command: commands,
    metadata: { ...metadata, orgId },
    eventId: deterministicEventIds(options.idempotencySeed, 'postGroup'),
    sideWrite: options.sideWrite
      ? (trx, o) => options.sideWrite!(trx, o.state as ActivePostGroup)
      : undefined,
  });
  return { group: inWorkspace(outcome.state, orgId), appended: outcome.events.length > 0 };
}

async function run(
  deps: PostGroupDeps,
  orgId: string,
  groupId: string,
  metadata: CommandMetadata,
  options: WriteOptions,
  command: (group: ActivePostGroup) => PostGroupCommand | Promise<PostGroupCommand>,
): Promise<WriteResult> {
  return appendToGroup(deps, orgId, groupId, metadata, options, async (state) => [
    await command(inWorkspace(state, orgId)),
  ]);
}

/**
 * Who acts, as commands and events name them: the user (also when an assistant acts for them), or `system`; and
 * the assistant, when one acts (the decider's rules about assistants read it, the events record it).
 */
function actingOf(metadata: CommandMetadata): Pick<PostGroupCommand, 'by' | 'assistant'> {
  const by = metadata.userId ?? metadata.actor;
  const assistant = metadata.assistant;
  return assistant
    ? { by, assistant: { clientId: assistant.clientId, clientName: assistant.clientName } }
    : { by };
}

function approvalIdFor(options: WriteOptions, revision: string): string {
  return newId(options.idempotencySeed ? [options.idempotencySeed, 'approval', revision] : undefined);
}

export async function loadPostGroup(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
  groupId: string,
  options: { toRevision?: number } = {},
): Promise<{ group: ActivePostGroup; revision: number }> {
  const { state, revision } = await loadAggregate(
    deps.eventStore,
    postGroupStream(groupId),
    postGroupDecider,
    options,
  );
  return { group: inWorkspace(state, orgId), revision: revision ?? 0 };
}

// ------------------------------------------------------------------------------------------ creation

/** The creation command without what the handler fills in (actor, time, approval id). */
export type CreatePostGroupInput = Omit<
  Extract<PostGroupCommand, { type: 'CreatePostGroup' }>,
  'type' | 'by' | 'now' | 'approvalId' | 'assistant'
>;

export async function createPostGroup(
  deps: PostGroupDeps,
  input: CreatePostGroupInput,
  metadata: CommandMetadata,
  options: WriteOptions = {},
): Promise<WriteResult> {
  const command: PostGroupCommand = {
    type: 'CreatePostGroup',
    ...input,
    ...actingOf(metadata),
    now: metadata.now,
    approvalId: approvalIdFor(options, 'create'),
  };
  return appendToGroup(deps, input.orgId, input.groupId, metadata, options, () => Promise.resolve([command]));
}

// ------------------------------------------------------------------------------------------- review

/** A step builds its commands from the group as the steps before it left it (it may ask the slot finder). */
type Step = (group: ActivePostGroup) => PostGroupCommand[] | Promise<PostGroupCommand[]>;

async function runSteps(
  deps: PostGroupDeps,
  orgId: string,
  groupId: string,
  metadata: CommandMetadata,
  options: WriteOptions,
  steps: readonly Step[],
): Promise<WriteResult> {
  return appendToGroup(deps, orgId, groupId, metadata, options, async (state) => {
    let current: PostGroupState = inWorkspace(state, orgId);
    const commands: PostGroupCommand[] = [];
    for (const [index, step] of steps.entries()) {
      const built = await step(inWorkspace(current, orgId));
      commands.push(...built);
      // The next step builds on what this one decided (the last needs no look-ahead).
      if (index < steps.length - 1) current = decideAll(postGroupDecider, built, current).state;
    }
    return commands;
  });
}

/**
 * Edits a group and moves it to `status`, in one append: moving to approved approves what waits for review
 * (without a slot) and unschedules scheduled posts; moving to scheduled follows the schedule command's rules.
 */
export async function updatePostGroup(
  deps: PostGroupDeps,
  ref: { orgId: string; groupId: string },
  input: { changes: Partial<GroupFields>; status?: GroupStatus },
  metadata: CommandMetadata,
  options: WriteOptions = {},
): Promise<WriteResult> {
  const { status } = input;
  // Moving to approved is decided whole by the aggregate; scheduled needs times from the slot finder first.
  const decided = status !== undefined && status !== 'scheduled';
  const steps: Step[] = [
    (group) => [
      {
        type: 'UpdatePostGroup',
        changes: input.changes,
        ...(decided ? { status } : {}),
        ...actingOf(metadata),
        now: metadata.now,
        approvalId: approvalIdFor(options, `update:${group.updatedAt}`),
      },
    ],
  ];
  if (status === 'scheduled') {
    steps.push(async (group) =>
      group.status === 'scheduled' ? [] : [await scheduleCommand(deps, group, {}, metadata)],
    );
  }
  return runSteps(deps, ref.orgId, ref.groupId, metadata, options, steps);
}

/** Times for posts about to be scheduled: the one asked for, the time each already has, or a free slot. */
async function chooseTimes(
  deps: PostGroupDeps,
  group: ActivePostGroup,
  posts: readonly PostState[],
  request: { scheduledForUtc?: string; useBestSlot?: boolean },
  now: string,
): Promise<Record<string, SlotAssignment>> {
  const times: Record<string, SlotAssignment> = {};
  if (request.scheduledForUtc !== undefined) {
    for (const p of posts)
      times[p.id] = { scheduledForUtc: request.scheduledForUtc, scheduleReason: 'Time chosen by a member' };
    return times;
  }
  const needSlot: PostState[] = [];
  const future = (t: string | null): t is string => t !== null && Date.parse(t) > Date.parse(now);
  for (const p of posts) {
    if (!request.useBestSlot && future(p.scheduledForUtc)) {
      times[p.id] = {
        scheduledForUtc: p.scheduledForUtc,
        scheduleReason: p.scheduleReason ?? 'Planned time',
      };
    } else if (!request.useBestSlot && future(group.scheduledFor)) {
      times[p.id] = { scheduledForUtc: group.scheduledFor, scheduleReason: 'Planned time of the group' };
    } else {
      needSlot.push(p);
    }
  }
  if (needSlot.length > 0) {
    Object.assign(
      times,
      await deps.slotFinder.findSlots(
        group.orgId,
        needSlot.map((p) => ({ postId: p.id, platform: p.platform })),
        new Date(now),
      ),
    );
  }
  return times;
}

export interface ApproveInput {
  approvePosts?: string[];
  autoSchedule?: boolean;
  scheduledForUtc?: string;
  timezone?: string;
}

async function approveCommand(
  deps: PostGroupDeps,
  group: ActivePostGroup,
  input: ApproveInput,
  metadata: CommandMetadata,
  options: WriteOptions,
): Promise<PostGroupCommand> {
  const base = {
    type: 'ApprovePostGroup' as const,
    ...(input.approvePosts !== undefined ? { approvePosts: input.approvePosts } : {}),
    ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
    ...actingOf(metadata),
    now: metadata.now,
    approvalId: approvalIdFor(options, `approve:${group.updatedAt}`),
    schedule: null,
    ...(input.scheduledForUtc !== undefined ? { requestedTime: input.scheduledForUtc } : {}),
  };
  const scheduling = input.scheduledForUtc !== undefined || input.autoSchedule !== false;
  if (!scheduling) return base;
  const posts = approvalTargets(group, input.approvePosts);
  const schedule = await chooseTimes(
    deps,
    group,
    posts,
    input.scheduledForUtc !== undefined ? { scheduledForUtc: input.scheduledForUtc } : {},
    metadata.now,
  );
  return { ...base, schedule };
}

export async function approvePostGroup(
  deps: PostGroupDeps,
  ref: { orgId: string; groupId: string },
  input: ApproveInput,
  metadata: CommandMetadata,
  options: WriteOptions = {},
): Promise<WriteResult> {
  return run(deps, ref.orgId, ref.groupId, metadata, options, (group) =>
    approveCommand(deps, group, input, metadata, options),
  );
}

export async function rejectPostGroup(
  deps: PostGroupDeps,
  ref: { orgId: string; groupId: string },
  input: { rejectPosts?: string[]; reason?: RejectReason; note?: string },
  metadata: CommandMetadata,
  options: WriteOptions = {},
): Promise<WriteResult> {
  return run(deps, ref.orgId, ref.groupId, metadata, options, (group) => ({
    type: 'RejectPostGroup',
    ...input,
    ...actingOf(metadata),
    now: metadata.now,
    approvalId: approvalIdFor(options, `reject:${group.updatedAt}`),
  }));
}

export interface ScheduleInput {
  scheduledForUtc?: string;
  useBestSlot?: boolean;
  timezone?: string;
  postIds?: string[];
}

async function scheduleCommand(
  deps: PostGroupDeps,
  group: ActivePostGroup,
  input: ScheduleInput,
  metadata: CommandMetadata,
): Promise<PostGroupCommand> {
  const base = {
    type: 'SchedulePostGroup' as const,
    ...(input.postIds !== undefined ? { postIds: input.postIds } : {}),
    ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
    ...actingOf(metadata),
    now: metadata.now,
  };
  // The decider's own choice of posts, so only posts it will schedule get times (and slot claims).
  const posts = scheduleTargets(group, input.postIds);
  const schedule = await chooseTimes(deps, group, posts, input, metadata.now);
  return { ...base, schedule };
}

export async function schedulePostGroup(
  deps: PostGroupDeps,
  ref: { orgId: string; groupId: string },
  input: ScheduleInput,
  metadata: CommandMetadata,
  options: WriteOptions = {},
): Promise<WriteResult> {
  return run(deps, ref.orgId, ref.groupId, metadata, options, (group) =>
    scheduleCommand(deps, group, input, metadata),
  );
}

// -------------------------------------------------------------------------------------------- posts

export interface UpdatePostInput {
  changes: Extract<PostGroupCommand, { type: 'UpdatePost' }>['changes'];
  status?: PostState['status'];
  contentContext?: ContentContext;
}

export async function updatePost(
  deps: PostGroupDeps,
  ref: { orgId: string; groupId: string; postId: string },
  input: UpdatePostInput,
  metadata: CommandMetadata,
  options: WriteOptions & {
    /** Whether the caller may (re)schedule; moving an approved post in time schedules it. */
    maySchedule: boolean;
  },
): Promise<WriteResult> {
  return run(deps, ref.orgId, ref.groupId, metadata, options, async (group) => {
    const post = group.posts.find((p) => p.id === ref.postId);
    if (!post) throw new NotFound('Post not found');
    if (input.status === 'scheduled' && !options.maySchedule)
      throw new Forbidden('Your role does not allow scheduling posts');
    let schedule: SlotAssignment | undefined;
    if (input.status === 'scheduled' && input.changes.scheduledForUtc === undefined) {
      schedule = (await chooseTimes(deps, group, [post], {}, metadata.now))[post.id];
    }
    return {
      type: 'UpdatePost',
      postId: ref.postId,
      changes: input.changes,
      maySchedule: options.maySchedule,
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(input.contentContext ? { contentContext: input.contentContext } : {}),
      ...(schedule ? { schedule } : {}),
      ...actingOf(metadata),
      now: metadata.now,
      approvalId: approvalIdFor(options, `post:${post.updatedAt}`),
    };
  });
}

export async function requestPublishNow(
  deps: PostGroupDeps,
  ref: { orgId: string; groupId: string; postId: string },
  metadata: CommandMetadata,
  options: WriteOptions = {},
): Promise<WriteResult> {
  return run(deps, ref.orgId, ref.groupId, metadata, options, () => ({
    type: 'RequestPublishNow',
    postId: ref.postId,
    ...actingOf(metadata),
    now: metadata.now,
  }));
}

export async function deletePost(
  deps: PostGroupDeps,
  ref: { orgId: string; groupId: string; postId: string },
  metadata: CommandMetadata,
  options: WriteOptions & {
    /** Called with the post about to be removed, before the append (its answer is rendered in the append). */
    onTarget?: (post: PostState, group: ActivePostGroup) => void;
    /** The post was deleted on the platform first (X post deletion). */
    deletedOnPlatform?: { externalId: string };
  } = {},
): Promise<WriteResult> {
  return run(deps, ref.orgId, ref.groupId, metadata, options, (group) => {
    const post = group.posts.find((p) => p.id === ref.postId);
    if (post) options.onTarget?.(post, group);
    return {
      type: 'DeletePost',
      postId: ref.postId,
      ...actingOf(metadata),
      now: metadata.now,
      ...(options.deletedOnPlatform ? { deletedOnPlatform: options.deletedOnPlatform } : {}),
    };
  });
}
