// The reply inbox's request and answer schemas (spec part 2, "Inbox item" and the Reply inbox endpoint list).
// Bodies check types and bound sizes; the domain checks the rules (the reply's length per platform, the exact text).
import { z } from '@hono/zod-openapi';
import { inboxKinds, inboxPlatforms } from '../../domain/engagement/event-codec.js';
import { inboxLimits, inboxStatuses } from '../../domain/engagement/inbox-item.js';
import { inboxListStatuses } from '../../projections/engagement/queries.js';
import { pageParams } from '../platform/paging.js';
import { canonicalUuid, orgParams } from '../shared/params.js';

export const inboxItemSchema = z
  .object({
    id: z.uuid(),
    platform: z.enum(inboxPlatforms),
    kind: z.enum(inboxKinds),
    status: z.enum(inboxStatuses),
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
    matchedBy: z.string().nullable().openapi({
      description: 'What found it: mention, search:<query>, list:<id>, community:<id>, reddit:<query>',
    }),
    feedId: z.string().nullable(),
    title: z.string().nullable(),
    community: z.string().nullable(),
    relevance: z
      .number()
      .int()
      .nullable()
      .openapi({ description: '0 to 100 (docs/decisions.md, "Reply inbox")' }),
    draftText: z.string().nullable(),
    draftReason: z.string().nullable(),
    canSendFromApp: z
      .boolean()
      .openapi({ description: 'false for X community posts: answer them on X (replyOnXUrl)' }),
    replyOnXUrl: z
      .string()
      .openapi({ description: "Where to answer by hand: X's reply composer, or the Reddit thread" }),
    sentUrl: z.string().nullable(),
    sentAt: z.string().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('InboxItem');

export const inboxListQuery = z
  .object({
    status: z.enum(inboxListStatuses).optional().openapi({
      description: 'Default open: waiting on a decision (new, drafted, failed); sent holds sends under way',
    }),
    kind: z.enum([...inboxKinds, 'all']).optional(),
    platform: z.enum([...inboxPlatforms, 'all']).optional(),
    feedId: z.string().max(64).optional(),
    ...pageParams(20, 100),
  })
  .strict();

export const inboxItemParams = orgParams.extend({
  itemId: canonicalUuid().openapi({ param: { name: 'itemId', in: 'path' } }),
});

const textBound = inboxLimits.redditReplyLength * 2;

export const updateReplyDraftBody = z
  .object({
    draftText: z
      .string()
      .max(textBound)
      .nullable()
      .optional()
      .openapi({ description: 'The reply, written by hand; empty or null clears it' }),
    status: z.enum(['drafted', 'dismissed', 'sent']).optional().openapi({
      description:
        'drafted brings a dismissed item back; sent records a reply posted by hand (nothing is posted)',
    }),
  })
  .strict()
  .openapi('UpdateReplyDraft');

export const draftReplyBody = z
  .object({
    guidance: z.string().max(2000).optional().openapi({ description: 'What the reply should say or do' }),
  })
  .strict()
  .openapi('DraftReply');

export const sendReplyBody = z
  .object({
    text: z
      .string()
      .max(textBound)
      .openapi({ description: 'Exactly the approved draft (or, without a draft, exactly the text to send)' }),
  })
  .strict()
  .openapi('SendReply');

export const refreshInboxBody = z
  .object({
    feedId: z.string().max(64).optional().openapi({ description: 'Read this feed only (else every source)' }),
  })
  .strict()
  .openapi('RefreshReplyInbox');

export const refreshResultSchema = z
  .object({
    added: z.number().int(),
    drafted: z.number().int(),
    mentionsFound: z.number().int(),
    communityFound: z.number().int(),
    redditFound: z.number().int(),
    feedsFound: z.number().int(),
    warnings: z.array(z.string()),
    items: z.array(inboxItemSchema),
  })
  .openapi('ReplyInboxRefresh');

export const redditSuggestionsSchema = z
  .object({ redditKeywords: z.array(z.string()), subreddits: z.array(z.string()) })
  .openapi('RedditListeningSuggestions');
