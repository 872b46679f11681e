// The reply inbox's item use cases (issue 30): PATCH an item (update_reply_draft: the draft text, status drafted,
// dismissed or sent by hand; never posts). Writing is for those who draft (owners, admins, editors; posts:write for
// assistants). Every write decides against `inboxItem-<itemId>` and answers the item as it is after it.
import type { Kysely } from 'kysely';
import {
  inboxItemCategory,
  inboxItemDecider,
  inboxItemView,
  type InboxItemCommand,
  type InboxItemState,
  type InboxItemView,
} from '../../domain/engagement/inbox-item.js';
import { assistantActorOf, authorize, type Caller } from '../../domain/shared/caller.js';
import { inSequence } from '../../domain/shared/decider.js';
import { ConnectorError } from '../../infra/connectors/port.js';
import { streamName } from '../../infra/event-store/port.js';
import type { ReadModels } from '../../projections/read-models.js';
import { handleCommand, type CommandMetadata, type SideWriteOf } from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export interface InboxDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
}

/** The inbox's platform calls upload no media. */
export const noMedia = async (): Promise<never> => {
  throw new ConnectorError('permanent', 'the reply inbox uploads no media');
};

export const inboxItemStream = (itemId: string) => streamName(inboxItemCategory, itemId);

export const inboxWriting = (orgId: string) =>
  ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

/** The item a decided write leaves (decide refused the command when there is none). */
export function itemIn(state: InboxItemState): InboxItemView {
  if (state.status !== 'present') throw new Error('Inbox item missing after a decided write');
  return inboxItemView(state.item);
}

/** One decision on an item, appended with the request's metadata; answers the item after it. */
export async function decideOnItem(
  deps: WriteDeps,
  itemId: string,
  command: InboxItemCommand | InboxItemCommand[],
  step: { metadata: CommandMetadata; idempotencySeed: string | undefined; scope: string },
  sideWrite?: SideWriteOf<InboxItemView>,
) {
  const commands = Array.isArray(command) ? command : [command];
  return handleCommand(deps.commands, {
    stream: inboxItemStream(itemId),
    decider: inSequence(inboxItemDecider),
    command: commands,
    metadata: step.metadata,
    eventId: deterministicEventIds(step.idempotencySeed, step.scope),
    sideWrite: sideWrite ? (trx, o) => sideWrite(trx, itemIn(o.state)) : undefined,
  });
}

export interface UpdateReplyDraftInput {
  orgId: string;
  itemId: string;
  draftText?: string | null | undefined;
  status?: 'drafted' | 'dismissed' | 'sent' | undefined;
}

/** Tool: update_reply_draft. The draft text and the status (drafted, dismissed, sent by hand). Never posts. */
export async function updateReplyDraft(
  deps: InboxDeps,
  caller: Caller,
  input: UpdateReplyDraftInput,
  request: WriteRequest,
): Promise<Written<InboxItemView>> {
  authorize(caller, inboxWriting(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const outcome = await decideOnItem(
      deps,
      input.itemId,
      {
        type: 'UpdateInboxItem',
        orgId: input.orgId,
        itemId: input.itemId,
        ...(input.draftText !== undefined ? { draftText: input.draftText } : {}),
        ...(input.status ? { status: input.status } : {}),
        by: caller.userId,
        ...(caller.kind === 'assistant' ? { assistant: assistantActorOf(caller) } : {}),
        now: request.now,
      },
      { metadata: { ...metadata, orgId: input.orgId }, idempotencySeed, scope: 'inbox-item' },
      record,
    );
    return itemIn(outcome.state);
  });
}
