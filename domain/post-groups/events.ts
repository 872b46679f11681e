// What a post group records: the event union and the data each event carries, as stored in its stream.
import type { AssistantActor } from '../shared/caller.js';
import type { Platform } from '../shared/platforms.js';
import type { MediaAsset } from '../shared/media-asset.js';
import type { PlatformPayload } from './post-content.js';
import type { ApprovalLevel, GroupFields, GroupStatus, StrategyLink } from './state.js';

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

export interface NewPostData {
  postId: string;
  platform: Platform;
  socialAccountId: string | null;
  contentText: string;
  media: MediaAsset | null;
  platformPayload: PlatformPayload | null;
  contentHash: string;
}

export interface By {
  orgId: string;
  groupId: string;
  /** The user who acted (for an assistant, the user it acts for). */
  by: string;
  at: string;
  /** The assistant that acted for `by`; absent when the user (or the service) acted. */
  assistant?: AssistantActor;
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
      /** v2: the platform's handle is `publishReference`, as the post calls it (v1 stored it as `reference`). */
      type: 'PostAwaitingPlatform';
      data: By & { postId: string; attempt: number; publishReference: string; nextCheckAt: string };
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
