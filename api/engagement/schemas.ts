// The engagement slice's request and answer schemas (spec part 2, "Engagement settings", "DM conversation", the
// Reply inbox and Direct messages endpoint lists). Bodies check types and bound sizes; the domain checks the rules
// (handles, subreddits, limits) and names the refused field, so the two never disagree on a limit.
import { z } from '@hono/zod-openapi';
import { dmLimits } from '../../domain/engagement/dm-conversation.js';
import { dmSenders, feedSources } from '../../domain/engagement/event-codec.js';
import { engagementLimits } from '../../domain/engagement/settings.js';
import { canonicalUuid, orgParams } from '../shared/params.js';

// ---- Engagement settings ----

const termList = (description: string) =>
  z
    .array(z.string().max(engagementLimits.termLength * 4))
    .max(engagementLimits.listItems * 4)
    .openapi({ description });

const feedSchema = z
  .object({
    id: z.string().openapi({ description: 'Stable id; inbox items name it as feedId' }),
    name: z.string(),
    source: z.enum(feedSources),
    keywords: z
      .array(z.string())
      .openapi({ description: 'A keywords feed searches for these; the others filter by them' }),
    listId: z
      .string()
      .nullable()
      .openapi({ description: "The X list's id (digits), for a list feed; else null" }),
    handles: z
      .array(z.string())
      .openapi({ description: 'X handles without @, for a people feed; else empty' }),
    enabled: z.boolean(),
  })
  .openapi('EngagementFeed');

export const engagementSettingsSchema = z
  .object({
    watchHandles: z
      .array(z.string())
      .openapi({ description: 'X handles (without @) whose posts the inbox watches' }),
    keywords: z.array(z.string()),
    autoRefresh: z.boolean(),
    redditKeywords: z.array(z.string()),
    subreddits: z.array(z.string()).openapi({ description: 'Subreddit names without r/' }),
    redditExcludeTerms: z.array(z.string()),
    feeds: z.array(feedSchema),
    communities: z.array(z.string()).openapi({
      description:
        'X communities (their ids) whose posts the refresh reads; their posts cannot be answered through the API',
    }),
    updatedAt: z.string().nullable().openapi({ description: 'null: never saved (the defaults)' }),
    updatedBy: z.string().nullable(),
  })
  .openapi('EngagementSettings');

const feedInput = z
  .object({
    id: z.string().max(200).optional().openapi({
      description:
        "Keeps a feed's id (1 to 64 letters, digits, _ or -); omitted: the id of the feed of that name, else a new one",
    }),
    name: z.string().max(engagementLimits.feedNameLength * 4),
    source: z.enum(feedSources),
    keywords: termList('Required (at least one) for a keywords feed').optional(),
    listId: z
      .string()
      .max(100)
      .nullable()
      .optional()
      .openapi({ description: "Required for a list feed: the X list's id" }),
    handles: termList('Required (at least one) for a people feed: X handles, with or without @').optional(),
    enabled: z.boolean().optional().openapi({ description: 'Default true' }),
  })
  .strict()
  .openapi('EngagementFeedInput');

export const updateEngagementSettingsBody = z
  .object({
    watchHandles: termList(`At most ${engagementLimits.listItems} X handles, with or without @`).optional(),
    keywords: termList(
      `At most ${engagementLimits.listItems}, each 1 to ${engagementLimits.termLength} characters`,
    ).optional(),
    autoRefresh: z.boolean().optional(),
    redditKeywords: termList(
      `At most ${engagementLimits.listItems}, each 1 to ${engagementLimits.termLength} characters`,
    ).optional(),
    subreddits: termList(
      `At most ${engagementLimits.listItems} subreddit names, with or without r/`,
    ).optional(),
    redditExcludeTerms: termList(
      `At most ${engagementLimits.listItems}, each 1 to ${engagementLimits.termLength} characters`,
    ).optional(),
    feeds: z
      .array(feedInput)
      .max(engagementLimits.feeds * 4)
      .optional()
      .openapi({ description: `At most ${engagementLimits.feeds}; replaces the saved feeds` }),
    communities: termList(
      `At most ${engagementLimits.communities} X communities: ids or https://x.com/i/communities/<id>`,
    ).optional(),
  })
  .strict()
  .openapi('UpdateEngagementSettings');

// ---- DM conversations ----

const messageSchema = z
  .object({ id: z.uuid(), from: z.enum(dmSenders), text: z.string(), at: z.string() })
  .openapi('DmMessage');

export const dmConversationSchema = z
  .object({
    id: z.uuid(),
    platform: z.literal('x'),
    status: z.enum(['your_turn', 'waiting', 'closed']),
    person: z.object({
      handle: z.string(),
      name: z.string().nullable(),
      bio: z.string().nullable(),
      followers: z.number().int().nullable(),
      profileUrl: z.string(),
    }),
    notes: z.string().nullable(),
    messages: z.array(messageSchema),
    draftText: z.string().nullable(),
    draftReason: z.string().nullable(),
    draftedAt: z.string().nullable(),
    lastMessageAt: z.string().nullable(),
    followUpAt: z.string().nullable().openapi({
      description:
        'Waiting on them: 09:00 in the workspace time zone, three days after the day of my last message',
    }),
    followUpDue: z.boolean(),
    sendOnXUrl: z.string().openapi({ description: "Where to write the message on X (the person's profile)" }),
    createdAt: z.string(),
  })
  .openapi('DmConversation');

export const dmListSchema = z.object({ items: z.array(dmConversationSchema) }).openapi('DmConversationList');

export const dmListQuery = z
  .object({
    status: z
      .enum(['open', 'your_turn', 'waiting', 'follow_up_due', 'closed', 'all'])
      .optional()
      .openapi({ description: 'Default open (every conversation not closed)' }),
  })
  .strict();

const messageInput = z
  .object({ from: z.enum(dmSenders), text: z.string().max(dmLimits.textLength * 2) })
  .strict()
  .openapi('DmMessageInput');

const guidance = z
  .string()
  .max(2000)
  .openapi({ description: 'What the draft should say or do (with draft: true)' });

export const addDmConversationBody = z
  .object({
    handle: z.string().max(200).openapi({ description: 'X handle, with or without @, or a profile URL' }),
    messages: z
      .array(messageInput)
      .max(dmLimits.messagesPerAdd * 2)
      .optional()
      .openapi({ description: `At most ${dmLimits.messagesPerAdd}, oldest first; logged now` }),
    notes: z
      .string()
      .max(dmLimits.notesLength * 2)
      .optional(),
    draft: z.boolean().optional().openapi({ description: 'Also draft the next message' }),
    guidance: guidance.optional(),
  })
  .strict()
  .openapi('AddDmConversation');

export const updateDmConversationBody = z
  .object({
    addMessage: messageInput.optional(),
    notes: z
      .string()
      .max(dmLimits.notesLength * 2)
      .nullable()
      .optional(),
    draftText: z
      .string()
      .max(dmLimits.textLength * 2)
      .nullable()
      .optional()
      .openapi({
        description: 'The draft, written by hand; empty or null clears it',
      }),
    status: z.enum(['open', 'closed']).optional(),
    draft: z
      .boolean()
      .optional()
      .openapi({ description: 'Redraft the next message after the other changes' }),
    guidance: guidance.optional(),
  })
  .strict()
  .openapi('UpdateDmConversation');

export const draftDmBody = z.object({ guidance: guidance.optional() }).strict().openapi('DraftDm');

export const dmConversationParams = orgParams.extend({
  conversationId: canonicalUuid().openapi({ param: { name: 'conversationId', in: 'path' } }),
});
