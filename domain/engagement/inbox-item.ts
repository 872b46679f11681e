// A reply inbox item (issue 30): a post found on X or Reddit that may deserve an answer, one stream per item,
// `inboxItem-<itemId>`, its id derived from the workspace, the platform and the post's id there, so a refresh that
// finds the post again changes nothing. Statuses (spec part 2, the state table; the moves it leaves unshown are
// decided here and in docs/decisions.md, "Reply inbox (issue 30)"):
// - found: `new`; a draft (by hand or drafted) makes new, failed and dismissed items `drafted`; clearing the draft
//   of a drafted item makes it `new` again;
// - PATCH status `drafted` brings a dismissed item back; `dismissed`; `sent` records a reply posted by hand (nothing
//   is posted); a sent item stays sent (one marked by hand may be brought back with `drafted`);
// - send: the claim (`sending`, with the exact text) is recorded before the platform is called, then `sent` or
//   `failed` with the platform's outcome. Sending is the approval: the text must equal the draft, or with no draft
//   is the text sent. A claim is held for `sendLeaseMs`: a send meanwhile is refused (409 `reply_sending`); an older
//   claim (its sender crashed) is taken over with the same text, checking the platform before sending again.
// X community posts cannot be answered through X's API (409 `x_community_reply_unsupported`; `replyOnXUrl`).
import type { AssistantActor } from '../shared/caller.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, Forbidden, InvalidFields, NotFound } from '../shared/errors.js';
import { deterministicUuid } from '../shared/ids.js';
import { xWeightedLength } from '../post-groups/x-weighted-length.js';
import {
  inboxItemEventCodec,
  type InboxItemEvent,
  type InboxKind,
  type InboxPlatform,
} from './event-codec.js';

export type { InboxItemEvent, InboxKind, InboxPlatform } from './event-codec.js';

export const inboxItemCategory = 'inboxItem';

export const inboxStatuses = ['new', 'drafted', 'sending', 'sent', 'dismissed', 'failed'] as const;
export type InboxStatus = (typeof inboxStatuses)[number];
/** Waiting on a decision: the list's default filter `open`. */
export const openInboxStatuses: readonly InboxStatus[] = ['new', 'drafted', 'failed'];

export const inboxLimits = {
  /** An X reply: X's weighted length of a post (accounts without a longer-post subscription). */
  xReplyLength: 280,
  /** A Reddit comment. */
  redditReplyLength: 10_000,
  reasonLength: 500,
  /** How long a send's claim holds before another request may take it over (its sender is taken for crashed). */
  sendLeaseMs: 120_000,
} as const;

/** One id per workspace, platform and post. */
export const inboxItemIdOf = (orgId: string, platform: InboxPlatform, externalPostId: string) =>
  deterministicUuid('inbox-item', orgId, platform, externalPostId);

export type FoundPost = Omit<Extract<InboxItemEvent, { type: 'InboxItemFound' }>['data'], 'at'>;

export interface InboxItem extends FoundPost {
  status: InboxStatus;
  draftText: string | null;
  draftReason: string | null;
  draftRunId: string | null;
  /** The assistant that wrote the draft (null when a person did): no assistant may send it. */
  draftedByAssistant: AssistantActor | null;
  /** The claim of the send under way (status `sending`). */
  claim: { attemptId: string; text: string; at: string; resumed: boolean } | null;
  /** The text sent from here (or claimed); null when marked sent by hand. */
  sentText: string | null;
  sentExternalId: string | null;
  sentUrl: string | null;
  sentAt: string | null;
  lastError: string | null;
  /** The last send's outcome is unknown (not found on checking): the next send checks the platform first. */
  uncertain: boolean;
  createdAt: string;
  updatedAt: string;
}

export type InboxItemState = { status: 'absent' } | { status: 'present'; item: InboxItem };

export type SendOutcome =
  { kind: 'sent'; externalId: string; url: string } | { kind: 'failed'; error: string; uncertain: boolean };

export type InboxItemCommand =
  | { type: 'RecordInboxItem'; post: FoundPost; now: string }
  | {
      type: 'UpdateInboxItem';
      orgId: string;
      itemId: string;
      /** null or blank clears the draft. */
      draftText?: string | null | undefined;
      status?: 'drafted' | 'dismissed' | 'sent' | undefined;
      by: string | null;
      /** The assistant acting, when one does. */
      assistant?: AssistantActor | undefined;
      now: string;
    }
  | {
      type: 'WriteInboxDraft';
      orgId: string;
      itemId: string;
      draftText: string;
      draftReason: string;
      source: 'ai' | 'heuristic';
      agentRunId: string;
      /** The assistant that asked for the draft, when one did. */
      assistant?: AssistantActor | undefined;
      now: string;
    }
  | {
      type: 'StartReplySend';
      orgId: string;
      itemId: string;
      attemptId: string;
      text: string;
      by: string | null;
      /** The assistant sending, when one does: it may not send what an assistant wrote. */
      assistant?: AssistantActor | undefined;
      /** How long another send's claim holds (default `inboxLimits.sendLeaseMs`; INBOX_SEND_LEASE_MS). */
      leaseMs?: number | undefined;
      now: string;
    }
  | {
      type: 'RecordReplyOutcome';
      orgId: string;
      itemId: string;
      attemptId: string;
      outcome: SendOutcome;
      now: string;
    };

// ---- Checks ----

export const replyLengthOf = (platform: InboxPlatform, text: string) =>
  platform === 'x' ? xWeightedLength(text) : [...text].length;
export const replyLimitOf = (platform: InboxPlatform) =>
  platform === 'x' ? inboxLimits.xReplyLength : inboxLimits.redditReplyLength;

function replyText(platform: InboxPlatform, value: string, path: string): string {
  const limit = replyLimitOf(platform);
  if (value.trim().length === 0 || replyLengthOf(platform, value) > limit)
    throw new InvalidFields('Invalid reply text', [
      { path, message: `1 to ${limit} characters${platform === 'x' ? " (X's weighted count)" : ''}` },
    ]);
  return value;
}

/** The item, when it is the workspace's (another workspace's is not found, as an unknown one). */
function present(state: InboxItemState, orgId: string): InboxItem {
  if (state.status !== 'present' || state.item.orgId !== orgId)
    throw new NotFound('Inbox item not found', 'inbox_item_not_found');
  return state.item;
}

const sendingNow = () =>
  new Conflict('A reply to this item is being sent; read the item again shortly', 'reply_sending');

// ---- Deciding ----

function decideUpdate(
  command: Extract<InboxItemCommand, { type: 'UpdateInboxItem' }>,
  state: InboxItemState,
): InboxItemEvent[] {
  const item = present(state, command.orgId);
  const { orgId, itemId, now, by } = command;
  if (item.status === 'sending') throw sendingNow();
  const events: InboxItemEvent[] = [];
  let status: InboxStatus = item.status;
  if (command.draftText !== undefined) {
    const text = command.draftText?.trim() ? command.draftText : null;
    if (text !== null) replyText(item.platform, text, 'draftText');
    if (text !== item.draftText) {
      if (item.status === 'sent' && item.sentUrl !== null)
        throw new Conflict('This item was answered from here already', 'inbox_item_sent');
      events.push({
        type: 'InboxDraftChanged',
        data: {
          orgId,
          itemId,
          draftText: text,
          draftReason: null,
          source: 'user',
          agentRunId: null,
          assistant: command.assistant ?? null,
          at: now,
        },
      });
      status = draftedStatus(status, text);
    }
  }
  switch (command.status) {
    case undefined:
      break;
    case 'drafted':
      if (status === 'sent' && item.sentUrl !== null)
        throw new Conflict('This item was answered from here already', 'inbox_item_sent');
      if (status !== 'drafted')
        events.push({ type: 'InboxItemReopened', data: { orgId, itemId, by, at: now } });
      break;
    case 'dismissed':
      if (status === 'sent')
        throw new Conflict('This item is answered; it cannot be dismissed', 'inbox_item_sent');
      if (status !== 'dismissed')
        events.push({ type: 'InboxItemDismissed', data: { orgId, itemId, by, at: now } });
      break;
    case 'sent':
      if (status !== 'sent')
        events.push({ type: 'InboxItemMarkedSent', data: { orgId, itemId, by, at: now } });
      break;
    default:
      assertNever(command.status);
  }
  return events;
}

/** What a draft's change makes of the status (a sent or sending item keeps its own). */
function draftedStatus(status: InboxStatus, text: string | null): InboxStatus {
  if (status === 'sent' || status === 'sending') return status;
  if (text !== null) return 'drafted';
  return status === 'drafted' ? 'new' : status;
}

/**
 * Sending is the approval, and an assistant never approves what an assistant wrote (any assistant): it may send a
 * draft a person wrote, not one an assistant wrote or asked for, nor a text of its own with no draft.
 */
function refuseAssistantWriting(item: InboxItem): void {
  if (item.draftText !== null && item.draftedByAssistant === null) return;
  throw new Forbidden(
    item.draftText === null
      ? "An assistant's own reply needs a member's approval: save it as the draft (update_reply_draft) for a member to send"
      : 'This draft was written by an assistant; a member must send it (or rewrite it), not an assistant',
    'assistant_cannot_approve_assistant_content',
  );
}

function decideSend(
  command: Extract<InboxItemCommand, { type: 'StartReplySend' }>,
  state: InboxItemState,
): InboxItemEvent[] {
  const item = present(state, command.orgId);
  const { orgId, itemId, attemptId, text, by, now } = command;
  if (item.kind === 'community')
    throw new Conflict(
      "X's API cannot reply to a community post; reply on X (replyOnXUrl), then mark the item sent",
      'x_community_reply_unsupported',
    );
  const sending = (resumed: boolean): InboxItemEvent[] => [
    { type: 'InboxReplySending', data: { orgId, itemId, attemptId, text, resumed, by, at: now } },
  ];
  switch (item.status) {
    case 'sent':
      if (item.sentText === text) return [];
      throw new Conflict('This item is answered already', 'inbox_item_sent');
    case 'dismissed':
      throw new Conflict(
        'This item is dismissed; bring it back (status drafted) to answer it',
        'inbox_item_dismissed',
      );
    case 'sending': {
      const claim = item.claim!;
      if (claim.attemptId === attemptId) return [];
      if (Date.parse(now) - Date.parse(claim.at) < (command.leaseMs ?? inboxLimits.sendLeaseMs))
        throw sendingNow();
      if (claim.text !== text)
        throw new Conflict(
          'A send of another text did not finish; send that text (the draft) to resume it',
          'reply_text_mismatch',
        );
      return sending(true);
    }
    case 'new':
    case 'drafted':
    case 'failed':
      replyText(item.platform, text, 'text');
      if (item.draftText !== null && item.draftText !== text)
        throw new Conflict(
          'The text must be the approved draft exactly; save the new text as the draft first (PATCH draftText)',
          'reply_text_mismatch',
        );
      if (command.assistant) refuseAssistantWriting(item);
      return sending(item.uncertain);
    default:
      return assertNever(item.status);
  }
}

export const inboxItemDecider: Decider<InboxItemState, InboxItemCommand, InboxItemEvent> = {
  initialState: { status: 'absent' },
  codec: inboxItemEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'RecordInboxItem':
        // Found again: the item as it is (its status, its draft) stays untouched.
        if (state.status === 'present') return [];
        return [{ type: 'InboxItemFound', data: { ...command.post, at: command.now } }];
      case 'UpdateInboxItem':
        return decideUpdate(command, state);
      case 'WriteInboxDraft': {
        const item = present(state, command.orgId);
        if (item.draftRunId === command.agentRunId) return [];
        if (item.status === 'sending') throw sendingNow();
        if (item.status === 'sent') throw new Conflict('This item is answered already', 'inbox_item_sent');
        return [
          {
            type: 'InboxDraftChanged',
            data: {
              orgId: item.orgId,
              itemId: item.itemId,
              draftText: replyText(item.platform, command.draftText, 'draftText'),
              draftReason: command.draftReason.trim().slice(0, inboxLimits.reasonLength) || null,
              source: command.source,
              agentRunId: command.agentRunId,
              assistant: command.assistant ?? null,
              at: command.now,
            },
          },
        ];
      }
      case 'StartReplySend':
        return decideSend(command, state);
      case 'RecordReplyOutcome': {
        const item = present(state, command.orgId);
        // Recorded already, or another attempt's claim: nothing.
        if (item.status !== 'sending' || item.claim?.attemptId !== command.attemptId) return [];
        const base = {
          orgId: item.orgId,
          itemId: item.itemId,
          attemptId: command.attemptId,
          at: command.now,
        };
        return command.outcome.kind === 'sent'
          ? [
              {
                type: 'InboxReplySent',
                data: { ...base, externalId: command.outcome.externalId, url: command.outcome.url },
              },
            ]
          : [
              {
                type: 'InboxReplyFailed',
                data: { ...base, error: command.outcome.error, uncertain: command.outcome.uncertain },
              },
            ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    if (event.type === 'InboxItemFound') {
      const { at, ...post } = event.data;
      return {
        status: 'present',
        item: {
          ...post,
          status: 'new',
          draftText: null,
          draftReason: null,
          draftRunId: null,
          draftedByAssistant: null,
          claim: null,
          sentText: null,
          sentExternalId: null,
          sentUrl: null,
          sentAt: null,
          lastError: null,
          uncertain: false,
          createdAt: at,
          updatedAt: at,
        },
      };
    }
    if (state.status !== 'present') return state;
    const item = state.item;
    const at = event.data.at;
    const next = (changes: Partial<InboxItem>): InboxItemState => ({
      status: 'present',
      item: { ...item, ...changes, updatedAt: at },
    });
    switch (event.type) {
      case 'InboxDraftChanged':
        return next({
          draftText: event.data.draftText,
          draftReason: event.data.draftReason,
          draftRunId: event.data.agentRunId,
          draftedByAssistant: event.data.draftText === null ? null : (event.data.assistant ?? null),
          status: draftedStatus(item.status, event.data.draftText),
        });
      case 'InboxItemReopened':
        return next({ status: 'drafted' });
      case 'InboxItemDismissed':
        return next({ status: 'dismissed' });
      case 'InboxItemMarkedSent':
        return next({ status: 'sent', sentAt: at, sentUrl: null, sentExternalId: null, sentText: null });
      case 'InboxReplySending':
        return next({
          status: 'sending',
          claim: { attemptId: event.data.attemptId, text: event.data.text, at, resumed: event.data.resumed },
        });
      case 'InboxReplySent':
        return next({
          status: 'sent',
          sentText: item.claim?.text ?? null,
          sentExternalId: event.data.externalId,
          sentUrl: event.data.url,
          sentAt: at,
          claim: null,
          lastError: null,
          uncertain: false,
        });
      case 'InboxReplyFailed':
        return next({
          status: 'failed',
          claim: null,
          lastError: event.data.error,
          uncertain: event.data.uncertain,
        });
      default:
        return assertNever(event);
    }
  },
};

// ---- What the API shows ----

/** Where to answer by hand: X's reply composer for the post (X), the thread (Reddit). */
export function replyOnXUrlOf(item: Pick<InboxItem, 'platform' | 'externalPostId' | 'url'>): string {
  return item.platform === 'x'
    ? `https://x.com/intent/post?in_reply_to=${encodeURIComponent(item.externalPostId)}`
    : item.url;
}

export interface InboxItemView {
  id: string;
  platform: InboxPlatform;
  kind: InboxKind;
  status: InboxStatus;
  externalPostId: string;
  url: string;
  text: string;
  author: { handle: string | null; name: string | null; followers: number | null };
  postedAt: string | null;
  likeCount: number;
  replyCount: number;
  inReplyToText: string | null;
  matchedBy: string | null;
  feedId: string | null;
  title: string | null;
  community: string | null;
  relevance: number | null;
  draftText: string | null;
  draftReason: string | null;
  canSendFromApp: boolean;
  replyOnXUrl: string;
  sentUrl: string | null;
  sentAt: string | null;
  lastError: string | null;
  createdAt: string;
}

export function inboxItemView(item: InboxItem): InboxItemView {
  return {
    id: item.itemId,
    platform: item.platform,
    kind: item.kind,
    status: item.status,
    externalPostId: item.externalPostId,
    url: item.url,
    text: item.text,
    author: item.author,
    postedAt: item.postedAt,
    likeCount: item.likeCount,
    replyCount: item.replyCount,
    inReplyToText: item.inReplyToText,
    matchedBy: item.matchedBy,
    feedId: item.feedId,
    title: item.title,
    community: item.community,
    relevance: item.relevance,
    draftText: item.draftText,
    draftReason: item.draftReason,
    canSendFromApp: item.kind !== 'community',
    replyOnXUrl: replyOnXUrlOf(item),
    sentUrl: item.sentUrl,
    sentAt: item.sentAt,
    lastError: item.lastError,
    createdAt: item.createdAt,
  };
}
