// X account analytics' operations (spec part 1, "Analytics"): GET ORG/marketing/analytics/x-account (Tool:
// get_x_account_analytics) and PUT, which switches the daily read of the account's own timeline on (reading the
// last 30 days at once, a paid action) or off.
import { z } from '@hono/zod-openapi';
import {
  getXAccountAnalytics,
  MAX_X_ACCOUNT_WINDOW_DAYS,
  setXAccountAnalytics,
  type XAccountAnalyticsDeps,
} from '../../commands/analytics/x-account-analytics.js';
import { effectiveTimezoneOf } from '../../projections/scheduling/queries.js';
import { billingServices } from '../billing/services.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { canonicalUuid, orgParams } from '../shared/params.js';
import type { SliceContext } from '../shared/slice-context.js';

const count = z.number().int().min(0);

const totalsSchema = z
  .object({
    impressions: count,
    engagements: count,
    engagementRate: z
      .number()
      .nullable()
      .openapi({ description: 'Engagements per impression (0.0321 is 3.21 %); null without impressions' }),
    profileVisits: count.nullable(),
    linkClicks: count.nullable(),
    likes: count,
    reposts: count,
    replies: count,
    quotes: count,
    bookmarks: count,
    posts: count,
    repliesSent: count,
  })
  .openapi('XAccountTotals');

export const xAccountAnalyticsSchema = z
  .object({
    enabled: z.boolean(),
    account: z
      .object({ socialAccountId: z.string(), handle: z.string().nullable(), name: z.string().nullable() })
      .nullable(),
    lastSyncedAt: z.string().nullable(),
    windowDays: z.number().int(),
    totals: totalsSchema,
    previous: totalsSchema
      .nullable()
      .openapi({ description: 'The window before, of the same length; null when none of its days was read' }),
    audience: z.object({
      followers: count.nullable(),
      followerChange: z.number().int().nullable(),
      following: count.nullable(),
      postCount: count.nullable(),
    }),
    days: z.array(
      z.object({
        date: z.string(),
        impressions: count,
        engagements: count,
        posts: count,
        repliesSent: count,
        followerChange: z.number().int().nullable(),
      }),
    ),
  })
  .openapi('XAccountAnalytics');

export const xAccountQuery = z
  .object({
    days: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_X_ACCOUNT_WINDOW_DAYS)
      .optional()
      .openapi({ description: `Local days up to today (default 30, at most ${MAX_X_ACCOUNT_WINDOW_DAYS})` }),
  })
  .strict();

export const xAccountBody = z
  .object({
    enabled: z.boolean(),
    socialAccountId: canonicalUuid()
      .optional()
      .openapi({ description: 'The X account to read, when the workspace has several' }),
  })
  .strict()
  .openapi('SetXAccountAnalytics');

const operation = operationsWith<XAccountAnalyticsDeps>();
const path = '/v1/orgs/{orgId}/marketing/analytics/x-account';

/** What the operations' use cases need: the read model, the X connector, the ledger and the workspace's zone. */
export function xAccountDeps(ctx: SliceContext): XAccountAnalyticsDeps {
  const { services } = ctx;
  return {
    commands: services.commands,
    idempotency: services.idempotency,
    readModels: services.readModels,
    accounts: services.accounts,
    connectors: services.connectors,
    credits: ctx.use(billingServices).credits,
    timezoneOf: (orgId) => effectiveTimezoneOf(services.readModels, orgId),
  };
}

export const xAccountOperations = operationGroup(xAccountDeps, [
  operation({
    name: 'get_x_account_analytics',
    kind: 'read',
    method: 'get',
    path,
    tags: ['marketing'],
    summary: 'Whole-account numbers of the connected X account, posts made elsewhere included',
    description:
      'Tool: get_x_account_analytics. Totals of the last `days` local days (impressions, engagements, rate, ' +
      'profile visits, link clicks, likes, reposts, replies, quotes, bookmarks, posts, replies sent), the window ' +
      'before, the audience and each day, from the daily reads of the account’s own timeline.',
    params: orgParams,
    query: xAccountQuery,
    output: xAccountAnalyticsSchema,
    outputDescription: 'The X account numbers',
    errors: [400, 401, 403],
    access: { permission: 'workspace:read', scope: 'mcp:read' },
    tool: {
      title: 'Get X account analytics',
      description:
        "Returns the workspace's X account numbers over the last `days` days (default 30): totals of impressions, " +
        'engagements, engagement rate (engagements per impression), profile visits, link clicks, likes, reposts, ' +
        'replies, quotes, bookmarks, posts and replies sent, including posts made outside this service; the ' +
        'same for the window before; followers, their change, following and post count; and each day. A post ' +
        'counts on the day it was made. enabled false: the daily read is off (numbers read before stay). ' +
        'Read-only; costs nothing.',
      hints: { readOnlyHint: true, openWorldHint: false },
      summary: (v) =>
        !v.enabled && v.days.length === 0
          ? 'X account analytics is off for this workspace.'
          : `@${v.account?.handle ?? 'unknown'} over ${v.windowDays} days: ${v.totals.impressions} impressions, ` +
            `${v.totals.engagements} engagements, ${v.totals.posts} posts, ${v.totals.repliesSent} replies sent; ` +
            `followers ${v.audience.followers ?? 'unknown'}.`,
    },
    run: (deps, { caller, request }, { orgId, days }) =>
      getXAccountAnalytics(deps, caller, { orgId, ...(days !== undefined ? { days } : {}) }, request.now),
  }),
  operation({
    name: 'updateXAccountAnalytics',
    kind: 'write',
    method: 'put',
    path,
    tags: ['marketing'],
    summary: "Switch the daily read of the X account's own timeline on or off",
    description:
      'On: the last 30 days are read at once and the account is read every day after (one `x_account_read` ' +
      'a day per account); if that first read fails, or the credits do not cover it, nothing is switched on. ' +
      'Off: the daily read stops; numbers read so far stay. Owners and admins.',
    params: orgParams,
    body: xAccountBody,
    output: xAccountAnalyticsSchema,
    outputDescription: 'The X account numbers, as GET answers them',
    errors: [400, 401, 402, 403, 409, 422, 429, 503],
    access: {
      permission: 'settings:manage',
      // Switching on spends credits; switching off is an ordinary write.
      billing: (input) => (input.enabled ? 'paid' : 'write'),
    },
    run: (deps, { caller, request }, { orgId, enabled, socialAccountId }) =>
      setXAccountAnalytics(
        deps,
        caller,
        { orgId, enabled, ...(socialAccountId !== undefined ? { socialAccountId } : {}) },
        request,
      ),
  }),
]);
