// What the research tools (issue 31, part 3) read of X's trends: the connected account's personalized trends (X API
// v2 GET /2/users/personalized_trends, user context: the tokens the service holds). The live X connector calls it
// (./x/x-trends.ts); the sandbox answers deterministic trends that move with the hour.

export interface XTrend {
  name: string;
  category: string | null;
  /** X's count as a number ("42K posts" → 42000); null when X does not say. */
  postCount: number | null;
  /** As X says it: "Trending now", "5 hours ago". */
  trendingSince: string | null;
}

export interface XTrendsResult {
  trends: XTrend[];
}
