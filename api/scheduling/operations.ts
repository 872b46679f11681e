// The scheduling slice's operations: the scheduling profile (GET, PATCH ORG/marketing/scheduler/settings), the
// workspace's time zone (GET, PATCH ORG/timezone), ranked slots (with the suggest_slots tool), suggested times of
// a day and schedule coverage. Reads come from the scheduling and posts read models; writes go through the
// workspace's scheduling stream.
import {
  getSchedulerSettings,
  getWorkspaceTimezone,
  scheduleCoverage,
  setWorkspaceTimezone,
  suggestedTimes,
  suggestSlots,
  updateSchedulerSettings,
  type SchedulerDeps,
} from '../../commands/scheduling/scheduling-use-cases.js';
import { historySourceOf } from '../../projections/scheduling/best-slot-finder.js';
import { coverageTargets, targetsFrom } from './coverage-targets.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
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

const operation = operationsWith<SchedulerDeps>();
const base = '/v1/orgs/{orgId}/marketing/scheduler';

export const schedulingOperations = operationGroup(
  (ctx) => ({
    ...ctx.services,
    history: historySourceOf(ctx.services.readModels),
    strategyTargets: targetsFrom(ctx.services.readModels, ctx.contributions(coverageTargets)),
  }),
  [
    operation({
      name: 'getSchedulerSettings',
      kind: 'read',
      method: 'get',
      path: `${base}/settings`,
      tags: ['marketing'],
      summary:
        'The scheduling profile: time zones, audience type, posting windows, gaps, caps, blackout dates',
      description:
        "Unset fields report the defaults for the audience type (docs/decisions.md, 'Scheduler defaults').",
      params: orgParams,
      output: schedulingProfileSchema,
      outputDescription: 'The scheduling profile',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read' },
      run: (deps, { caller }, { orgId }) => getSchedulerSettings(deps, caller, { orgId }),
    }),
    operation({
      name: 'updateSchedulerSettings',
      kind: 'write',
      method: 'patch',
      path: `${base}/settings`,
      tags: ['marketing'],
      summary: 'Change the scheduling profile (owners and admins); omitted fields stay',
      description:
        "`resetPostingWindows` restores the named platforms' default windows; `null` for includeWeekends or " +
        "audienceTimezone returns them to the default. Every change is an event on the workspace's scheduling stream.",
      params: orgParams,
      body: updateSchedulerSettingsBody,
      output: schedulingProfileSchema,
      outputDescription: 'The scheduling profile',
      errors: [400, 401, 403, 409, 413, 422, 503],
      access: { permission: 'settings:manage' },
      run: (deps, { caller, request }, { orgId, timezone, resetPostingWindows, ...changes }) =>
        updateSchedulerSettings(
          deps,
          caller,
          {
            orgId,
            changes,
            ...(resetPostingWindows !== undefined ? { resetPostingWindows } : {}),
            ...(timezone !== undefined ? { timezone } : {}),
          },
          request,
        ),
    }),
    operation({
      name: 'getWorkspaceTimezone',
      kind: 'read',
      method: 'get',
      path: '/v1/orgs/{orgId}/timezone',
      tags: ['orgs'],
      summary: "The workspace's time zone (UTC until set)",
      params: orgParams,
      output: timezoneSettingSchema,
      outputDescription: 'The time zone setting',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read' },
      run: (deps, { caller }, { orgId }) => getWorkspaceTimezone(deps, caller, { orgId }),
    }),
    operation({
      name: 'setWorkspaceTimezone',
      kind: 'write',
      method: 'patch',
      path: '/v1/orgs/{orgId}/timezone',
      tags: ['orgs'],
      summary: "Set the workspace's time zone (owners and admins; IANA names only)",
      params: orgParams,
      body: setTimezoneBody,
      output: timezoneSettingSchema,
      outputDescription: 'The time zone setting',
      errors: [400, 401, 403, 409, 413, 422, 503],
      access: { permission: 'settings:manage' },
      run: (deps, { caller, request }, { orgId, timezone }) =>
        setWorkspaceTimezone(deps, caller, { orgId, timezone }, request),
    }),
    operation({
      name: 'suggest_slots',
      kind: 'read',
      method: 'get',
      path: `${base}/slots`,
      tags: ['marketing'],
      summary: 'Ranked upcoming posting times (tool: suggest_slots)',
      description:
        "Ranks times inside the profile's posting windows by the workspace's own results by local weekday and hour " +
        '(`basis: history`, once enough published posts have metrics) or by the defaults; skips times within ' +
        'minGapMinutes of scheduled posts, full days, blackout dates and times outside ownerAvailability.',
      params: orgParams,
      query: slotsQuery,
      output: slotSuggestionsSchema,
      outputDescription: 'The slots, best first',
      errors: [400, 401, 403],
      access: { permission: 'posts:read', scope: 'mcp:read' },
      run: (deps, { caller, request }, input) => suggestSlots(deps, caller, input, request.now),
      tool: {
        title: 'Suggest posting times',
        description:
          'Ranks upcoming posting times for the workspace on one platform (`x`, `linkedin` or `tiktok`; all of ' +
          'them when omitted), best first, inside its posting windows and clear of posts already scheduled, full ' +
          'days and blackout dates. Each slot has the UTC time, the local date, time and weekday in the audience ' +
          "time zone, a score (0–100), a reason, and `basis`: `history` when the workspace's own published posts " +
          'ranked it, `defaults` before there is enough history. Read-only: it schedules nothing — pass a chosen ' +
          '`scheduledForUtc` to schedule_post_group or approve_post_group for that.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: (s) =>
          s.slots.length === 0
            ? `No free slot in the period (time zone ${s.timezone}).`
            : `${s.slots.length} slots in ${s.timezone} (basis: ${s.slots[0]!.basis}, ${s.historyPosts} posts of ` +
              `history); best: ${s.slots[0]!.weekday} ${s.slots[0]!.localDate} ${s.slots[0]!.localTime}.`,
      },
    }),
    operation({
      name: 'suggestedTimes',
      kind: 'read',
      method: 'get',
      path: `${base}/suggested-times`,
      tags: ['marketing'],
      summary: 'Suggested local times for one date in a time zone, best first',
      params: orgParams,
      query: suggestedTimesQuery,
      output: suggestedTimesSchema,
      outputDescription: 'The suggestions',
      errors: [400, 401, 403],
      access: { permission: 'posts:read' },
      run: (deps, { caller, request }, input) => suggestedTimes(deps, caller, input, request.now),
    }),
    operation({
      name: 'scheduleCoverage',
      kind: 'read',
      method: 'get',
      path: `${base}/schedule-coverage`,
      tags: ['marketing'],
      summary: 'Per channel: scheduled, published and waiting posts in the coming days, gaps and what to do',
      params: orgParams,
      query: coverageQuery,
      output: scheduleCoverageSchema,
      outputDescription: 'The coverage',
      errors: [400, 401, 403],
      access: { permission: 'posts:read' },
      run: (deps, { caller, request }, input) => scheduleCoverage(deps, caller, input, request.now),
    }),
  ],
);
