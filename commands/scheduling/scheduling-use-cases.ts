// Scheduler use cases, for members (REST) and assistants (tools) alike: the scheduling profile and the
// workspace's time zone (read by members and assistants; changed by owners and admins only), the ranked slots,
// the suggested times of one day and the schedule coverage.
import type { SideWriteOption } from '../shared/command-handler.js';
import type { Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { assessCoverage, type ScheduleCoverage } from '../../domain/scheduling/coverage.js';
import { resolveProfile } from '../../domain/scheduling/profile.js';
import {
  timezoneMessage,
  type SchedulingSettingsChanges,
  type SchedulingState,
} from '../../domain/scheduling/scheduling.js';
import { MAX_SLOT_DAYS, MIN_HISTORY_POSTS, rankSlots } from '../../domain/scheduling/slots.js';
import {
  canonicalTimezone,
  daysBetween,
  isIanaTimezone,
  isLocalDate,
  todayIn,
} from '../../domain/scheduling/time.js';
import type { AudienceType, History, RankedSlot, SchedulingProfile } from '../../domain/scheduling/types.js';
import { historySince, type HistorySource } from '../../projections/scheduling/best-slot-finder.js';
import {
  busyTimes,
  coveragePosts,
  schedulingInputsOf,
  schedulingProfileOf,
  schedulingStateOf,
} from '../../projections/scheduling/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { RecordAnswer } from '../shared/idempotent.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import { changeSchedulingSettings, setWorkspaceTimezone as appendTimezone } from './scheduling-commands.js';

export interface SchedulerDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
  /** The workspace's results by local weekday and hour (post metrics). */
  history: HistorySource;
  /** postsPerWeek per channel of the workspace's active strategy (the strategy slice's coverage target source). */
  strategyTargets?: (orgId: string) => Promise<Partial<Record<Platform, number>>>;
}

const reading = (orgId: string) => ({ orgId, permission: 'workspace:read', scope: 'mcp:read' }) as const;
/** Owners and admins (settings:manage); assistants may read the settings, not change them. */
const managing = (orgId: string) => ({ orgId, permission: 'settings:manage', scope: null }) as const;

export interface TimezoneSetting {
  timezone: string;
  isSet: boolean;
}

const timezoneSettingOf = (state: SchedulingState): TimezoneSetting => ({
  timezone: state.timezone ?? 'UTC',
  isSet: state.timezone !== null,
});

const profileOfState = (state: SchedulingState): SchedulingProfile =>
  resolveProfile(state.settings, state.timezone);

function recording<Output>(
  record: RecordAnswer<Output> | undefined,
  answer: (state: SchedulingState) => Output,
): SideWriteOption<SchedulingState> {
  return record ? { sideWrite: (trx, state) => record(trx, answer(state)) } : {};
}

// ------------------------------------------------------------------------------------------ settings

export async function getSchedulerSettings(
  deps: Pick<SchedulerDeps, 'readModels'>,
  caller: Caller,
  input: { orgId: string },
): Promise<SchedulingProfile> {
  authorize(caller, reading(input.orgId));
  return schedulingProfileOf(deps.readModels, input.orgId);
}

export interface UpdateSchedulerSettingsInput {
  orgId: string;
  changes: SchedulingSettingsChanges;
  resetPostingWindows?: string[];
  timezone?: string;
}

export async function updateSchedulerSettings(
  deps: SchedulerDeps,
  caller: Caller,
  input: UpdateSchedulerSettingsInput,
  request: WriteRequest,
): Promise<Written<SchedulingProfile>> {
  authorize(caller, managing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const state = await changeSchedulingSettings(
      deps.commands,
      input.orgId,
      {
        changes: input.changes,
        ...(input.resetPostingWindows !== undefined
          ? { resetPostingWindows: input.resetPostingWindows }
          : {}),
        ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
      },
      metadata,
      recording(record, profileOfState),
    );
    return profileOfState(state);
  });
}

export async function getWorkspaceTimezone(
  deps: Pick<SchedulerDeps, 'readModels'>,
  caller: Caller,
  input: { orgId: string },
): Promise<TimezoneSetting> {
  authorize(caller, reading(input.orgId));
  return timezoneSettingOf(await schedulingStateOf(deps.readModels, input.orgId));
}

export async function setWorkspaceTimezone(
  deps: SchedulerDeps,
  caller: Caller,
  input: { orgId: string; timezone: string },
  request: WriteRequest,
): Promise<Written<TimezoneSetting>> {
  authorize(caller, managing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const state = await appendTimezone(
      deps.commands,
      input.orgId,
      input.timezone,
      metadata,
      recording(record, timezoneSettingOf),
    );
    return timezoneSettingOf(state);
  });
}

// --------------------------------------------------------------------------------------------- slots

export const slotLimits = {
  days: { default: 14, max: 90 },
  count: { default: 5, max: 50 },
  suggestedTimes: { default: 3, max: 24 },
  coverageDays: { default: 7, max: 90 },
} as const;

export interface SlotSuggestions {
  timezone: string;
  audienceType: AudienceType;
  historyPosts: number;
  slots: Array<Omit<RankedSlot, 'window'>>;
}

const dayMs = 86_400_000;

/** The history slots learn from: the content type's own once it has enough posts, else the platform's. */
async function historyFor(
  deps: Pick<SchedulerDeps, 'history'>,
  orgId: string,
  platform: Platform | null,
  timezone: string,
  now: string,
  contentType: string | null,
  version: string,
): Promise<History> {
  const since = historySince(new Date(now));
  if (contentType !== null) {
    const own = await deps.history(orgId, { platform, timezone, since, contentType }, version);
    if (own.posts >= MIN_HISTORY_POSTS) return own;
  }
  return deps.history(orgId, { platform, timezone, since }, version);
}

const publicSlot = ({ window: _window, ...slot }: RankedSlot) => slot;

/**
 * The ranking both reads make: the profile and history version in one read, then the busy times (a day either side
 * of the range) and the history (in the zone ranked in), then the pure ranking.
 */
async function rank(
  deps: SchedulerDeps,
  orgId: string,
  query: {
    platform: Platform | null;
    days: number;
    count: number;
    contentType: string | null;
    /** Instead of the effective time zone, with only this local date (suggested times). */
    on?: { timezone: string; localDate: string };
  },
  now: string,
): Promise<{ profile: SchedulingProfile; history: History; slots: RankedSlot[] }> {
  const { profile, historyVersion } = await schedulingInputsOf(deps.readModels, orgId);
  const timezone = query.on?.timezone ?? profile.effectiveTimezone;
  const [scheduled, history] = await Promise.all([
    busyTimes(deps.readModels, orgId, query.platform, {
      from: new Date(Date.parse(now) - dayMs).toISOString(),
      to: new Date(Date.parse(now) + (query.days + 2) * dayMs).toISOString(),
    }),
    historyFor(deps, orgId, query.platform, timezone, now, query.contentType, historyVersion),
  ]);
  const slots = rankSlots({
    profile,
    platform: query.platform,
    now,
    days: query.days,
    count: query.count,
    ...(query.on ? { timezone, localDate: query.on.localDate } : {}),
    scheduled,
    history,
  });
  return { profile, history, slots };
}

export interface SuggestSlotsInput {
  orgId: string;
  platform?: Platform;
  contentType?: string;
  days?: number;
  count?: number;
}

export async function suggestSlots(
  deps: SchedulerDeps,
  caller: Caller,
  input: SuggestSlotsInput,
  now: string,
): Promise<SlotSuggestions> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:read', scope: 'mcp:read' });
  const { profile, history, slots } = await rank(
    deps,
    input.orgId,
    {
      platform: input.platform ?? null,
      days: input.days ?? slotLimits.days.default,
      count: input.count ?? slotLimits.count.default,
      contentType: input.contentType ?? null,
    },
    now,
  );
  return {
    timezone: profile.effectiveTimezone,
    audienceType: profile.audienceType,
    historyPosts: history.posts,
    slots: slots.map(publicSlot),
  };
}

export interface SuggestedTimesInput {
  orgId: string;
  /** Local date `YYYY-MM-DD` in `timezone`. */
  date: string;
  timezone: string;
  count?: number;
  platform?: Platform;
}

export async function suggestedTimes(
  deps: SchedulerDeps,
  caller: Caller,
  input: SuggestedTimesInput,
  now: string,
): Promise<{ suggestions: Array<{ localTime: string; reason: string }> }> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:read', scope: 'mcp:read' });
  const problems = [];
  if (!isIanaTimezone(input.timezone)) problems.push({ path: 'timezone', message: timezoneMessage });
  if (!isLocalDate(input.date)) problems.push({ path: 'date', message: 'a date as YYYY-MM-DD' });
  if (problems.length > 0) throw new InvalidFields('Invalid date or time zone', problems);
  const timezone = canonicalTimezone(input.timezone);
  const today = todayIn(now, timezone);
  if (input.date < today)
    throw new InvalidFields('The date has passed', [
      { path: 'date', message: `must be today (${today} in ${timezone}) or later` },
    ]);
  const days = daysBetween(today, input.date) + 1;
  if (days > MAX_SLOT_DAYS)
    throw new InvalidFields('The date is too far ahead', [{ path: 'date', message: 'at most a year ahead' }]);
  const { slots } = await rank(
    deps,
    input.orgId,
    {
      platform: input.platform ?? null,
      days,
      count: input.count ?? slotLimits.suggestedTimes.default,
      contentType: null,
      on: { timezone, localDate: input.date },
    },
    now,
  );
  return { suggestions: slots.map((s) => ({ localTime: s.localTime, reason: s.reason })) };
}

// ------------------------------------------------------------------------------------------ coverage

export async function scheduleCoverage(
  deps: SchedulerDeps,
  caller: Caller,
  input: { orgId: string; days?: number; timezone?: string },
  now: string,
): Promise<ScheduleCoverage> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:read', scope: 'mcp:read' });
  if (input.timezone !== undefined && !isIanaTimezone(input.timezone))
    throw new InvalidFields('Invalid time zone', [{ path: 'timezone', message: timezoneMessage }]);
  const days = input.days ?? slotLimits.coverageDays.default;
  const profile = await schedulingProfileOf(deps.readModels, input.orgId);
  const timezone =
    input.timezone !== undefined ? canonicalTimezone(input.timezone) : profile.effectiveTimezone;
  const [channels, targets] = await Promise.all([
    coveragePosts(deps.readModels, input.orgId, {
      from: new Date(Date.parse(now) - 2 * dayMs).toISOString(),
      to: new Date(Date.parse(now) + (days + 2) * dayMs).toISOString(),
    }),
    deps.strategyTargets ? deps.strategyTargets(input.orgId) : Promise.resolve({}),
  ]);
  return assessCoverage({
    now,
    days,
    timezone,
    profile,
    channels: channels.map((c) => ({
      platform: c.platform,
      postsPerWeek: (targets as Partial<Record<Platform, number>>)[c.platform] ?? null,
      posts: c.posts,
    })),
  });
}
