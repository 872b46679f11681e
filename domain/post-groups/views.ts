// The spec's PostGroup and Post shapes, rendered from the aggregate state. One rendering serves command
// responses, the read models (which store it) and the auditors' point-in-time view, so they never drift.
import type { ActivePostGroup, ApprovalRecord, GroupStatus, PostState, PostStatus } from './post-group.js';
import type { MediaAsset, Platform, PlatformPayload } from './post-content.js';

export interface PostGroupView {
  id: string;
  orgId: string;
  title: string;
  topic: string | null;
  objective: string | null;
  status: GroupStatus;
  timezone: string;
  scheduledFor: string | null;
  approvedBy: string | null;
  approvedAt: string | null;
  createdAt: string;
  updatedAt: string;
  scheduleReason: string | null;
  tagIds: string[];
  approvals: ApprovalRecord[];
  strategyId: string | null;
  strategyVersion: number | null;
  pillarId: string | null;
  priorityId: string | null;
  contentType: string | null;
  opportunityId: string | null;
}

export interface PostView {
  id: string;
  orgId: string;
  groupId: string;
  platform: Platform;
  socialAccountId: string | null;
  status: PostStatus;
  scheduledForUtc: string | null;
  contentText: string;
  media: MediaAsset | null;
  platformPayload: PlatformPayload | null;
  publishedExternalId: string | null;
  publishedUrl: string | null;
  attemptCount: number;
  lastAttemptAt: string | null;
  nextRetryAt: string | null;
  lastError: string | null;
  idempotencyKey: string | null;
  createdAt: string;
  updatedAt: string;
  scheduleReason: string | null;
  approvals: ApprovalRecord[];
}

export function postGroupView(group: ActivePostGroup): PostGroupView {
  return {
    id: group.id,
    orgId: group.orgId,
    title: group.title,
    topic: group.topic,
    objective: group.objective,
    status: group.status,
    timezone: group.timezone,
    scheduledFor: group.scheduledFor,
    approvedBy: group.approvedBy,
    approvedAt: group.approvedAt,
    createdAt: group.createdAt,
    updatedAt: group.updatedAt,
    scheduleReason: group.scheduleReason,
    tagIds: group.tagIds,
    approvals: group.approvals,
    ...group.strategy,
  };
}

export function postView(group: Pick<ActivePostGroup, 'orgId'>, post: PostState): PostView {
  return {
    id: post.id,
    orgId: group.orgId,
    groupId: post.groupId,
    platform: post.platform,
    socialAccountId: post.socialAccountId,
    status: post.status,
    scheduledForUtc: post.scheduledForUtc,
    contentText: post.contentText,
    media: post.media,
    platformPayload: post.platformPayload,
    publishedExternalId: post.publishedExternalId,
    publishedUrl: post.publishedUrl,
    attemptCount: post.attemptCount,
    lastAttemptAt: post.lastAttemptAt,
    nextRetryAt: post.nextRetryAt,
    lastError: post.lastError,
    idempotencyKey: post.idempotencyKey,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
    scheduleReason: post.scheduleReason,
    approvals: post.approvals,
  };
}
