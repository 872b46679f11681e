// The engagement slice's events (issue 30, part 1), declared once (domain/shared/event-codec.ts): the workspace's
// engagement settings, saved whole on `engagementSettings-<orgId>`, and each tracked X direct-message
// conversation on `dmConversation-<conversationId>`. The settings and message types are read off the schemas.
import { z } from 'zod';
import { zodEventCodec, type EventCodec, type EventsOf, type StoredEvent } from '../shared/event-codec.js';

export const feedSources = ['keywords', 'list', 'people'] as const;
export type FeedSource = (typeof feedSources)[number];

const feed = z.object({
  id: z.string(),
  name: z.string(),
  source: z.enum(feedSources),
  keywords: z.array(z.string()),
  /** The X list's id (digits) for a `list` feed; null for the others. */
  listId: z.string().nullable(),
  /** The X handles a `people` feed follows; empty for the others. */
  handles: z.array(z.string()),
  enabled: z.boolean(),
});
export type EngagementFeed = z.output<typeof feed>;

const settings = z.object({
  watchHandles: z.array(z.string()),
  keywords: z.array(z.string()),
  autoRefresh: z.boolean(),
  redditKeywords: z.array(z.string()),
  subreddits: z.array(z.string()),
  redditExcludeTerms: z.array(z.string()),
  feeds: z.array(feed),
  /** X communities whose posts the refresh reads (their ids, digits); saved before this field existed: none. */
  communities: z.array(z.string()).default([]),
});
export type EngagementSettings = z.output<typeof settings>;

const settingsSchemas = {
  EngagementSettingsUpdated: z.object({
    orgId: z.string(),
    settings,
    updatedAt: z.string(),
    /** The user who saved them (an assistant's user for an assistant). */
    updatedBy: z.string().nullable(),
  }),
};
export type EngagementSettingsEvent = EventsOf<typeof settingsSchemas>;
export const engagementSettingsEventCodec = zodEventCodec('engagement-settings', settingsSchemas);

export const dmSenders = ['them', 'me'] as const;
export type DmSender = (typeof dmSenders)[number];

const conversation = { orgId: z.string(), conversationId: z.string() };

const dmSchemas = {
  /** Tracking starts (the first time, or again after a deletion: a fresh log). */
  DmConversationStarted: z.object({
    ...conversation,
    handle: z.string(),
    notes: z.string().nullable(),
    by: z.string().nullable(),
    at: z.string(),
  }),
  /** A message written on X, logged by hand (nothing is read from or sent to X). */
  DmMessageLogged: z.object({
    ...conversation,
    messageId: z.string(),
    from: z.enum(dmSenders),
    text: z.string(),
    at: z.string(),
  }),
  DmNotesChanged: z.object({ ...conversation, notes: z.string().nullable(), at: z.string() }),
  /** The draft written by hand (`user`) or by the dm draft job (`ai`, `heuristic`); null text clears it. */
  DmDraftChanged: z.object({
    ...conversation,
    draftText: z.string().nullable(),
    draftReason: z.string().nullable(),
    source: z.enum(['user', 'ai', 'heuristic']),
    agentRunId: z.string().nullable(),
    /**
     * The assistant that wrote it (by hand through update_reply_draft, or by asking draft_reply); null when a
     * person did. No assistant may send (approve) what an assistant wrote. Read off the metadata when absent.
     */
    assistant: z.object({ clientId: z.string(), clientName: z.string() }).nullable().optional(),
    at: z.string(),
  }),
  DmConversationClosed: z.object({ ...conversation, at: z.string() }),
  DmConversationReopened: z.object({ ...conversation, at: z.string() }),
  /** Tracking stops: the log is gone from every read and a later add starts afresh. */
  DmConversationDeleted: z.object({ ...conversation, by: z.string().nullable(), at: z.string() }),
};
export type DmConversationEvent = EventsOf<typeof dmSchemas>;
export const dmConversationEventCodec = zodEventCodec('dm-conversations', dmSchemas);

// ---- The reply inbox: one stream per item, `inboxItem-<itemId>` ----

export const inboxPlatforms = ['x', 'reddit'] as const;
export type InboxPlatform = (typeof inboxPlatforms)[number];
export const inboxKinds = ['mention', 'community'] as const;
export type InboxKind = (typeof inboxKinds)[number];

const item = { orgId: z.string(), itemId: z.string() };

const inboxSchemas = {
  /** A refresh found the post (once: a post found again changes nothing). */
  InboxItemFound: z.object({
    ...item,
    platform: z.enum(inboxPlatforms),
    kind: z.enum(inboxKinds),
    externalPostId: z.string(),
    url: z.string(),
    text: z.string(),
    author: z.object({
      handle: z.string().nullable(),
      name: z.string().nullable(),
      followers: z.number().int().nullable(),
    }),
    postedAt: z.string().nullable(),
    likeCount: z.number().int(),
    replyCount: z.number().int(),
    inReplyToText: z.string().nullable(),
    /** What found it: `mention`, `search:<terms>`, `list:<id>`, `community:<id>`, `reddit:<terms>`. */
    matchedBy: z.string().nullable(),
    feedId: z.string().nullable(),
    title: z.string().nullable(),
    community: z.string().nullable(),
    relevance: z.number().int().nullable(),
    at: z.string(),
  }),
  /** The draft written by hand (`user`) or by the reply draft job (`ai`, `heuristic`); null text clears it. */
  InboxDraftChanged: z.object({
    ...item,
    draftText: z.string().nullable(),
    draftReason: z.string().nullable(),
    source: z.enum(['user', 'ai', 'heuristic']),
    agentRunId: z.string().nullable(),
    /**
     * The assistant that wrote it (by hand through update_reply_draft, or by asking draft_reply); null when a
     * person did. No assistant may send (approve) what an assistant wrote. Read off the metadata when absent.
     */
    assistant: z.object({ clientId: z.string(), clientName: z.string() }).nullable().optional(),
    at: z.string(),
  }),
  /** PATCH status drafted on a dismissed (or new) item without a new draft text: back to waiting on a decision. */
  InboxItemReopened: z.object({ ...item, by: z.string().nullable(), at: z.string() }),
  InboxItemDismissed: z.object({ ...item, by: z.string().nullable(), at: z.string() }),
  /** PATCH status sent: a reply posted by hand (on X); nothing was posted from here. */
  InboxItemMarkedSent: z.object({ ...item, by: z.string().nullable(), at: z.string() }),
  /** The claim of a send, recorded before the connector is called: the exact text, the attempt. */
  InboxReplySending: z.object({
    ...item,
    attemptId: z.string(),
    text: z.string(),
    /** A claim taken over from an attempt that did not finish (crashed): the platform is checked before sending. */
    resumed: z.boolean(),
    by: z.string().nullable(),
    at: z.string(),
  }),
  InboxReplySent: z.object({
    ...item,
    attemptId: z.string(),
    externalId: z.string(),
    url: z.string(),
    at: z.string(),
  }),
  InboxReplyFailed: z.object({
    ...item,
    attemptId: z.string(),
    error: z.string(),
    /** The platform may have posted it (an unknown outcome not found on checking): the next send checks first. */
    uncertain: z.boolean(),
    at: z.string(),
  }),
};
export type InboxItemEvent = EventsOf<typeof inboxSchemas>;
const inboxCodec = zodEventCodec('inbox-items', inboxSchemas);

/**
 * A draft an assistant wrote before the data recorded it names the assistant only in its metadata (`actor`
 * `assistant:<clientId>`, `assistant.clientName`): it is read with it, so no assistant may send it.
 */
function withDraftAssistant(stored: StoredEvent, event: InboxItemEvent): InboxItemEvent {
  if (event.type !== 'InboxDraftChanged' || event.data.assistant !== undefined) return event;
  const metadata = stored.metadata as { actor?: unknown; assistant?: { clientName?: unknown } };
  const actor = metadata.actor;
  if (typeof actor !== 'string' || !actor.startsWith('assistant:'))
    return { ...event, data: { ...event.data, assistant: null } };
  const clientId = actor.slice('assistant:'.length);
  const name = metadata.assistant?.clientName;
  return {
    ...event,
    data: { ...event.data, assistant: { clientId, clientName: typeof name === 'string' ? name : clientId } },
  };
}

export const inboxItemEventCodec: EventCodec<InboxItemEvent> = {
  ...inboxCodec,
  decode: (stored) => withDraftAssistant(stored, inboxCodec.decode(stored)),
  decodeAll: (stored) => stored.map((e) => withDraftAssistant(e, inboxCodec.decode(e))),
};
