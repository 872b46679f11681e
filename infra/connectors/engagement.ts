// What the reply inbox (issue 30) asks of the X and Reddit connectors: finding posts to answer (the account's X
// mentions, X recent search for watched handles and keywords, an X list's posts, an X community's posts, Reddit
// search by keywords and subreddits) and answering one (an X reply `in_reply_to`, a Reddit comment). The live
// connectors call the documented APIs (X API v2, Reddit's OAuth API); the sandbox answers realistic, deterministic
// items. Every read is one page: the caller follows `nextToken` within its budget.

/** A post found for the inbox, as the platform showed it (not yet scored or stored). */
export interface EngagementCandidate {
  platform: 'x' | 'reddit';
  /**
   * `mention`: an X mention or search match, or a Reddit thread; `community`: an X community post (any X post
   * carrying a `community_id`, whichever read found it), which the API cannot answer.
   */
  kind: 'mention' | 'community';
  /** The platform's id: an X post id (digits), a Reddit fullname (`t3_…` for a thread, `t1_…` for a comment). */
  externalId: string;
  url: string;
  text: string;
  author: { handle: string | null; name: string | null; followers: number | null };
  postedAt: string | null;
  likeCount: number;
  replyCount: number;
  /** The text of the post it answers, when it answers one (X `replied_to`, a Reddit comment's parent). */
  inReplyToText: string | null;
  /** Reddit: the thread's title; X: null. */
  title: string | null;
  /** Reddit: the subreddit (without `r/`); X community posts: the community's name; else null. */
  community: string | null;
}

/** One page of a read. */
export interface EngagementPage {
  items: EngagementCandidate[];
  /** Where the next page starts; null at the end. */
  nextToken: string | null;
  /** The newest id seen (X `meta.newest_id`), for the next refresh's `sinceId`; null when the page was empty. */
  newestId: string | null;
  /** What the platform said of its limits on this call (`x-rate-limit-remaining`/`-reset`, Reddit's `x-ratelimit-*`). */
  rateLimit: { remaining: number | null; resetAt: string | null } | null;
}

/** What to read. `max` is the page size asked (X: 5..100; Reddit: 1..100). */
export type EngagementQuery =
  | { source: 'x_mentions'; sinceId: string | null; nextToken: string | null; max: number }
  | {
      /** X recent search: `query` in X's search syntax, built by the caller (handles as `from:`/`@`, keywords). */
      source: 'x_search';
      query: string;
      sinceId: string | null;
      nextToken: string | null;
      max: number;
    }
  | { source: 'x_list'; listId: string; nextToken: string | null; max: number }
  | { source: 'x_community'; communityId: string; nextToken: string | null; max: number }
  | {
      /** Reddit search: `query` terms, restricted to `subreddits` when given, newest first. */
      source: 'reddit_search';
      query: string;
      subreddits: string[];
      nextToken: string | null;
      max: number;
    };

/** An answer to send. The text is sent exactly as given. */
export interface EngagementReply {
  /** The post answered: an X post id, or a Reddit fullname. */
  inReplyTo: string;
  text: string;
}

export interface EngagementReplyOutcome {
  /** The reply's own id on the platform, and where it can be seen. */
  externalId: string;
  url: string;
}

/** The documented limits the inbox's reads count against, per source (the refresh budgets its pages by them). */
export type EngagementReadLimits = Partial<
  Record<
    EngagementQuery['source'],
    // port.ts's RateLimit, written out: port.ts imports this module.
    readonly { requests: number; windowMs: number; per: 'app' | 'account' }[]
  >
>;
