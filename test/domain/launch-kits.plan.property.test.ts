// The launch plan around DST changes (issue 29, "Launch plan dates correct around DST changes"): random zones with
// clock changes (forward and back, by an hour or half an hour, at midnight, a skipped day), random launch dates near
// the changes and anywhere in 1995–2036, random posting windows starting at any time of day (the skipped and
// repeated hours included). Every step's scheduledForUtc read back on the zone's clocks (scheduling's time.ts, not
// the plan's own conversion) gives its date and time; a suggested time the clocks skip moved forward by exactly the
// gap; a repeated one took its first occurrence; day offsets are calendar days; steps are in order.
import fc from 'fast-check';
import { IANAZone } from 'luxon';
import { describe, expect, test } from 'vitest';
import {
  launchPlan,
  localInstant,
  productHuntLaunch,
  showHnSuggestion,
  type PlanStep,
} from '../../domain/launch-kits/plan.js';
import { launchChannels, type LaunchChannel } from '../../domain/launch-kits/event-codec.js';
import { resolveProfile, windowsFor } from '../../domain/scheduling/profile.js';
import {
  addLocalDays,
  daysBetween,
  localParts,
  localToUtc,
  minutesOfDay,
  weekdayOf,
} from '../../domain/scheduling/time.js';
import {
  audienceTypes,
  emptySchedulingSettings,
  type PostingWindow,
  type SchedulingProfile,
} from '../../domain/scheduling/types.js';
import type { Platform } from '../../domain/shared/platforms.js';
import { propertyRuns } from '../support/property-runs.js';

const zones = [
  'Europe/London',
  'America/New_York',
  'Australia/Sydney',
  'America/Sao_Paulo', // DST until 2019, clocks skipped midnight
  'Australia/Lord_Howe', // half-hour change
  'America/Havana', // skips midnight
  'America/Santiago', // changes at midnight
  'Pacific/Apia', // skipped 2011-12-30 entirely
  'Pacific/Chatham',
  'Europe/Berlin',
  'Pacific/Honolulu', // west of Los Angeles: the Product Hunt launch falls the evening before
  'Asia/Kolkata',
  'UTC',
] as const;

/** Local dates of clock changes in those zones. */
const changeDates = [
  '2026-03-08',
  '2026-11-01',
  '2026-03-29',
  '2026-10-25',
  '2026-04-05',
  '2026-10-04',
  '2018-11-04',
  '2019-02-16',
  '2017-10-15',
  '2011-12-30',
  '2011-09-24',
  '2026-09-06',
  '2026-04-04',
  '2026-09-27',
  '2026-03-15',
];

const dateBetween = (from: string, to: string) =>
  fc.integer({ min: 0, max: daysBetween(from, to) }).map((n) => addLocalDays(from, n));

const launchDates = fc.oneof(
  fc
    .tuple(fc.constantFrom(...changeDates), fc.integer({ min: -4, max: 8 }))
    .map(([d, n]) => addLocalDays(d, n)),
  dateBetween('1995-01-01', '2036-12-31'),
);

/** A start at any 5 minutes of the day, biased to the small hours where clocks change. */
const startTimes = fc
  .oneof(fc.integer({ min: 0, max: 287 }), fc.integer({ min: 0, max: 48 }))
  .map(
    (n) => `${String(Math.floor((n * 5) / 60)).padStart(2, '0')}:${String((n * 5) % 60).padStart(2, '0')}`,
  );

const windowArb: fc.Arbitrary<PostingWindow> = fc.record({
  days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
  start: startTimes,
  end: fc.constant('24:00'),
  weight: fc.constantFrom(0, 0.5, 1),
});

const profiles: fc.Arbitrary<(tz: string) => SchedulingProfile> = fc
  .record({
    audienceType: fc.constantFrom(...audienceTypes),
    includeWeekends: fc.option(fc.boolean(), { nil: null }),
    x: fc.option(fc.array(windowArb, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    linkedin: fc.option(fc.array(windowArb, { minLength: 1, maxLength: 3 }), { nil: undefined }),
  })
  .map(
    ({ audienceType, includeWeekends, x, linkedin }) =>
      (tz: string) =>
        resolveProfile(
          {
            ...emptySchedulingSettings,
            audienceType,
            includeWeekends,
            postingWindows: { ...(x ? { x } : {}), ...(linkedin ? { linkedin } : {}) },
          },
          tz,
        ),
  );

const channelSets = fc.uniqueArray(fc.constantFrom(...launchChannels), { minLength: 1, maxLength: 5 });

/** The template day of each post and fixed step, by key (domain/launch-kits/plan.ts). */
const templateDay = (key: string): number =>
  ({
    assets: -7,
    'product_hunt.listing': -7,
    'x.teaser': -5,
    'linkedin.teaser': -4,
    supporters: -3,
    'hacker_news.prepare': -1,
    'product_hunt.live': 0,
    'hacker_news.submit': 0,
    'x.launch': 0,
    'linkedin.launch': 0,
    replies: 0,
    'x.follow_up': 1,
    'linkedin.follow_up': 2,
    recap: 3,
  })[key] ?? (key.startsWith('reddit.launch.') ? 0 : NaN);

/** The best window for the weekday re-derived: highest weight, then earliest start; any day when none covers it. */
function expectedTime(profile: SchedulingProfile, platform: Platform, date: string): string {
  const best = (ws: PostingWindow[]) =>
    ws.filter((w) => w.weight > 0).sort((a, b) => b.weight - a.weight || a.start.localeCompare(b.start))[0]
      ?.start;
  const weekday = weekdayOf(date);
  return (
    best(windowsFor(profile, platform).filter((w) => w.days.includes(weekday))) ??
    best(windowsFor({ ...profile, includeWeekends: true }, platform)) ??
    '09:00'
  );
}

const minuteMs = 60_000;

/**
 * What the rule says of a local time: the instant scheduling's localToUtc gives (the earlier of two), or for a
 * skipped time the clocks' reading once they moved forward by the gap.
 */
function checkSuggestion(step: PlanStep, intendedDate: string, intendedTime: string, tz: string) {
  const exact = localToUtc(intendedDate, minutesOfDay(intendedTime), tz);
  if (exact !== null) {
    expect(step.scheduledForUtc).toBe(exact);
    expect([step.date, step.time]).toEqual([intendedDate, intendedTime]);
    return;
  }
  const at = Date.parse(step.scheduledForUtc!);
  const zone = IANAZone.create(tz);
  const gap = zone.offset(at) - zone.offset(at - 26 * 60 * minuteMs);
  expect(gap).toBeGreaterThan(0);
  const moved =
    daysBetween(intendedDate, step.date) * 1440 + minutesOfDay(step.time!) - minutesOfDay(intendedTime);
  expect(moved).toBe(gap);
}

function checkPlan(
  plan: PlanStep[],
  input: { launchDate: string; timezone: string; profile: SchedulingProfile; channels: LaunchChannel[] },
) {
  const { launchDate, timezone: tz, profile } = input;
  expect(plan.map((s) => s.id)).toEqual(plan.map((_, i) => `step-${i + 1}`));
  for (const step of plan) {
    // Day offsets are calendar days from the launch date to the step's local date.
    expect(addLocalDays(launchDate, step.day)).toBe(step.date);
    expect(step.channel === null || input.channels.includes(step.channel)).toBe(true);
    if (step.kind === 'task' || step.key === 'product_hunt.listing') {
      expect([step.time, step.scheduledForUtc]).toEqual([null, null]);
      expect(step.day).toBe(templateDay(step.key));
      continue;
    }
    // A timed step's instant read back on the zone's clocks gives its date and time.
    const parts = localParts(step.scheduledForUtc!, tz);
    expect([parts.localDate, parts.localTime]).toEqual([step.date, step.time]);
    if (step.key === 'product_hunt.live' || step.key === 'hacker_news.submit') {
      const fixed = step.key === 'product_hunt.live' ? productHuntLaunch : showHnSuggestion;
      expect(step.scheduledForUtc).toBe(localToUtc(launchDate, minutesOfDay(fixed.time), fixed.zone));
      continue;
    }
    expect(step.kind).toBe('post');
    const intendedDate = addLocalDays(launchDate, templateDay(step.key));
    checkSuggestion(step, intendedDate, expectedTime(profile, step.platform!, intendedDate), tz);
  }
  // In order: by local date, tasks of the day first, then by instant.
  for (let i = 1; i < plan.length; i++) {
    const [a, b] = [plan[i - 1]!, plan[i]!];
    const key = (s: PlanStep) =>
      [s.date, s.scheduledForUtc === null ? '0' : `1${s.scheduledForUtc}`].join('|');
    expect(key(a) <= key(b), `${a.id} before ${b.id}`).toBe(true);
  }
}

describe('the launch plan in the workspace zone', () => {
  test('every step reads back on the zone’s clocks; skipped times move forward by the gap; days are calendar days; in order', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        launchDates,
        profiles,
        channelSets,
        fc.array(fc.constantFrom('r/SideProject', 'startups', 'r/webdev'), { maxLength: 2 }),
        (timezone, launchDate, profileIn, channels, subreddits) => {
          const profile = profileIn(timezone);
          const plan = launchPlan({ launchDate, timezone, channels, subreddits, profile });
          checkPlan(plan, { launchDate, timezone, profile, channels });
        },
      ),
      { numRuns: propertyRuns(500) },
    );
  });

  test('any local time: the instant shows it, or (skipped) a time later by exactly the gap', () => {
    fc.assert(
      fc.property(fc.constantFrom(...zones), launchDates, startTimes, (tz, date, time) => {
        const iso = localInstant(date, time, tz);
        const exact = localToUtc(date, minutesOfDay(time), tz);
        if (exact !== null) {
          expect(iso).toBe(exact);
          const parts = localParts(iso, tz);
          expect([parts.localDate, parts.localTime]).toEqual([date, time]);
          // A time shown twice takes the first: an hour (or the gap) earlier shows another time.
          const earlier = localParts(new Date(Date.parse(iso) - 60 * minuteMs).toISOString(), tz);
          expect(`${earlier.localDate} ${earlier.localTime}` < `${date} ${time}`).toBe(true);
        } else {
          const parts = localParts(iso, tz);
          const zone = IANAZone.create(tz);
          const at = Date.parse(iso);
          const gap = zone.offset(at) - zone.offset(at - 26 * 60 * minuteMs);
          expect(
            daysBetween(date, parts.localDate) * 1440 + minutesOfDay(parts.localTime) - minutesOfDay(time),
          ).toBe(gap);
        }
      }),
      { numRuns: propertyRuns(2000) },
    );
  });
});

describe('examples', () => {
  const profileWith = (tz: string, start: string) =>
    resolveProfile(
      {
        ...emptySchedulingSettings,
        includeWeekends: true,
        postingWindows: { x: [{ days: [0, 1, 2, 3, 4, 5, 6], start, end: '24:00', weight: 1 }] },
      },
      tz,
    );
  const xLaunch = (launchDate: string, tz: string, start: string) =>
    launchPlan({
      launchDate,
      timezone: tz,
      channels: ['x'],
      subreddits: [],
      profile: profileWith(tz, start),
    }).find((s) => s.key === 'x.launch')!;

  test('New York spring-forward: 02:30 does not exist and becomes 03:30 EDT', () => {
    expect(xLaunch('2026-03-08', 'America/New_York', '02:30')).toMatchObject({
      date: '2026-03-08',
      time: '03:30',
      scheduledForUtc: '2026-03-08T07:30:00.000Z',
      day: 0,
    });
  });

  test('New York fall-back: 01:30 happens twice and takes the first (EDT)', () => {
    expect(xLaunch('2026-11-01', 'America/New_York', '01:30')).toMatchObject({
      time: '01:30',
      scheduledForUtc: '2026-11-01T05:30:00.000Z',
    });
  });

  test('São Paulo 2018: clocks skipped midnight; 00:15 becomes 01:15', () => {
    expect(xLaunch('2018-11-04', 'America/Sao_Paulo', '00:15')).toMatchObject({
      date: '2018-11-04',
      time: '01:15',
      scheduledForUtc: '2018-11-04T03:15:00.000Z',
    });
  });

  test('Lord Howe: a half-hour gap moves 02:10 to 02:40', () => {
    expect(xLaunch('2026-10-04', 'Australia/Lord_Howe', '02:10')).toMatchObject({ time: '02:40' });
  });

  test('Honolulu: the Product Hunt launch (00:01 Pacific) is the evening before, day -1', () => {
    const plan = launchPlan({
      launchDate: '2026-06-09',
      timezone: 'Pacific/Honolulu',
      channels: ['product_hunt'],
      subreddits: [],
      profile: profileWith('Pacific/Honolulu', '09:00'),
    });
    expect(plan.find((s) => s.key === 'product_hunt.live')).toMatchObject({
      day: -1,
      date: '2026-06-08',
      time: '21:01',
      scheduledForUtc: '2026-06-09T07:01:00.000Z',
    });
  });

  test('the default b2b profile leaves weekends out, yet a Saturday launch post still gets the best window', () => {
    const profile = resolveProfile(emptySchedulingSettings, 'Europe/Berlin');
    const plan = launchPlan({
      launchDate: '2026-06-06',
      timezone: 'Europe/Berlin',
      channels: ['x'],
      subreddits: [],
      profile,
    });
    expect(plan.find((s) => s.key === 'x.launch')).toMatchObject({ date: '2026-06-06', time: '08:00' });
  });
});
