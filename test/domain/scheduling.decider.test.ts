// The workspace scheduling decider, rule by rule: the workspace's time zone (set, unchanged, refused), settings
// changes recorded as only what changes (normalised), omitted fields staying, resetting posting windows to the
// defaults, the time zone given with the settings, and every validation rule, all problems named at once.
import { describe, expect, test } from 'vitest';
import { fold } from '../../domain/shared/decider.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { audienceDefaults } from '../../domain/scheduling/defaults.js';
import { resolveProfile } from '../../domain/scheduling/profile.js';
import {
  initialSchedulingState,
  schedulingCategory,
  schedulingDecider,
  type RecordedSchedulingChanges,
  type SchedulingCommand,
  type SchedulingEvent,
  type SchedulingSettingsChanges,
} from '../../domain/scheduling/scheduling.js';
import { schedulingEventCodec } from '../../domain/scheduling/event-codec.js';
import type { WindowPlatform } from '../../domain/scheduling/types.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const owner = '10000000-0000-4000-8000-000000000001';
const now = '2026-11-22T10:00:00.000Z';
const later = '2026-11-22T11:00:00.000Z';
const spec = deciderSpec(schedulingDecider);

const setTimezone = (timezone: string): SchedulingCommand => ({
  type: 'SetWorkspaceTimezone',
  orgId,
  timezone,
  by: owner,
  now,
});
const timezoneSet = (
  timezone: string,
  previousTimezone: string | null = null,
  at = now,
): SchedulingEvent => ({
  type: 'WorkspaceTimezoneSet',
  data: { orgId, timezone, previousTimezone, by: owner, at },
});
const change = (
  changes: SchedulingSettingsChanges,
  extra: { resetPostingWindows?: string[]; timezone?: string } = {},
): SchedulingCommand => ({
  type: 'ChangeSchedulingSettings',
  orgId,
  changes,
  ...extra,
  by: owner,
  now: later,
});
const changed = (
  changes: RecordedSchedulingChanges,
  resetPostingWindows: WindowPlatform[] = [],
  at = later,
): SchedulingEvent => ({
  type: 'SchedulingSettingsChanged',
  data: { orgId, changes, resetPostingWindows, by: owner, at },
});

/** The details of the InvalidFields a command is refused with. */
function refusal(given: SchedulingEvent[], command: SchedulingCommand) {
  let error: unknown;
  try {
    schedulingDecider.decide(command, fold(schedulingDecider, given));
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InvalidFields);
  return (error as InvalidFields).details!;
}
const pathsOf = (given: SchedulingEvent[], command: SchedulingCommand) =>
  refusal(given, command).map((d) => d.path);

const xWindow = { days: [3, 1, 1], start: '09:00', end: '11:00' };
const xWindowRecorded = { days: [1, 3], start: '09:00', end: '11:00', weight: 1 };

test('one stream per workspace in the scheduling category, starting with nothing set', () => {
  expect(schedulingCategory).toBe('scheduling');
  expect(schedulingDecider.initialState).toBe(initialSchedulingState);
  expect(initialSchedulingState).toEqual({
    orgId: null,
    timezone: null,
    settings: {
      audienceTimezone: null,
      audienceType: null,
      includeWeekends: null,
      postingWindows: {},
      blackoutDates: null,
      minGapMinutes: null,
      maxPostsPerDay: null,
      ownerAvailability: null,
    },
    updatedAt: null,
    updatedBy: null,
  });
});

describe('setting the workspace time zone', () => {
  test('a new time zone is recorded with the previous one, in its kept spelling', () => {
    spec
      .given([])
      .when(setTimezone('Europe/Berlin'))
      .then([timezoneSet('Europe/Berlin')]);
    spec
      .given([timezoneSet('Europe/Berlin')])
      .when(setTimezone('america/new_york'))
      .then([timezoneSet('America/New_York', 'Europe/Berlin')]);
    spec
      .given([])
      .when(setTimezone('Asia/Kolkata'))
      .then([timezoneSet('Asia/Kolkata')]);
    spec
      .given([])
      .when(setTimezone('Europe/Berlin'))
      .thenState((s) => {
        expect(s).toMatchObject({ orgId, timezone: 'Europe/Berlin', updatedAt: now, updatedBy: owner });
      });
  });

  test('the same time zone again (in any letter case) records nothing', () => {
    spec
      .given([timezoneSet('Europe/Berlin')])
      .when(setTimezone('Europe/Berlin'))
      .then([]);
    spec
      .given([timezoneSet('Europe/Berlin')])
      .when(setTimezone('EUROPE/BERLIN'))
      .then([]);
  });

  test('anything but an IANA name is refused naming the time zone', () => {
    for (const tz of ['', 'Mars/Olympus', '+01:00', 'UTC+1', 'GMT-5', 'Europe/Berlin ', 'CET-1']) {
      expect(refusal([], setTimezone(tz)), tz).toEqual([
        { path: 'timezone', message: 'an IANA time zone name such as Europe/Berlin' },
      ]);
    }
    for (const tz of ['UTC', 'Etc/UTC', 'America/Sao_Paulo', 'Pacific/Chatham'])
      expect(schedulingDecider.decide(setTimezone(tz), initialSchedulingState)).toHaveLength(1);
  });
});

describe('changing the scheduling settings', () => {
  test('only the fields whose value changes are recorded, normalised', () => {
    spec
      .given([])
      .when(
        change({
          audienceTimezone: 'america/new_york',
          audienceType: 'b2c',
          includeWeekends: false,
          postingWindows: {
            x: [xWindow],
            linkedin: [{ days: [2], start: '08:00', end: '24:00', weight: 0 }],
          },
          blackoutDates: ['2026-12-25', '2026-12-24', '2026-12-25'],
          minGapMinutes: 60,
          maxPostsPerDay: 4,
          ownerAvailability: [{ days: [5, 1], start: '08:00', end: '18:00' }],
        }),
      )
      .then([
        changed({
          audienceTimezone: 'America/New_York',
          audienceType: 'b2c',
          includeWeekends: false,
          postingWindows: {
            x: [xWindowRecorded],
            linkedin: [{ days: [2], start: '08:00', end: '24:00', weight: 0 }],
          },
          blackoutDates: ['2026-12-24', '2026-12-25'],
          minGapMinutes: 60,
          maxPostsPerDay: 4,
          ownerAvailability: [{ days: [1, 5], start: '08:00', end: '18:00' }],
        }),
      ]);
  });

  test('fields given with the value they already have are left out; nothing changing records nothing', () => {
    const given = [
      changed({ audienceType: 'b2c', minGapMinutes: 60, postingWindows: { x: [xWindowRecorded] } }),
    ];
    spec
      .given(given)
      .when(change({ audienceType: 'b2c', minGapMinutes: 90, postingWindows: { x: [xWindow] } }))
      .then([changed({ minGapMinutes: 90 })]);
    spec
      .given(given)
      .when(
        change({
          audienceType: 'b2c',
          minGapMinutes: 60,
          postingWindows: { x: [{ ...xWindow, weight: 1 }] },
        }),
      )
      .then([]);
    spec.given(given).when(change({})).then([]);
    spec
      .given([])
      .when(change({ audienceTimezone: null, includeWeekends: null }))
      .then([]);
  });

  test('omitted fields stay; null clears back to the default', () => {
    const given = [
      changed({
        audienceType: 'b2c',
        includeWeekends: false,
        audienceTimezone: 'Asia/Tokyo',
        maxPostsPerDay: 5,
      }),
    ];
    spec
      .given(given)
      .when(change({ includeWeekends: null, audienceTimezone: null }))
      .thenState((s) => {
        expect(s.settings).toMatchObject({
          audienceType: 'b2c',
          includeWeekends: null,
          audienceTimezone: null,
          maxPostsPerDay: 5,
        });
        expect(resolveProfile(s.settings, null).includeWeekends).toBe(true);
      });
  });

  test('resetting a platform brings its default windows back and takes it off customPostingWindows', () => {
    const given = [
      changed({
        postingWindows: {
          x: [xWindowRecorded],
          tiktok: [{ days: [6], start: '20:00', end: '22:00', weight: 2 }],
        },
      }),
    ];
    expect(resolveProfile(fold(schedulingDecider, given).settings, null).customPostingWindows).toEqual([
      'x',
      'tiktok',
    ]);
    // linkedin never had its own windows: nothing to reset there.
    spec
      .given(given)
      .when(change({}, { resetPostingWindows: ['x', 'linkedin', 'x'] }))
      .then([changed({}, ['x'])]);
    spec
      .given(given)
      .when(change({}, { resetPostingWindows: ['x'] }))
      .thenState((s) => {
        const profile = resolveProfile(s.settings, null);
        expect(profile.customPostingWindows).toEqual(['tiktok']);
        expect(profile.postingWindows.x).toEqual(audienceDefaults('b2b').postingWindows.x);
      });
    spec
      .given([])
      .when(change({}, { resetPostingWindows: ['linkedin'] }))
      .then([]);
  });

  test('resets apply before the windows given in the same request', () => {
    const given = [changed({ postingWindows: { x: [xWindowRecorded] } })];
    const other = { days: [2], start: '07:00', end: '08:00', weight: 1 };
    spec
      .given(given)
      .when(change({ postingWindows: { x: [other] } }, { resetPostingWindows: ['x'] }))
      .then([changed({ postingWindows: { x: [other] } })]);
    spec
      .given(given)
      .when(change({ postingWindows: { x: [xWindow] } }, { resetPostingWindows: ['x'] }))
      .then([]);
    spec
      .given([])
      .when(change({ postingWindows: { x: [other] } }, { resetPostingWindows: ['x'] }))
      .then([changed({ postingWindows: { x: [other] } })]);
  });

  test('a time zone in the settings request sets the workspace time zone too', () => {
    spec
      .given([])
      .when(change({ minGapMinutes: 30 }, { timezone: 'europe/berlin' }))
      .then([timezoneSet('Europe/Berlin', null, later), changed({ minGapMinutes: 30 })]);
    spec
      .given([timezoneSet('Europe/Berlin')])
      .when(change({}, { timezone: 'Europe/Berlin' }))
      .then([]);
    spec
      .given([timezoneSet('Europe/Berlin')])
      .when(change({}, { timezone: 'Europe/Paris' }))
      .then([timezoneSet('Europe/Paris', 'Europe/Berlin', later)]);
  });

  test('the profile of the folded state reports the defaults for what is unset', () => {
    spec
      .given([timezoneSet('Europe/Berlin')])
      .when(change({ audienceType: 'mixed', audienceTimezone: 'America/New_York' }))
      .thenState((s) => {
        const profile = resolveProfile(s.settings, s.timezone);
        const mixed = audienceDefaults('mixed');
        expect(profile).toEqual({
          timezone: 'Europe/Berlin',
          timezoneIsSet: true,
          audienceTimezone: 'America/New_York',
          effectiveTimezone: 'America/New_York',
          audienceType: 'mixed',
          includeWeekends: mixed.includeWeekends,
          postingWindows: mixed.postingWindows,
          customPostingWindows: [],
          blackoutDates: [],
          minGapMinutes: mixed.minGapMinutes,
          maxPostsPerDay: mixed.maxPostsPerDay,
          ownerAvailability: [],
        });
      });
  });

  test('every event round-trips through the codec', () => {
    const events = [
      timezoneSet('Europe/Berlin'),
      changed(
        {
          audienceTimezone: null,
          audienceType: 'b2b',
          includeWeekends: null,
          postingWindows: { linkedin: [xWindowRecorded] },
          blackoutDates: ['2026-12-24'],
          minGapMinutes: 0,
          maxPostsPerDay: 1,
          ownerAvailability: [],
        },
        ['x'],
      ),
    ];
    const stored = events.map((e, i) => ({
      streamName: `scheduling-${orgId}`,
      revision: i,
      type: e.type,
      data: JSON.parse(JSON.stringify(e.data)) as unknown,
      metadata: { schemaVersion: schedulingEventCodec.schemaVersion(e.type) },
    }));
    expect(schedulingEventCodec.decodeAll(stored)).toEqual(events);
    expect(() => schedulingEventCodec.decode({ ...stored[1]!, data: { orgId } })).toThrow(
      /SchedulingSettingsChanged/,
    );
  });
});

describe('validation', () => {
  const window = (over: Record<string, unknown>) => ({ days: [1], start: '09:00', end: '10:00', ...over });
  const windows = (x: unknown[]) => change({ postingWindows: { x } } as SchedulingSettingsChanges);

  test('a start after (or at) the end is refused on the end; 24:00 ends the day', () => {
    expect(refusal([], windows([window({ start: '11:00', end: '10:00' })]))).toEqual([
      { path: 'postingWindows.x.0.end', message: 'later than the start (11:00)' },
    ]);
    expect(pathsOf([], windows([window({ start: '10:00', end: '10:00' })]))).toEqual([
      'postingWindows.x.0.end',
    ]);
    expect(
      schedulingDecider.decide(windows([window({ end: '24:00' })]), initialSchedulingState),
    ).toHaveLength(1);
  });

  test('times must be HH:MM; a start cannot be 24:00', () => {
    expect(
      pathsOf(
        [],
        windows([
          window({ start: '9:00' }),
          window({ end: '24:01' }),
          window({ start: '24:00', end: '24:00' }),
        ]),
      ),
    ).toEqual(['postingWindows.x.0.start', 'postingWindows.x.1.end', 'postingWindows.x.2.start']);
  });

  test('days must be integers 0–6, at least one', () => {
    for (const days of [[], [7], [-1], [1.5], ['1'], null])
      expect(pathsOf([], windows([window({ days })])), JSON.stringify(days)).toEqual([
        'postingWindows.x.0.days',
      ]);
  });

  test('weights must be finite and not below zero', () => {
    for (const weight of [-0.1, Number.POSITIVE_INFINITY, Number.NaN, '1'])
      expect(pathsOf([], windows([window({ weight })])), String(weight)).toEqual([
        'postingWindows.x.0.weight',
      ]);
    expect(schedulingDecider.decide(windows([window({ weight: 0 })]), initialSchedulingState)).toHaveLength(
      1,
    );
  });

  test('at most 20 windows, at least one, per platform; only x, linkedin and tiktok have windows', () => {
    expect(pathsOf([], windows(Array.from({ length: 21 }, () => window({}))))).toEqual(['postingWindows.x']);
    expect(
      schedulingDecider.decide(windows(Array.from({ length: 20 }, () => window({}))), initialSchedulingState),
    ).toHaveLength(1);
    expect(pathsOf([], windows([]))).toEqual(['postingWindows.x']);
    expect(
      pathsOf(
        [],
        change({ postingWindows: { facebook: [window({})] } } as unknown as SchedulingSettingsChanges),
      ),
    ).toEqual(['postingWindows.facebook']);
  });

  test('blackout dates must be real dates, at most 366', () => {
    expect(
      refusal(
        [],
        change({ blackoutDates: ['2026-12-24', '2026-13-01', '2026-02-29', '24.12.2026', '2028-02-29'] }),
      ),
    ).toEqual([
      { path: 'blackoutDates.1', message: 'a date YYYY-MM-DD' },
      { path: 'blackoutDates.2', message: 'a date YYYY-MM-DD' },
      { path: 'blackoutDates.3', message: 'a date YYYY-MM-DD' },
    ]);
    const many = Array.from({ length: 367 }, (_, i) =>
      new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10),
    );
    expect(pathsOf([], change({ blackoutDates: many }))).toEqual(['blackoutDates']);
    expect(
      schedulingDecider.decide(change({ blackoutDates: many.slice(1) }), initialSchedulingState),
    ).toHaveLength(1);
  });

  test('the gap is 0–1440 whole minutes, posts per day 1–50', () => {
    for (const minGapMinutes of [-1, 1441, 2.5])
      expect(pathsOf([], change({ minGapMinutes }))).toEqual(['minGapMinutes']);
    for (const maxPostsPerDay of [0, 51, 1.5])
      expect(pathsOf([], change({ maxPostsPerDay }))).toEqual(['maxPostsPerDay']);
    expect(
      schedulingDecider.decide(change({ minGapMinutes: 0, maxPostsPerDay: 50 }), initialSchedulingState),
    ).toHaveLength(1);
    expect(
      schedulingDecider.decide(change({ minGapMinutes: 1440, maxPostsPerDay: 1 }), initialSchedulingState),
    ).toHaveLength(1);
  });

  test('availability windows follow the window rules', () => {
    expect(
      pathsOf(
        [],
        change({
          ownerAvailability: [
            { days: [1], start: '18:00', end: '09:00' },
            { days: [8], start: '09:00', end: '10:00' },
          ],
        }),
      ),
    ).toEqual(['ownerAvailability.0.end', 'ownerAvailability.1.days']);
  });

  test('time zones and reset platforms are named by their field', () => {
    expect(
      refusal(
        [],
        change(
          { audienceTimezone: 'UTC+2' },
          { timezone: 'Nowhere/Special', resetPostingWindows: ['x', 'myspace'] },
        ),
      ),
    ).toEqual([
      { path: 'audienceTimezone', message: 'an IANA time zone name such as Europe/Berlin' },
      { path: 'resetPostingWindows.1', message: 'one of x, linkedin, tiktok' },
      { path: 'timezone', message: 'an IANA time zone name such as Europe/Berlin' },
    ]);
    expect(pathsOf([], change({ audienceType: 'b2g' as never }))).toEqual(['audienceType']);
  });

  test('every problem of a request is named at once, and nothing is recorded', () => {
    const details = refusal(
      [],
      change(
        {
          audienceTimezone: 'Nowhere',
          postingWindows: {
            x: [window({ start: '12:00', end: '11:00' })],
            linkedin: [window({}), window({ days: [9], weight: -1 })],
          },
          blackoutDates: ['2026-01-01', 'tomorrow'],
          minGapMinutes: 5000,
          maxPostsPerDay: 0,
          ownerAvailability: [{ days: [1], start: '25:00', end: '26:00' }],
        },
        { timezone: '', resetPostingWindows: ['instagram'] },
      ),
    );
    expect(details.map((d) => d.path)).toEqual([
      'audienceTimezone',
      'postingWindows.x.0.end',
      'postingWindows.linkedin.1.days',
      'postingWindows.linkedin.1.weight',
      'blackoutDates.1',
      'minGapMinutes',
      'maxPostsPerDay',
      'ownerAvailability.0.start',
      'ownerAvailability.0.end',
      'resetPostingWindows.0',
      'timezone',
    ]);
    for (const d of details) expect(d.message).not.toBe('');
  });
});
