// Post-group and post use cases for a caller: create groups and drafts, edit, approve, reject and schedule
// groups, edit, remove and publish posts now. Each checks the caller (the role's permission, for an assistant
// its scope; what a PATCH needs depends on what it changes), then what the decision needs from the workspace
// (tags, accounts, content rules), and runs the commands through the write pipeline; answers are rendered from
// the state the command left.
import type { Kysely } from 'kysely';
import { checkPostContent, type ContentContext } from '../../domain/post-groups/content-rules.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import type { PlatformPayload } from '../../domain/post-groups/post-content.js';
import type {
  ActivePostGroup,
  GroupStatus,
  NewPostInput,
  PostState,
  RejectReason,
} from '../../domain/post-groups/post-group.js';
import {
  postGroupView,
  postView,
  type PostGroupView,
  type PostView,
} from '../../domain/post-groups/views.js';
import {
  authorize,
  hasPermission,
  hasScope,
  requirePermission,
  requireScope,
  type Caller,
} from '../../domain/shared/caller.js';
import { InvalidFields, NotFound, type ErrorDetail } from '../../domain/shared/errors.js';
import type { Permission } from '../../domain/workspaces/roles.js';
import { findPostGroupIdOfPost, findPostRow } from '../../projections/post-groups/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import { workspaceTimezoneOf } from '../../projections/scheduling/queries.js';
import { existingTagIds } from '../../projections/tags/queries.js';
import type { IdempotencyStore } from '../shared/idempotency.js';
import { newId } from '../shared/ids.js';
import { runWrite, type WriteRequest, type WriteStep, type Written } from '../shared/write-pipeline.js';
import {
  approvePostGroup as approveCommand,
  createPostGroup as createCommand,
  deletePost as deletePostCommand,
  rejectPostGroup as rejectCommand,
  requestPublishNow as publishNowCommand,
  schedulePostGroup as scheduleCommand,
  updatePost as updatePostCommand,
  updatePostGroup as updateGroupCommand,
  type ApproveInput,
  type PostGroupDeps,
  type ScheduleInput,
  type WriteOptions,
  type WriteResult,
} from './post-group-commands.js';
import { checkPostAccounts, checkTags, resolvePostMedia } from './post-group-checks.js';

export interface PostGroupUseCaseDeps {
  postGroups: PostGroupDeps;
  readModels: Kysely<ReadModels>;
  idempotency: IdempotencyStore;
}

/** The permissions that let a role change posts in some way; editing a post or a group needs one of them. */
export const postWritePermissions = [
  'posts:draft',
  'posts:approve',
  'posts:schedule',
] as const satisfies readonly Permission[];

export interface GroupWithPosts {
  group: PostGroupView;
  posts: PostView[];
}

/** Tags deleted since they were put on the group are left out of answers (the read model drops them too). */
export async function renderGroup(db: Kysely<ReadModels>, group: ActivePostGroup): Promise<PostGroupView> {
  const view = postGroupView(group);
  if (view.tagIds.length === 0) return view;
  const live = await existingTagIds(db, group.orgId, view.tagIds);
  return { ...view, tagIds: view.tagIds.filter((id) => live.has(id)) };
}

const groupAndPosts = async (db: Kysely<ReadModels>, group: ActivePostGroup): Promise<GroupWithPosts> => ({
  group: await renderGroup(db, group),
  posts: group.posts.map((p) => postView(group, p)),
});

/**
 * A post-group write through the pipeline: the answer is rendered from the state the command left, inside the
 * append's transaction when the request carries a key (and stored there); a no-op renders the state it found.
 */
function groupWrite<Output>(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  request: WriteRequest,
  execute: (step: WriteStep<Output>, options: WriteOptions) => Promise<WriteResult>,
  render: (db: Kysely<ReadModels>, group: ActivePostGroup) => Promise<Output>,
  settle?: (output: Output) => Promise<Output | null>,
): Promise<Written<Output>> {
  return runWrite(
    deps.idempotency,
    caller,
    request,
    async (step) => {
      const { record, idempotencySeed } = step;
      let rendered: { output: Output } | undefined;
      const result = await execute(step, {
        ...(idempotencySeed ? { idempotencySeed } : {}),
        // Without a key nothing is stored with the append, which then needs no transaction of its own (one
        // statement instead of begin, append, commit); the answer is rendered after it.
        ...(record
          ? {
              sideWrite: async (trx, group) => {
                rendered = { output: await render(trx, group) };
                await record(trx, rendered.output);
              },
            }
          : {}),
      });
      if (!result.appended || !rendered) return render(deps.readModels, result.group);
      return rendered.output;
    },
    settle ? { settle } : {},
  );
}

// ------------------------------------------------------------------------------------------- creation

/** Platform settings a caller may give beside the post instead of in platformPayload. */
const liftedKeys = [
  'reddit',
  'youtube',
  'tiktok',
  'thread',
  'quoteTweetUrl',
  'communityUrl',
  'replySettings',
  'poll',
] as const;

/** A new post as callers give it: its settings in platformPayload, or (drafts; replySettings) beside it. */
export type NewPostRequest = {
  platform: Platform;
  contentText: string;
  socialAccountId?: string;
  media?: MediaAsset;
  platformPayload?: PlatformPayload;
} & PlatformPayload;

/**
 * Settings given beside the post are kept in its platformPayload; content problems are reported under the names
 * the caller used (`posts.0.poll.options`, or `posts.0.platformPayload.poll.options`).
 */
function toNewPosts(
  posts: readonly NewPostRequest[],
  groupTitle: string,
  idFor: (index: number) => string,
  accounts: ContentContext,
): NewPostInput[] {
  const details: ErrorDetail[] = [];
  const out = posts.map((p, index) => {
    const payload: Record<string, unknown> = { ...p.platformPayload };
    const lifted = new Set<string>();
    for (const key of liftedKeys) {
      if (p[key] !== undefined) {
        payload[key] = p[key];
        lifted.add(key);
      }
    }
    const post: NewPostInput = {
      postId: idFor(index),
      platform: p.platform,
      socialAccountId: p.socialAccountId ?? null,
      contentText: p.contentText,
      media: p.media ?? null,
      platformPayload: Object.keys(payload).length > 0 ? payload : null,
    };
    for (const problem of checkPostContent(post, { ...accounts, groupTitle })) {
      const key = /^platformPayload\.([^.]+)/.exec(problem.path)?.[1];
      const path = key && lifted.has(key) ? problem.path.slice('platformPayload.'.length) : problem.path;
      details.push({ path: `posts.${index}.${path}`, message: problem.message });
    }
    return post;
  });
  if (details.length > 0) throw new InvalidFields('The content does not meet the platform rules', details);
  return out;
}

interface NewGroupRequest {
  orgId: string;
  title: string;
  topic?: string;
  objective?: string;
  posts: readonly NewPostRequest[];
}

/** The composer's planning fields, which drafts do not take. */
export interface GroupPlanning {
  timezone?: string;
  scheduledFor?: string;
  tagIds?: string[];
  strategyId?: string;
  strategyVersion?: number;
  pillarId?: string;
  priorityId?: string;
  contentType?: string;
  opportunityId?: string;
}

export type CreatePostGroupInput = NewGroupRequest & GroupPlanning;
export type CreateDraftPostInput = NewGroupRequest;

/** Post groups and drafts are created alike; drafts carry fewer fields and enter review at once. */
async function create(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  origin: 'post_groups' | 'drafts',
  input: NewGroupRequest,
  planning: GroupPlanning,
  request: WriteRequest,
): Promise<Written<GroupWithPosts>> {
  const { orgId } = input;
  // Without a time zone of its own, the group is planned in the workspace's (UTC until one is set).
  const [groupTimezone, accounts] = await Promise.all([
    planning.timezone ?? workspaceTimezoneOf(deps.readModels, orgId),
    checkPostAccounts(
      deps.readModels,
      orgId,
      input.posts.map((p, index) => ({
        platform: p.platform,
        socialAccountId: p.socialAccountId,
        path: `posts.${index}.socialAccountId`,
      })),
    ),
  ]);
  const media = await resolvePostMedia(
    deps.readModels,
    deps.postGroups,
    orgId,
    input.posts.map((p, index) => ({ media: p.media, path: `posts.${index}.media` })),
  );
  const posts = input.posts.map((p, index) => ({ ...p, media: media[index] }));
  return groupWrite(
    deps,
    caller,
    request,
    ({ metadata }, options) => {
      const seed = options.idempotencySeed;
      return createCommand(
        deps.postGroups,
        {
          orgId,
          groupId: newId(seed ? [seed, 'group'] : undefined),
          origin,
          fields: {
            title: input.title,
            topic: input.topic ?? null,
            objective: input.objective ?? null,
            timezone: groupTimezone,
            scheduledFor: planning.scheduledFor ?? null,
            tagIds: [...new Set(planning.tagIds ?? [])],
          },
          strategy: {
            strategyId: planning.strategyId ?? null,
            strategyVersion: planning.strategyVersion ?? null,
            pillarId: planning.pillarId ?? null,
            priorityId: planning.priorityId ?? null,
            contentType: planning.contentType ?? null,
            opportunityId: planning.opportunityId ?? null,
          },
          posts: toNewPosts(
            posts,
            input.title,
            (i) => newId(seed ? [seed, 'post', String(i)] : undefined),
            accounts,
          ),
          contentContext: accounts,
        },
        metadata,
        options,
      );
    },
    groupAndPosts,
  );
}

/** A group with one post per platform, starting as a draft. Members only: an assistant's drafts go to review. */
export async function createPostGroup(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  input: CreatePostGroupInput,
  request: WriteRequest,
): Promise<Written<GroupWithPosts>> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:draft', scope: null });
  await checkTags(deps.readModels, input.orgId, input.tagIds);
  const { orgId, title, topic, objective, posts, ...planning } = input;
  return create(deps, caller, 'post_groups', { orgId, title, topic, objective, posts }, planning, request);
}

/** Tool: create_draft_post. One group, one variant per platform, all waiting for approval (never published). */
export async function createDraftPost(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  input: CreateDraftPostInput,
  request: WriteRequest,
): Promise<Written<GroupWithPosts>> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:draft', scope: 'posts:write' });
  return create(deps, caller, 'drafts', input, {}, request);
}

// ------------------------------------------------------------------------------------ group edits

export interface UpdatePostGroupInput {
  orgId: string;
  groupId: string;
  /** Omitted keys stay. */
  title?: string;
  topic?: string | null;
  objective?: string | null;
  timezone?: string;
  scheduledFor?: string | null;
  tagIds?: string[];
  /** The status to move the group to, decided with the edit (a refused move leaves the edit unsaved too). */
  status?: GroupStatus;
}

/** What moving a group or a post to approved or scheduled takes, besides the role: for an assistant, the scope. */
function requireApprovalRights(caller: Caller, status: string | undefined): void {
  if (status === 'approved') {
    requirePermission(caller, 'posts:approve');
    requireScope(caller, 'posts:schedule');
  }
  if (status === 'scheduled') {
    requirePermission(caller, 'posts:schedule');
    requireScope(caller, 'posts:schedule');
  }
}

/**
 * Tool: update_post_group. Any edit needs posts:draft; `status: approved` posts:approve and `status: scheduled`
 * posts:schedule (an assistant also needs the posts:schedule scope for either). Editing title, topic or objective
 * of an approved group withdraws its approval.
 */
export async function updatePostGroup(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  input: UpdatePostGroupInput,
  request: WriteRequest,
): Promise<Written<PostGroupView>> {
  const { orgId, groupId, status, ...changes } = input;
  authorize(caller, { orgId, permission: postWritePermissions, scope: 'posts:write' });
  if (
    Object.keys(changes).length > 0 ||
    status === 'draft' ||
    status === 'pending_approval' ||
    status === 'canceled'
  )
    requirePermission(caller, 'posts:draft');
  requireApprovalRights(caller, status);
  await checkTags(deps.readModels, orgId, changes.tagIds);
  return groupWrite(
    deps,
    caller,
    request,
    ({ metadata }, options) =>
      updateGroupCommand(
        deps.postGroups,
        { orgId, groupId },
        { changes, ...(status !== undefined ? { status } : {}) },
        metadata,
        options,
      ),
    renderGroup,
  );
}

// ------------------------------------------------------------------------------------------- review

type GroupRef = { orgId: string; groupId: string };

/** Tool: approve_post_group. Unless autoSchedule is false, each approved post gets the best free slot. */
export async function approvePostGroup(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  input: GroupRef & ApproveInput,
  request: WriteRequest,
): Promise<Written<PostGroupView>> {
  const { orgId, groupId, ...approval } = input;
  authorize(caller, { orgId, permission: 'posts:approve', scope: 'posts:schedule' });
  return groupWrite(
    deps,
    caller,
    request,
    ({ metadata }, options) =>
      approveCommand(deps.postGroups, { orgId, groupId }, approval, metadata, options),
    renderGroup,
  );
}

export interface RejectInput {
  rejectPosts?: string[];
  reason?: RejectReason;
  note?: string;
}

/** Tool: reject_post_group. Back to draft; the reason is kept as a preference signal. */
export async function rejectPostGroup(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  input: GroupRef & RejectInput,
  request: WriteRequest,
): Promise<Written<PostGroupView>> {
  const { orgId, groupId, ...rejection } = input;
  authorize(caller, { orgId, permission: 'posts:approve', scope: 'posts:write' });
  return groupWrite(
    deps,
    caller,
    request,
    ({ metadata }, options) =>
      rejectCommand(deps.postGroups, { orgId, groupId }, rejection, metadata, options),
    renderGroup,
  );
}

/** Tool: schedule_post_group. The approved posts, at a time or the best free slot; 409 for draft or pending. */
export async function schedulePostGroup(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  input: GroupRef & ScheduleInput,
  request: WriteRequest,
): Promise<Written<PostGroupView>> {
  const { orgId, groupId, ...schedule } = input;
  authorize(caller, { orgId, permission: 'posts:schedule', scope: 'posts:schedule' });
  return groupWrite(
    deps,
    caller,
    request,
    ({ metadata }, options) =>
      scheduleCommand(deps.postGroups, { orgId, groupId }, schedule, metadata, options),
    renderGroup,
  );
}

// -------------------------------------------------------------------------------------------- posts

type PostRef = { orgId: string; postId: string };

/**
 * The post's group, looked up inside the write: a replay answers the stored answer without it, so a retried
 * DELETE (the post is gone from the read model by then) replays its answer instead of a 404.
 */
async function groupOfPost(deps: PostGroupUseCaseDeps, { orgId, postId }: PostRef) {
  const groupId = await findPostGroupIdOfPost(deps.readModels, orgId, postId);
  if (!groupId) throw new NotFound('Post not found');
  return { orgId, groupId, postId };
}

/** Answers a post write with that post as the command left it. */
const renderPost =
  (postId: string) =>
  async (_db: unknown, group: ActivePostGroup): Promise<PostView> => {
    const post = group.posts.find((p) => p.id === postId);
    if (!post) throw new NotFound('Post not found');
    return postView(group, post);
  };

export interface UpdatePostInput extends PostRef {
  /** Omitted keys stay; null removes quoteTweetUrl, communityUrl, replySettings or poll. */
  socialAccountId?: string;
  status?: PostState['status'];
  scheduledForUtc?: string;
  contentText?: string;
  media?: MediaAsset;
  platformPayload?: PlatformPayload;
  quoteTweetUrl?: string | null;
  communityUrl?: string | null;
  replySettings?: PlatformPayload['replySettings'] | null;
  poll?: PlatformPayload['poll'] | null;
}

/**
 * Tool: update_post. Content changes need posts:draft, `status: approved` posts:approve, scheduling
 * posts:schedule (an assistant also needs the posts:schedule scope for those two), a new time posts:draft or
 * posts:schedule. Editing the content of an approved, scheduled or failed post withdraws its approval.
 */
export async function updatePost(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  input: UpdatePostInput,
  request: WriteRequest,
): Promise<Written<PostView>> {
  const {
    orgId,
    postId,
    status,
    scheduledForUtc,
    quoteTweetUrl,
    communityUrl,
    replySettings,
    poll,
    ...content
  } = input;
  authorize(caller, { orgId, permission: postWritePermissions, scope: 'posts:write' });
  if (
    Object.keys(content).length > 0 ||
    (status !== undefined && !['approved', 'scheduled'].includes(status))
  )
    requirePermission(caller, 'posts:draft');
  if (
    quoteTweetUrl !== undefined ||
    communityUrl !== undefined ||
    replySettings !== undefined ||
    poll !== undefined
  )
    requirePermission(caller, 'posts:draft');
  requireApprovalRights(caller, status);
  if (scheduledForUtc !== undefined) requirePermission(caller, 'posts:draft', 'posts:schedule');
  const payloadPatch = Object.fromEntries(
    Object.entries({ quoteTweetUrl, communityUrl, replySettings, poll }).filter(([, v]) => v !== undefined),
  );
  // Moving an approved post in time schedules it: only for callers who may schedule.
  const maySchedule = hasPermission(caller, 'posts:schedule') && hasScope(caller, 'posts:schedule');
  const row = await findPostRow(deps.readModels, orgId, postId);
  const accounts = row
    ? await checkPostAccounts(deps.readModels, orgId, [
        {
          platform: row.platform as Platform,
          socialAccountId: content.socialAccountId,
          path: 'socialAccountId',
        },
      ])
    : {};
  if (row && content.media !== undefined)
    [content.media] = await resolvePostMedia(deps.readModels, deps.postGroups, orgId, [
      { media: content.media, path: 'media' },
    ]);
  return groupWrite(
    deps,
    caller,
    request,
    async ({ metadata }, options) =>
      updatePostCommand(
        deps.postGroups,
        await groupOfPost(deps, { orgId, postId }),
        {
          changes: {
            ...content,
            ...(scheduledForUtc !== undefined ? { scheduledForUtc } : {}),
            ...(Object.keys(payloadPatch).length > 0 ? { payloadPatch } : {}),
          },
          ...(status !== undefined ? { status } : {}),
          contentContext: accounts,
        },
        metadata,
        { ...options, maySchedule },
      ),
    renderPost(postId),
  );
}

/** Removes a post from its group (and the schedule); answers with the post as it was. */
export async function deletePost(
  deps: PostGroupUseCaseDeps,
  caller: Caller,
  input: PostRef,
  request: WriteRequest,
): Promise<Written<PostView>> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:draft', scope: 'posts:write' });
  let removed: PostView | undefined;
  return groupWrite(
    deps,
    caller,
    request,
    async ({ metadata }, options) =>
      deletePostCommand(deps.postGroups, await groupOfPost(deps, input), metadata, {
        ...options,
        onTarget: (post, group) => {
          removed = {
            ...postView(group, post),
            // A removed post that never went out is canceled; a published one stays published on its platform.
            status: post.status === 'published' ? 'published' : 'canceled',
          };
        },
      }),
    async (_db, group) => {
      if (removed) return removed;
      throw new Error(`deleted post ${input.postId} of group ${group.id} was not captured`);
    },
  );
}

/** The post once it has left `publishing` (published, awaiting the platform, retrying or failed), or null. */
async function awaitPublishOutcome(
  db: Kysely<ReadModels>,
  { orgId, postId }: PostRef,
  waitMs: number,
): Promise<PostView | null> {
  const deadline = Date.now() + waitMs;
  for (let delay = 20; Date.now() < deadline; delay = Math.min(200, delay * 2)) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    const row = await findPostRow(db, orgId, postId);
    if (!row) return null;
    if (row.body.status !== 'publishing') return row.body;
  }
  return null;
}

/**
 * Tool: post_now. Records the publish request, which the pipeline picks up at once, and answers with the post
 * once the attempt has an outcome, or as `publishing` when that takes longer than `waitMs`; a replay answers
 * what the first request answered. Refused for a post that is not approved (409).
 */
export async function postNow(
  deps: PostGroupUseCaseDeps & { postNowWaitMs: number },
  caller: Caller,
  input: PostRef,
  request: WriteRequest,
): Promise<Written<PostView>> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:publish', scope: 'posts:publish' });
  return groupWrite(
    deps,
    caller,
    request,
    async ({ metadata }, options) =>
      publishNowCommand(deps.postGroups, await groupOfPost(deps, input), metadata, options),
    renderPost(input.postId),
    () => awaitPublishOutcome(deps.readModels, input, deps.postNowWaitMs),
  );
}
