// How relevant a post found for the reply inbox is, 0 to 100 (issue 30; docs/decisions.md, "Reply inbox"): a pure
// function of the post, the terms the workspace listens for and the time of the refresh. The parts:
// - a direct mention of the account: 20;
// - terms matched (keywords, watched handles, a feed's keywords, Reddit keywords) in the text or title: 12 each,
//   at most 36;
// - a question (a `?` in the text): 10;
// - the author's reach: 4 per power of ten of followers, at most 16 (100,000 followers);
// - the engagement: 5 per power of ten of likes + 2 × replies, at most 10;
// - freshness: 18 when just posted, falling linearly to 0 at 72 hours (unknown time: 6).
/** What the score reads of a post (the connectors' EngagementCandidate has these). */
export interface ScoredPost {
  text: string;
  title: string | null;
  author: { followers: number | null };
  likeCount: number;
  replyCount: number;
  postedAt: string | null;
}

export interface RelevanceContext {
  /** The terms the workspace listens for (case-insensitive; a handle matches with or without `@`). */
  terms: readonly string[];
  /** Whether the post mentions the account itself (an X mention). */
  mentionsAccount: boolean;
  now: string;
}

/** Relevance at or above this notifies the workspace's members (routine). */
export const highRelevance = 70;

const freshnessHours = 72;

export function relevanceOf(post: ScoredPost, context: RelevanceContext): number {
  const haystack = `${post.title ?? ''} ${post.text}`.toLowerCase();
  const matched = new Set(
    context.terms
      .map((t) => t.trim().toLowerCase().replace(/^@/, ''))
      .filter((t) => t.length > 0 && haystack.includes(t)),
  ).size;
  const followers = Math.max(0, post.author.followers ?? 0);
  const engagement = Math.max(0, post.likeCount) + 2 * Math.max(0, post.replyCount);
  const ageHours = post.postedAt ? (Date.parse(context.now) - Date.parse(post.postedAt)) / 3_600_000 : null;
  const freshness =
    ageHours === null || Number.isNaN(ageHours)
      ? 6
      : 18 * Math.min(1, Math.max(0, 1 - Math.max(0, ageHours) / freshnessHours));
  const score =
    (context.mentionsAccount ? 20 : 0) +
    Math.min(36, 12 * matched) +
    (post.text.includes('?') ? 10 : 0) +
    Math.min(16, 4 * Math.log10(followers + 1)) +
    Math.min(10, 5 * Math.log10(engagement + 1)) +
    freshness;
  return Math.max(0, Math.min(100, Math.round(score)));
}
