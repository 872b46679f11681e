// The workspace scheduling aggregate: the workspace's time zone and its scheduler settings (audience, posting
// windows, blackout dates, spacing, the owner's availability). One stream per workspace (`scheduling-<orgId>`).
//
// A settings change is validated as a whole (every problem is named, one InvalidFields) and recorded as what it
// changes: only the fields whose value differs from what is set, normalised (time zones in their kept spelling,
// window weights defaulted to 1, weekdays sorted without repeats, blackout dates sorted without repeats). Within
// one request `resetPostingWindows` applies first and `postingWindows` after it, so a platform named in both ends
// up with the windows given. The event records the net outcome: a platform is either reset (it had its own windows
// and now follows the defaults again) or given new windows, never both.
import { canonicalJson } from '../shared/canonical-json.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { InvalidFields, type ErrorDetail } from '../shared/errors.js';
import { schedulingEventCodec, type RecordedSchedulingChanges, type SchedulingEvent } from './event-codec.js';
import {
  canonicalTimezone,
  isIanaTimezone,
  isLocalDate,
  isLocalEndTime,
  isLocalTime,
  minutesOfDay,
} from './time.js';
import {
  audienceTypes,
  emptySchedulingSettings,
  isWindowPlatform,
  windowPlatforms,
  type AudienceType,
  type AvailabilityWindow,
  type PostingWindow,
  type SchedulingSettings,
  type WindowPlatform,
} from './types.js';

export const schedulingCategory = 'scheduling';

export type { RecordedSchedulingChanges, SchedulingEvent } from './event-codec.js';

export const maxWindowsPerPlatform = 20;
export const maxAvailabilityWindows = 20;
export const maxBlackoutDates = 366;
export const minGapMinutesRange = { min: 0, max: 1440 } as const;
export const maxPostsPerDayRange = { min: 1, max: 50 } as const;

/** A posting window as a request gives it: the weight may be left out (it is then 1). */
export interface PostingWindowInput {
  days: number[];
  start: string;
  end: string;
  weight?: number;
}

/** A settings change as asked for: omitted fields stay; null clears a field back to the default. */
export type SchedulingSettingsChanges = Partial<{
  audienceTimezone: string | null;
  audienceType: AudienceType;
  includeWeekends: boolean | null;
  postingWindows: Partial<Record<WindowPlatform, PostingWindowInput[]>>;
  blackoutDates: string[];
  minGapMinutes: number;
  maxPostsPerDay: number;
  ownerAvailability: AvailabilityWindow[];
}>;

export type SchedulingCommand =
  | { type: 'SetWorkspaceTimezone'; orgId: string; timezone: string; by: string; now: string }
  | {
      type: 'ChangeSchedulingSettings';
      orgId: string;
      changes: SchedulingSettingsChanges;
      /** Platforms whose windows go back to the defaults (applied before `changes.postingWindows`). */
      resetPostingWindows?: string[];
      /** Also sets the workspace's time zone. */
      timezone?: string;
      by: string;
      now: string;
    };

export interface SchedulingState {
  orgId: string | null;
  /** The workspace's time zone; null until set (the profile reports UTC). */
  timezone: string | null;
  settings: SchedulingSettings;
  updatedAt: string | null;
  updatedBy: string | null;
}

export const initialSchedulingState: SchedulingState = {
  orgId: null,
  timezone: null,
  settings: emptySchedulingSettings,
  updatedAt: null,
  updatedBy: null,
};

// ---------------------------------------------------------------------------------------- validation

export const timezoneMessage = 'an IANA time zone name such as Europe/Berlin';
const platformMessage = `one of ${windowPlatforms.join(', ')}`;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

class Problems {
  readonly details: ErrorDetail[] = [];
  add(path: string, message: string): void {
    this.details.push({ path, message });
  }
}

function checkTimezone(value: unknown, path: string, problems: Problems): string | undefined {
  if (typeof value === 'string' && isIanaTimezone(value)) return canonicalTimezone(value);
  problems.add(path, timezoneMessage);
  return undefined;
}

function checkDays(value: unknown, path: string, problems: Problems): number[] | undefined {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((d) => typeof d === 'number' && Number.isInteger(d) && d >= 0 && d <= 6)
  ) {
    problems.add(path, 'weekdays 0–6 (0 = Sunday), at least one');
    return undefined;
  }
  return [...new Set(value as number[])].sort((a, b) => a - b);
}

/** Days, start and end of a posting or availability window; undefined when any of them is refused. */
function checkSpan(value: unknown, path: string, problems: Problems): AvailabilityWindow | undefined {
  if (!isRecord(value)) {
    problems.add(path, 'a window {days, start, end}');
    return undefined;
  }
  const days = checkDays(value.days, `${path}.days`, problems);
  const start = value.start;
  const end = value.end;
  const startOk = typeof start === 'string' && isLocalTime(start);
  const endOk = typeof end === 'string' && isLocalEndTime(end);
  if (!startOk) problems.add(`${path}.start`, 'a local time HH:MM, 00:00 to 23:59');
  if (!endOk) problems.add(`${path}.end`, 'a local time HH:MM, up to 24:00 (the end of the day)');
  if (startOk && endOk && minutesOfDay(start) >= minutesOfDay(end)) {
    problems.add(`${path}.end`, `later than the start (${start})`);
    return undefined;
  }
  if (!days || !startOk || !endOk) return undefined;
  return { days, start, end };
}

function checkPostingWindow(value: unknown, path: string, problems: Problems): PostingWindow | undefined {
  const span = checkSpan(value, path, problems);
  const weight = isRecord(value) ? (value.weight ?? 1) : 1;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
    problems.add(`${path}.weight`, 'a number, 0 or more (0 keeps the window but never chooses it)');
    return undefined;
  }
  return span && { ...span, weight };
}

function checkList<T>(
  value: unknown,
  path: string,
  max: number,
  problems: Problems,
  item: (v: unknown, path: string) => T | undefined,
  allowEmpty = true,
): T[] | undefined {
  if (!Array.isArray(value)) {
    problems.add(path, 'a list');
    return undefined;
  }
  if (value.length > max) {
    problems.add(path, `at most ${max}`);
    return undefined;
  }
  if (!allowEmpty && value.length === 0) {
    problems.add(path, 'at least one window (resetPostingWindows brings back the defaults)');
    return undefined;
  }
  const before = problems.details.length;
  const items = value.map((v, i) => item(v, `${path}.${i}`));
  return problems.details.length === before ? (items as T[]) : undefined;
}

function checkInteger(
  value: unknown,
  path: string,
  range: { min: number; max: number },
  what: string,
  problems: Problems,
): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= range.min && value <= range.max)
    return value;
  problems.add(path, `a whole number of ${what}, ${range.min} to ${range.max}`);
  return undefined;
}

interface CheckedRequest {
  changes: RecordedSchedulingChanges;
  resets: WindowPlatform[];
  timezone: string | undefined;
}

/** Every field of the request checked and normalised; throws one InvalidFields naming every problem. */
function checkRequest(
  command: Extract<SchedulingCommand, { type: 'ChangeSchedulingSettings' }>,
): CheckedRequest {
  const problems = new Problems();
  const input = (isRecord(command.changes) ? command.changes : {}) as Record<string, unknown>;
  const out: RecordedSchedulingChanges = {};
  const given = (key: keyof SchedulingSettingsChanges) => input[key] !== undefined;

  if (given('audienceTimezone')) {
    if (input.audienceTimezone === null) out.audienceTimezone = null;
    else {
      const tz = checkTimezone(input.audienceTimezone, 'audienceTimezone', problems);
      if (tz !== undefined) out.audienceTimezone = tz;
    }
  }
  if (given('audienceType')) {
    const t = input.audienceType;
    if (typeof t === 'string' && (audienceTypes as readonly string[]).includes(t))
      out.audienceType = t as AudienceType;
    else problems.add('audienceType', `one of ${audienceTypes.join(', ')}`);
  }
  if (given('includeWeekends')) {
    const v = input.includeWeekends;
    if (v === null || typeof v === 'boolean') out.includeWeekends = v;
    else problems.add('includeWeekends', 'true, false or null (the default of the audience type)');
  }
  if (given('postingWindows')) {
    const pw = input.postingWindows;
    if (!isRecord(pw)) problems.add('postingWindows', `an object with keys ${windowPlatforms.join(', ')}`);
    else {
      const windows: Partial<Record<WindowPlatform, PostingWindow[]>> = {};
      for (const [key, list] of Object.entries(pw)) {
        if (list === undefined) continue;
        if (!isWindowPlatform(key)) {
          problems.add(`postingWindows.${key}`, `not a platform with posting windows (${platformMessage})`);
          continue;
        }
        const checked = checkList(
          list,
          `postingWindows.${key}`,
          maxWindowsPerPlatform,
          problems,
          (v, path) => checkPostingWindow(v, path, problems),
          false,
        );
        if (checked) windows[key] = checked;
      }
      out.postingWindows = windows;
    }
  }
  if (given('blackoutDates')) {
    const dates = checkList(input.blackoutDates, 'blackoutDates', maxBlackoutDates, problems, (v, path) => {
      if (typeof v === 'string' && isLocalDate(v)) return v;
      problems.add(path, 'a date YYYY-MM-DD');
      return undefined;
    });
    if (dates) out.blackoutDates = [...new Set(dates)].sort();
  }
  if (given('minGapMinutes')) {
    const v = checkInteger(input.minGapMinutes, 'minGapMinutes', minGapMinutesRange, 'minutes', problems);
    if (v !== undefined) out.minGapMinutes = v;
  }
  if (given('maxPostsPerDay')) {
    const v = checkInteger(input.maxPostsPerDay, 'maxPostsPerDay', maxPostsPerDayRange, 'posts', problems);
    if (v !== undefined) out.maxPostsPerDay = v;
  }
  if (given('ownerAvailability')) {
    const spans = checkList(
      input.ownerAvailability,
      'ownerAvailability',
      maxAvailabilityWindows,
      problems,
      (v, path) => checkSpan(v, path, problems),
    );
    if (spans) out.ownerAvailability = spans;
  }

  const resets: WindowPlatform[] = [];
  if (command.resetPostingWindows !== undefined) {
    checkList(
      command.resetPostingWindows,
      'resetPostingWindows',
      windowPlatforms.length * 4,
      problems,
      (v, path) => {
        if (typeof v === 'string' && isWindowPlatform(v)) {
          if (!resets.includes(v)) resets.push(v);
          return v;
        }
        problems.add(path, platformMessage);
        return undefined;
      },
    );
  }
  const timezone =
    command.timezone === undefined ? undefined : checkTimezone(command.timezone, 'timezone', problems);

  if (problems.details.length > 0) throw new InvalidFields('Invalid scheduling settings', problems.details);
  return { changes: out, resets, timezone };
}

// ------------------------------------------------------------------------------------------- applying

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** Settings with a recorded change applied: resets first, then the given windows and fields. */
function applySchedulingChanges(
  settings: SchedulingSettings,
  changes: RecordedSchedulingChanges,
  resetPostingWindows: readonly WindowPlatform[],
): SchedulingSettings {
  const postingWindows = { ...settings.postingWindows };
  for (const p of resetPostingWindows) delete postingWindows[p];
  for (const p of windowPlatforms) {
    const windows = changes.postingWindows?.[p];
    if (windows !== undefined) postingWindows[p] = windows;
  }
  const pick = <K extends keyof RecordedSchedulingChanges & keyof SchedulingSettings>(key: K) =>
    changes[key] !== undefined ? changes[key] : settings[key];
  return {
    audienceTimezone: pick('audienceTimezone'),
    audienceType: pick('audienceType'),
    includeWeekends: pick('includeWeekends'),
    postingWindows,
    blackoutDates: pick('blackoutDates'),
    minGapMinutes: pick('minGapMinutes'),
    maxPostsPerDay: pick('maxPostsPerDay'),
    ownerAvailability: pick('ownerAvailability'),
  };
}

function decideSettings(
  command: Extract<SchedulingCommand, { type: 'ChangeSchedulingSettings' }>,
  state: SchedulingState,
): SchedulingEvent[] {
  const { changes, resets, timezone } = checkRequest(command);
  const current = state.settings;
  const target = applySchedulingChanges(current, changes, resets);

  const recorded: RecordedSchedulingChanges = {};
  const scalarKeys = [
    'audienceTimezone',
    'audienceType',
    'includeWeekends',
    'blackoutDates',
    'minGapMinutes',
    'maxPostsPerDay',
    'ownerAvailability',
  ] as const;
  for (const key of scalarKeys) {
    if (changes[key] !== undefined && !same(current[key], target[key]))
      (recorded as Record<string, unknown>)[key] = target[key];
  }
  const windows: Partial<Record<WindowPlatform, PostingWindow[]>> = {};
  const reset: WindowPlatform[] = [];
  for (const p of windowPlatforms) {
    const before = current.postingWindows[p];
    const after = target.postingWindows[p];
    if (after !== undefined && !same(before, after)) windows[p] = after;
    if (before !== undefined && after === undefined) reset.push(p);
  }
  if (Object.keys(windows).length > 0) recorded.postingWindows = windows;

  const events: SchedulingEvent[] = [];
  if (timezone !== undefined && timezone !== state.timezone)
    events.push(timezoneSet(command, state, timezone));
  if (Object.keys(recorded).length > 0 || reset.length > 0) {
    events.push({
      type: 'SchedulingSettingsChanged',
      data: {
        orgId: command.orgId,
        changes: recorded,
        resetPostingWindows: reset,
        by: command.by,
        at: command.now,
      },
    });
  }
  return events;
}

/** The workspace's time zone moves from the state's to `timezone` (canonical), by the command's author. */
function timezoneSet(
  command: { orgId: string; by: string; now: string },
  state: SchedulingState,
  timezone: string,
): SchedulingEvent {
  return {
    type: 'WorkspaceTimezoneSet',
    data: {
      orgId: command.orgId,
      timezone,
      previousTimezone: state.timezone,
      by: command.by,
      at: command.now,
    },
  };
}

export const schedulingDecider: Decider<SchedulingState, SchedulingCommand, SchedulingEvent> = {
  initialState: initialSchedulingState,
  codec: schedulingEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'SetWorkspaceTimezone': {
        const problems = new Problems();
        const timezone = checkTimezone(command.timezone, 'timezone', problems);
        if (timezone === undefined) throw new InvalidFields('Invalid time zone', problems.details);
        if (timezone === state.timezone) return [];
        return [timezoneSet(command, state, timezone)];
      }
      case 'ChangeSchedulingSettings':
        return decideSettings(command, state);
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WorkspaceTimezoneSet': {
        const d = event.data;
        return { ...state, orgId: d.orgId, timezone: d.timezone, updatedAt: d.at, updatedBy: d.by };
      }
      case 'SchedulingSettingsChanged': {
        const d = event.data;
        return {
          ...state,
          orgId: d.orgId,
          settings: applySchedulingChanges(state.settings, d.changes, d.resetPostingWindows),
          updatedAt: d.at,
          updatedBy: d.by,
        };
      }
      default:
        return assertNever(event);
    }
  },
};
