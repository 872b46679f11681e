// The home slice's operation: GET ORG/home (get_home_summary), the home screen's summary for every member and for
// assistants with mcp:read.
import { getHomeSummary, type HomeDeps } from '../../commands/home/home-use-cases.js';
import { billingServices } from '../billing/services.js';
import { performanceService } from '../performance/services.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import { homeQuery, homeSummarySchema } from './schemas.js';

const operation = operationsWith<HomeDeps>();

export function homeOperations(now?: () => Date) {
  return operationGroup(
    (ctx): HomeDeps => ({
      readModels: ctx.readModels,
      performance: ctx.use(performanceService),
      credits: ctx.use(billingServices).credits,
      now: now ?? ctx.services.now ?? (() => new Date()),
    }),
    [
      operation({
        name: 'get_home_summary',
        kind: 'read',
        method: 'get',
        path: '/v1/orgs/{orgId}/home',
        tags: ['home'],
        summary: 'What needs approval, what is scheduled next, recent results and credits',
        description:
          'Tool: get_home_summary. Posts waiting for approval (the 5 groups waiting longest), the next 5 ' +
          'scheduled posts with how many are scheduled ahead and how many failed, the last 7 days’ results in ' +
          "the workspace's time zone against the 7 before (as the performance summary counts them) with the " +
          'best post, and the credits left this period (null without a subscription).',
        params: orgParams,
        query: homeQuery,
        output: homeSummarySchema,
        outputDescription: 'The home summary',
        errors: [400, 401, 403],
        access: { permission: 'workspace:read', scope: 'mcp:read' },
        tool: {
          title: 'Get the home summary',
          description:
            'Shows what needs attention in the workspace now: posts waiting for approval (the groups waiting ' +
            'longest), the next scheduled posts and how many are scheduled ahead or failed, the last 7 days’ ' +
            'posts, engagements and impressions against the 7 days before with the best post, and the credits ' +
            'left. A good first call to see where things stand. Read-only.',
          hints: { readOnlyHint: true, openWorldHint: false },
          summary: (h) =>
            `${h.approvals.postsPending} post(s) waiting for approval in ${h.approvals.groupsPending} group(s); ` +
            `${h.scheduled.postsUpcoming} scheduled ahead` +
            (h.scheduled.next[0] ? ` (next ${h.scheduled.next[0].scheduledForUtc})` : '') +
            `, ${h.scheduled.postsFailed} failed; last ${h.results.windowDays} days: ` +
            `${h.results.postsPublished} published, ${h.results.engagements} engagements` +
            (h.credits ? `; ${h.credits.total} credits left.` : '.'),
        },
        run: (deps, { caller }, { orgId }) => getHomeSummary(deps, caller, { orgId }),
      }),
    ],
  );
}
