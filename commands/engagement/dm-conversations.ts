// Tracked X direct-message conversations (issue 30, part 1): add (or continue) one, log a message, edit notes or the
// draft, close or reopen, draft the next message (the `engagement.dm_draft` AI job), stop tracking. Writing is for
// those who draft (owners, admins, editors; posts:write for assistants); nothing here calls a connector: no message
// is read from or sent to X. Every write decides against `dmConversation-<id>` and answers the conversation as
// the workspace's clocks read it now.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import type { AiJobRunner } from '../../domain/ai/job.js';
import {
  dmConversationCategory,
  dmConversationDecider,
  dmConversationIdOf,
  type DmConversation,
  type DmConversationCommand,
  type DmConversationState,
  type DmSender,
} from '../../domain/engagement/dm-conversation.js';
import {
  dmDraftJob,
  dmDraftModeOf,
  recentMessages,
  type DmDraftInput,
} from '../../domain/engagement/dm-draft-job.js';
import { dmConversationView, type DmConversationView } from '../../domain/engagement/dm-views.js';
import { requireXHandle } from '../../domain/engagement/handles.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { decideAll, inSequence } from '../../domain/shared/decider.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { streamName } from '../../infra/event-store/port.js';
import type { ReadModels } from '../../projections/read-models.js';
import { workspaceTimezoneOf } from '../../projections/scheduling/queries.js';
import { handleCommand, loadAggregate } from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export interface DmDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
  /** Runs the engagement.dm_draft job (the ai slice's `ai jobs` service). */
  aiJobs: AiJobRunner;
  /** The workspace's public brand context (the brand-profile slice's `brand context` service). */
  brandContext: BrandContextReader;
}

export const dmConversationStream = (conversationId: string) =>
  streamName(dmConversationCategory, conversationId);

const writing = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;
/** DELETE has no tool: assistants may not stop tracking. */
const deleting = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: null }) as const;

interface MessageInput {
  from: DmSender;
  text: string;
}

/** The drafting a write asks for, after its own changes. */
interface DraftRequest {
  guidance: string | null;
}

function conversationIn(state: DmConversationState): DmConversation {
  // decide refused the command already when the conversation is not tracked; reaching this is a broken invariant.
  if (state.status !== 'tracked') throw new Error('DM conversation missing after a decided write');
  return state.conversation;
}

/** What the writer is told: the workspace, its public brand context, the person, notes, guidance, recent messages. */
async function draftInputOf(
  deps: Pick<DmDeps, 'readModels' | 'brandContext'>,
  conversation: DmConversation,
  guidance: string | null,
): Promise<DmDraftInput> {
  const [workspace, brand] = await Promise.all([
    deps.readModels
      .selectFrom('workspaces')
      .select('name')
      .where('id', '=', conversation.orgId)
      .executeTakeFirst(),
    deps.brandContext.forOrg(conversation.orgId),
  ]);
  return {
    workspaceName: workspace?.name ?? 'This workspace',
    brand,
    handle: conversation.handle,
    notes: conversation.notes,
    guidance,
    messages: conversation.messages
      .slice(-recentMessages)
      .map((m) => ({ from: m.from, text: m.text, at: m.at })),
  };
}

/**
 * One write to a conversation: the commands `build` makes (seeded by the Idempotency-Key, so a retry logs the same
 * messages), then with `draft` the dm draft job on the conversation as those commands leave it (refusals come first,
 * before any model call; a failed run appends nothing), all appended together. Answers the conversation after the
 * write, or with `answerBefore` as it was (a deletion).
 */
async function writeConversation(
  deps: DmDeps,
  caller: Caller,
  request: WriteRequest,
  target: { orgId: string; conversationId: string },
  build: (seed: string) => DmConversationCommand[],
  options: { draft?: DraftRequest | undefined; answerBefore?: boolean } = {},
): Promise<Written<DmConversationView>> {
  const { orgId, conversationId } = target;
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const stream = dmConversationStream(conversationId);
    const loaded = await loadAggregate(deps.commands.eventStore, stream, dmConversationDecider);
    const commands = build(idempotencySeed ?? randomUUID());
    if (options.draft) {
      const after = conversationIn(decideAll(dmConversationDecider, commands, loaded.state).state);
      const input = await draftInputOf(deps, after, options.draft.guidance);
      const result = await deps.aiJobs.run(dmDraftJob, {
        orgId,
        input,
        userId: caller.userId,
        idempotencyKey: idempotencySeed ?? null,
        payload: {
          conversationId,
          handle: after.handle,
          mode: dmDraftModeOf(input.messages),
          guidance: input.guidance,
        },
      });
      commands.push({
        type: 'WriteDmDraft',
        orgId,
        conversationId,
        draftText: result.output.draftText,
        draftReason: result.output.draftReason,
        source: result.source,
        agentRunId: result.runId,
        now: request.now,
      });
    }
    const timezone = await workspaceTimezoneOf(deps.readModels, orgId);
    const view = (o: { state: DmConversationState; before: DmConversationState }) =>
      dmConversationView(conversationIn(options.answerBefore ? o.before : o.state), {
        now: request.now,
        timezone,
      });
    const outcome = await handleCommand(deps.commands, {
      stream,
      decider: inSequence(dmConversationDecider),
      command: commands,
      metadata: { ...metadata, orgId },
      eventId: deterministicEventIds(idempotencySeed, 'dm-conversation'),
      loaded: { state: loaded.state, revision: loaded.revision },
      sideWrite: record ? (trx, o) => record(trx, view(o)) : undefined,
    });
    return view(outcome);
  });
}

const draftRequest = (draft: boolean | undefined, guidance: string | undefined): DraftRequest | undefined =>
  draft ? { guidance: guidance?.trim() || null } : undefined;

export interface AddDmConversationInput {
  orgId: string;
  handle: string;
  messages?: MessageInput[] | undefined;
  notes?: string | undefined;
  draft?: boolean | undefined;
  guidance?: string | undefined;
}

/**
 * Tool: add_dm_conversation. Starts tracking the person, or continues their conversation when they are tracked
 * already (the messages appended, the notes replaced when given). `guidance` is for the draft (`draft: true`).
 */
export async function addDmConversation(
  deps: DmDeps,
  caller: Caller,
  input: AddDmConversationInput,
  request: WriteRequest,
): Promise<Written<DmConversationView>> {
  authorize(caller, writing(input.orgId));
  const handle = requireXHandle(input.handle, 'handle');
  const conversationId = dmConversationIdOf(input.orgId, handle);
  return writeConversation(
    deps,
    caller,
    request,
    { orgId: input.orgId, conversationId },
    (seed) => [
      {
        type: 'TrackDmConversation',
        orgId: input.orgId,
        conversationId,
        handle,
        messages: (input.messages ?? []).map((m, i) => ({
          messageId: deterministicUuid(seed, 'dm-message', String(i)),
          from: m.from,
          text: m.text,
        })),
        ...(input.notes !== undefined ? { notes: input.notes } : {}),
        by: caller.userId,
        now: request.now,
      },
    ],
    { draft: draftRequest(input.draft, input.guidance) },
  );
}

export interface UpdateDmConversationInput {
  orgId: string;
  conversationId: string;
  addMessage?: MessageInput | undefined;
  notes?: string | null | undefined;
  draftText?: string | null | undefined;
  status?: 'open' | 'closed' | undefined;
  draft?: boolean | undefined;
  guidance?: string | undefined;
}

/** Tool: update_dm_conversation. Logs a message, edits notes or the draft, closes or reopens, redrafts. */
export async function updateDmConversation(
  deps: DmDeps,
  caller: Caller,
  input: UpdateDmConversationInput,
  request: WriteRequest,
): Promise<Written<DmConversationView>> {
  authorize(caller, writing(input.orgId));
  if (input.draft && input.draftText !== undefined)
    throw new InvalidFields('Either write the draft or have it drafted', [
      { path: 'draft', message: 'not with draftText: draft: true writes the draft' },
    ]);
  return writeConversation(
    deps,
    caller,
    request,
    input,
    (seed) => [
      {
        type: 'UpdateDmConversation',
        orgId: input.orgId,
        conversationId: input.conversationId,
        ...(input.addMessage
          ? {
              addMessage: {
                messageId: deterministicUuid(seed, 'dm-message', '0'),
                from: input.addMessage.from,
                text: input.addMessage.text,
              },
            }
          : {}),
        ...(input.notes !== undefined ? { notes: input.notes } : {}),
        ...(input.draftText !== undefined ? { draftText: input.draftText } : {}),
        ...(input.status ? { status: input.status } : {}),
        now: request.now,
      },
    ],
    { draft: draftRequest(input.draft, input.guidance) },
  );
}

/** Tool: draft_dm. Drafts the next message (a reply, a follow-up or an opener) in the brand voice; sends nothing. */
export async function draftDm(
  deps: DmDeps,
  caller: Caller,
  input: { orgId: string; conversationId: string; guidance?: string | undefined },
  request: WriteRequest,
): Promise<Written<DmConversationView>> {
  // An update that changes nothing but the draft: a conversation not tracked is a 404 before any model call.
  return updateDmConversation(deps, caller, { ...input, draft: true }, request);
}

/** DELETE: stops tracking and forgets the log; answers the conversation as it was. Nothing changes on X. */
export async function deleteDmConversation(
  deps: DmDeps,
  caller: Caller,
  input: { orgId: string; conversationId: string },
  request: WriteRequest,
): Promise<Written<DmConversationView>> {
  authorize(caller, deleting(input.orgId));
  return writeConversation(
    deps,
    caller,
    request,
    input,
    () => [
      {
        type: 'DeleteDmConversation',
        orgId: input.orgId,
        conversationId: input.conversationId,
        by: caller.userId,
        now: request.now,
      },
    ],
    { answerBefore: true },
  );
}
