// The post group's state as evolve leaves it, and what can be read off it without deciding anything: whether an
// approval is current, the group status its posts imply, the publishing work a post needs.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../shared/canonical-json.js';
import type { AssistantActor } from '../shared/caller.js';
import { assertNever } from '../shared/decider.js';
import type { Platform } from '../shared/platforms.js';
import type { MediaAsset } from '../shared/media-asset.js';
import type { PlatformPayload } from './post-content.js';

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
  /** Set when an assistant acted for `approvedByUserId`: the history names it, not only the user. */
  assistant?: AssistantActor;
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
export const inFlightOrSent: readonly PostStatus[] = ['publishing', 'awaiting_platform', 'published'];
export const awaitingReview: readonly PostStatus[] = ['draft', 'pending_approval'];
/** Statuses that hold an approval of the post's content. */
export const holdingApproval: readonly PostStatus[] = ['approved', 'scheduled', 'failed'];

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
  /**
   * The assistant client that last wrote the post's content (text, media, platform settings); null when a
   * person did. No assistant may approve content an assistant wrote.
   */
  draftedByAssistant: string | null;
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
  /** The assistant client that last wrote what the group says (title, topic, objective); null for a person. */
  draftedByAssistant: string | null;
  createdAt: string;
  updatedAt: string;
}

export type PostGroupState = { kind: 'absent' } | ActivePostGroup;

export interface GroupFields {
  title: string;
  topic: string | null;
  objective: string | null;
  timezone: string;
  scheduledFor: string | null;
  tagIds: string[];
}

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
