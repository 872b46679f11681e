// The publishing pipeline's writes to a post group: claiming an attempt (the append with the expected revision
// is the claim), recording what became of it, and detaching a removed social account from unsent posts.
import { randomUUID } from 'node:crypto';
import { sanitizeErrorText } from '../../infra/logging/redact.js';
import {
  postGroupDecider,
  type ActivePostGroup,
  type PostGroupState,
  type PublishOutcomeRecord,
} from '../../domain/post-groups/post-group.js';
import { handleCommand, type CommandDeps, type CommandOutcome } from '../shared/command-handler.js';
import { postGroupStream } from '../post-groups/post-group-commands.js';
import type { PostGroupEvent } from '../../domain/post-groups/post-group.js';

/** Pipeline writes do not wait for read models: nobody is waiting on an HTTP answer. */
function systemWrite(
  deps: CommandDeps,
  orgId: string,
  groupId: string,
  command: Parameters<typeof postGroupDecider.decide>[0],
  correlationId: string,
  loaded?: { state: PostGroupState; revision: number },
): Promise<CommandOutcome<PostGroupState, PostGroupEvent>> {
  return handleCommand(deps, {
    stream: postGroupStream(groupId),
    decider: postGroupDecider,
    command,
    metadata: { orgId, actor: 'system', correlationId, now: command.now },
    awaitReadModels: false,
    ...(loaded ? { loaded } : {}),
  });
}

export interface AttemptClaim {
  group: ActivePostGroup;
  /** The stream revision the claim left the group at (for recording the outcome without reading again). */
  revision: number;
  attempt: number;
  idempotencyKey: string;
}

/**
 * Claims the next attempt of a due post. Two workers racing both read revision r; one append wins, the other
 * is refused by the store, decides again against the winner's event and gets a Conflict (attempt in progress).
 */
export async function startPublishAttempt(
  deps: CommandDeps,
  ref: { orgId: string; groupId: string; postId: string; socialAccountId: string | null },
  now: Date,
  correlationId: string = randomUUID(),
  /** The group as the worker read it: the claim is appended with this revision, without reading again. */
  loaded?: { group: ActivePostGroup; revision: number },
): Promise<AttemptClaim> {
  const outcome = await systemWrite(
    deps,
    ref.orgId,
    ref.groupId,
    {
      type: 'StartPublishAttempt',
      postId: ref.postId,
      socialAccountId: ref.socialAccountId,
      by: 'system',
      now: now.toISOString(),
    },
    correlationId,
    loaded ? { state: loaded.group, revision: loaded.revision } : undefined,
  );
  const event = outcome.events[0];
  if (
    outcome.state.kind !== 'active' ||
    event?.type !== 'PostPublishAttemptStarted' ||
    outcome.revision === null
  )
    throw new Error('StartPublishAttempt appended no attempt');
  return {
    group: outcome.state,
    revision: outcome.revision,
    attempt: event.data.attempt,
    idempotencyKey: event.data.idempotencyKey,
  };
}

export async function recordPublishOutcome(
  deps: CommandDeps,
  ref: { orgId: string; groupId: string; postId: string; attempt: number },
  outcome: PublishOutcomeRecord,
  now: Date,
  correlationId: string = randomUUID(),
  /** The group as the worker last knew it (after its claim); a stale one is refused by the store and decided again. */
  loaded?: { group: ActivePostGroup; revision: number },
): Promise<void> {
  await systemWrite(
    deps,
    ref.orgId,
    ref.groupId,
    {
      type: 'RecordPublishOutcome',
      postId: ref.postId,
      attempt: ref.attempt,
      // lastError is shown to users and kept in the stream for good: capped, one line, no tokens.
      outcome: outcome.kind === 'failed' ? { ...outcome, error: sanitizeErrorText(outcome.error) } : outcome,
      by: 'system',
      now: now.toISOString(),
    },
    correlationId,
    loaded ? { state: loaded.group, revision: loaded.revision } : undefined,
  );
}

/** Unsent posts of the group lose the removed account; scheduled ones go back to approved (no time). */
export async function removeSocialAccountFromGroup(
  deps: CommandDeps,
  ref: { orgId: string; groupId: string; socialAccountId: string; message: string },
  now: Date,
  correlationId: string = randomUUID(),
): Promise<number> {
  const outcome = await systemWrite(
    deps,
    ref.orgId,
    ref.groupId,
    {
      type: 'RemoveSocialAccount',
      socialAccountId: ref.socialAccountId,
      message: ref.message,
      by: 'system',
      now: now.toISOString(),
    },
    correlationId,
  );
  return outcome.events.length;
}
