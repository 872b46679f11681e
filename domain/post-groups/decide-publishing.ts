// Publishing: a member's publish-now, the pipeline's claim of an attempt and its outcome, and the removal of the
// account posts were to be published with.
import { assertNever } from '../shared/decider.js';
import { Conflict } from '../shared/errors.js';
import type { PostGroupCommand } from './commands.js';
import type { PostGroupEvent, PublishTrigger } from './event-codec.js';
import {
  inFlightOrSent,
  isApprovalCurrent,
  publishWork,
  type PostGroupState,
  type PostStatus,
} from './state.js';
import { active, by, findPost, groupStatusAfter, ids } from './decide-support.js';

export function decidePublishNow(
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

export function decideStartAttempt(
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

export function decidePublishOutcome(
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
          data: { ...base, publishReference: outcome.reference, nextCheckAt: outcome.nextCheckAt },
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
export function decideRemoveAccount(
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

/** In flight or done: removing the account changes nothing for these. */
const notAffectedByAccountRemoval: readonly PostStatus[] = [...inFlightOrSent, 'canceled'];
