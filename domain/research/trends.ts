// Trending topics (issue 31, part 3): a trend as X lists it, and a topic's momentum measured from a sample of
// recent posts (how many per hour, how much engagement each), which find_trending_topics ranks by. Pure.
import type { ResearchSource } from './sources.js';

export interface TrendingTopic {
  name: string;
  category: string | null;
  /** Posts about it as the source counts them; null when it does not say. */
  postCount: number | null;
  /** "Trending now", "5 hours ago", as X says it; null when the source does not say. */
  trendingSince: string | null;
  /** The workspace terms it mentions (pillars, keywords); empty when none. */
  matchedTerms: string[];
  source: ResearchSource;
}

/** X writes counts as "42K posts", "1.2M posts", "980 posts": the number, or null when there is none. */
export function postCountOf(text: string | number | null | undefined): number | null {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? Math.round(text) : null;
  if (!text) return null;
  const m = /([\d.,]+)\s*([KMB])?/i.exec(text);
  if (!m) return null;
  const value = Number(m[1]!.replace(/,/g, ''));
  if (!Number.isFinite(value)) return null;
  const scale = { K: 1e3, M: 1e6, B: 1e9 }[(m[2] ?? '').toUpperCase() as 'K' | 'M' | 'B'] ?? 1;
  return Math.round(value * scale);
}

/** A post of a topic's sample, as a search found it. */
export interface SamplePost {
  postedAt: string | null;
  likes: number;
  replies: number;
}

export interface TopicMomentum {
  topic: string;
  /** Posts the sample held. */
  sampleSize: number;
  /** Posts per hour over the sample's span (the sample is the newest posts, so a busy topic spans little time). */
  postsPerHour: number;
  /** Likes and replies per post. */
  engagementPerPost: number;
  /** 0-100, relative to the other topics of the same search. */
  score: number;
}

/** Momentum of each topic from its sample; the busiest and most engaging topic scores 100. */
export function momentumOf(
  samples: readonly { topic: string; posts: readonly SamplePost[] }[],
  now: string,
): TopicMomentum[] {
  const raw = samples.map(({ topic, posts }) => {
    const times = posts
      .map((p) => (p.postedAt ? Date.parse(p.postedAt) : Number.NaN))
      .filter((t) => Number.isFinite(t));
    const oldest = times.length > 0 ? Math.min(...times) : Date.parse(now);
    // At least an hour: a handful of posts in a minute is not thousands an hour.
    const spanHours = Math.max(1, (Date.parse(now) - oldest) / 3_600_000);
    const engagement = posts.reduce((sum, p) => sum + p.likes + p.replies, 0);
    return {
      topic,
      sampleSize: posts.length,
      postsPerHour: Math.round((posts.length / spanHours) * 100) / 100,
      engagementPerPost: posts.length > 0 ? Math.round((engagement / posts.length) * 100) / 100 : 0,
    };
  });
  const weight = (m: (typeof raw)[number]) => m.postsPerHour * (1 + Math.log10(1 + m.engagementPerPost));
  const top = Math.max(0, ...raw.map(weight));
  return raw.map((m) => ({ ...m, score: top > 0 ? Math.round((weight(m) / top) * 100) : 0 }));
}
