// What a post group is asked to do: the command union (time and ids come in the command, so decide stays pure).
import type { AssistantActor } from '../shared/caller.js';
import type { ContentContext } from './content-rules.js';
import type { Platform } from '../shared/platforms.js';
import type { MediaAsset } from '../shared/media-asset.js';
import type { PlatformPayload } from './post-content.js';
import type { PublishFailureReason, RejectReason } from './event-codec.js';
import type { GroupFields, PostStatus, StrategyLink } from './state.js';

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

export interface Common {
  /** Acting user id (for an assistant, the user it acts for). */
  by: string;
  now: string;
  /** The assistant acting for `by`; absent when the user (or the service) acts. Recorded in the events. */
  assistant?: AssistantActor;
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
      /**
       * The moves that need no slot. `approved` approves what waits for review (without a time) and takes the
       * scheduled posts back to approved; scheduling has its own command (its times come from the slot finder).
       */
      status?: 'draft' | 'pending_approval' | 'canceled' | 'approved';
      approvalId: string;
    })
  | (Common & {
      type: 'ApprovePostGroup';
      approvePosts?: string[];
      /** Times for the posts being approved, or null to approve without scheduling. */
      schedule: Record<string, SlotAssignment> | null;
      /** The time the request asked for: refused unless in the future, even when nothing is left to approve. */
      requestedTime?: string;
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
