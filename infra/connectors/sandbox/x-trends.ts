// The sandbox X's personalized trends (issue 31, part 3): a deterministic list for the account that changes with
// the hour, in X's shape (names, categories, counts as X words them, "Trending now"/"N hours ago"), so the research
// tools answer something realistic in the embedded default without an X developer account.
import { postCountOf } from '../../../domain/research/trends.js';
import type { CallContext } from '../port.js';
import type { XTrend, XTrendsResult } from '../x-trends.js';
import { draws, pick } from './x-reads.js';

const topics: readonly { name: string; category: string }[] = [
  { name: 'AI agents', category: 'Technology' },
  { name: 'Build in public', category: 'Startups' },
  { name: '#IndieHackers', category: 'Startups' },
  { name: 'Product Hunt launch', category: 'Technology' },
  { name: 'Remote work', category: 'Business' },
  { name: 'Open source', category: 'Technology' },
  { name: 'Creator economy', category: 'Business' },
  { name: 'LinkedIn algorithm', category: 'Social media' },
  { name: 'Threads app', category: 'Social media' },
  { name: 'Bluesky', category: 'Social media' },
  { name: 'Content marketing', category: 'Marketing' },
  { name: 'SaaS pricing', category: 'Business' },
  { name: 'Developer experience', category: 'Technology' },
  { name: 'Newsletter growth', category: 'Marketing' },
];

export function createSandboxXTrends(deps: {
  now: () => Date;
  authorize: (context: CallContext) => Promise<void>;
}) {
  return {
    async readXTrends(context: CallContext): Promise<XTrendsResult> {
      await deps.authorize(context);
      const hour = Math.floor(deps.now().getTime() / 3_600_000);
      const seen = new Set<string>();
      const trends: XTrend[] = [];
      for (let i = 0; trends.length < 8 && i < 40; i++) {
        const [which = 0, count = 0, since = 0] = draws(
          `trends:${context.account.accountExternalId}:${hour}:${i}`,
        );
        const topic = pick(topics, which);
        if (seen.has(topic.name)) continue;
        seen.add(topic.name);
        const posts = Math.round(800 + count * count * 120_000);
        const words =
          posts >= 1000 ? `${(posts / 1000).toFixed(1).replace(/\.0$/, '')}K posts` : `${posts} posts`;
        const hours = Math.floor(since * 10);
        trends.push({
          name: topic.name,
          category: topic.category,
          postCount: postCountOf(words),
          trendingSince: hours === 0 ? 'Trending now' : `${hours} hours ago`,
        });
      }
      return { trends };
    },
  };
}
