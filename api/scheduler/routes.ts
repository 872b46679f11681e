// Scheduler routes: the scheduling profile (GET, PATCH ORG/marketing/scheduler/settings), the workspace's time
// zone (GET, PATCH ORG/timezone), ranked slots, suggested times of a day and schedule coverage. Reads come from
// the scheduling and posts read models; writes go through the workspace's scheduling stream.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  getSchedulerSettings,
  getWorkspaceTimezone,
  scheduleCoverage,
  setWorkspaceTimezone,
  suggestedTimes,
  suggestSlots,
  updateSchedulerSettings,
  type SchedulerDeps,
} from '../../commands/scheduler/scheduler-use-cases.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import { answered, writeRequest } from '../shared/write.js';
import {
  coverageQuery,
  scheduleCoverageSchema,
  schedulingProfileSchema,
  setTimezoneBody,
  slotSuggestionsSchema,
  slotsQuery,
  suggestedTimesQuery,
  suggestedTimesSchema,
  timezoneSettingSchema,
  updateSchedulerSettingsBody,
} from './schemas.js';

const base = '/v1/orgs/{orgId}/marketing/scheduler';

const getSettingsRoute = createRoute({
  ...secured({ permission: 'workspace:read' }),
  method: 'get',
  path: `${base}/settings`,
  operationId: 'getSchedulerSettings',
  tags: ['marketing'],
  summary: 'The scheduling profile: time zones, audience type, posting windows, gaps, caps, blackout dates',
  description:
    "Unset fields report the defaults for the audience type (docs/decisions.md, 'Scheduler defaults').",
  request: { params: orgParams },
  responses: {
    200: jsonResponse(dataOf(schedulingProfileSchema), 'The scheduling profile'),
    ...errorResponses(400, 401, 403),
  },
});

const patchSettingsRoute = createRoute({
  ...secured({ permission: 'settings:manage' }),
  method: 'patch',
  path: `${base}/settings`,
  operationId: 'updateSchedulerSettings',
  tags: ['marketing'],
  summary: 'Change the scheduling profile (owners and admins); omitted fields stay',
  description:
    "`resetPostingWindows` restores the named platforms' default windows; `null` for includeWeekends or " +
    "audienceTimezone returns them to the default. Every change is an event on the workspace's scheduling stream.",
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(updateSchedulerSettingsBody) },
  responses: {
    200: jsonResponse(dataOf(schedulingProfileSchema), 'The scheduling profile'),
    ...errorResponses(400, 401, 403, 409, 413, 422, 503),
  },
});

const getTimezoneRoute = createRoute({
  ...secured({ permission: 'workspace:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/timezone',
  operationId: 'getWorkspaceTimezone',
  tags: ['orgs'],
  summary: "The workspace's time zone (UTC until set)",
  request: { params: orgParams },
  responses: {
    200: jsonResponse(dataOf(timezoneSettingSchema), 'The time zone setting'),
    ...errorResponses(400, 401, 403),
  },
});

const patchTimezoneRoute = createRoute({
  ...secured({ permission: 'settings:manage' }),
  method: 'patch',
  path: '/v1/orgs/{orgId}/timezone',
  operationId: 'setWorkspaceTimezone',
  tags: ['orgs'],
  summary: "Set the workspace's time zone (owners and admins; IANA names only)",
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(setTimezoneBody) },
  responses: {
    200: jsonResponse(dataOf(timezoneSettingSchema), 'The time zone setting'),
    ...errorResponses(400, 401, 403, 409, 413, 422, 503),
  },
});

const slotsRoute = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: `${base}/slots`,
  operationId: 'suggestSlots',
  tags: ['marketing'],
  summary: 'Ranked upcoming posting times (tool: suggest_slots)',
  description:
    "Ranks times inside the profile's posting windows by the workspace's own results by local weekday and hour " +
    '(`basis: history`, once enough published posts have metrics) or by the defaults; skips times within ' +
    'minGapMinutes of scheduled posts, full days, blackout dates and times outside ownerAvailability.',
  request: { params: orgParams, query: slotsQuery },
  responses: {
    200: jsonResponse(dataOf(slotSuggestionsSchema), 'The slots, best first'),
    ...errorResponses(400, 401, 403),
  },
});

const suggestedTimesRoute = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: `${base}/suggested-times`,
  operationId: 'suggestedTimes',
  tags: ['marketing'],
  summary: 'Suggested local times for one date in a time zone, best first',
  request: { params: orgParams, query: suggestedTimesQuery },
  responses: {
    200: jsonResponse(dataOf(suggestedTimesSchema), 'The suggestions'),
    ...errorResponses(400, 401, 403),
  },
});

const coverageRoute = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: `${base}/schedule-coverage`,
  operationId: 'scheduleCoverage',
  tags: ['marketing'],
  summary: 'Per channel: scheduled, published and waiting posts in the coming days, gaps and what to do',
  request: { params: orgParams, query: coverageQuery },
  responses: {
    200: jsonResponse(dataOf(scheduleCoverageSchema), 'The coverage'),
    ...errorResponses(400, 401, 403),
  },
});

export function schedulerRoutes(deps: SchedulerDeps & { now?: () => Date }) {
  const now = () => (deps.now?.() ?? new Date()).toISOString();
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(getSettingsRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await getSchedulerSettings(deps, callerOf(c), { orgId }) }, 200);
    });

    app.openapi(patchSettingsRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const { timezone, resetPostingWindows, ...changes } = body;
      const written = await updateSchedulerSettings(
        deps,
        callerOf(c),
        {
          orgId,
          changes,
          ...(resetPostingWindows !== undefined ? { resetPostingWindows } : {}),
          ...(timezone !== undefined ? { timezone } : {}),
        },
        writeRequest(c, deps, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(getTimezoneRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await getWorkspaceTimezone(deps, callerOf(c), { orgId }) }, 200);
    });

    app.openapi(patchTimezoneRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await setWorkspaceTimezone(
        deps,
        callerOf(c),
        { orgId, timezone: body.timezone },
        writeRequest(c, deps, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(slotsRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      return c.json({ data: await suggestSlots(deps, callerOf(c), { orgId, ...query }, now()) }, 200);
    });

    app.openapi(suggestedTimesRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      return c.json({ data: await suggestedTimes(deps, callerOf(c), { orgId, ...query }, now()) }, 200);
    });

    app.openapi(coverageRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      return c.json({ data: await scheduleCoverage(deps, callerOf(c), { orgId, ...query }, now()) }, 200);
    });
  };
}
