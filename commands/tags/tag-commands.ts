// Tag commands: create, update and delete a workspace's tags, and load them from the event store.
// All tags of a workspace live in one stream, `workspaceTags-<orgId>` (domain/tags/tags.ts).
import {
  workspaceTagsCategory,
  workspaceTagsDecider,
  type Tag,
  type TagCommand,
  type TagEvent,
  type WorkspaceTagsState,
} from '../../domain/tags/tags.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type CommandOutcome,
  type SideWriteOption,
} from '../shared/command-handler.js';

export const workspaceTagsStream = (orgId: string) => streamName(workspaceTagsCategory, orgId);

/** The side write (the idempotency record) receives the tag the write will answer with. */
export type TagWriteOptions = SideWriteOption<Tag>;

type Outcome = CommandOutcome<WorkspaceTagsState, TagEvent>;

function tagIn(state: WorkspaceTagsState, tagId: string): Tag {
  const tag = state.status === 'active' ? state.tags[tagId] : undefined;
  // decide refused the command already when the tag is missing; reaching this is a broken invariant.
  if (!tag) throw new Error(`Tag ${tagId} missing from the workspace tags state`);
  return tag;
}

async function runTagCommand(
  deps: CommandDeps,
  orgId: string,
  command: TagCommand,
  metadata: CommandMetadata,
  answer: (outcome: Pick<Outcome, 'state' | 'before'>) => Tag,
  options: TagWriteOptions,
): Promise<{ tag: Tag; appended: boolean }> {
  const sideWrite = options.sideWrite;
  const outcome = await handleCommand(deps, {
    stream: workspaceTagsStream(orgId),
    decider: workspaceTagsDecider,
    command,
    metadata: { ...metadata, orgId },
    sideWrite: sideWrite ? (trx, o) => sideWrite(trx, answer(o)) : undefined,
  });
  return { tag: answer(outcome), appended: outcome.events.length > 0 };
}

export async function createTag(
  deps: CommandDeps,
  orgId: string,
  input: { tagId: string; name: string; color?: string | null },
  metadata: CommandMetadata,
  options: TagWriteOptions = {},
): Promise<{ tag: Tag; appended: boolean }> {
  return runTagCommand(
    deps,
    orgId,
    { type: 'CreateTag', orgId, ...input, now: metadata.now },
    metadata,
    (o) => tagIn(o.state, input.tagId),
    options,
  );
}

export async function updateTag(
  deps: CommandDeps,
  orgId: string,
  tagId: string,
  changes: { name?: string; color?: string | null },
  metadata: CommandMetadata,
  options: TagWriteOptions = {},
): Promise<{ tag: Tag; appended: boolean }> {
  return runTagCommand(
    deps,
    orgId,
    { type: 'UpdateTag', tagId, ...changes, now: metadata.now },
    metadata,
    (o) => tagIn(o.state, tagId),
    options,
  );
}

/** Answers with the tag as it was just before it was deleted. */
export async function deleteTag(
  deps: CommandDeps,
  orgId: string,
  tagId: string,
  metadata: CommandMetadata,
  options: TagWriteOptions = {},
): Promise<{ tag: Tag; appended: boolean }> {
  return runTagCommand(
    deps,
    orgId,
    { type: 'DeleteTag', tagId, now: metadata.now },
    metadata,
    (o) => tagIn(o.before, tagId),
    options,
  );
}

/** The workspace's live tags by id, read from the event store (the source of truth); empty when none. */
export async function loadWorkspaceTags(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
): Promise<Readonly<Record<string, Tag>>> {
  const { state } = await loadAggregate(deps.eventStore, workspaceTagsStream(orgId), workspaceTagsDecider);
  return state.status === 'active' ? state.tags : {};
}
