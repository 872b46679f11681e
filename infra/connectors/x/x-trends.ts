// The live X connector's trends read (issue 31, part 3): GET /2/users/personalized_trends with
// `personalized_trend.fields=category,post_count,trend_name,trending_since` (docs.x.com "Personalized Trends"; user
// context, OAuth 2.0 with PKCE). X answers `{data: [{trend_name, category, post_count: "42K posts", trending_since}]}`,
// an empty list for accounts without the subscription it needs. Errors go through the connector's call (429 with
// its reset, 401 as auth).
import { postCountOf } from '../../../domain/research/trends.js';
import type { CallContext } from '../port.js';
import type { XTrend, XTrendsResult } from '../x-trends.js';
import type { XCall } from './x-reads.js';

interface RawTrend {
  trend_name?: string;
  category?: string;
  post_count?: string | number;
  trending_since?: string;
}

export function createXTrends(deps: { apiBase: string; call: XCall }) {
  return {
    async readXTrends(context: CallContext): Promise<XTrendsResult> {
      const params = new URLSearchParams({
        'personalized_trend.fields': 'category,post_count,trend_name,trending_since',
      });
      const response = await deps.call<{ data?: RawTrend[] }>({
        url: `${deps.apiBase}/2/users/personalized_trends?${params.toString()}`,
        headers: { authorization: `Bearer ${context.tokens.accessToken}` },
        effect: 'read',
        ...(context.signal ? { signal: context.signal } : {}),
      });
      const trends: XTrend[] = [];
      for (const raw of response.body.data ?? []) {
        const name = raw.trend_name?.trim();
        if (!name) continue;
        trends.push({
          name,
          category: raw.category?.trim() || null,
          postCount: postCountOf(raw.post_count),
          trendingSince: raw.trending_since?.trim() || null,
        });
      }
      return { trends };
    },
  };
}
