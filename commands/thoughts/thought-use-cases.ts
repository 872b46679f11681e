// Thought use cases for a caller (a member, or an assistant with posts:write): save, edit (text, kind, status,
// tags) and delete a thought through the write pipeline, each answering the thought (a delete, as it was). Every
// write decides against the thought's own stream, `thought-<thoughtId>`.
import type { Kysely } from 'kysely';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  thoughtCategory,
  thoughtDecider,
  thoughtOf,
  type ThoughtCommand,
  type ThoughtKind,
  type ThoughtState,
  type ThoughtStatus,
} from '../../domain/thoughts/thought.js';
import { thoughtView, type ThoughtView } from '../../domain/thoughts/views.js';
import { streamName } from '../../infra/event-store/port.js';
import type { ReadModels } from '../../projections/read-models.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteOf,
} from '../shared/command-handler.js';
import { deterministicEventIds, newId } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export interface ThoughtDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
}

export const thoughtStream = (thoughtId: string) => streamName(thoughtCategory, thoughtId);

/** Saving, editing, deleting and drafting from thoughts: members who draft, assistants with posts:write. */
export const thoughtWriting = (orgId: string) =>
  ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

export async function loadThought(
  deps: Pick<CommandDeps, 'eventStore'>,
  thoughtId: string,
): Promise<ThoughtState> {
  return (await loadAggregate(deps.eventStore, thoughtStream(thoughtId), thoughtDecider)).state;
}

/**
 * Decides one command on the thought's stream and answers the thought `answer` picks (the state after it, or for a
 * delete the one before); `record` stores that answer with the append (the idempotency record).
 */
export async function decideThought(
  deps: Pick<WriteDeps, 'commands'>,
  command: ThoughtCommand,
  metadata: CommandMetadata,
  options: {
    idempotencySeed?: string | undefined;
    record?: SideWriteOf<ThoughtView> | undefined;
    answerFrom?: 'after' | 'before';
  } = {},
): Promise<ThoughtView> {
  const view = (state: ThoughtState) => thoughtView(thoughtOf(state, command.orgId));
  const pick = (o: { state: ThoughtState; before: ThoughtState }) =>
    view(options.answerFrom === 'before' ? o.before : o.state);
  const record = options.record;
  const outcome = await handleCommand(deps.commands, {
    stream: thoughtStream(command.thoughtId),
    decider: thoughtDecider,
    command,
    metadata: { ...metadata, orgId: command.orgId },
    eventId: deterministicEventIds(options.idempotencySeed, 'thought'),
    sideWrite: record ? (trx, o) => record(trx, pick(o)) : undefined,
  });
  return pick(outcome);
}

export interface SaveThoughtInput {
  orgId: string;
  text: string;
  kind?: ThoughtKind;
  source?: string | null;
  tags?: string[];
}

/** POST ORG/thoughts (save_thought): a new thought, status new. */
export async function saveThought(
  deps: ThoughtDeps,
  caller: Caller,
  input: SaveThoughtInput,
  request: WriteRequest,
): Promise<Written<ThoughtView>> {
  authorize(caller, thoughtWriting(input.orgId));
  return runWrite(deps.idempotency, caller, request, ({ metadata, record, idempotencySeed }) =>
    decideThought(
      deps,
      {
        type: 'SaveThought',
        orgId: input.orgId,
        // With a key, the id comes from it: a retry after a crash saves the same thought, not a second one.
        thoughtId: newId(idempotencySeed ? [idempotencySeed, 'thought'] : undefined),
        text: input.text,
        kind: input.kind,
        source: input.source,
        tags: input.tags,
        by: metadata.userId ?? null,
        now: metadata.now,
      },
      metadata,
      { idempotencySeed, record },
    ),
  );
}

export interface UpdateThoughtInput {
  orgId: string;
  thoughtId: string;
  text?: string;
  kind?: ThoughtKind;
  status?: ThoughtStatus;
  tags?: string[];
}

/** PATCH ORG/thoughts/{thoughtId} (update_thought): omitted fields stay; tags replace; status as given. */
export async function updateThought(
  deps: ThoughtDeps,
  caller: Caller,
  input: UpdateThoughtInput,
  request: WriteRequest,
): Promise<Written<ThoughtView>> {
  authorize(caller, thoughtWriting(input.orgId));
  const { orgId, thoughtId, text, kind, status, tags } = input;
  return runWrite(deps.idempotency, caller, request, ({ metadata, record }) =>
    decideThought(
      deps,
      { type: 'UpdateThought', orgId, thoughtId, text, kind, status, tags, now: metadata.now },
      metadata,
      { record },
    ),
  );
}

/** DELETE ORG/thoughts/{thoughtId}: the thought goes; the drafts already made from it stay. Answers it as it was. */
export async function deleteThought(
  deps: ThoughtDeps,
  caller: Caller,
  input: { orgId: string; thoughtId: string },
  request: WriteRequest,
): Promise<Written<ThoughtView>> {
  authorize(caller, thoughtWriting(input.orgId));
  return runWrite(deps.idempotency, caller, request, ({ metadata, record }) =>
    decideThought(
      deps,
      { type: 'DeleteThought', orgId: input.orgId, thoughtId: input.thoughtId, now: metadata.now },
      metadata,
      { record, answerFrom: 'before' },
    ),
  );
}
