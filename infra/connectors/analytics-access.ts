// What reading analytics takes of each platform: the documented request limits post-metrics reads count against
// (processes/analytics budgets them), and the scopes an account's grant needs for its follower counts.
import type { Platform } from '../../domain/shared/platforms.js';
import type { MetricsReadLimits, PlatformConnector, RateLimit } from './port.js';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

const limit = (requests: number, windowMs: number, per: RateLimit['per']): RateLimit => ({
  requests,
  windowMs,
  per,
});

/**
 * The live platforms' documented limits for the reads fetchMetrics makes (docs/decisions.md, "Post metrics and
 * follower counts", cites each):
 * - X: GET /2/tweets/:id and GET /2/tweets, 900 requests per 15 minutes per user token (the lower of the two);
 *   a batch asks for up to 100 ids.
 * - LinkedIn: daily limits per member and per app, reset at midnight UTC, not published (the Developer Portal's
 *   Analytics tab shows them); 500 calls per member a day is assumed. A page post is two calls (social actions,
 *   share statistics).
 * - Bluesky: the AppView answers 3,000 requests per 5 minutes per client address; getPosts takes 25 URIs.
 * - Threads, Instagram, Facebook: Meta's platform rate limit, 200 calls per hour per user of the app (the app's
 *   pool is 200 × its users); Instagram and Facebook read the post and its insights (two calls).
 * - YouTube: 10,000 quota units a day per project; videos.list costs 1 unit for up to 50 ids.
 * - TikTok: 600 requests per minute per endpoint; /v2/video/query/ takes 20 video ids.
 * - Reddit: 100 queries per minute per OAuth client id; /api/info takes 100 fullnames.
 */
export const liveMetricsReadLimits: Record<Platform, MetricsReadLimits> = {
  x: { limits: [limit(900, 15 * minute, 'account')], requestsPerPost: 1, postsPerRequest: 100 },
  linkedin: { limits: [limit(500, day, 'account')], requestsPerPost: 2, postsPerRequest: 1 },
  bluesky: { limits: [limit(3_000, 5 * minute, 'app')], requestsPerPost: 1, postsPerRequest: 25 },
  threads: { limits: [limit(200, hour, 'account')], requestsPerPost: 1, postsPerRequest: 1 },
  instagram: { limits: [limit(200, hour, 'account')], requestsPerPost: 2, postsPerRequest: 1 },
  facebook: { limits: [limit(200, hour, 'account')], requestsPerPost: 2, postsPerRequest: 1 },
  youtube: { limits: [limit(10_000, day, 'app')], requestsPerPost: 1, postsPerRequest: 50 },
  tiktok: { limits: [limit(600, minute, 'app')], requestsPerPost: 1, postsPerRequest: 20 },
  reddit: { limits: [limit(100, minute, 'app')], requestsPerPost: 1, postsPerRequest: 100 },
};

/**
 * The sandbox platforms answer from this service's own database: a generous per-account limit, so the budget is
 * exercised on every read without shaping the numbers (6,000 reads of 100 posts a minute per account).
 */
export const sandboxMetricsReadLimits: MetricsReadLimits = {
  limits: [limit(6_000, minute, 'account')],
  requestsPerPost: 1,
  postsPerRequest: 100,
};

/** What a connector's metrics reads cost: its own declaration, else the table for its mode and platform. */
export function metricsReadLimitsOf(
  connector: Pick<PlatformConnector, 'platform' | 'mode' | 'metricsReadLimits' | 'fetchMetricsBatch'>,
): MetricsReadLimits {
  const declared =
    connector.metricsReadLimits ??
    (connector.mode === 'sandbox' ? sandboxMetricsReadLimits : liveMetricsReadLimits[connector.platform]);
  // Without a batch read each post is its own request, whatever the platform would allow.
  return connector.fetchMetricsBatch ? declared : { ...declared, postsPerRequest: 1 };
}

const youtubeReadScopes = [
  'https://www.googleapis.com/auth/youtube.readonly',
  'https://www.googleapis.com/auth/youtube',
  'https://www.googleapis.com/auth/youtube.force-ssl',
];

/**
 * The scopes an account's grant needs for its follower counts, any one of them; empty when the read needs none
 * beyond signing in (Bluesky profiles are public). A LinkedIn page (an organization account) needs the page admin
 * scope, a member the profile analytics one.
 */
export function audienceScopes(platform: Platform, accountExternalId: string): readonly string[] {
  switch (platform) {
    case 'x':
      return ['users.read'];
    case 'linkedin':
      return accountExternalId.startsWith('urn:li:organization:')
        ? ['rw_organization_admin']
        : ['r_member_profileAnalytics'];
    case 'bluesky':
      return [];
    case 'threads':
      return ['threads_manage_insights'];
    case 'instagram':
      return ['instagram_business_basic'];
    case 'facebook':
      return ['pages_read_engagement'];
    case 'youtube':
      return youtubeReadScopes;
    case 'tiktok':
      return ['user.info.stats'];
    case 'reddit':
      return ['identity'];
    default: {
      const never: never = platform;
      return never;
    }
  }
}

/**
 * Whether a grant allows reading the account's follower counts: null when it does, else the scopes it lacks
 * (one of them is needed). A grant that lists no scopes (the platform did not say) is taken as allowing it; the
 * platform's own refusal then tells.
 */
export function missingAudienceScopes(
  platform: Platform,
  accountExternalId: string,
  granted: readonly string[],
): string[] | null {
  const needed = audienceScopes(platform, accountExternalId);
  if (needed.length === 0 || granted.length === 0) return null;
  return needed.some((scope) => granted.includes(scope)) ? null : [...needed];
}
