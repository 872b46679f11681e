// The publishing rules of the post-group aggregate, one describe per rule (quoted): claiming an attempt,
// recording its outcome, removing a social account, deleting a post on the platform, and publishWork.
import { describe, expect, test } from 'vitest';
import { Conflict, NotFound } from '../../domain/shared/errors.js';
import { contentHash } from '../../domain/post-groups/post-content.js';
import {
  postGroupDecider,
  postNowRetryReason,
  publishWork,
  type PostGroupCommand,
  type PostGroupEvent,
  type PostGroupState,
  type PublishOutcomeRecord,
} from '../../domain/post-groups/post-group.js';
import {
  account1,
  account2,
  activeState,
  approve,
  create,
  deletePost,
  editor,
  given,
  groupId,
  history,
  linkedinPost,
  linkedinPostId,
  now,
  orgId,
  postNow,
  postOf,
  redditPost,
  redditPostId,
  schedule,
  slots,
  tomorrow,
  unknownPostId,
  updateGroup,
  updatePost,
  withPost,
  xPost,
  xPostId,
} from '../support/post-group-fixtures.js';

type Cmd<T extends PostGroupCommand['type']> = Extract<PostGroupCommand, { type: T }>;

const xHash = contentHash(xPost);
const minute = 60_000;
/** `minutes` after the posts' scheduled time (tomorrow 09:00 UTC). */
const due = (minutes = 0) => new Date(Date.parse(tomorrow) + minutes * minute).toISOString();
const systemAt = (at: string) => ({ orgId, groupId, by: 'system', at });

function start(
  postId: string,
  at: string,
  socialAccountId: string | null = null,
): Cmd<'StartPublishAttempt'> {
  return { type: 'StartPublishAttempt', postId, socialAccountId, by: 'system', now: at };
}

function record(
  postId: string,
  attempt: number,
  outcome: PublishOutcomeRecord,
  at: string,
): Cmd<'RecordPublishOutcome'> {
  return { type: 'RecordPublishOutcome', postId, attempt, outcome, by: 'system', now: at };
}

function removeAccount(socialAccountId: string, at = now): Cmd<'RemoveSocialAccount'> {
  return { type: 'RemoveSocialAccount', socialAccountId, message: accountRemoved, by: 'system', now: at };
}

const accountRemoved = 'The social account was removed; choose another account for this post';
const published = (id = '1850000000000000001'): PublishOutcomeRecord => ({
  kind: 'published',
  externalId: id,
  url: `https://x.com/acme/status/${id}`,
});
const pending = (nextCheckAt: string): PublishOutcomeRecord => ({
  kind: 'pending',
  reference: 'upload-42',
  nextCheckAt,
});
const retryAt = (nextRetryAt: string, error = 'X answered 503'): PublishOutcomeRecord => ({
  kind: 'failed',
  error,
  reason: 'retryable',
  nextRetryAt,
});
const failedForGood = (error = 'X refused the post: duplicate content'): PublishOutcomeRecord => ({
  kind: 'failed',
  error,
  reason: 'permanent',
  nextRetryAt: null,
});

// Histories the sections start from.
const both = [xPostId, linkedinPostId];
/** One X post, approved without a time. */
const approvedX = history(create('drafts', [xPost]), approve());
/** One X post scheduled for tomorrow 09:00. */
const scheduledX = history(create('drafts', [xPost]), approve({ schedule: slots([xPostId], tomorrow) }));
/** X and LinkedIn scheduled for tomorrow 09:00. */
const scheduledBoth = history(create('drafts'), approve({ schedule: slots(both, tomorrow) }));
/** X claimed at its time: attempt 1 open. */
const claimedX = [...scheduledX, ...decided(scheduledX, start(xPostId, due()))];
/** Post-now requested for the approved X post, not yet claimed. */
const postNowX = history(create('drafts', [xPost]), approve(), postNow(xPostId));

/** The events a command adds to a history (the command must be accepted). */
function decided(events: PostGroupEvent[], command: PostGroupCommand): PostGroupEvent[] {
  const state = events.reduce(postGroupDecider.evolve, postGroupDecider.initialState);
  return postGroupDecider.decide(command, state);
}

/** A history followed by more commands, each decided on the state the previous ones left. */
function then(events: PostGroupEvent[], ...commands: PostGroupCommand[]): PostGroupEvent[] {
  const all = [...events];
  for (const command of commands) all.push(...decided(all, command));
  return all;
}

function fold(events: PostGroupEvent[]): PostGroupState {
  return events.reduce(postGroupDecider.evolve, postGroupDecider.initialState);
}

describe('"StartPublishAttempt … allowed for a `scheduled` post whose due time (`nextRetryAt ?? scheduledForUtc`) ≤ now (trigger `schedule`, or `retry` when nextRetryAt is set)"', () => {
  test('at its scheduled time: attempt 1 with its idempotency key, the approved content hash and the resolved account', () => {
    given(scheduledX)
      .when(start(xPostId, due(), account1))
      .then([
        {
          type: 'PostPublishAttemptStarted',
          data: {
            ...systemAt(due()),
            postId: xPostId,
            attempt: 1,
            idempotencyKey: `publish:${xPostId}:1`,
            contentHash: xHash,
            socialAccountId: account1,
            trigger: 'schedule',
          },
        },
      ]);
  });

  test('the post is publishing with one open attempt, counted, timed and keyed', () => {
    given(scheduledX)
      .when(start(xPostId, due(3), account1))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'publishing',
          attemptOpen: true,
          attemptCount: 1,
          lastAttemptAt: due(3),
          idempotencyKey: `publish:${xPostId}:1`,
          socialAccountId: account1,
          nextRetryAt: null,
          approvedContentHash: xHash,
          contentHash: xHash,
        });
        expect(publishWork(postOf(s, xPostId))).toEqual({ action: 'reconcile', dueAt: due(3) });
      });
  });

  test('a millisecond before its time it is not due', () => {
    const early = new Date(Date.parse(tomorrow) - 1).toISOString();
    given(scheduledX).when(start(xPostId, early)).thenRefuses(Conflict, 'post_not_due');
    given(scheduledX).when(start(xPostId, now)).thenRefuses(Conflict, 'post_not_due');
  });

  test('without a resolved account the post keeps its own; a resolved account replaces it', () => {
    const withAccount = history(
      create('drafts', [{ ...xPost, socialAccountId: account2 }]),
      approve({ schedule: slots([xPostId], tomorrow) }),
    );
    given(withAccount)
      .when(start(xPostId, due(), null))
      .thenState((s, events) => {
        expect(events[0]).toMatchObject({ data: { socialAccountId: account2 } });
        expect(postOf(s, xPostId).socialAccountId).toBe(account2);
      });
    given(withAccount)
      .when(start(xPostId, due(), account1))
      .thenState((s) => expect(postOf(s, xPostId).socialAccountId).toBe(account1));
  });

  test('after a retryable failure the post is due at nextRetryAt, not at its scheduled time, and the trigger is retry', () => {
    const retrying = then(claimedX, record(xPostId, 1, retryAt(due(10)), due(1)));
    expect(postOf(fold(retrying), xPostId)).toMatchObject({
      scheduledForUtc: tomorrow,
      nextRetryAt: due(10),
    });
    given(retrying)
      .when(start(xPostId, due(9)))
      .thenRefuses(Conflict, 'post_not_due');
    given(retrying)
      .when(start(xPostId, due(10)))
      .then([
        {
          type: 'PostPublishAttemptStarted',
          data: {
            ...systemAt(due(10)),
            postId: xPostId,
            attempt: 2,
            idempotencyKey: `publish:${xPostId}:2`,
            contentHash: xHash,
            socialAccountId: null,
            trigger: 'retry',
          },
        },
      ]);
  });
});

describe('"… or a `publishing` post with no open attempt (post-now requested; trigger `post_now`)"', () => {
  test('a post-now request is claimed at once, whatever its planned time', () => {
    given(postNowX)
      .when(start(xPostId, now, account1))
      .then([
        {
          type: 'PostPublishAttemptStarted',
          data: {
            ...systemAt(now),
            postId: xPostId,
            attempt: 1,
            idempotencyKey: `publish:${xPostId}:1`,
            contentHash: xHash,
            socialAccountId: account1,
            trigger: 'post_now',
          },
        },
      ]);
  });

  test('post-now of a scheduled post before its time is claimed too (the request is the due time)', () => {
    given(then(scheduledX, postNow(xPostId)))
      .when(start(xPostId, now))
      .thenState((s, events) => {
        expect(events[0]).toMatchObject({ data: { trigger: 'post_now', attempt: 1 } });
        expect(postOf(s, xPostId)).toMatchObject({ status: 'publishing', attemptOpen: true });
      });
  });
});

describe('"Refused with Conflict: not due (`post_not_due`), attempt already open (`attempt_in_progress`), other statuses (`post_not_publishable`), approval not covering the current content (`post_not_approved`)"', () => {
  test('an open attempt, from a schedule or from post-now, refuses another claim', () => {
    given(claimedX)
      .when(start(xPostId, due(30)))
      .thenRefuses(Conflict, 'attempt_in_progress');
    given(then(postNowX, start(xPostId, now)))
      .when(start(xPostId, now))
      .thenRefuses(Conflict, 'attempt_in_progress');
  });

  test.each([
    ['draft', history(create('post_groups', [xPost]))],
    ['pending_approval', history(create('drafts', [xPost]))],
    ['approved', approvedX],
    ['awaiting_platform', then(claimedX, record(xPostId, 1, pending(due(5)), due(1)))],
    ['published', then(claimedX, record(xPostId, 1, published(), due(1)))],
    ['failed', then(claimedX, record(xPostId, 1, failedForGood(), due(1)))],
    ['canceled', then(scheduledX, updatePost(xPostId, {}, { status: 'canceled' }))],
  ])('a %s post is not publishable', (status, events) => {
    expect(postOf(fold(events), xPostId).status).toBe(status);
    given(events)
      .when(start(xPostId, due(60)))
      .thenRefuses(Conflict, 'post_not_publishable');
  });

  test('a due scheduled post, or a post-now request, whose approval does not cover its content is never claimed', () => {
    given(withPost(scheduledX, xPostId, { contentHash: 'sha256:edited' }))
      .when(start(xPostId, due()))
      .thenRefuses(Conflict, 'post_not_approved');
    given(withPost(scheduledX, xPostId, { approvedContentHash: null }))
      .when(start(xPostId, due()))
      .thenRefuses(Conflict, 'post_not_approved');
    given(withPost(postNowX, xPostId, { approvedContentHash: 'sha256:other' }))
      .when(start(xPostId, now))
      .thenRefuses(Conflict, 'post_not_approved');
  });

  test('an unknown post or group is not found', () => {
    given(scheduledX).when(start(unknownPostId, due())).thenRefuses(NotFound);
    given([]).when(start(xPostId, due())).thenRefuses(NotFound);
  });
});

describe('"appending the attempt with the expected revision is the claim": two claims on the same revision', () => {
  test('both workers decide an attempt on revision r; the loser, decided again on the winner’s event, is refused', () => {
    const state = fold(scheduledX);
    const winner = postGroupDecider.decide(start(xPostId, due(), account1), state);
    const loser = postGroupDecider.decide(start(xPostId, due(), account1), state);
    // Deciding alone cannot tell them apart: the store's expected revision refuses the second append.
    expect(loser).toEqual(winner);
    given([...scheduledX, ...winner])
      .when(start(xPostId, due(), account1))
      .thenRefuses(Conflict, 'attempt_in_progress');
  });

  test('the same holds for a post-now request', () => {
    const winner = decided(postNowX, start(xPostId, now));
    given([...postNowX, ...winner])
      .when(start(xPostId, now))
      .thenRefuses(Conflict, 'attempt_in_progress');
  });
});

describe('"RecordPublishOutcome … published → `PostPublished` (status published, publishedExternalId/Url, lastError cleared)"', () => {
  test('the outcome of the open attempt', () => {
    given(claimedX)
      .when(record(xPostId, 1, published('1850000000000000001'), due(1)))
      .then([
        {
          type: 'PostPublished',
          data: {
            ...systemAt(due(1)),
            postId: xPostId,
            attempt: 1,
            externalId: '1850000000000000001',
            url: 'https://x.com/acme/status/1850000000000000001',
          },
        },
      ]);
  });

  test('the post is published, the attempt closed and the last error of an earlier attempt cleared', () => {
    const secondAttempt = then(
      claimedX,
      record(xPostId, 1, retryAt(due(10), 'X answered 503'), due(1)),
      start(xPostId, due(10)),
    );
    expect(postOf(fold(secondAttempt), xPostId).lastError).toBe('X answered 503');
    given(secondAttempt)
      .when(record(xPostId, 2, published('77'), due(11)))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'published',
          publishedExternalId: '77',
          publishedUrl: 'https://x.com/acme/status/77',
          lastError: null,
          attemptOpen: false,
          nextRetryAt: null,
          attemptCount: 2,
          lastAttemptAt: due(10),
        });
        expect(publishWork(postOf(s, xPostId))).toBeNull();
      });
  });
});

describe('"pending → `PostAwaitingPlatform` (status awaiting_platform, nextRetryAt = nextCheckAt, publishReference)"', () => {
  const awaiting = then(claimedX, record(xPostId, 1, pending(due(5)), due(1)));

  test('the platform still processes the post: it is polled at nextCheckAt', () => {
    given(claimedX)
      .when(record(xPostId, 1, pending(due(5)), due(1)))
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostAwaitingPlatform',
            data: {
              ...systemAt(due(1)),
              postId: xPostId,
              attempt: 1,
              publishReference: 'upload-42',
              nextCheckAt: due(5),
            },
          },
        ]);
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'awaiting_platform',
          attemptOpen: false,
          nextRetryAt: due(5),
          publishReference: 'upload-42',
        });
        expect(publishWork(postOf(s, xPostId))).toEqual({ action: 'poll', dueAt: due(5) });
      });
  });

  test('a poll of the same attempt may find it still pending, published or failed', () => {
    given(awaiting)
      .when(record(xPostId, 1, pending(due(9)), due(5)))
      .thenState((s) =>
        expect(postOf(s, xPostId)).toMatchObject({ status: 'awaiting_platform', nextRetryAt: due(9) }),
      );
    given(awaiting)
      .when(record(xPostId, 1, published('9'), due(5)))
      .thenState((s) =>
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'published',
          publishReference: null,
          nextRetryAt: null,
        }),
      );
    given(awaiting)
      .when(record(xPostId, 1, failedForGood('processing failed'), due(5)))
      .thenState((s) =>
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'failed',
          lastError: 'processing failed',
          publishReference: null,
        }),
      );
  });
});

describe('"failed → `PostPublishAttemptFailed` (nextRetryAt set → back to `scheduled` with that nextRetryAt and lastError, scheduledForUtc kept or set to the attempt time for a post-now; nextRetryAt null → `failed` for good)"', () => {
  test('a retryable failure puts the post back on the calendar at its time, due again at nextRetryAt', () => {
    given(claimedX)
      .when(record(xPostId, 1, retryAt(due(10)), due(1)))
      .thenState((s, events) => {
        expect(events).toEqual([
          {
            type: 'PostPublishAttemptFailed',
            data: {
              ...systemAt(due(1)),
              postId: xPostId,
              attempt: 1,
              error: 'X answered 503',
              reason: 'retryable',
              nextRetryAt: due(10),
            },
          },
        ]);
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'scheduled',
          scheduledForUtc: tomorrow,
          nextRetryAt: due(10),
          lastError: 'X answered 503',
          attemptOpen: false,
          attemptCount: 1,
          approvedContentHash: xHash,
        });
        expect(s.status).toBe('scheduled');
        expect(publishWork(postOf(s, xPostId))).toEqual({ action: 'publish', dueAt: due(10) });
      });
  });

  test('a post-now retry is scheduled at the time of the attempt, with a reason', () => {
    const claimed = then(postNowX, start(xPostId, due(-60)));
    given(claimed)
      .when(record(xPostId, 1, retryAt(due(-50)), due(-59)))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'scheduled',
          scheduledForUtc: due(-60),
          nextRetryAt: due(-50),
        });
        expect(postOf(s, xPostId).scheduleReason).toBe(postNowRetryReason);
        expect(s.status).toBe('scheduled');
      });
  });

  test('a failure without nextRetryAt is final: failed, its approval kept, the group approved', () => {
    given(claimedX)
      .when(record(xPostId, 1, failedForGood(), due(1)))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'failed',
          nextRetryAt: null,
          lastError: 'X refused the post: duplicate content',
          attemptOpen: false,
          approvedContentHash: xHash,
          scheduledForUtc: tomorrow,
        });
        expect(s.status).toBe('approved');
        expect(publishWork(postOf(s, xPostId))).toBeNull();
      });
  });
});

describe('"only for the current attempt (attemptCount === attempt and (publishing with an open attempt, or awaiting_platform)), else Conflict `stale_attempt`"', () => {
  test.each([
    ['another attempt number', claimedX, 2],
    ['an older attempt number', claimedX, 0],
    ['a post-now request not yet claimed', postNowX, 0],
    ['an attempt already published', then(claimedX, record(xPostId, 1, published(), due(1))), 1],
    ['an attempt already failed for good', then(claimedX, record(xPostId, 1, failedForGood(), due(1))), 1],
    [
      'an attempt failed and waiting to retry',
      then(claimedX, record(xPostId, 1, retryAt(due(10)), due(1))),
      1,
    ],
    ['an approved post never attempted', approvedX, 0],
  ])('%s is stale', (_, events, attempt) => {
    given(events)
      .when(record(xPostId, attempt, published(), due(20)))
      .thenRefuses(Conflict, 'stale_attempt');
  });

  test('a reconcile racing the worker: the first record stands, the second is refused', () => {
    const settled = then(claimedX, record(xPostId, 1, published('1'), due(1)));
    given(settled)
      .when(record(xPostId, 1, failedForGood('unconfirmed'), due(2)))
      .thenRefuses(Conflict, 'stale_attempt');
  });
});

describe('"Group status follows deriveGroupStatus"', () => {
  // x fails for good (approved, holding its approval), linkedin is published: the group is approved whatever the order.
  test('the group status does not depend on the order in which the posts’ outcomes arrive', () => {
    const xFirst = then(
      scheduledBoth,
      start(xPostId, due()),
      record(xPostId, 1, failedForGood(), due(1)),
      start(linkedinPostId, due(2)),
      record(linkedinPostId, 1, published('li-1'), due(3)),
    );
    const linkedinFirst = then(
      scheduledBoth,
      start(linkedinPostId, due()),
      record(linkedinPostId, 1, published('li-1'), due(1)),
      start(xPostId, due(2)),
      record(xPostId, 1, failedForGood(), due(3)),
    );
    expect(activeState(xFirst).status).toBe('approved');
    expect(activeState(linkedinFirst).status).toBe('approved');
  });

  test('a group whose only scheduled post is claimed while another waits approved is approved; alone it stays scheduled', () => {
    const xScheduledLinkedinApproved = history(
      create('drafts'),
      approve(),
      schedule(slots([xPostId], tomorrow), { postIds: [xPostId] }),
    );
    expect(activeState(xScheduledLinkedinApproved).status).toBe('scheduled');
    given(xScheduledLinkedinApproved)
      .when(start(xPostId, due()))
      .thenState((s) => expect(s.status).toBe('approved'));
    given(then(scheduledX, start(xPostId, due())))
      .when(record(xPostId, 1, published(), due(1)))
      .thenState((s) => expect(s.status).toBe('scheduled'));
  });
});

describe('an edit of a scheduled post’s content after a failed retryable attempt withdraws the approval', () => {
  const retrying = then(claimedX, record(xPostId, 1, retryAt(due(10)), due(1)));
  const edited = then(retrying, updatePost(xPostId, { contentText: 'The scheduler ships today, for real.' }));

  test('the edit sends the post back to review', () => {
    given(retrying)
      .when(updatePost(xPostId, { contentText: 'The scheduler ships today, for real.' }))
      .thenTypes(['PostEdited', 'PostGroupSubmittedForApproval']);
    expect(postOf(fold(edited), xPostId)).toMatchObject({
      status: 'pending_approval',
      approvedContentHash: null,
      // The retry it was waiting for is off, and no retry time is shown while it is in review.
      nextRetryAt: null,
    });
  });

  test('no further attempt can start, no pipeline work is left, the old attempt cannot be recorded, post-now is refused', () => {
    const post = postOf(fold(edited), xPostId);
    expect(publishWork(post)).toBeNull();
    given(edited)
      .when(start(xPostId, due(10)))
      .thenRefuses(Conflict, 'post_not_publishable');
    given(edited)
      .when(record(xPostId, 1, published(), due(10)))
      .thenRefuses(Conflict, 'stale_attempt');
    given(edited).when(postNow(xPostId)).thenRefuses(Conflict, 'post_not_approved');
  });

  test('a group edit withdraws it the same way', () => {
    const groupEdited = then(retrying, updateGroup({ title: 'A new launch' }));
    expect(postOf(fold(groupEdited), xPostId).status).toBe('pending_approval');
    given(groupEdited)
      .when(start(xPostId, due(10)))
      .thenRefuses(Conflict, 'post_not_publishable');
  });

  test('after re-approval the edited content is what the next attempt carries, counting on from attempt 1', () => {
    const reapproved = then(edited, approve({ schedule: slots([xPostId], due(30)) }));
    given(reapproved)
      .when(start(xPostId, due(30)))
      .thenEvents((events) => {
        const edit = {
          ...xPost,
          contentText: 'The scheduler ships today, for real.',
        };
        expect(events[0]).toMatchObject({
          type: 'PostPublishAttemptStarted',
          data: { attempt: 2, contentHash: contentHash(edit), trigger: 'schedule' },
        });
      });
  });
});

describe('attempts count up, one per claim, each with its own idempotency key', () => {
  test('three retryable failures and a success: attempts 1 to 4', () => {
    let events = scheduledX;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const at = due((attempt - 1) * 10);
      events = then(events, start(xPostId, at), record(xPostId, attempt, retryAt(due(attempt * 10)), at));
      expect(postOf(fold(events), xPostId)).toMatchObject({ attemptCount: attempt, status: 'scheduled' });
    }
    const started = decided(events, start(xPostId, due(30)));
    expect(started).toMatchObject([
      {
        type: 'PostPublishAttemptStarted',
        data: { attempt: 4, idempotencyKey: `publish:${xPostId}:4`, trigger: 'retry' },
      },
    ]);
    const done = then([...events, ...started], record(xPostId, 4, published(), due(31)));
    const keys = done.flatMap((e) => (e.type === 'PostPublishAttemptStarted' ? [e.data.idempotencyKey] : []));
    expect(keys).toEqual([1, 2, 3, 4].map((n) => `publish:${xPostId}:${n}`));
    expect(postOf(fold(done), xPostId)).toMatchObject({ status: 'published', attemptCount: 4 });
  });
});

describe('post-now from `failed`, and a retry after `failed` + post-now', () => {
  const failed = then(claimedX, record(xPostId, 1, failedForGood('X answered 403'), due(1)));

  test('post-now of a failed post holding its approval: the next claim is attempt 2, triggered by post-now', () => {
    const requested = then(failed, postNow(xPostId));
    expect(postOf(fold(requested), xPostId)).toMatchObject({ status: 'publishing', attemptOpen: false });
    given(requested)
      .when(start(xPostId, due(60)))
      .thenState((s, events) => {
        expect(events[0]).toMatchObject({
          data: { attempt: 2, idempotencyKey: `publish:${xPostId}:2`, trigger: 'post_now' },
        });
        expect(postOf(s, xPostId)).toMatchObject({
          attemptCount: 2,
          attemptOpen: true,
          lastAttemptAt: due(60),
        });
      });
  });

  test('that attempt failing retryably is retried at nextRetryAt as attempt 3 and can still be published', () => {
    const retrying = then(
      failed,
      postNow(xPostId),
      start(xPostId, due(60)),
      record(xPostId, 2, retryAt(due(70)), due(61)),
    );
    expect(postOf(fold(retrying), xPostId)).toMatchObject({ status: 'scheduled', nextRetryAt: due(70) });
    given(retrying)
      .when(start(xPostId, due(69)))
      .thenRefuses(Conflict, 'post_not_due');
    const retried = then(retrying, start(xPostId, due(70)));
    expect(retried.at(-1)).toMatchObject({ data: { attempt: 3, trigger: 'retry' } });
    given(retried)
      .when(record(xPostId, 3, published('3'), due(71)))
      .thenState((s) => expect(postOf(s, xPostId)).toMatchObject({ status: 'published', lastError: null }));
  });

  test('a failed post whose content was edited must be approved again before post-now', () => {
    const edited = then(failed, updatePost(xPostId, { contentText: 'Take two.' }));
    given(edited).when(postNow(xPostId)).thenRefuses(Conflict, 'post_not_approved');
  });
});

describe('a published post never gets another attempt', () => {
  const done = then(claimedX, record(xPostId, 1, published('1'), due(1)));

  test('no claim, no post-now, no outcome, no reschedule', () => {
    given(done)
      .when(start(xPostId, due(60)))
      .thenRefuses(Conflict, 'post_not_publishable');
    given(done).when(postNow(xPostId)).thenRefuses(Conflict, 'post_already_published');
    given(done)
      .when(record(xPostId, 2, published('2'), due(60)))
      .thenRefuses(Conflict, 'stale_attempt');
    given(done)
      .when(updatePost(xPostId, { scheduledForUtc: due(120) }))
      .thenRefuses(Conflict, 'post_not_editable');
  });
});

describe('"RemoveSocialAccount {socialAccountId, message} → `PostsAccountRemoved` for posts of that account not publishing/awaiting_platform/published/canceled"', () => {
  // x and linkedin with account 1, reddit with account 2; all scheduled for tomorrow except linkedin (approved).
  const mixed = history(
    create('drafts', [
      { ...xPost, socialAccountId: account1 },
      { ...linkedinPost, socialAccountId: account1 },
      { ...redditPost, socialAccountId: account2 },
    ]),
    approve(),
    schedule(slots([xPostId, redditPostId], tomorrow), { postIds: [xPostId, redditPostId] }),
  );

  test('the account leaves its unsent posts with a message; scheduled ones go back to approved without a time', () => {
    given(mixed)
      .when(removeAccount(account1))
      .then([
        {
          type: 'PostsAccountRemoved',
          data: {
            orgId,
            groupId,
            by: 'system',
            at: now,
            socialAccountId: account1,
            postIds: [xPostId, linkedinPostId],
            unscheduledPostIds: [xPostId],
            message: accountRemoved,
            groupStatus: 'scheduled',
          },
        },
      ]);
  });

  test('the state: account cleared, lastError set, x approved without a time, reddit untouched', () => {
    given(mixed)
      .when(removeAccount(account1))
      .thenState((s) => {
        expect(postOf(s, xPostId)).toMatchObject({
          status: 'approved',
          socialAccountId: null,
          scheduledForUtc: null,
          scheduleReason: null,
          nextRetryAt: null,
          lastError: accountRemoved,
          approvedContentHash: xHash,
        });
        expect(postOf(s, linkedinPostId)).toMatchObject({
          status: 'approved',
          socialAccountId: null,
          lastError: accountRemoved,
        });
        expect(postOf(s, redditPostId)).toEqual(postOf(activeState(mixed), redditPostId));
        expect(s.status).toBe('scheduled');
        expect(publishWork(postOf(s, xPostId))).toBeNull();
      });
  });

  test('the group stays scheduled while a post is scheduled, and is approved when none is', () => {
    given(mixed)
      .when(removeAccount(account2))
      .thenState((s, events) => {
        expect(events[0]).toMatchObject({ data: { postIds: [redditPostId], groupStatus: 'scheduled' } });
        expect(s.status).toBe('scheduled');
      });
    given(then(mixed, removeAccount(account2)))
      .when(removeAccount(account1))
      .thenState((s, events) => {
        expect(events[0]).toMatchObject({ data: { unscheduledPostIds: [xPostId], groupStatus: 'approved' } });
        expect(s.status).toBe('approved');
        expect(s.posts.every((p) => p.status === 'approved')).toBe(true);
      });
  });

  test('draft, pending_approval and failed posts lose the account and keep their status', () => {
    const withX = (events: PostGroupEvent[]) =>
      then(events, updatePost(xPostId, { socialAccountId: account1 }));
    for (const events of [
      withX(history(create('post_groups', [xPost]))),
      withX(history(create('drafts', [xPost]))),
      then(withX(scheduledX), start(xPostId, due()), record(xPostId, 1, failedForGood(), due(1))),
    ]) {
      const before = postOf(fold(events), xPostId).status;
      given(events)
        .when(removeAccount(account1))
        .thenState((s) => {
          expect(postOf(s, xPostId)).toMatchObject({
            status: before,
            socialAccountId: null,
            lastError: accountRemoved,
          });
        });
    }
  });

  test('a post waiting to retry goes back to approved and cannot be claimed', () => {
    const retrying = then(
      then(scheduledX, updatePost(xPostId, { socialAccountId: account1 })),
      start(xPostId, due()),
      record(xPostId, 1, retryAt(due(10)), due(1)),
    );
    const removed = then(retrying, removeAccount(account1, due(2)));
    expect(postOf(fold(removed), xPostId)).toMatchObject({
      status: 'approved',
      nextRetryAt: null,
      scheduledForUtc: null,
    });
    given(removed)
      .when(start(xPostId, due(10)))
      .thenRefuses(Conflict, 'post_not_publishable');
  });

  test.each([
    ['publishing (open attempt)', (e: PostGroupEvent[]) => then(e, start(xPostId, due(), account1))],
    ['publishing (post-now requested)', (e: PostGroupEvent[]) => then(e, postNow(xPostId))],
    [
      'awaiting_platform',
      (e: PostGroupEvent[]) =>
        then(e, start(xPostId, due(), account1), record(xPostId, 1, pending(due(5)), due(1))),
    ],
    [
      'published',
      (e: PostGroupEvent[]) =>
        then(e, start(xPostId, due(), account1), record(xPostId, 1, published(), due(1))),
    ],
    ['canceled', (e: PostGroupEvent[]) => then(e, updatePost(xPostId, {}, { status: 'canceled' }))],
  ])('a %s post is not affected: nothing to do, no events', (_, reach) => {
    const events = reach(then(scheduledX, updatePost(xPostId, { socialAccountId: account1 })));
    given(events)
      .when(removeAccount(account1, due(2)))
      .then([]);
  });

  test('another account’s removal, or a group without that account, changes nothing', () => {
    given(mixed).when(removeAccount('40000000-0000-4000-8000-000000000009')).then([]);
    given(scheduledX).when(removeAccount(account1)).then([]);
  });
});

describe('"`DeletePost` may carry `deletedOnPlatform {externalId}` (X post deletion), recorded on `PostDeleted`"', () => {
  const done = then(claimedX, record(xPostId, 1, published('1850000000000000001'), due(1)));

  test('a published post deleted on the platform: the deletion names the platform post', () => {
    given(done)
      .when({ ...deletePost(xPostId), deletedOnPlatform: { externalId: '1850000000000000001' } })
      .then([
        {
          type: 'PostDeleted',
          data: {
            orgId,
            groupId,
            by: editor,
            at: now,
            postId: xPostId,
            groupStatus: 'canceled',
            deletedOnPlatform: { externalId: '1850000000000000001' },
          },
        },
      ]);
  });

  test('a plain deletion records no platform deletion', () => {
    given(done)
      .when(deletePost(xPostId))
      .thenEvents((events) => expect(events[0]?.data).not.toHaveProperty('deletedOnPlatform'));
  });

  test('only a published post, and only under its own external id, can have been deleted on the platform', () => {
    given(scheduledX)
      .when({ ...deletePost(xPostId), deletedOnPlatform: { externalId: '1850000000000000001' } })
      .thenRefuses(Conflict, 'post_not_published');
    given(done)
      .when({ ...deletePost(xPostId), deletedOnPlatform: { externalId: '999' } })
      .thenRefuses(Conflict, 'external_id_mismatch');
  });
});

describe('"`publishWork(post)` → the pipeline’s work"', () => {
  test('scheduled with a current approval: publish at nextRetryAt ?? scheduledForUtc; a stale approval: nothing', () => {
    expect(publishWork(postOf(fold(scheduledX), xPostId))).toEqual({ action: 'publish', dueAt: tomorrow });
    const retrying = then(claimedX, record(xPostId, 1, retryAt(due(10)), due(1)));
    expect(publishWork(postOf(fold(retrying), xPostId))).toEqual({ action: 'publish', dueAt: due(10) });
    const stale = withPost(scheduledX, xPostId, { contentHash: 'sha256:edited' });
    expect(publishWork(postOf(stale, xPostId))).toBeNull();
  });

  test('publishing without an open attempt: publish at updatedAt; with one: reconcile at lastAttemptAt', () => {
    const requested = postOf(fold(postNowX), xPostId);
    expect(publishWork(requested)).toEqual({ action: 'publish', dueAt: requested.updatedAt });
    expect(requested.updatedAt).toBe(now);
    expect(publishWork(postOf(fold(claimedX), xPostId))).toEqual({ action: 'reconcile', dueAt: due() });
  });

  test('awaiting_platform: poll at nextRetryAt', () => {
    const awaiting = then(claimedX, record(xPostId, 1, pending(due(7)), due(1)));
    expect(publishWork(postOf(fold(awaiting), xPostId))).toEqual({ action: 'poll', dueAt: due(7) });
  });

  test.each([
    ['draft', history(create('post_groups', [xPost]))],
    ['pending_approval', history(create('drafts', [xPost]))],
    ['approved', approvedX],
    ['published', then(claimedX, record(xPostId, 1, published(), due(1)))],
    ['failed', then(claimedX, record(xPostId, 1, failedForGood(), due(1)))],
    ['canceled', then(scheduledX, updatePost(xPostId, {}, { status: 'canceled' }))],
  ])('%s: nothing', (status, events) => {
    const post = postOf(fold(events), xPostId);
    expect(post.status).toBe(status);
    expect(publishWork(post)).toBeNull();
  });
});
