// The engagement slice's events (issue 30, part 1), declared once (domain/shared/event-codec.ts): the workspace's
// engagement settings, saved whole on `engagementSettings-<orgId>`, and each tracked X direct-message
// conversation on `dmConversation-<conversationId>`. The settings and message types are read off the schemas.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

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
    at: z.string(),
  }),
  DmConversationClosed: z.object({ ...conversation, at: z.string() }),
  DmConversationReopened: z.object({ ...conversation, at: z.string() }),
  /** Tracking stops: the log is gone from every read and a later add starts afresh. */
  DmConversationDeleted: z.object({ ...conversation, by: z.string().nullable(), at: z.string() }),
};
export type DmConversationEvent = EventsOf<typeof dmSchemas>;
export const dmConversationEventCodec = zodEventCodec('dm-conversations', dmSchemas);
