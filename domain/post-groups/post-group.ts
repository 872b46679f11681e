// The post group aggregate and its posts (one stream `postGroup-<groupId>`): drafting, review, approval,
// scheduling and the publish request. Approvals are bound to a hash of the content they approved.
import { Conflict, Forbidden, NotFound, ValidationError, type ErrorDetail } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { deterministicUuid } from '../shared/ids.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { createHash } from 'node:crypto';
import { checkPostContent, type ContentContext } from './content-rules.js';
import {
  contentHash,
  type MediaAsset,
  type Platform,
  type PlatformPayload,
  type PostContent,
} from './post-content.js';

export const postGroupCategory = 'postGroup';

export const groupStatuses = ['draft', 'pending_approval', 'approved', 'scheduled', 'canceled'] as const;
export type GroupStatus = (typeof groupStatuses)[number];

export const postStatuses = [
  'draft',
  'pending_approval',
  'approved',
  'scheduled',
  'publishing',
  'awaiting_platform',
  'published',
  'failed',
  'canceled',
] as const;
export type PostStatus = (typeof postStatuses)[number];

export const rejectReasons = [
  'not_my_voice',
  'not_interesting',
  'too_promotional',
  'inaccurate',
  'repetitive',
  'wrong_timing',
  'other',
] as const;
export type RejectReason = (typeof rejectReasons)[number];

export type ApprovalAction = 'submit_for_approval' | 'approved' | 'reapproved' | 'rejected';
export type ApprovalLevel = 'group' | 'post';

export interface ApprovalRecord {
  id: string;
  level: ApprovalLevel;
  groupId: string;
  postId: string | null;
  approvedByUserId: string;
  approvedAt: string;
  action: ApprovalAction;
}

/** Links to the strategy that motivated the content (spec: strategyId … opportunityId). */
export interface StrategyLink {
  strategyId: string | null;
  strategyVersion: number | null;
  pillarId: string | null;
  priorityId: string | null;
  contentType: string | null;
  opportunityId: string | null;
}

/** Posts that left our hands (or are on their way out) are never edited, approved or rescheduled here. */
const inFlightOrSent: readonly PostStatus[] = ['publishing', 'awaiting_platform', 'published'];
const awaitingReview: readonly PostStatus[] = ['draft', 'pending_approval'];
/** Statuses that hold an approval of the post's content. */
const holdingApproval: readonly PostStatus[] = ['approved', 'scheduled', 'failed'];

export interface PostState {
  id: string;
  groupId: string;
  platform: Platform;
  socialAccountId: string | null;
  status: PostStatus;
  scheduledForUtc: string | null;
  scheduleReason: string | null;
  contentText: string;
  media: MediaAsset | null;
  platformPayload: PlatformPayload | null;
  contentHash: string;
  /** Hash of the content the last approval covered; null when the post holds no approval. */
  approvedContentHash: string | null;
  everApproved: boolean;
  publishedExternalId: string | null;
  publishedUrl: string | null;
  attemptCount: number;
  lastAttemptAt: string | null;
  nextRetryAt: string | null;
  lastError: string | null;
  idempotencyKey: string | null;
  publishRequests: number;
  /** An attempt was claimed and has no outcome yet (its worker may have died: it is checked, never repeated). */
  attemptOpen: boolean;
  /** The platform's handle on a publish it is still processing (awaiting_platform). */
  publishReference: string | null;
  approvals: ApprovalRecord[];
  createdAt: string;
  updatedAt: string;
}

export interface ActivePostGroup {
  kind: 'active';
  id: string;
  orgId: string;
  title: string;
  topic: string | null;
  objective: string | null;
  status: GroupStatus;
  timezone: string;
  scheduledFor: string | null;
  scheduleReason: string | null;
  approvedBy: string | null;
  approvedAt: string | null;
  everApproved: boolean;
  tagIds: string[];
  strategy: StrategyLink;
  approvals: ApprovalRecord[];
  /** Posts in creation order; deleted posts are removed. */
  posts: PostState[];
  createdAt: string;
  updatedAt: string;
}

export type PostGroupState = { kind: 'absent' } | ActivePostGroup;

// ---------------------------------------------------------------------------------------------- events

export interface NewPostData {
  postId: string;
  platform: Platform;
  socialAccountId: string | null;
  contentText: string;
  media: MediaAsset | null;
  platformPayload: PlatformPayload | null;
  contentHash: string;
}

interface By {
  orgId: string;
  groupId: string;
  /** The user who acted (for an assistant, the user it acts for). */
  by: string;
  at: string;
}

export interface GroupFields {
  title: string;
  topic: string | null;
  objective: string | null;
  timezone: string;
  scheduledFor: string | null;
  tagIds: string[];
}

export type PostGroupEvent =
  | {
      type: 'PostGroupCreated';
      data: By &
        GroupFields & { strategy: StrategyLink; origin: 'post_groups' | 'drafts'; posts: NewPostData[] };
    }
  | { type: 'PostGroupUpdated'; data: By & { changes: Partial<GroupFields> } }
  | {
      type: 'PostGroupSubmittedForApproval';
      data: By & {
        approvalId: string;
        level: ApprovalLevel;
        /** Why: submitted by someone, or an edit withdrew an approval and sent the content back to review. */
        cause: 'created' | 'submitted' | 'group_edited' | 'post_edited';
        posts: Array<{ postId: string; contentHash: string }>;
        groupStatus: GroupStatus;
      };
    }
  | {
      type: 'PostGroupApproved';
      data: By & {
        level: ApprovalLevel;
        records: Array<{ approvalId: string; postId: string | null; action: 'approved' | 'reapproved' }>;
        posts: Array<{ postId: string; contentHash: string }>;
        groupStatus: GroupStatus;
      };
    }
  | {
      type: 'PostGroupRejected';
      data: By & {
        level: ApprovalLevel;
        records: Array<{ approvalId: string; postId: string | null }>;
        posts: Array<{ postId: string; contentHash: string }>;
        reason: RejectReason | null;
        note: string | null;
        groupStatus: GroupStatus;
      };
    }
  | {
      /** A reviewer's rejection as a signal other parts (preference learning) can learn from. */
      type: 'PreferenceSignalRecorded';
      data: By & {
        kind: 'reject';
        signal: RejectReason | 'unspecified';
        note: string | null;
        topic: string | null;
        posts: Array<{ postId: string; platform: Platform; contentText: string }>;
      };
    }
  | {
      type: 'PostsScheduled';
      data: By & {
        posts: Array<{ postId: string; scheduledForUtc: string; scheduleReason: string }>;
        timezone: string | null;
        groupStatus: GroupStatus;
      };
    }
  | {
      type: 'PostsStatusChanged';
      data: By & {
        cause: 'returned_to_draft' | 'canceled' | 'unscheduled';
        postIds: string[];
        status: 'draft' | 'approved' | 'canceled';
        groupStatus: GroupStatus;
      };
    }
  | {
      type: 'PostEdited';
      data: By & {
        postId: string;
        changes: {
          contentText?: string;
          media?: MediaAsset | null;
          platformPayload?: PlatformPayload | null;
          socialAccountId?: string | null;
          scheduledForUtc?: string | null;
        };
        contentHash: string;
      };
    }
  | {
      type: 'PostPublishRequested';
      data: By & {
        postId: string;
        contentHash: string;
        idempotencyKey: string;
        trigger: 'post_now';
      };
    }
  | {
      type: 'PostDeleted';
      data: By & {
        postId: string;
        groupStatus: GroupStatus;
        /** Set when the post was first deleted on the platform (X post deletion). */
        deletedOnPlatform?: { externalId: string };
      };
    }
  | {
      /** The claim: appended with the revision the worker read, so only one worker ever makes this attempt. */
      type: 'PostPublishAttemptStarted';
      data: By & {
        postId: string;
        attempt: number;
        idempotencyKey: string;
        contentHash: string;
        socialAccountId: string | null;
        trigger: PublishTrigger;
      };
    }
  | {
      type: 'PostPublished';
      data: By & { postId: string; attempt: number; externalId: string; url: string };
    }
  | {
      type: 'PostAwaitingPlatform';
      data: By & { postId: string; attempt: number; reference: string; nextCheckAt: string };
    }
  | {
      type: 'PostPublishAttemptFailed';
      data: By & {
        postId: string;
        attempt: number;
        error: string;
        reason: PublishFailureReason;
        /** When the next attempt is due; null when the post has failed for good. */
        nextRetryAt: string | null;
      };
    }
  | {
      /** The account the posts were to be published with was removed from the workspace. */
      type: 'PostsAccountRemoved';
      data: By & {
        socialAccountId: string;
        postIds: string[];
        /** Of postIds, those that were scheduled and are now approved without a time. */
        unscheduledPostIds: string[];
        message: string;
        groupStatus: GroupStatus;
      };
    };

export type PublishTrigger = 'schedule' | 'post_now' | 'retry';
/**
 * Why an attempt failed: `retryable` (try again later), `permanent` (the platform refused the content),
 * `account` (no usable account: removed, disconnected, needs reconnecting), `unconfirmed` (the outcome could not be
 * established, so it is not repeated blindly), `platform_timeout` (the platform never finished processing),
 * `attempts_exhausted` (the last allowed attempt failed).
 */
export type PublishFailureReason =
  'retryable' | 'permanent' | 'account' | 'unconfirmed' | 'platform_timeout' | 'attempts_exhausted';

export type PostGroupEventType = PostGroupEvent['type'];
export const postGroupEventTypes: readonly PostGroupEventType[] = [
  'PostGroupCreated',
  'PostGroupUpdated',
  'PostGroupSubmittedForApproval',
  'PostGroupApproved',
  'PostGroupRejected',
  'PreferenceSignalRecorded',
  'PostsScheduled',
  'PostsStatusChanged',
  'PostEdited',
  'PostPublishRequested',
  'PostDeleted',
  'PostPublishAttemptStarted',
  'PostPublished',
  'PostAwaitingPlatform',
  'PostPublishAttemptFailed',
  'PostsAccountRemoved',
];

// -------------------------------------------------------------------------------------------- commands

export interface NewPostInput {
  postId: string;
  platform: Platform;
  socialAccountId: string | null;
  contentText: string;
  media: MediaAsset | null;
  platformPayload: PlatformPayload | null;
}

export type PayloadPatch = {
  [K in 'quoteTweetUrl' | 'communityUrl' | 'replySettings' | 'poll']?: PlatformPayload[K] | null;
};

/** A time for a post, chosen by the caller or by the slot finder (the command handler asks it). */
export interface SlotAssignment {
  scheduledForUtc: string;
  scheduleReason: string;
}

interface Common {
  /** Acting user id. */
  by: string;
  now: string;
}

export type PostGroupCommand =
  | (Common & {
      type: 'CreatePostGroup';
      orgId: string;
      groupId: string;
      fields: GroupFields;
      strategy: StrategyLink;
      posts: NewPostInput[];
      /** Drafts enter review at once; a composed group starts as a draft. */
      origin: 'post_groups' | 'drafts';
      approvalId: string;
      contentContext?: ContentContext;
    })
  | (Common & {
      type: 'UpdatePostGroup';
      changes: Partial<GroupFields>;
      contentContext?: ContentContext;
      /** Only the moves that need no approval or slot; approve and schedule have their own commands. */
      status?: 'draft' | 'pending_approval' | 'canceled';
      approvalId: string;
    })
  | (Common & {
      type: 'ApprovePostGroup';
      approvePosts?: string[];
      /** Times for the posts being approved, or null to approve without scheduling. */
      schedule: Record<string, SlotAssignment> | null;
      timezone?: string;
      approvalId: string;
    })
  | (Common & {
      type: 'RejectPostGroup';
      rejectPosts?: string[];
      reason?: RejectReason;
      note?: string;
      approvalId: string;
    })
  | (Common & {
      type: 'SchedulePostGroup';
      postIds?: string[];
      schedule: Record<string, SlotAssignment>;
      timezone?: string;
    })
  | (Common & {
      type: 'UpdatePost';
      postId: string;
      changes: {
        contentText?: string;
        media?: MediaAsset | null;
        platformPayload?: PlatformPayload | null;
        socialAccountId?: string | null;
        scheduledForUtc?: string;
        /** X settings the spec lets PATCH set one by one; null removes the key from platformPayload. */
        payloadPatch?: PayloadPatch;
      };
      status?: PostStatus;
      contentContext?: ContentContext;
      /** False when the caller's role may not schedule: a change that would (re)schedule the post is refused. */
      maySchedule?: boolean;
      /** Time for `status: scheduled` (or rescheduling) when no explicit time is given. */
      schedule?: SlotAssignment;
      approvalId: string;
    })
  | (Common & { type: 'RequestPublishNow'; postId: string })
  | (Common & { type: 'DeletePost'; postId: string; deletedOnPlatform?: { externalId: string } })
  | (Common & {
      type: 'StartPublishAttempt';
      postId: string;
      /** The account the publishing worker resolved (the post's own, or the workspace's only one). */
      socialAccountId: string | null;
    })
  | (Common & {
      type: 'RecordPublishOutcome';
      postId: string;
      attempt: number;
      outcome: PublishOutcomeRecord;
    })
  | (Common & { type: 'RemoveSocialAccount'; socialAccountId: string; message: string });

/** What became of an attempt (or of a poll of a post the platform was still processing). */
export type PublishOutcomeRecord =
  | { kind: 'published'; externalId: string; url: string }
  | { kind: 'pending'; reference: string; nextCheckAt: string }
  | { kind: 'failed'; error: string; reason: PublishFailureReason; nextRetryAt: string | null };

// ------------------------------------------------------------------------------------------- helpers

export function isApprovalCurrent(post: PostState): boolean {
  return post.approvedContentHash !== null && post.approvedContentHash === post.contentHash;
}

/** Group status after approvals, rejections and scheduling: the furthest stage any unsent post reached. */
export function deriveGroupStatus(posts: readonly PostState[], fallback: GroupStatus): GroupStatus {
  if (posts.some((p) => p.status === 'scheduled')) return 'scheduled';
  if (posts.some((p) => p.status === 'approved' || (p.status === 'failed' && isApprovalCurrent(p))))
    return 'approved';
  if (posts.some((p) => p.status === 'pending_approval')) return 'pending_approval';
  if (posts.some((p) => p.status === 'draft')) return 'draft';
  if (posts.length === 0 || posts.every((p) => p.status === 'canceled')) return 'canceled';
  return fallback;
}

/** What the publishing pipeline has to do for a post, and from when; null when nothing. */
export interface PublishWork {
  /** `publish`: start an attempt; `reconcile`: an open attempt, checked once it is stale; `poll`: ask the platform. */
  action: 'publish' | 'reconcile' | 'poll';
  dueAt: string;
}

export function publishWork(post: PostState): PublishWork | null {
  switch (post.status) {
    case 'scheduled':
      if (!isApprovalCurrent(post) || post.scheduledForUtc === null) return null;
      return { action: 'publish', dueAt: post.nextRetryAt ?? post.scheduledForUtc };
    case 'publishing':
      return post.attemptOpen
        ? { action: 'reconcile', dueAt: post.lastAttemptAt ?? post.updatedAt }
        : { action: 'publish', dueAt: post.updatedAt };
    case 'awaiting_platform':
      return { action: 'poll', dueAt: post.nextRetryAt ?? post.updatedAt };
    case 'draft':
    case 'pending_approval':
    case 'approved':
    case 'published':
    case 'failed':
    case 'canceled':
      return null;
    default:
      return assertNever(post.status);
  }
}

/** One hash for a group-level record: the posts' content hashes in post-id order. */
export function combinedContentHash(posts: ReadonlyArray<{ postId: string; contentHash: string }>): string {
  const sorted = [...posts].sort((a, b) => (a.postId < b.postId ? -1 : a.postId > b.postId ? 1 : 0));
  return `sha256:${createHash('sha256').update(canonicalJson(sorted)).digest('hex')}`;
}

/** The group status once the given posts have moved to `status`. */
function groupStatusAfter(
  group: ActivePostGroup,
  postIds: readonly string[],
  status: PostStatus,
  fallback: GroupStatus = group.status,
): GroupStatus {
  const moved = new Set(postIds);
  return deriveGroupStatus(
    group.posts.map((p) => (moved.has(p.id) ? { ...p, status } : p)),
    fallback,
  );
}

const ids = (posts: readonly PostState[]) => posts.map((p) => p.id);

function active(state: PostGroupState): ActivePostGroup {
  if (state.kind === 'absent') throw new NotFound('Post group not found');
  return state;
}

function findPost(group: ActivePostGroup, postId: string): PostState {
  const post = group.posts.find((p) => p.id === postId);
  if (!post) throw new NotFound('Post not found');
  return post;
}

/** Posts named in a body list must belong to the group: an unknown id is a bad request, not a 404. */
function namedPosts(group: ActivePostGroup, ids: readonly string[], field: string): PostState[] {
  const details: ErrorDetail[] = [];
  const posts: PostState[] = [];
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) return;
    seen.add(id);
    const post = group.posts.find((p) => p.id === id);
    if (!post) details.push({ path: `body.${field}.${index}`, message: 'Not a post of this group' });
    else posts.push(post);
  });
  if (details.length > 0) throw new ValidationError('Unknown post ids', undefined, details);
  return posts;
}

function assertFuture(time: string, now: string, path: string): void {
  if (!(Date.parse(time) > Date.parse(now))) {
    throw new ValidationError('The time must be in the future', undefined, [
      { path, message: `must be later than now (${now})` },
    ]);
  }
}

/** Applies the events a decision produced to the state, to derive the group status that follows. */
function simulate(group: ActivePostGroup, events: PostGroupEvent[]): ActivePostGroup {
  return events.reduce((s, e) => postGroupDecider.evolve(s, e), group as PostGroupState) as ActivePostGroup;
}

function postHashes(posts: readonly PostState[]) {
  return posts.map((p) => ({ postId: p.id, contentHash: p.contentHash }));
}

function by(group: ActivePostGroup, command: Common): By {
  return { orgId: group.orgId, groupId: group.id, by: command.by, at: command.now };
}

/** Content rules hold for every caller; the API checks them first to name fields the way it received them. */
function assertContent(
  content: PostContent & { socialAccountId?: string | null },
  context: ContentContext,
  prefix: string,
  rename: (path: string) => string = (path) => path,
): void {
  const problems = checkPostContent(content, context);
  if (problems.length > 0) {
    throw new ValidationError(
      'The content does not meet the platform rules',
      undefined,
      problems.map((p) => ({ path: `${prefix}${rename(p.path)}`, message: p.message })),
    );
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

// -------------------------------------------------------------------------------------------- decide

function decideCreate(
  command: Extract<PostGroupCommand, { type: 'CreatePostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  // A retried creation (same id) changes nothing.
  if (state.kind === 'active') return [];
  const title = command.fields.title.trim();
  const details: ErrorDetail[] = [];
  if (title.length === 0) details.push({ path: 'body.title', message: 'must not be blank' });
  if (command.posts.length === 0) details.push({ path: 'body.posts', message: 'at least one post' });
  if (
    command.fields.scheduledFor !== null &&
    !(Date.parse(command.fields.scheduledFor) > Date.parse(command.now))
  )
    details.push({ path: 'body.scheduledFor', message: `must be later than now (${command.now})` });
  const targets = new Set<string>();
  command.posts.forEach((p, index) => {
    const key = `${p.platform}:${p.socialAccountId ?? ''}`;
    if (targets.has(key))
      details.push({
        path: `body.posts.${index}.platform`,
        message: 'one variant per platform and account in a group',
      });
    targets.add(key);
  });
  if (details.length > 0) throw new ValidationError('Invalid post group', undefined, details);
  command.posts.forEach((p, index) =>
    assertContent(p, { ...command.contentContext, groupTitle: title }, `body.posts.${index}.`),
  );

  const base: By = { orgId: command.orgId, groupId: command.groupId, by: command.by, at: command.now };
  const posts: NewPostData[] = command.posts.map((p) => ({ ...p, contentHash: contentHash(p) }));
  const events: PostGroupEvent[] = [
    {
      type: 'PostGroupCreated',
      data: { ...base, ...command.fields, title, strategy: command.strategy, origin: command.origin, posts },
    },
  ];
  if (command.origin === 'drafts') {
    events.push({
      type: 'PostGroupSubmittedForApproval',
      data: {
        ...base,
        approvalId: command.approvalId,
        level: 'group',
        cause: 'created',
        posts: posts.map((p) => ({ postId: p.postId, contentHash: p.contentHash })),
        groupStatus: 'pending_approval',
      },
    });
  }
  return events;
}

/** Sends posts (back) to review: their approval is withdrawn and the group follows. */
function submitForApproval(
  group: ActivePostGroup,
  command: Common & { approvalId: string },
  posts: readonly PostState[],
  level: ApprovalLevel,
  cause: 'submitted' | 'group_edited' | 'post_edited',
): PostGroupEvent[] {
  if (posts.length === 0) return [];
  return [
    {
      type: 'PostGroupSubmittedForApproval',
      data: {
        ...by(group, command),
        approvalId: command.approvalId,
        level,
        cause,
        posts: postHashes(posts),
        groupStatus: groupStatusAfter(group, ids(posts), 'pending_approval'),
      },
    },
  ];
}

function decideUpdateGroup(
  command: Extract<PostGroupCommand, { type: 'UpdatePostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const changes: Partial<GroupFields> = {};
  const c = command.changes;
  if (c.title !== undefined) {
    const title = c.title.trim();
    if (title.length === 0)
      throw new ValidationError('Invalid title', undefined, [
        { path: 'body.title', message: 'must not be blank' },
      ]);
    if (title !== group.title) changes.title = title;
    // A YouTube post without its own title is published under the group's, so the new title must suit YouTube.
    const details = group.posts
      .filter((p) => p.platform === 'youtube' && !inFlightOrSent.includes(p.status))
      .flatMap((p) => checkPostContent(p, { ...command.contentContext, groupTitle: title }))
      .filter((problem) => problem.path === 'platformPayload.youtube.title')
      .map((problem) => ({ path: 'body.title', message: problem.message }));
    if (changes.title !== undefined && details.length > 0)
      throw new ValidationError(
        'The title does not suit the group’s YouTube post',
        undefined,
        details.slice(0, 1),
      );
  }
  if (c.topic !== undefined && c.topic !== group.topic) changes.topic = c.topic;
  if (c.objective !== undefined && c.objective !== group.objective) changes.objective = c.objective;
  if (c.timezone !== undefined && c.timezone !== group.timezone) changes.timezone = c.timezone;
  if (c.scheduledFor !== undefined && c.scheduledFor !== group.scheduledFor) {
    if (c.scheduledFor !== null) assertFuture(c.scheduledFor, command.now, 'body.scheduledFor');
    changes.scheduledFor = c.scheduledFor;
  }
  if (c.tagIds !== undefined) {
    const tagIds = [...new Set(c.tagIds)];
    if (!sameJson(tagIds, group.tagIds)) changes.tagIds = tagIds;
  }

  const events: PostGroupEvent[] = [];
  if (Object.keys(changes).length > 0) {
    events.push({ type: 'PostGroupUpdated', data: { ...by(group, command), changes } });
  }
  const contentEdited =
    changes.title !== undefined || changes.topic !== undefined || changes.objective !== undefined;
  let current = simulate(group, events);
  if (contentEdited && (group.status === 'approved' || group.status === 'scheduled')) {
    // Editing what the group says withdraws its approval: every post holding one goes back to review.
    const withdrawn = current.posts.filter((p) => holdingApproval.includes(p.status));
    events.push(...submitForApproval(current, command, withdrawn, 'group', 'group_edited'));
    current = simulate(group, events);
  }

  if (command.status !== undefined && command.status !== current.status) {
    events.push(...decideGroupStatus(current, command, command.status));
  }
  return events;
}

function decideGroupStatus(
  group: ActivePostGroup,
  command: Common & { approvalId: string },
  status: 'draft' | 'pending_approval' | 'canceled',
): PostGroupEvent[] {
  const unsent = group.posts.filter((p) => !inFlightOrSent.includes(p.status));
  switch (status) {
    case 'pending_approval': {
      const posts = unsent.filter((p) => p.status !== 'pending_approval');
      const events = submitForApproval(group, command, posts, 'group', 'submitted');
      if (events.length > 0) return events;
      return [];
    }
    case 'draft':
    case 'canceled': {
      const posts = unsent.filter((p) => p.status !== status);
      return [
        {
          type: 'PostsStatusChanged',
          data: {
            ...by(group, command),
            cause: status === 'draft' ? 'returned_to_draft' : 'canceled',
            postIds: posts.map((p) => p.id),
            status,
            groupStatus: status,
          },
        },
      ];
    }
    default:
      return assertNever(status);
  }
}

/**
 * The posts an approval covers: those named (refusing ones already out or canceled), or every post waiting
 * for review. The command handler asks it too, to choose times for exactly these posts.
 */
export function approvalTargets(
  group: ActivePostGroup,
  approvePosts: readonly string[] | undefined,
): PostState[] {
  if (group.status === 'canceled') throw new Conflict('The post group is canceled', 'group_canceled');
  if (approvePosts === undefined) {
    return group.posts.filter(
      (p) => awaitingReview.includes(p.status) || (p.status === 'failed' && !isApprovalCurrent(p)),
    );
  }
  const named = namedPosts(group, approvePosts, 'approvePosts');
  const refused = named.find((p) => inFlightOrSent.includes(p.status) || p.status === 'canceled');
  if (refused)
    throw new Conflict(
      `Post ${refused.id} is ${refused.status} and cannot be approved`,
      'post_not_approvable',
    );
  return named.filter((p) => !isApprovalCurrent(p) || awaitingReview.includes(p.status));
}

/**
 * The posts a schedule command covers: those named (each must hold a current approval), or every post that
 * holds one. The group must be approved. The command handler asks it too, to choose times for these posts.
 */
export function scheduleTargets(group: ActivePostGroup, postIds: readonly string[] | undefined): PostState[] {
  if (group.status === 'draft' || group.status === 'pending_approval')
    throw new Conflict(
      `The post group is ${group.status}; approve it before scheduling`,
      'group_not_approved',
    );
  if (group.status === 'canceled') throw new Conflict('The post group is canceled', 'group_canceled');
  let targets: PostState[];
  if (postIds !== undefined) {
    targets = namedPosts(group, postIds, 'postIds');
    for (const p of targets) {
      if (awaitingReview.includes(p.status) || !isApprovalCurrent(p))
        throw new Conflict(`Post ${p.id} is ${p.status}; approve it before scheduling`, 'post_not_approved');
      if (!holdingApproval.includes(p.status))
        throw new Conflict(`Post ${p.id} is ${p.status} and cannot be scheduled`, 'post_not_schedulable');
    }
  } else {
    targets = schedulablePosts(group);
  }
  if (targets.length === 0)
    throw new Conflict('No approved post in this group to schedule', 'nothing_to_schedule');
  return targets;
}

function decideApprove(
  command: Extract<PostGroupCommand, { type: 'ApprovePostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const targets = approvalTargets(group, command.approvePosts);
  const events: PostGroupEvent[] = [];
  if (targets.length > 0) {
    const level: ApprovalLevel = command.approvePosts !== undefined ? 'post' : 'group';
    const records =
      level === 'group'
        ? [
            {
              approvalId: command.approvalId,
              postId: null,
              action: group.everApproved ? ('reapproved' as const) : ('approved' as const),
            },
          ]
        : targets.map((p) => ({
            approvalId: deterministicUuid(command.approvalId, p.id),
            postId: p.id,
            action: p.everApproved ? ('reapproved' as const) : ('approved' as const),
          }));
    events.push({
      type: 'PostGroupApproved',
      data: {
        ...by(group, command),
        level,
        records,
        posts: postHashes(targets),
        groupStatus: groupStatusAfter(group, ids(targets), 'approved'),
      },
    });
  } else if (group.status === 'draft' || group.status === 'pending_approval') {
    throw new Conflict('Nothing in this group is waiting for approval', 'nothing_to_approve');
  }
  if (command.schedule !== null) {
    const approved = simulate(group, events);
    const toSchedule = (targets.length > 0 ? targets : []).map((t) => findPost(approved, t.id));
    events.push(...scheduleEvents(approved, command, toSchedule, command.schedule, command.timezone));
  } else if (command.timezone !== undefined && command.timezone !== group.timezone) {
    events.push({
      type: 'PostGroupUpdated',
      data: { ...by(group, command), changes: { timezone: command.timezone } },
    });
  }
  return events;
}

function scheduleEvents(
  group: ActivePostGroup,
  command: Common,
  posts: readonly PostState[],
  schedule: Record<string, SlotAssignment>,
  timezone: string | undefined,
): PostGroupEvent[] {
  const assignments: Array<{ postId: string; scheduledForUtc: string; scheduleReason: string }> = [];
  for (const post of posts) {
    const slot = schedule[post.id];
    if (!slot) throw new Error(`No time was chosen for post ${post.id}`);
    assertFuture(slot.scheduledForUtc, command.now, 'body.scheduledForUtc');
    if (post.status === 'scheduled' && post.scheduledForUtc === slot.scheduledForUtc) continue;
    assignments.push({ postId: post.id, ...slot });
  }
  const tz = timezone !== undefined && timezone !== group.timezone ? timezone : null;
  if (assignments.length === 0 && tz === null) return [];
  return [
    {
      type: 'PostsScheduled',
      data: {
        ...by(group, command),
        posts: assignments,
        timezone: tz,
        groupStatus: groupStatusAfter(
          group,
          assignments.map((a) => a.postId),
          'scheduled',
        ),
      },
    },
  ];
}

function decideReject(
  command: Extract<PostGroupCommand, { type: 'RejectPostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  if (group.status === 'canceled') throw new Conflict('The post group is canceled', 'group_canceled');
  const rejectable = (p: PostState) => !inFlightOrSent.includes(p.status) && p.status !== 'canceled';
  let targets: PostState[];
  if (command.rejectPosts !== undefined) {
    targets = namedPosts(group, command.rejectPosts, 'rejectPosts');
    const refused = targets.find((p) => !rejectable(p));
    if (refused)
      throw new Conflict(
        `Post ${refused.id} is ${refused.status} and cannot be rejected`,
        'post_not_rejectable',
      );
  } else {
    targets = group.posts.filter(rejectable);
  }
  if (targets.length === 0) throw new Conflict('Nothing in this group can be rejected', 'nothing_to_reject');
  const level: ApprovalLevel = command.rejectPosts !== undefined ? 'post' : 'group';
  const records =
    level === 'group'
      ? [{ approvalId: command.approvalId, postId: null }]
      : targets.map((p) => ({ approvalId: deterministicUuid(command.approvalId, p.id), postId: p.id }));
  const note = command.note?.trim() ? command.note.trim() : null;
  return [
    {
      type: 'PostGroupRejected',
      data: {
        ...by(group, command),
        level,
        records,
        posts: postHashes(targets),
        reason: command.reason ?? null,
        note,
        groupStatus: groupStatusAfter(group, ids(targets), 'draft', 'draft'),
      },
    },
    {
      type: 'PreferenceSignalRecorded',
      data: {
        ...by(group, command),
        kind: 'reject',
        signal: command.reason ?? 'unspecified',
        note,
        topic: group.topic,
        posts: targets.map((p) => ({ postId: p.id, platform: p.platform, contentText: p.contentText })),
      },
    },
  ];
}

/** Posts a schedule command covers by default: those holding an approval of their current content. */
export function schedulablePosts(group: ActivePostGroup): PostState[] {
  return group.posts.filter((p) => holdingApproval.includes(p.status) && isApprovalCurrent(p));
}

function decideSchedule(
  command: Extract<PostGroupCommand, { type: 'SchedulePostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const targets = scheduleTargets(group, command.postIds);
  return scheduleEvents(group, command, targets, command.schedule, command.timezone);
}

function decideUpdatePost(
  command: Extract<PostGroupCommand, { type: 'UpdatePost' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const post = findPost(group, command.postId);
  const c = command.changes;
  const changes: Extract<PostGroupEvent, { type: 'PostEdited' }>['data']['changes'] = {};
  if (c.contentText !== undefined && c.contentText !== post.contentText) changes.contentText = c.contentText;
  if (c.media !== undefined && !sameJson(c.media, post.media)) changes.media = c.media;
  const payload = patchedPayload(
    c.platformPayload !== undefined ? c.platformPayload : post.platformPayload,
    c.payloadPatch,
  );
  if (!sameJson(payload, post.platformPayload)) changes.platformPayload = payload;
  if (c.socialAccountId !== undefined && c.socialAccountId !== post.socialAccountId)
    changes.socialAccountId = c.socialAccountId;
  const contentChanged =
    changes.contentText !== undefined || changes.media !== undefined || changes.platformPayload !== undefined;
  const anyChange =
    Object.keys(changes).length > 0 ||
    (c.scheduledForUtc !== undefined && c.scheduledForUtc !== post.scheduledForUtc);
  if ((anyChange || command.status !== undefined) && inFlightOrSent.includes(post.status)) {
    if (command.status === post.status && !anyChange) return [];
    throw new Conflict(`The post is ${post.status} and can no longer be changed`, 'post_not_editable');
  }
  if (c.scheduledForUtc !== undefined && c.scheduledForUtc !== post.scheduledForUtc)
    assertFuture(c.scheduledForUtc, command.now, 'body.scheduledForUtc');
  // Another account may allow less (an X post leaving a Premium account), so its text is checked again.
  if (contentChanged || (changes.socialAccountId !== undefined && post.platform === 'x')) {
    const lifted = Object.keys(c.payloadPatch ?? {});
    assertContent(
      {
        platform: post.platform,
        socialAccountId:
          changes.socialAccountId !== undefined ? changes.socialAccountId : post.socialAccountId,
        contentText: changes.contentText ?? post.contentText,
        media: changes.media !== undefined ? changes.media : post.media,
        platformPayload:
          changes.platformPayload !== undefined ? changes.platformPayload : post.platformPayload,
      },
      { ...command.contentContext, groupTitle: group.title },
      'body.',
      // Keys PATCH takes at the top level are named where the caller put them.
      (path) => {
        const key = /^platformPayload\.([^.]+)/.exec(path)?.[1];
        return key && lifted.includes(key) ? path.slice('platformPayload.'.length) : path;
      },
    );
  }

  const events: PostGroupEvent[] = [];
  const base = by(group, command);
  // A planned time travels with the edit unless the post is being (re)scheduled, which PostsScheduled records.
  const willSchedule =
    c.scheduledForUtc !== undefined &&
    !contentChanged &&
    (command.status === 'scheduled' ||
      (command.status === undefined && holdingApproval.includes(post.status) && isApprovalCurrent(post)));
  if (c.scheduledForUtc !== undefined && c.scheduledForUtc !== post.scheduledForUtc && !willSchedule)
    changes.scheduledForUtc = c.scheduledForUtc;
  if (Object.keys(changes).length > 0) {
    const content = {
      platform: post.platform,
      contentText: changes.contentText ?? post.contentText,
      media: changes.media !== undefined ? changes.media : post.media,
      platformPayload: changes.platformPayload !== undefined ? changes.platformPayload : post.platformPayload,
    };
    events.push({
      type: 'PostEdited',
      data: { ...base, postId: post.id, changes, contentHash: contentHash(content) },
    });
  }
  let current = simulate(group, events);
  if (contentChanged && holdingApproval.includes(post.status)) {
    // Edited approved content goes back to review; its approval no longer covers what would be published.
    events.push(...submitForApproval(current, command, [findPost(current, post.id)], 'post', 'post_edited'));
    current = simulate(group, events);
  }

  const now = findPost(current, post.id);
  const target = command.status;
  if (target !== undefined && target !== now.status) {
    switch (target) {
      case 'draft':
      case 'canceled':
        events.push({
          type: 'PostsStatusChanged',
          data: {
            ...base,
            cause: target === 'draft' ? 'returned_to_draft' : 'canceled',
            postIds: [now.id],
            status: target,
            groupStatus: groupStatusAfter(current, [now.id], target),
          },
        });
        break;
      case 'pending_approval':
        events.push(...submitForApproval(current, command, [now], 'post', 'submitted'));
        break;
      case 'approved':
        if (now.status === 'scheduled' && isApprovalCurrent(now)) {
          events.push({
            type: 'PostsStatusChanged',
            data: {
              ...base,
              cause: 'unscheduled',
              postIds: [now.id],
              status: 'approved',
              groupStatus: groupStatusAfter(current, [now.id], 'approved'),
            },
          });
        } else {
          if (now.status === 'canceled') throw new Conflict('The post is canceled', 'post_not_approvable');
          events.push(
            ...decideApprove(
              {
                type: 'ApprovePostGroup',
                by: command.by,
                now: command.now,
                approvePosts: [now.id],
                schedule: null,
                // An edit in this patch already recorded its submission under approvalId; records need own ids.
                approvalId: events.some((e) => e.type === 'PostGroupSubmittedForApproval')
                  ? deterministicUuid(command.approvalId, 'approved')
                  : command.approvalId,
              },
              current,
            ),
          );
        }
        break;
      case 'scheduled': {
        if (!holdingApproval.includes(now.status) || !isApprovalCurrent(now))
          throw new Conflict(`The post is ${now.status}; approve it before scheduling`, 'post_not_approved');
        const slot =
          c.scheduledForUtc !== undefined
            ? { scheduledForUtc: c.scheduledForUtc, scheduleReason: 'Time chosen by a member' }
            : command.schedule;
        if (!slot)
          throw new ValidationError('A time is needed to schedule the post', undefined, [
            { path: 'body.scheduledForUtc', message: 'Required to schedule a post that has no future time' },
          ]);
        events.push(...scheduleEvents(current, command, [now], { [now.id]: slot }, undefined));
        break;
      }
      case 'publishing':
      case 'awaiting_platform':
      case 'published':
      case 'failed':
        throw new Conflict(
          `Status ${target} is set by publishing; use POST …/posts/{postId}/post-now to publish now`,
          'status_set_by_publishing',
        );
      default:
        return assertNever(target);
    }
  } else if (willSchedule && !(now.status === 'scheduled' && c.scheduledForUtc === now.scheduledForUtc)) {
    // Moving an approved or scheduled post to another time (re)schedules it; an approved post is scheduled even
    // at the planned time it already carries.
    events.push(
      ...scheduleEvents(
        current,
        command,
        [now],
        { [now.id]: { scheduledForUtc: c.scheduledForUtc!, scheduleReason: 'Time chosen by a member' } },
        undefined,
      ),
    );
  }
  // Decided on the outcome, not the request: an edit that withdraws the approval first schedules nothing.
  if (command.maySchedule === false && events.some((e) => e.type === 'PostsScheduled'))
    throw new Forbidden('Your role does not allow scheduling posts');
  return events;
}

function patchedPayload(
  base: PlatformPayload | null,
  patch: PayloadPatch | undefined,
): PlatformPayload | null {
  if (!patch || Object.keys(patch).length === 0) return base;
  const next: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return Object.keys(next).length > 0 ? next : null;
}

function decidePublishNow(
  command: Extract<PostGroupCommand, { type: 'RequestPublishNow' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const post = findPost(group, command.postId);
  switch (post.status) {
    case 'draft':
    case 'pending_approval':
      throw new Conflict(
        `The post is ${post.status}; only approved posts are published`,
        'post_not_approved',
      );
    case 'publishing':
    case 'awaiting_platform':
      throw new Conflict('The post is already being published', 'post_publishing');
    case 'published':
      throw new Conflict('The post is already published', 'post_already_published');
    case 'canceled':
      throw new Conflict('The post is canceled', 'post_canceled');
    case 'approved':
    case 'scheduled':
    case 'failed':
      break;
    default:
      return assertNever(post.status);
  }
  // Holds by construction; checked again because publishing unapproved content is the one unforgivable bug.
  if (!isApprovalCurrent(post))
    throw new Conflict('The approval does not cover the current content', 'post_not_approved');
  return [
    {
      type: 'PostPublishRequested',
      data: {
        ...by(group, command),
        postId: post.id,
        contentHash: post.contentHash,
        idempotencyKey: `publish:${post.id}:${post.publishRequests + 1}`,
        trigger: 'post_now',
      },
    },
  ];
}

function decideDeletePost(
  command: Extract<PostGroupCommand, { type: 'DeletePost' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const post = findPost(group, command.postId);
  if (post.status === 'publishing' || post.status === 'awaiting_platform')
    throw new Conflict('The post is being published; try again when it has finished', 'post_publishing');
  // The audit trail must not claim a platform deletion of a post that was never there under that id.
  if (command.deletedOnPlatform && post.status !== 'published')
    throw new Conflict(
      `The post is ${post.status}; only a published post is deleted on the platform`,
      'post_not_published',
    );
  if (command.deletedOnPlatform && command.deletedOnPlatform.externalId !== post.publishedExternalId)
    throw new Conflict(
      'The platform post deleted is not the one this post was published as',
      'external_id_mismatch',
    );
  const rest = group.posts.filter((p) => p.id !== post.id);
  return [
    {
      type: 'PostDeleted',
      data: {
        ...by(group, command),
        postId: post.id,
        groupStatus: deriveGroupStatus(rest, group.status),
        ...(command.deletedOnPlatform ? { deletedOnPlatform: command.deletedOnPlatform } : {}),
      },
    },
  ];
}

function decideStartAttempt(
  command: Extract<PostGroupCommand, { type: 'StartPublishAttempt' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const post = findPost(group, command.postId);
  let trigger: PublishTrigger;
  if (post.status === 'scheduled') {
    // Checked before the time: a stale approval is the reason, not "later" (publishWork has no work for it).
    if (!isApprovalCurrent(post))
      throw new Conflict('The approval does not cover the current content', 'post_not_approved');
    const work = publishWork(post);
    if (!work || Date.parse(work.dueAt) > Date.parse(command.now))
      throw new Conflict('The post is not due yet', 'post_not_due');
    trigger = post.nextRetryAt !== null ? 'retry' : 'schedule';
  } else if (post.status === 'publishing' && !post.attemptOpen) {
    trigger = 'post_now';
  } else if (post.status === 'publishing') {
    throw new Conflict('An attempt is already in progress', 'attempt_in_progress');
  } else {
    throw new Conflict(`The post is ${post.status}; nothing to publish`, 'post_not_publishable');
  }
  // The invariant of the whole product: nothing reaches the platform without an approval of this content.
  if (!isApprovalCurrent(post))
    throw new Conflict('The approval does not cover the current content', 'post_not_approved');
  const attempt = post.attemptCount + 1;
  return [
    {
      type: 'PostPublishAttemptStarted',
      data: {
        ...by(group, command),
        postId: post.id,
        attempt,
        idempotencyKey: `publish:${post.id}:${attempt}`,
        contentHash: post.contentHash,
        socialAccountId: command.socialAccountId ?? post.socialAccountId,
        trigger,
      },
    },
  ];
}

function decidePublishOutcome(
  command: Extract<PostGroupCommand, { type: 'RecordPublishOutcome' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const post = findPost(group, command.postId);
  const current =
    post.attemptCount === command.attempt &&
    ((post.status === 'publishing' && post.attemptOpen) || post.status === 'awaiting_platform');
  if (!current) throw new Conflict('The attempt is no longer current', 'stale_attempt');
  const base = { ...by(group, command), postId: post.id, attempt: command.attempt };
  const outcome = command.outcome;
  switch (outcome.kind) {
    case 'published':
      return [{ type: 'PostPublished', data: { ...base, externalId: outcome.externalId, url: outcome.url } }];
    case 'pending':
      return [
        {
          type: 'PostAwaitingPlatform',
          data: { ...base, reference: outcome.reference, nextCheckAt: outcome.nextCheckAt },
        },
      ];
    case 'failed':
      return [
        {
          type: 'PostPublishAttemptFailed',
          data: { ...base, error: outcome.error, reason: outcome.reason, nextRetryAt: outcome.nextRetryAt },
        },
      ];
    default:
      return assertNever(outcome);
  }
}

/** Posts still to be published with a removed account lose it; scheduled ones wait, approved, for a new one. */
function decideRemoveAccount(
  command: Extract<PostGroupCommand, { type: 'RemoveSocialAccount' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const affected = group.posts.filter(
    (p) => p.socialAccountId === command.socialAccountId && !notAffectedByAccountRemoval.includes(p.status),
  );
  if (affected.length === 0) return [];
  const unscheduled = affected.filter((p) => p.status === 'scheduled');
  return [
    {
      type: 'PostsAccountRemoved',
      data: {
        ...by(group, command),
        socialAccountId: command.socialAccountId,
        postIds: ids(affected),
        unscheduledPostIds: ids(unscheduled),
        message: command.message,
        groupStatus: groupStatusAfter(group, ids(unscheduled), 'approved'),
      },
    },
  ];
}

/** The schedule reason of a post-now that failed and waits for its retry. */
export const postNowRetryReason = 'Published now; retrying after a failed attempt';

/** In flight or done: removing the account changes nothing for these. */
const notAffectedByAccountRemoval: readonly PostStatus[] = [...inFlightOrSent, 'canceled'];

// -------------------------------------------------------------------------------------------- evolve

function newPost(group: { id: string }, p: NewPostData, at: string): PostState {
  return {
    id: p.postId,
    groupId: group.id,
    platform: p.platform,
    socialAccountId: p.socialAccountId,
    status: 'draft',
    scheduledForUtc: null,
    scheduleReason: null,
    contentText: p.contentText,
    media: p.media,
    platformPayload: p.platformPayload,
    contentHash: p.contentHash,
    approvedContentHash: null,
    everApproved: false,
    publishedExternalId: null,
    publishedUrl: null,
    attemptCount: 0,
    lastAttemptAt: null,
    nextRetryAt: null,
    lastError: null,
    idempotencyKey: null,
    publishRequests: 0,
    attemptOpen: false,
    publishReference: null,
    approvals: [],
    createdAt: at,
    updatedAt: at,
  };
}

function record(
  group: ActivePostGroup,
  data: By,
  approvalId: string,
  level: ApprovalLevel,
  postId: string | null,
  action: ApprovalAction,
): ApprovalRecord {
  return {
    id: approvalId,
    level,
    groupId: group.id,
    postId,
    approvedByUserId: data.by,
    approvedAt: data.at,
    action,
  };
}

function updatePosts(
  group: ActivePostGroup,
  ids: readonly string[],
  at: string,
  change: (post: PostState) => Partial<PostState>,
): PostState[] {
  const set = new Set(ids);
  return group.posts.map((p) => (set.has(p.id) ? { ...p, ...change(p), updatedAt: at } : p));
}

/** One post moves in the pipeline; the group follows its posts, so its status never depends on outcome order. */
function publishingStep(
  group: ActivePostGroup,
  postId: string,
  at: string,
  change: (post: PostState) => Partial<PostState>,
): ActivePostGroup {
  const posts = updatePosts(group, [postId], at, change);
  return { ...group, status: deriveGroupStatus(posts, group.status), updatedAt: at, posts };
}

function withApprovalGroup(group: ActivePostGroup, status: GroupStatus, at: string): ActivePostGroup {
  const approvedNow = status === 'approved' || status === 'scheduled';
  return {
    ...group,
    status,
    updatedAt: at,
    ...(approvedNow ? {} : { approvedBy: null, approvedAt: null }),
  };
}

export function evolvePostGroup(state: PostGroupState, event: PostGroupEvent): PostGroupState {
  if (event.type === 'PostGroupCreated') {
    const d = event.data;
    const group: ActivePostGroup = {
      kind: 'active',
      id: d.groupId,
      orgId: d.orgId,
      title: d.title,
      topic: d.topic,
      objective: d.objective,
      status: 'draft',
      timezone: d.timezone,
      scheduledFor: d.scheduledFor,
      scheduleReason: null,
      approvedBy: null,
      approvedAt: null,
      everApproved: false,
      tagIds: d.tagIds,
      strategy: d.strategy,
      approvals: [],
      posts: [],
      createdAt: d.at,
      updatedAt: d.at,
    };
    return { ...group, posts: d.posts.map((p) => newPost(group, p, d.at)) };
  }
  if (state.kind === 'absent') return state;
  const group = state;
  switch (event.type) {
    case 'PostGroupUpdated':
      return { ...group, ...event.data.changes, updatedAt: event.data.at };
    case 'PostGroupSubmittedForApproval': {
      const d = event.data;
      const ids = d.posts.map((p) => p.postId);
      const rec = record(
        group,
        d,
        d.approvalId,
        d.level,
        d.level === 'post' ? (ids[0] ?? null) : null,
        'submit_for_approval',
      );
      const postRecords = (p: PostState) =>
        d.level === 'post'
          ? [record(group, d, deterministicUuid(d.approvalId, p.id), 'post', p.id, 'submit_for_approval')]
          : [rec];
      const posts = updatePosts(group, ids, d.at, (p) => ({
        status: 'pending_approval',
        approvedContentHash: null,
        // A retry that was waiting is off: the post goes back to review.
        nextRetryAt: null,
        approvals: [...p.approvals, ...postRecords(p)],
      }));
      const records =
        d.level === 'post'
          ? posts.filter((p) => ids.includes(p.id)).flatMap((p) => p.approvals.slice(-1))
          : [rec];
      return {
        ...withApprovalGroup(group, d.groupStatus, d.at),
        posts,
        approvals: [...group.approvals, ...records],
      };
    }
    case 'PostGroupApproved': {
      const d = event.data;
      const hashes = new Map(d.posts.map((p) => [p.postId, p.contentHash]));
      const records = d.records.map((r) => record(group, d, r.approvalId, d.level, r.postId, r.action));
      const posts = updatePosts(group, [...hashes.keys()], d.at, (p) => ({
        status: 'approved',
        approvedContentHash: hashes.get(p.id) ?? null,
        everApproved: true,
        nextRetryAt: null,
        approvals: [...p.approvals, ...records.filter((r) => r.postId === null || r.postId === p.id)],
      }));
      return {
        ...group,
        status: d.groupStatus,
        approvedBy: d.by,
        approvedAt: d.at,
        everApproved: true,
        updatedAt: d.at,
        posts,
        approvals: [...group.approvals, ...records],
      };
    }
    case 'PostGroupRejected': {
      const d = event.data;
      const records = d.records.map((r) => record(group, d, r.approvalId, d.level, r.postId, 'rejected'));
      const posts = updatePosts(
        group,
        d.posts.map((p) => p.postId),
        d.at,
        (p) => ({
          status: 'draft',
          approvedContentHash: null,
          scheduledForUtc: null,
          scheduleReason: null,
          nextRetryAt: null,
          approvals: [...p.approvals, ...records.filter((r) => r.postId === null || r.postId === p.id)],
        }),
      );
      return {
        ...withApprovalGroup(group, d.groupStatus, d.at),
        posts,
        approvals: [...group.approvals, ...records],
      };
    }
    case 'PreferenceSignalRecorded':
      return group;
    case 'PostsScheduled': {
      const d = event.data;
      const slots = new Map(d.posts.map((p) => [p.postId, p]));
      const posts = updatePosts(group, [...slots.keys()], d.at, (p) => ({
        status: 'scheduled',
        scheduledForUtc: slots.get(p.id)!.scheduledForUtc,
        scheduleReason: slots.get(p.id)!.scheduleReason,
        nextRetryAt: null,
      }));
      const first = d.posts[0];
      return {
        ...group,
        status: d.groupStatus,
        ...(d.timezone !== null ? { timezone: d.timezone } : {}),
        ...(first ? { scheduledFor: first.scheduledForUtc, scheduleReason: first.scheduleReason } : {}),
        updatedAt: d.at,
        posts,
      };
    }
    case 'PostsStatusChanged': {
      const d = event.data;
      const posts = updatePosts(group, d.postIds, d.at, () => ({
        status: d.status,
        ...(d.status === 'approved' ? {} : { approvedContentHash: null }),
        ...(d.cause === 'unscheduled' ? { scheduledForUtc: null, scheduleReason: null } : {}),
        nextRetryAt: null,
      }));
      return { ...withApprovalGroup(group, d.groupStatus, d.at), posts };
    }
    case 'PostEdited': {
      const d = event.data;
      const posts = updatePosts(group, [d.postId], d.at, () => ({
        ...d.changes,
        contentHash: d.contentHash,
      }));
      return { ...group, updatedAt: d.at, posts };
    }
    case 'PostPublishRequested': {
      const d = event.data;
      const posts = updatePosts(group, [d.postId], d.at, (p) => ({
        status: 'publishing',
        idempotencyKey: d.idempotencyKey,
        publishRequests: p.publishRequests + 1,
        nextRetryAt: null,
      }));
      return { ...group, updatedAt: d.at, posts };
    }
    case 'PostDeleted': {
      const d = event.data;
      return {
        ...group,
        status: d.groupStatus,
        updatedAt: d.at,
        posts: group.posts.filter((p) => p.id !== d.postId),
      };
    }
    case 'PostPublishAttemptStarted': {
      const d = event.data;
      return publishingStep(group, d.postId, d.at, () => ({
        status: 'publishing',
        socialAccountId: d.socialAccountId,
        attemptCount: d.attempt,
        lastAttemptAt: d.at,
        idempotencyKey: d.idempotencyKey,
        attemptOpen: true,
        publishReference: null,
        nextRetryAt: null,
      }));
    }
    case 'PostPublished': {
      const d = event.data;
      return publishingStep(group, d.postId, d.at, () => ({
        status: 'published',
        publishedExternalId: d.externalId,
        publishedUrl: d.url,
        attemptOpen: false,
        publishReference: null,
        nextRetryAt: null,
        lastError: null,
      }));
    }
    case 'PostAwaitingPlatform': {
      const d = event.data;
      return publishingStep(group, d.postId, d.at, () => ({
        status: 'awaiting_platform',
        attemptOpen: false,
        publishReference: d.reference,
        nextRetryAt: d.nextCheckAt,
      }));
    }
    case 'PostPublishAttemptFailed': {
      const d = event.data;
      const retry = d.nextRetryAt !== null;
      return publishingStep(group, d.postId, d.at, (p) => ({
        // A retry keeps the post on the calendar (a post-now retry at the time it was asked for).
        status: retry ? 'scheduled' : 'failed',
        scheduledForUtc: retry ? (p.scheduledForUtc ?? p.lastAttemptAt ?? d.at) : p.scheduledForUtc,
        // A scheduled post always says why it is at its time; a post-now had no reason of its own.
        scheduleReason: retry ? (p.scheduleReason ?? postNowRetryReason) : p.scheduleReason,
        attemptOpen: false,
        publishReference: null,
        nextRetryAt: d.nextRetryAt,
        lastError: d.error,
      }));
    }
    case 'PostsAccountRemoved': {
      const d = event.data;
      const unscheduled = new Set(d.unscheduledPostIds);
      const posts = updatePosts(group, d.postIds, d.at, (p) => ({
        socialAccountId: null,
        lastError: d.message,
        ...(unscheduled.has(p.id)
          ? { status: 'approved' as const, scheduledForUtc: null, scheduleReason: null, nextRetryAt: null }
          : {}),
      }));
      return { ...group, status: d.groupStatus, updatedAt: d.at, posts };
    }
    default:
      return assertNever(event);
  }
}

export const postGroupDecider: Decider<PostGroupState, PostGroupCommand, PostGroupEvent> = {
  initialState: { kind: 'absent' },
  evolve: evolvePostGroup,
  decide(command, state) {
    switch (command.type) {
      case 'CreatePostGroup':
        return decideCreate(command, state);
      case 'UpdatePostGroup':
        return decideUpdateGroup(command, state);
      case 'ApprovePostGroup':
        return decideApprove(command, state);
      case 'RejectPostGroup':
        return decideReject(command, state);
      case 'SchedulePostGroup':
        return decideSchedule(command, state);
      case 'UpdatePost':
        return decideUpdatePost(command, state);
      case 'RequestPublishNow':
        return decidePublishNow(command, state);
      case 'DeletePost':
        return decideDeletePost(command, state);
      case 'StartPublishAttempt':
        return decideStartAttempt(command, state);
      case 'RecordPublishOutcome':
        return decidePublishOutcome(command, state);
      case 'RemoveSocialAccount':
        return decideRemoveAccount(command, state);
      default:
        return assertNever(command);
    }
  },
};
