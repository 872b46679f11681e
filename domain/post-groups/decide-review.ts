// Review: sending posts to review, approving (with or without times), rejecting, and scheduling approved posts.
import { deterministicUuid } from '../shared/ids.js';
import { Conflict, Forbidden } from '../shared/errors.js';
import type { Common, PostGroupCommand, SlotAssignment } from './commands.js';
import type { PostGroupEvent } from './event-codec.js';
import {
  awaitingReview,
  holdingApproval,
  inFlightOrSent,
  isApprovalCurrent,
  type ActivePostGroup,
  type ApprovalLevel,
  type PostGroupState,
  type PostState,
} from './state.js';
import {
  active,
  assertFuture,
  by,
  findPost,
  groupStatusAfter,
  ids,
  namedPosts,
  postHashes,
  simulate,
} from './decide-support.js';

/** Sends posts (back) to review: their approval is withdrawn and the group follows. */
export function submitForApproval(
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

/**
 * An assistant never approves what an assistant wrote (any assistant: two connections must not approve each
 * other's drafts either): a person must review it. What a group says (title, topic, objective) is part of what
 * its posts publish (a YouTube post without a title goes out under the group's), so it counts too.
 */
function refuseAssistantWriting(group: ActivePostGroup, targets: readonly PostState[]): void {
  const written = targets.find((p) => p.draftedByAssistant !== null);
  if (targets.length === 0 || (!written && group.draftedByAssistant === null)) return;
  throw new Forbidden(
    written
      ? `Post ${written.id} was written by an assistant; a member must approve it, not an assistant`
      : 'What this group says was written by an assistant; a member must approve it, not an assistant',
    'assistant_cannot_approve_assistant_content',
  );
}

export function decideApprove(
  command: Extract<PostGroupCommand, { type: 'ApprovePostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  if (command.requestedTime !== undefined)
    assertFuture(command.requestedTime, command.now, 'scheduledForUtc');
  const targets = approvalTargets(group, command.approvePosts);
  if (command.assistant !== undefined) refuseAssistantWriting(group, targets);
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

export function scheduleEvents(
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
    assertFuture(slot.scheduledForUtc, command.now, 'scheduledForUtc');
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

export function decideReject(
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

export function decideSchedule(
  command: Extract<PostGroupCommand, { type: 'SchedulePostGroup' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const targets = scheduleTargets(group, command.postIds);
  return scheduleEvents(group, command, targets, command.schedule, command.timezone);
}
