// The post group aggregate and its posts (one stream `postGroup-<groupId>`): drafting, review, approval,
// scheduling and the publish request. Approvals are bound to a hash of the content they approved.
//
// This module is the aggregate's public surface: the decider, and the types and views its importers use. The
// parts live beside it: state.ts (state and views of it), event-codec.ts (the events, declared once),
// commands.ts, evolve.ts, and decide by concern (decide-editing.ts, decide-review.ts, decide-publishing.ts,
// decide-deleting.ts, decide-support.ts).
import { assertNever, decideAll, type Decider } from '../shared/decider.js';
import { deterministicUuid } from '../shared/ids.js';
import type { PostGroupCommand } from './commands.js';
import { decideCreate, decideUpdateGroup, decideUpdatePost } from './decide-editing.js';
import { decideDeletePost } from './decide-deleting.js';
import { active } from './decide-support.js';
import {
  decidePublishNow,
  decidePublishOutcome,
  decideRemoveAccount,
  decideStartAttempt,
} from './decide-publishing.js';
import { decideApprove, decideReject, decideSchedule } from './decide-review.js';
import { postGroupEventCodec, type PostGroupEvent } from './event-codec.js';
import { evolvePostGroup } from './evolve.js';
import { isApprovalCurrent, type PostGroupState } from './state.js';

export {
  groupStatuses,
  postStatuses,
  isApprovalCurrent,
  deriveGroupStatus,
  publishWork,
  combinedContentHash,
  type GroupStatus,
  type PostStatus,
  type ApprovalAction,
  type ApprovalLevel,
  type ApprovalRecord,
  type StrategyLink,
  type PostState,
  type ActivePostGroup,
  type PostGroupState,
  type GroupFields,
  type PublishWork,
} from './state.js';
export {
  rejectReasons,
  postGroupEventTypes,
  type RejectReason,
  type NewPostData,
  type PostGroupEvent,
  type PostGroupEventType,
  type PublishTrigger,
  type PublishFailureReason,
} from './event-codec.js';
export type {
  NewPostInput,
  PayloadPatch,
  SlotAssignment,
  PostGroupCommand,
  PublishOutcomeRecord,
} from './commands.js';
export { approvalTargets, scheduleTargets, schedulablePosts } from './decide-review.js';
export { evolvePostGroup, postNowRetryReason } from './evolve.js';
export { postGroupEventCodec } from './event-codec.js';

export const postGroupCategory = 'postGroup';

export const postGroupDecider: Decider<PostGroupState, PostGroupCommand, PostGroupEvent> = {
  initialState: { kind: 'absent' },
  evolve: evolvePostGroup,
  codec: postGroupEventCodec,
  decide(command, state) {
    switch (command.type) {
      case 'CreatePostGroup':
        return decideCreate(command, state);
      case 'UpdatePostGroup':
        return command.status === 'approved'
          ? decideMoveToApproved(command, state)
          : decideUpdateGroup(command, state);
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

/**
 * Editing a group and moving it to approved, as one decision: the edit, then approving what waits for review
 * (without a time) unless the group is approved already, then taking its scheduled posts whose approval is
 * current back to approved (unscheduled). Ids of the approvals derive from the edit's.
 */
function decideMoveToApproved(
  command: Extract<PostGroupCommand, { type: 'UpdatePostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const { status: _approved, ...edit } = command;
  const acting = {
    by: command.by,
    now: command.now,
    ...(command.assistant !== undefined ? { assistant: command.assistant } : {}),
  };
  const edited = decideAll(postGroupDecider, [edit], state);
  const approve: PostGroupCommand[] =
    active(edited.state).status === 'approved'
      ? []
      : [
          {
            type: 'ApprovePostGroup',
            ...acting,
            schedule: null,
            approvalId: deterministicUuid(command.approvalId, 'approve'),
          },
        ];
  const approved = decideAll(postGroupDecider, approve, edited.state);
  const unschedule: PostGroupCommand[] = active(approved.state)
    .posts.filter((p) => p.status === 'scheduled' && isApprovalCurrent(p))
    .map((p) => ({
      type: 'UpdatePost',
      postId: p.id,
      changes: {},
      status: 'approved',
      ...acting,
      approvalId: deterministicUuid(command.approvalId, `unschedule:${p.id}`),
    }));
  const unscheduled = decideAll(postGroupDecider, unschedule, approved.state);
  return [...edited.events, ...approved.events, ...unscheduled.events];
}
