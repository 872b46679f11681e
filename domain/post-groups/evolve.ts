// How each event changes the post group: the one fold the decider, the read models and the audit trail share.
import { assertNever } from '../shared/decider.js';
import { deterministicUuid } from '../shared/ids.js';
import type { By, NewPostData, PostGroupEvent } from './event-codec.js';
import {
  deriveGroupStatus,
  type ActivePostGroup,
  type ApprovalAction,
  type ApprovalLevel,
  type ApprovalRecord,
  type GroupStatus,
  type PostGroupState,
  type PostState,
} from './state.js';

/** The schedule reason of a post-now that failed and waits for its retry. */
export const postNowRetryReason = 'Published now; retrying after a failed attempt';

/** Who wrote what an event carries: the assistant's client id, or null for a person (or the service). */
const draftedBy = (data: By): string | null => data.assistant?.clientId ?? null;

function newPost(group: { id: string }, p: NewPostData, data: By): PostState {
  const at = data.at;
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
    draftedByAssistant: draftedBy(data),
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
    ...(data.assistant ? { assistant: data.assistant } : {}),
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
      draftedByAssistant: draftedBy(d),
      createdAt: d.at,
      updatedAt: d.at,
    };
    return { ...group, posts: d.posts.map((p) => newPost(group, p, d)) };
  }
  if (state.kind === 'absent') return state;
  const group = state;
  switch (event.type) {
    case 'PostGroupUpdated': {
      const { changes } = event.data;
      const says =
        changes.title !== undefined || changes.topic !== undefined || changes.objective !== undefined;
      return {
        ...group,
        ...changes,
        ...(says ? { draftedByAssistant: draftedBy(event.data) } : {}),
        updatedAt: event.data.at,
      };
    }
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
      const { changes } = d;
      const content =
        changes.contentText !== undefined ||
        changes.media !== undefined ||
        changes.platformPayload !== undefined;
      const posts = updatePosts(group, [d.postId], d.at, () => ({
        ...changes,
        contentHash: d.contentHash,
        ...(content ? { draftedByAssistant: draftedBy(d) } : {}),
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
        publishReference: d.publishReference,
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
