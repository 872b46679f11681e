// The performance slice's operations (spec part 1, "Analytics"): GET ORG/marketing/analytics/performance
// (get_performance_summary) and GET ORG/marketing/analytics/top-posts (list_top_posts). Every member reads them
// (posts:read); assistants with mcp:read.
import {
  getPerformanceSummary,
  listTopPosts,
  ZoneGuesses,
  type PerformanceDeps,
} from '../../commands/performance/performance-use-cases.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import type { SliceContext } from '../shared/slice-context.js';
import { audienceService } from '../analytics/services.js';
import { performanceQuery, performanceSummarySchema, topPostsPageSchema, topPostsQuery } from './schemas.js';

const operation = operationsWith<PerformanceDeps>();
const path = '/v1/orgs/{orgId}/marketing/analytics';
const reading = { permission: 'posts:read', scope: 'mcp:read' } as const;

/** The use cases' dependencies: the read models, the 'audience' service and the clock. */
export function performanceDeps(
  ctx: SliceContext,
  now: () => Date = ctx.services.now ?? (() => new Date()),
): PerformanceDeps {
  return { readModels: ctx.readModels, audience: ctx.use(audienceService), now, zones: new ZoneGuesses() };
}

export function performanceOperations(now?: () => Date) {
  return operationGroup(
    (ctx) => performanceDeps(ctx, now),
    [
      operation({
        name: 'get_performance_summary',
        kind: 'read',
        method: 'get',
        path: `${path}/performance`,
        tags: ['marketing'],
        summary: "How the workspace's posts performed over a window, against the window before it",
        description:
          'Tool: get_performance_summary. The window is the last `days` days (default 30) in the workspace’s ' +
          'time zone, today included; the previous window is the `days` days before it. Posts count on the day ' +
          'they were published; engagement and impressions on the day they were read (each reading’s increase ' +
          'over the post’s previous one). Top posts are the window’s published posts by engagement score ' +
          '(likes + bookmarks + 2 × reposts + 3 × replies + 3 × quotes); topics and content types are the ' +
          'window’s published posts by their group’s topic and content type, with what they earned so far.',
        params: orgParams,
        query: performanceQuery,
        output: performanceSummarySchema,
        outputDescription: 'The performance summary',
        errors: [400, 401, 403],
        access: reading,
        tool: {
          title: 'Get the performance summary',
          description:
            "Summarises how the workspace's posts performed over the last `days` days (default 30, in the " +
            "workspace's time zone) against the `days` before: posts published and scheduled ahead, engagements, " +
            'impressions and engagement rate, days with a post and a consistency label, a trend per day, the top ' +
            '`topLimit` posts (default 5) by engagement score, the topics and content types that earned most, ' +
            'each platform, and the connected accounts’ followers. Read-only; the numbers are those last read ' +
            'from the platforms.',
          hints: { readOnlyHint: true, openWorldHint: false },
          summary: (s) =>
            `${s.windowDays} days: ${s.summary.postsPublished} posts published (${s.previousWindow.postsPublished} ` +
            `before), ${s.summary.engagements} engagements (${s.previousWindow.engagements} before)` +
            (s.summary.impressions !== null ? `, ${s.summary.impressions} impressions` : '') +
            `; consistency ${s.summary.consistencyLabel}; ${s.summary.postsScheduledUpcoming} scheduled ahead.`,
        },
        run: (deps, { caller }, { orgId, days, topLimit }) =>
          getPerformanceSummary(deps, caller, { orgId, days, topLimit }),
      }),
      operation({
        name: 'list_top_posts',
        kind: 'read',
        method: 'get',
        path: `${path}/top-posts`,
        tags: ['marketing'],
        summary: "The window's published posts ranked by engagement score",
        description:
          'Tool: list_top_posts. Posts published in the last `days` days (default 30, in the workspace’s time ' +
          'zone) with at least one reading, by engagement score (likes + bookmarks + 2 × reposts + 3 × replies + ' +
          '3 × quotes of the latest reading), then engagement, then newest. Page size default 10, maximum 50.',
        params: orgParams,
        query: topPostsQuery,
        output: topPostsPageSchema,
        outputDescription: 'A page of top posts',
        errors: [400, 401, 403],
        access: reading,
        tool: {
          title: 'List top posts',
          description:
            "Lists the workspace's posts published in the last `days` days (default 30) ranked by engagement " +
            'score (likes + bookmarks + 2 × reposts + 3 × replies + 3 × quotes), with their latest numbers, text ' +
            'and link; page with `page` and `limit` (default 10, at most 50). Posts without a reading yet are not ' +
            'ranked. Read-only.',
          hints: { readOnlyHint: true, openWorldHint: false },
          summary: (page) =>
            `${page.items.length} of ${page.total} ranked posts (page ${page.page}` +
            `${page.hasMore ? ', more follow' : ''}).`,
        },
        run: (deps, { caller }, { orgId, days, page, limit }) =>
          listTopPosts(deps, caller, { orgId, days, page, limit }),
      }),
    ],
  );
}
