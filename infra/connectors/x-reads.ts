// What the X connector reads besides what it publishes: posts by id with their authors, media and the posts they
// reference (the spec's "X post (read result)"), a conversation's posts, and the account's own timeline with its
// numbers (X account analytics). The live and sandbox X connectors implement PlatformConnector's optional X methods.
import type { XAccountPost } from '../../domain/analytics/x-account.js';

export type { XAccountPost } from '../../domain/analytics/x-account.js';

export type XMediaType = 'photo' | 'video' | 'animated_gif';

export interface XMediaVariant {
  url: string;
  contentType: string;
  bitRate: number | null;
}

export interface XMedia {
  key: string;
  type: XMediaType;
  url: string | null;
  previewImageUrl: string | null;
  altText: string | null;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  variants: XMediaVariant[];
}

export interface XAuthor {
  id: string;
  handle: string | null;
  name: string | null;
  verified: boolean;
  followers: number | null;
  profileImageUrl: string | null;
  bio: string | null;
}

export interface XPostMetrics {
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  bookmarks: number;
  /** Null when X does not say (public impression counts are shown for posts since late 2022). */
  impressions: number | null;
}

export interface XLink {
  /** The link as it stands in the text (t.co on X). */
  url: string;
  expandedUrl: string | null;
  title: string | null;
  description: string | null;
}

export type XReferenceType = 'replied_to' | 'quoted' | 'retweeted';

export interface XPostReference {
  type: XReferenceType;
  id: string;
  /** The referenced post, without references of its own; null when X did not return it (deleted, protected). */
  post: XPost | null;
}

/** The spec's X post (read result). */
export interface XPost {
  id: string;
  url: string;
  text: string;
  createdAt: string | null;
  lang: string | null;
  author: XAuthor | null;
  metrics: XPostMetrics;
  conversationId: string | null;
  inReplyToPostId: string | null;
  links: XLink[];
  hashtags: string[];
  mentions: string[];
  cashtags: string[];
  possiblySensitive: boolean;
  /** How many media the post has, whether or not `media` lists them. */
  mediaCount: number;
  /** Empty unless media were asked for. */
  media: XMedia[];
  /** Empty on a referenced post. */
  referencedPosts: XPostReference[];
}

export interface XPostsRequest {
  /** X post ids (digits), at most 100. */
  ids: string[];
  includeMedia: boolean;
}

export interface XPostsResult {
  /** The posts found, in the order asked. */
  posts: XPost[];
  /** The ids X did not return: deleted or never there (`not_found`), or hidden from this account (`not_authorized`). */
  missing: Array<{ id: string; reason: 'not_found' | 'not_authorized' }>;
}

export interface XConversationRequest {
  /** The conversation's id: its root post's id. */
  conversationId: string;
  /** Whose posts make "the author's own thread" (the root's author); null: every post counts as a reply. */
  authorId: string | null;
  includeReplies: boolean;
  includeMedia: boolean;
  /** The most posts answered, thread and replies together; the thread first. */
  limit: number;
}

export interface XConversationResult {
  /** The author's posts in the conversation answering the author's own posts (the root excluded), oldest first. */
  thread: XPost[];
  /** Everyone else's posts in the conversation (and the author's answers to them), oldest first; empty unless asked. */
  replies: XPost[];
  /** More posts exist than `limit` let through. */
  hasMore: boolean;
}

export interface XAccountActivityRequest {
  /** The earliest creation time to read (ISO); the timeline is read from now back to it. */
  since: string;
  /** The workspace's effective time zone; the sandbox uses it, X ignores it. */
  timezone: string;
}

export interface XAccountAudience {
  followers: number | null;
  following: number | null;
  postCount: number | null;
}

export interface XAccountActivity {
  audience: XAccountAudience;
  /** The account's own posts and replies since `since` (reposts left out), newest first. */
  posts: XAccountPost[];
  /** X stopped answering pages before `since` was reached (its timeline holds the newest 3,200 posts). */
  truncated: boolean;
}
