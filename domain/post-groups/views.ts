// The spec's PostGroup and Post shapes, rendered from the aggregate state. One rendering serves command
// responses, the read models (which store it) and the auditors' point-in-time view, so they never drift.
import type { ActivePostGroup, PostState, StrategyLink } from './state.js';

/** The group as the spec shows it: its state without internal bookkeeping, strategy links flattened. */
export type PostGroupView = Omit<
  ActivePostGroup,
  'kind' | 'everApproved' | 'strategy' | 'posts' | 'draftedByAssistant'
> &
  StrategyLink;

/** A post as the spec shows it: its state with the workspace, without the approval and publish bookkeeping. */
export type PostView = Omit<
  PostState,
  | 'contentHash'
  | 'approvedContentHash'
  | 'everApproved'
  | 'publishRequests'
  | 'attemptOpen'
  | 'publishReference'
  | 'draftedByAssistant'
> & {
  orgId: string;
};

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
