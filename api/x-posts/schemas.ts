// The X posts slice's read schemas (spec part 1, "X post (read result)" and "X posts"): the X post, the bodies of
// POST x-posts/read and x-posts/thread, and their answers with `usage`.
import { z } from '@hono/zod-openapi';
import { MAX_THREAD_LIMIT } from '../../commands/x-posts/read-x-posts.js';
import { canonicalUuid } from '../shared/params.js';

const count = z.number().int().min(0);

const xAuthorSchema = z
  .object({
    id: z.string(),
    handle: z.string().nullable(),
    name: z.string().nullable(),
    verified: z.boolean(),
    followers: z.number().nullable(),
    profileImageUrl: z.string().nullable(),
    bio: z.string().nullable(),
  })
  .openapi('XPostAuthor');

const xMediaSchema = z
  .object({
    key: z.string(),
    type: z.enum(['photo', 'video', 'animated_gif']),
    url: z.string().nullable(),
    previewImageUrl: z.string().nullable(),
    altText: z.string().nullable(),
    width: z.number().nullable(),
    height: z.number().nullable(),
    durationMs: z.number().nullable(),
    variants: z.array(z.object({ url: z.string(), contentType: z.string(), bitRate: z.number().nullable() })),
  })
  .openapi('XPostMedia');

const xPostFields = {
  id: z.string(),
  url: z.string(),
  text: z.string(),
  createdAt: z.string().nullable(),
  lang: z.string().nullable(),
  author: xAuthorSchema.nullable(),
  metrics: z.object({
    likes: count,
    reposts: count,
    replies: count,
    quotes: count,
    bookmarks: count,
    impressions: count.nullable(),
  }),
  conversationId: z.string().nullable(),
  inReplyToPostId: z.string().nullable(),
  links: z.array(
    z.object({
      url: z.string(),
      expandedUrl: z.string().nullable(),
      title: z.string().nullable(),
      description: z.string().nullable(),
    }),
  ),
  hashtags: z.array(z.string()),
  mentions: z.array(z.string()),
  cashtags: z.array(z.string()),
  possiblySensitive: z.boolean(),
  mediaCount: count.openapi({
    description: 'How many media the post has, listed in `media` only with includeMedia',
  }),
  media: z.array(xMediaSchema),
};

const referenceType = z.enum(['replied_to', 'quoted', 'retweeted']);

/** A referenced post: the same shape, its own references left out (always empty). */
const xReferencedPostSchema = z
  .object({
    ...xPostFields,
    referencedPosts: z
      .array(z.object({ type: referenceType, id: z.string(), post: z.null() }))
      .max(0)
      .openapi({ description: 'Always empty: a referenced post comes without further references' }),
  })
  .openapi('XReferencedPost');

export const xPostSchema = z
  .object({
    ...xPostFields,
    referencedPosts: z.array(
      z.object({
        type: referenceType,
        id: z.string(),
        post: xReferencedPostSchema
          .nullable()
          .openapi({ description: 'Null when X did not return it (deleted, protected)' }),
      }),
    ),
  })
  .openapi('XPost');

export const xReadUsageSchema = z
  .object({
    postsReturned: count.openapi({ description: 'Distinct posts in the answer' }),
    postsCharged: count.openapi({
      description: 'Posts charged by this call (0 when a retry answered a read paid for)',
    }),
    creditsUsed: count,
  })
  .openapi('XReadUsage');

const postRef = z.string().min(1).max(2048).openapi({
  description: 'A link to the post (x.com or twitter.com) or its id',
  example: 'https://x.com/XDevelopers/status/1460323737035677698',
});

const readAccount = canonicalUuid()
  .optional()
  .openapi({ description: 'The X account to read with, when the workspace has several' });

export const readXPostBody = z
  .object({
    post: postRef,
    includeMedia: z
      .boolean()
      .optional()
      .openapi({ description: 'List the media (default false: only mediaCount)' }),
    socialAccountId: readAccount,
  })
  .strict()
  .openapi('ReadXPost');

export const readXThreadBody = z
  .object({
    post: postRef,
    includeReplies: z
      .boolean()
      .optional()
      .openapi({ description: "Also other people's replies (default false)" }),
    includeMedia: z.boolean().optional().openapi({ description: 'List the media (default false)' }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_THREAD_LIMIT)
      .optional()
      .openapi({
        description: `Most posts of thread and replies together (default 25, at most ${MAX_THREAD_LIMIT})`,
      }),
    socialAccountId: readAccount,
  })
  .strict()
  .openapi('ReadXThread');

export const xPostReadSchema = z.object({ post: xPostSchema, usage: xReadUsageSchema }).openapi('XPostRead');

export const xThreadReadSchema = z
  .object({
    post: xPostSchema,
    root: xPostSchema
      .nullable()
      .openapi({ description: "The conversation's first post; null when it is gone" }),
    thread: z
      .array(xPostSchema)
      .openapi({ description: "The root author's own posts continuing the conversation, oldest first" }),
    replies: z
      .array(xPostSchema)
      .openapi({ description: 'Everyone else’s replies, oldest first (with includeReplies; else empty)' }),
    hasMore: z.boolean().openapi({ description: 'More posts exist than `limit` let through' }),
    usage: xReadUsageSchema,
  })
  .openapi('XThreadRead');
