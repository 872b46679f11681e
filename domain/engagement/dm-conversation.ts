// A tracked X direct-message conversation (issue 30, part 1): one stream per conversation,
// `dmConversation-<conversationId>`, its id derived from the workspace and the person's handle (lower case), so
// adding someone already tracked continues their conversation. Tracking only: messages are logged by hand and
// nothing is ever sent on X. The status is read off the log (the last message from them: your turn; from me:
// waiting); `closed` sticks until the conversation is reopened. Deleting stops tracking and forgets the log: a
// later add starts a fresh one under the same id.
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields, NotFound, type ErrorDetail } from '../shared/errors.js';
import { deterministicUuid } from '../shared/ids.js';
import { dmConversationEventCodec, type DmConversationEvent, type DmSender } from './event-codec.js';
import { handleKey } from './handles.js';

export type { DmConversationEvent, DmSender } from './event-codec.js';

export const dmConversationCategory = 'dmConversation';

export const dmLimits = {
  /** X's limit for one direct message. */
  textLength: 10_000,
  notesLength: 5_000,
  /** Messages a conversation's log keeps; logging more is refused (409 `dm_log_full`). */
  messages: 500,
  /** Messages one add may log. */
  messagesPerAdd: 50,
} as const;

/** One id per workspace and person, whatever the handle's case. */
export const dmConversationIdOf = (orgId: string, handle: string) =>
  deterministicUuid('dm-conversation', orgId, handleKey(handle));

export interface DmMessage {
  id: string;
  from: DmSender;
  text: string;
  at: string;
}

export interface DmDraft {
  text: string;
  reason: string | null;
  at: string;
  source: 'user' | 'ai' | 'heuristic';
  agentRunId: string | null;
}

export interface DmConversation {
  orgId: string;
  conversationId: string;
  handle: string;
  notes: string | null;
  messages: DmMessage[];
  closed: boolean;
  draft: DmDraft | null;
  createdAt: string;
  updatedAt: string;
}

export type DmConversationState =
  | { status: 'untracked' }
  | { status: 'deleted'; orgId: string; conversationId: string }
  | { status: 'tracked'; conversation: DmConversation };

export interface NewDmMessage {
  /** Derived from the request (its Idempotency-Key, when given): a message already logged is not logged twice. */
  messageId: string;
  from: DmSender;
  text: string;
}

export type DmConversationCommand =
  | {
      type: 'TrackDmConversation';
      orgId: string;
      conversationId: string;
      handle: string;
      messages: NewDmMessage[];
      /** Absent: unchanged (a new conversation has none); null or blank: cleared. */
      notes?: string | null | undefined;
      by: string | null;
      now: string;
    }
  | {
      type: 'UpdateDmConversation';
      orgId: string;
      conversationId: string;
      addMessage?: NewDmMessage | undefined;
      notes?: string | null | undefined;
      /** The draft written by hand; null or blank clears it. */
      draftText?: string | null | undefined;
      status?: 'open' | 'closed' | undefined;
      now: string;
    }
  | {
      type: 'WriteDmDraft';
      orgId: string;
      conversationId: string;
      draftText: string;
      draftReason: string;
      source: 'ai' | 'heuristic';
      agentRunId: string;
      now: string;
    }
  | { type: 'DeleteDmConversation'; orgId: string; conversationId: string; by: string | null; now: string };

// ---- Reading the log ----

export type DmStatus = 'your_turn' | 'waiting' | 'closed';

/** Closed until reopened; else whose turn the last message makes it (no message yet: yours, to open). */
export function dmStatusOf(conversation: Pick<DmConversation, 'closed' | 'messages'>): DmStatus {
  if (conversation.closed) return 'closed';
  const last = conversation.messages[conversation.messages.length - 1];
  return last?.from === 'me' ? 'waiting' : 'your_turn';
}

export const lastMessageOf = (conversation: Pick<DmConversation, 'messages'>): DmMessage | null =>
  conversation.messages[conversation.messages.length - 1] ?? null;

// ---- Checks ----

function text(value: string, path: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > dmLimits.textLength)
    throw new InvalidFields('Invalid message', [{ path, message: `1 to ${dmLimits.textLength} characters` }]);
  return trimmed;
}

/** Notes or a draft: blank is none; longer than `max` is refused. */
function optionalText(value: string | null, path: string, max: number): string | null {
  const trimmed = value?.trim() ?? '';
  if (trimmed.length > max)
    throw new InvalidFields('Text too long', [{ path, message: `at most ${max} characters` }]);
  return trimmed.length === 0 ? null : trimmed;
}

/** The conversation, when the workspace tracks it (another workspace's is not found, as an unknown one). */
function tracked(state: DmConversationState, orgId: string): DmConversation {
  if (state.status !== 'tracked' || state.conversation.orgId !== orgId)
    throw new NotFound('DM conversation not found', 'dm_conversation_not_found');
  return state.conversation;
}

/** The messages not logged yet (a retried request logs each once), every bad text named, refused past the limit. */
function newMessages(
  conversation: DmConversation | null,
  messages: readonly NewDmMessage[],
  path: (i: number) => string,
): NewDmMessage[] {
  const known = new Set(conversation?.messages.map((m) => m.id) ?? []);
  const fresh: NewDmMessage[] = [];
  const problems: ErrorDetail[] = [];
  messages.forEach((m, i) => {
    const trimmed = m.text.trim();
    if (trimmed.length === 0 || trimmed.length > dmLimits.textLength)
      problems.push({ path: path(i), message: `1 to ${dmLimits.textLength} characters` });
    else if (!known.has(m.messageId)) {
      known.add(m.messageId);
      fresh.push({ ...m, text: trimmed });
    }
  });
  if (problems.length > 0) throw new InvalidFields('Invalid message', problems);
  if ((conversation?.messages.length ?? 0) + fresh.length > dmLimits.messages)
    throw new Conflict(
      `A conversation keeps at most ${dmLimits.messages} messages; delete it and start a new log`,
      'dm_log_full',
    );
  return fresh;
}

const logged = (orgId: string, conversationId: string, m: NewDmMessage, at: string): DmConversationEvent => ({
  type: 'DmMessageLogged',
  data: { orgId, conversationId, messageId: m.messageId, from: m.from, text: m.text, at },
});

function decideTrack(
  command: Extract<DmConversationCommand, { type: 'TrackDmConversation' }>,
  state: DmConversationState,
): DmConversationEvent[] {
  const { orgId, conversationId, now } = command;
  if (command.messages.length > dmLimits.messagesPerAdd)
    throw new InvalidFields('Too many messages', [
      { path: 'messages', message: `at most ${dmLimits.messagesPerAdd} messages at once` },
    ]);
  const notes =
    command.notes === undefined ? undefined : optionalText(command.notes, 'notes', dmLimits.notesLength);
  const current = state.status === 'tracked' ? state.conversation : null;
  const messages = newMessages(current, command.messages, (i) => `messages.${i}.text`).map((m) =>
    logged(orgId, conversationId, m, now),
  );
  if (!current)
    return [
      {
        type: 'DmConversationStarted',
        data: {
          orgId,
          conversationId,
          handle: command.handle,
          notes: notes ?? null,
          by: command.by,
          at: now,
        },
      },
      ...messages,
    ];
  const events = [...messages];
  if (notes !== undefined && notes !== current.notes)
    events.push({ type: 'DmNotesChanged', data: { orgId, conversationId, notes, at: now } });
  return events;
}

function decideUpdate(
  command: Extract<DmConversationCommand, { type: 'UpdateDmConversation' }>,
  state: DmConversationState,
): DmConversationEvent[] {
  const conversation = tracked(state, command.orgId);
  const { orgId, conversationId } = conversation;
  const now = command.now;
  const events: DmConversationEvent[] = [];
  if (command.addMessage)
    events.push(
      ...newMessages(conversation, [command.addMessage], () => 'addMessage.text').map((m) =>
        logged(orgId, conversationId, m, now),
      ),
    );
  if (command.notes !== undefined) {
    const notes = optionalText(command.notes, 'notes', dmLimits.notesLength);
    if (notes !== conversation.notes)
      events.push({ type: 'DmNotesChanged', data: { orgId, conversationId, notes, at: now } });
  }
  if (command.draftText !== undefined) {
    const draftText = optionalText(command.draftText, 'draftText', dmLimits.textLength);
    // A message from me spends the draft (evolve clears it): the hand-written one is compared with none then.
    const spent = events.some((e) => e.type === 'DmMessageLogged' && e.data.from === 'me');
    const current = spent ? null : (conversation.draft?.text ?? null);
    if (draftText !== current)
      events.push({
        type: 'DmDraftChanged',
        data: {
          orgId,
          conversationId,
          draftText,
          draftReason: null,
          source: 'user',
          agentRunId: null,
          at: now,
        },
      });
  }
  if (command.status === 'closed' && !conversation.closed)
    events.push({ type: 'DmConversationClosed', data: { orgId, conversationId, at: now } });
  if (command.status === 'open' && conversation.closed)
    events.push({ type: 'DmConversationReopened', data: { orgId, conversationId, at: now } });
  return events;
}

export const dmConversationDecider: Decider<DmConversationState, DmConversationCommand, DmConversationEvent> =
  {
    initialState: { status: 'untracked' },
    codec: dmConversationEventCodec,

    decide(command, state) {
      switch (command.type) {
        case 'TrackDmConversation':
          return decideTrack(command, state);
        case 'UpdateDmConversation':
          return decideUpdate(command, state);
        case 'WriteDmDraft': {
          const conversation = tracked(state, command.orgId);
          // The same run's draft again (a retried request) changes nothing.
          if (conversation.draft?.agentRunId === command.agentRunId) return [];
          return [
            {
              type: 'DmDraftChanged',
              data: {
                orgId: conversation.orgId,
                conversationId: conversation.conversationId,
                draftText: text(command.draftText, 'draftText'),
                draftReason: command.draftReason.trim() || null,
                source: command.source,
                agentRunId: command.agentRunId,
                at: command.now,
              },
            },
          ];
        }
        case 'DeleteDmConversation': {
          const conversation = tracked(state, command.orgId);
          return [
            {
              type: 'DmConversationDeleted',
              data: {
                orgId: conversation.orgId,
                conversationId: conversation.conversationId,
                by: command.by,
                at: command.now,
              },
            },
          ];
        }
        default:
          return assertNever(command);
      }
    },

    evolve(state, event) {
      if (event.type === 'DmConversationStarted') {
        const d = event.data;
        return {
          status: 'tracked',
          conversation: {
            orgId: d.orgId,
            conversationId: d.conversationId,
            handle: d.handle,
            notes: d.notes,
            messages: [],
            closed: false,
            draft: null,
            createdAt: d.at,
            updatedAt: d.at,
          },
        };
      }
      if (state.status !== 'tracked') return state;
      const c = state.conversation;
      const at = event.data.at;
      switch (event.type) {
        case 'DmMessageLogged': {
          const d = event.data;
          const message: DmMessage = { id: d.messageId, from: d.from, text: d.text, at: d.at };
          return {
            status: 'tracked',
            conversation: {
              ...c,
              messages: [...c.messages, message],
              // What I wrote on X was the message the draft was for: it is spent.
              draft: d.from === 'me' ? null : c.draft,
              updatedAt: at,
            },
          };
        }
        case 'DmNotesChanged':
          return { status: 'tracked', conversation: { ...c, notes: event.data.notes, updatedAt: at } };
        case 'DmDraftChanged': {
          const d = event.data;
          const draft: DmDraft | null =
            d.draftText === null
              ? null
              : {
                  text: d.draftText,
                  reason: d.draftReason,
                  at: d.at,
                  source: d.source,
                  agentRunId: d.agentRunId,
                };
          return { status: 'tracked', conversation: { ...c, draft, updatedAt: at } };
        }
        case 'DmConversationClosed':
          return { status: 'tracked', conversation: { ...c, closed: true, updatedAt: at } };
        case 'DmConversationReopened':
          return { status: 'tracked', conversation: { ...c, closed: false, updatedAt: at } };
        case 'DmConversationDeleted':
          return { status: 'deleted', orgId: c.orgId, conversationId: c.conversationId };
        default:
          return assertNever(event);
      }
    },
  };
