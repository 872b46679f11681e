// Property tests for the slot ranking: random profiles (windows with weights including 0, weekends, gaps, daily
// caps, availability, blackout dates), time zones with odd offsets and clock changes in both directions, clocks
// within three days of a change, random scheduled posts and history. Every slot is re-derived with Luxon and
// checked against the rules, and a brute-force enumeration of every admissible time (UTC instants every 5 minutes
// read back on the zone's clocks) shows that a short answer left out only times the rules block.
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { platforms, type Platform } from '../../domain/shared/platforms.js';
import { resolveProfile, windowsFor } from '../../domain/scheduling/profile.js';
import { LEAD_MINUTES, MIN_HISTORY_POSTS, rankSlots } from '../../domain/scheduling/slots.js';
import { addLocalDays, localParts, minutesOfDay, todayIn } from '../../domain/scheduling/time.js';
import {
  audienceTypes,
  emptySchedulingSettings,
  type AvailabilityWindow,
  type History,
  type PostingWindow,
  type RankedSlot,
  type SchedulingProfile,
  type SchedulingSettings,
  type SlotQuery,
} from '../../domain/scheduling/types.js';
import { propertyRuns } from '../support/property-runs.js';

const minute = 60_000;
const day = 24 * 60 * minute;

const zones = [
  'America/New_York',
  'Europe/Berlin',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'America/Sao_Paulo',
  'UTC',
  'America/Havana', // clocks skip midnight
] as const;

/** Instants of clock changes in 2026: US and Cuba forward, EU both ways, Sydney back and forward, Chatham forward. */
const changes = [
  '2026-03-08T07:00:00Z',
  '2026-03-08T05:00:00Z',
  '2026-03-29T01:00:00Z',
  '2026-10-25T01:00:00Z',
  '2026-04-04T16:00:00Z',
  '2026-10-03T16:00:00Z',
  '2026-09-26T14:00:00Z',
  '2026-11-01T06:00:00Z',
].map(Date.parse);

const nowArb = fc.oneof(
  fc
    .tuple(fc.constantFrom(...changes), fc.integer({ min: -3 * day, max: 3 * day }))
    .map(([t, d]) => new Date(t + d).toISOString()),
  fc
    .integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') })
    .map((t) => new Date(t).toISOString()),
);

const time5 = (n: number) =>
  `${String(Math.floor((n * 5) / 60)).padStart(2, '0')}:${String((n * 5) % 60).padStart(2, '0')}`;
/** Start and end on 5-minute marks, start before end, the end up to 24:00. */
const spanArb = fc
  .tuple(fc.subarray([0, 1, 2, 3, 4, 5, 6], { minLength: 1 }), fc.integer({ min: 0, max: 287 }), fc.nat())
  .map(([days, a, b]) => ({ days, start: time5(a), end: time5(a + 1 + (b % (288 - a))) }));
/** Availability: wider spans (at least an hour), so that they meet the windows often enough. */
const availabilityArb = fc
  .tuple(fc.subarray([0, 1, 2, 3, 4, 5, 6], { minLength: 2 }), fc.integer({ min: 0, max: 275 }), fc.nat())
  .map(([days, a, b]) => ({ days, start: time5(a), end: time5(a + 12 + (b % (276 - a))) }));
/** `value` in about one case of `1 + otherwise`, else `none`. */
const sometimes = <T, N>(value: fc.Arbitrary<T>, none: N, otherwise = 2) =>
  fc.oneof({ arbitrary: fc.constant(none), weight: otherwise }, { arbitrary: value, weight: 1 });
const windowArb: fc.Arbitrary<PostingWindow> = fc
  .tuple(
    spanArb,
    fc.oneof(
      fc.constant(0),
      fc.constant(1),
      fc.constantFrom(0.5, 2),
      fc.double({ min: 0, max: 5, noNaN: true }),
    ),
  )
  .map(([span, weight]) => ({ ...span, weight }));
const windowsArb = fc.array(windowArb, { minLength: 1, maxLength: 4 });

const settingsArb = fc.record({
  audienceType: fc.option(fc.constantFrom(...audienceTypes), { nil: null }),
  audienceTimezone: fc.option(fc.constantFrom(...zones), { nil: null }),
  includeWeekends: fc.option(fc.boolean(), { nil: null }),
  postingWindows: fc.record(
    { x: windowsArb, linkedin: windowsArb, tiktok: windowsArb },
    { requiredKeys: [] },
  ),
  blackoutOffsets: fc.array(fc.integer({ min: -1, max: 22 }), { maxLength: 6 }),
  minGapMinutes: fc.integer({ min: 0, max: 600 }),
  maxPostsPerDay: fc.integer({ min: 1, max: 5 }),
  ownerAvailability: sometimes(fc.array(availabilityArb, { minLength: 1, maxLength: 3 }), null),
});

const historyArb: fc.Arbitrary<History | null> = fc.option(
  fc.record({
    posts: fc.integer({ min: 0, max: 40 }),
    buckets: fc.array(
      fc.record({
        weekday: fc.integer({ min: 0, max: 6 }),
        hour: fc.integer({ min: 0, max: 23 }),
        posts: fc.integer({ min: 0, max: 10 }),
        engagement: fc.double({ min: 0, max: 100, noNaN: true }),
      }),
      { maxLength: 30 },
    ),
  }),
  { nil: null },
);

const caseArb = fc.record({
  workspaceTimezone: fc.option(fc.constantFrom(...zones), { nil: null }),
  queryTimezone: sometimes(fc.constantFrom(...zones), undefined),
  settings: settingsArb,
  platform: fc.oneof(
    fc.constant(null),
    fc.constantFrom<Platform>('x', 'linkedin', 'tiktok'),
    fc.constantFrom<Platform>(...platforms),
  ),
  now: nowArb,
  days: fc.integer({ min: 1, max: 14 }),
  localDateOffset: sometimes(fc.integer({ min: -1, max: 6 }), undefined, 3),
  count: fc.integer({ min: 1, max: 12 }),
  scheduledOffsets: fc.array(fc.integer({ min: -24 * 60, max: 16 * 24 * 60 }), { maxLength: 30 }),
  history: historyArb,
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function build(c: Case): SlotQuery {
  const { blackoutOffsets, ...rest } = c.settings;
  const tz0 = c.settings.audienceTimezone ?? c.workspaceTimezone ?? 'UTC';
  const tz = c.queryTimezone ?? tz0;
  const today = todayIn(c.now, tz);
  const settings: SchedulingSettings = {
    ...emptySchedulingSettings,
    ...rest,
    blackoutDates: blackoutOffsets.map((k) => addLocalDays(today, k)),
  };
  const nowMs = Date.parse(c.now);
  return {
    profile: resolveProfile(settings, c.workspaceTimezone),
    platform: c.platform,
    now: c.now,
    days: c.days,
    count: c.count,
    ...(c.queryTimezone ? { timezone: c.queryTimezone } : {}),
    ...(c.localDateOffset !== undefined ? { localDate: addLocalDays(today, c.localDateOffset) } : {}),
    scheduled: c.scheduledOffsets.map((m) => new Date(nowMs + m * minute).toISOString()),
    history: c.history,
  };
}

const minuteOf = (localTime: string) => minutesOfDay(localTime);
const inSpan = (w: AvailabilityWindow, weekday: number, m: number) =>
  w.days.includes(weekday) && minutesOfDay(w.start) <= m && m < minutesOfDay(w.end);
const isStep = (w: PostingWindow, m: number) => m === minutesOfDay(w.start) || m % 15 === 0;

interface Admissible {
  t: number;
  localDate: string;
}

/** Every time the rules admit, found by reading UTC instants every 5 minutes on the zone's clocks. */
function bruteForce(q: SlotQuery, tz: string, profile: SchedulingProfile): Admissible[] {
  const windows = windowsFor(profile, q.platform).filter((w) => w.weight > 0);
  const today = todayIn(q.now, tz);
  const dates = new Set(
    q.localDate !== undefined
      ? [q.localDate]
      : Array.from({ length: q.days }, (_, k) => addLocalDays(today, k)),
  );
  const earliest = Date.parse(q.now) + LEAD_MINUTES * minute;
  // From three hours before: a clock time shown twice counts at its first showing, even when that one is past.
  const start = Math.ceil((earliest - 3 * 60 * minute) / (5 * minute)) * 5 * minute;
  const seen = new Set<string>();
  const out: Admissible[] = [];
  const last = Math.max(...[...dates].map((d) => Date.parse(`${d}T00:00:00Z`))) + 2 * day;
  for (let t = start; t < last; t += 5 * minute) {
    const p = localParts(new Date(t).toISOString(), tz);
    const key = `${p.localDate} ${p.localTime}`;
    if (seen.has(key)) continue; // shown twice: the earlier instant only
    seen.add(key);
    if (t < earliest || !dates.has(p.localDate) || profile.blackoutDates.includes(p.localDate)) continue;
    const m = minuteOf(p.localTime);
    if (!windows.some((w) => inSpan(w, p.weekday, m) && isStep(w, m))) continue;
    if (
      profile.ownerAvailability.length > 0 &&
      !profile.ownerAvailability.some((a) => inSpan(a, p.weekday, m))
    )
      continue;
    out.push({ t, localDate: p.localDate });
  }
  return out;
}

function check(q: SlotQuery, slots: RankedSlot[]): void {
  const { profile } = q;
  const tz = q.timezone ?? profile.effectiveTimezone;
  const windows = windowsFor(profile, q.platform);
  const nowMs = Date.parse(q.now);
  const gap = profile.minGapMinutes * minute;
  const today = todayIn(q.now, tz);
  const scheduled = q.scheduled.map((t) => (typeof t === 'number' ? t : Date.parse(t)));
  const basis = q.history && q.history.posts >= MIN_HISTORY_POSTS ? 'history' : 'defaults';

  expect(slots.length).toBeLessThanOrEqual(q.count);
  const perDay = new Map<string, number>();
  for (const time of q.scheduled) {
    const d = localParts(typeof time === 'number' ? new Date(time).toISOString() : time, tz).localDate;
    perDay.set(d, (perDay.get(d) ?? 0) + 1);
  }
  const times = slots.map((s) => Date.parse(s.scheduledForUtc));
  slots.forEach((s, i) => {
    const t = times[i]!;
    const p = localParts(s.scheduledForUtc, tz);
    expect([p.localDate, p.localTime, p.weekdayName]).toEqual([s.localDate, s.localTime, s.weekday]);
    const m = minuteOf(p.localTime);
    // Inside a window of the platform with weight above 0, on one of its steps; the heaviest such window.
    const admitting = windows.filter((w) => w.weight > 0 && inSpan(w, p.weekday, m) && isStep(w, m));
    expect(admitting.length).toBeGreaterThan(0);
    expect(admitting).toContainEqual(s.window);
    expect(s.window.weight).toBe(Math.max(...admitting.map((w) => w.weight)));
    expect(s.window.days).toContain(p.weekday);
    if (!profile.includeWeekends) expect([0, 6]).not.toContain(p.weekday);
    expect(profile.blackoutDates).not.toContain(p.localDate);
    if (profile.ownerAvailability.length > 0)
      expect(profile.ownerAvailability.some((a) => inSpan(a, p.weekday, m))).toBe(true);
    expect(t).toBeGreaterThanOrEqual(nowMs + LEAD_MINUTES * minute);
    if (q.localDate !== undefined) expect(p.localDate).toBe(q.localDate);
    else {
      expect(p.localDate >= today).toBe(true);
      expect(p.localDate <= addLocalDays(today, q.days - 1)).toBe(true);
    }
    for (const o of scheduled) {
      expect(Math.abs(t - o)).toBeGreaterThanOrEqual(gap);
      expect(t).not.toBe(o);
    }
    for (let j = 0; j < i; j++) {
      expect(Math.abs(t - times[j]!)).toBeGreaterThanOrEqual(gap);
      expect(t).not.toBe(times[j]);
    }
    perDay.set(p.localDate, (perDay.get(p.localDate) ?? 0) + 1);
    expect(perDay.get(p.localDate)).toBeLessThanOrEqual(profile.maxPostsPerDay);
    expect(s.basis).toBe(basis);
    expect(s.score).toBeGreaterThanOrEqual(0);
    expect(s.score).toBeLessThanOrEqual(100);
    if (i > 0) expect(s.score).toBeLessThanOrEqual(slots[i - 1]!.score);
    expect(s.reason).toMatch(
      new RegExp(`^${s.weekday} ${s.localTime} in ${tz.replace('/', '\\/')}: inside `),
    );
  });

  // Every slot is an admissible time, and when fewer than `count` came back, every admissible time left out is
  // blocked by the gap or the day's cap against the scheduled posts and the slots.
  const admissible = bruteForce(q, tz, profile);
  const byTime = new Set(admissible.map((a) => a.t));
  for (const t of times) expect(byTime.has(t)).toBe(true);
  if (slots.length < q.count) {
    const taken = new Set(times);
    const all = [...scheduled, ...times];
    for (const a of admissible) {
      if (taken.has(a.t)) continue;
      const clash = all.some((o) => o === a.t || Math.abs(o - a.t) < gap);
      const full = (perDay.get(a.localDate) ?? 0) >= profile.maxPostsPerDay;
      expect(clash || full, `${new Date(a.t).toISOString()} was free`).toBe(true);
    }
  }
}

describe('slot ranking properties', () => {
  test('every slot keeps every rule, a short answer misses only blocked times, and the answer is repeatable', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const q = build(c);
        const slots = rankSlots(q);
        check(q, slots);
        expect(rankSlots(structuredClone(q))).toEqual(slots);
        // The slot finder passes the same times as epoch milliseconds.
        expect(rankSlots({ ...q, scheduled: q.scheduled.map((t) => Date.parse(String(t))) })).toEqual(slots);
      }),
      { numRuns: propertyRuns(150) },
    );
  });

  test('with nothing in the way, the answer is full whenever there are enough admissible times', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const q = {
          ...build({ ...c, scheduledOffsets: [] }),
          count: 1,
        };
        const tz = q.timezone ?? q.profile.effectiveTimezone;
        const slots = rankSlots(q);
        expect(slots.length).toBe(bruteForce(q, tz, q.profile).length > 0 ? 1 : 0);
      }),
      { numRuns: propertyRuns(60) },
    );
  });
  test('around a clock change, night windows keep every rule', () => {
    // Each zone with the instant its clocks change (forward and back) and where on its clock that happens.
    const around: Array<[string, string]> = [
      ['America/New_York', '2026-03-08T07:00:00Z'],
      ['America/New_York', '2026-11-01T06:00:00Z'],
      ['Europe/Berlin', '2026-03-29T01:00:00Z'],
      ['Europe/Berlin', '2026-10-25T01:00:00Z'],
      ['Australia/Sydney', '2026-04-04T16:00:00Z'],
      ['Australia/Sydney', '2026-10-03T16:00:00Z'],
      ['Pacific/Chatham', '2026-04-04T14:00:00Z'],
      ['Pacific/Chatham', '2026-09-26T14:00:00Z'],
      ['America/Havana', '2026-03-08T05:00:00Z'],
      ['America/Havana', '2026-11-01T05:00:00Z'],
    ];
    /** Spans within the first five hours of the day, where the changes are. */
    const nightArb = fc
      .tuple(fc.subarray([0, 1, 2, 3, 4, 5, 6], { minLength: 1 }), fc.integer({ min: 0, max: 59 }), fc.nat())
      .map(([days, a, b]) => ({
        days,
        start: time5(a),
        end: time5(a + 1 + (b % (60 - a))),
        weight: 1 + (b % 3),
      }));
    fc.assert(
      fc.property(
        fc.constantFrom(...around),
        fc.integer({ min: 0, max: 36 * 60 }),
        fc.array(nightArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 90 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.integer({ min: -120, max: 3 * 24 * 60 }), { maxLength: 6 }),
        ([tz, change], before, windows, minGapMinutes, maxPostsPerDay, offsets) => {
          const nowMs = Date.parse(change) - before * minute;
          const q: SlotQuery = {
            profile: resolveProfile(
              {
                ...emptySchedulingSettings,
                includeWeekends: true,
                postingWindows: { x: windows },
                minGapMinutes,
                maxPostsPerDay,
              },
              tz,
            ),
            platform: 'x',
            now: new Date(nowMs).toISOString(),
            days: 3,
            count: 40,
            scheduled: offsets.map((m) => new Date(nowMs + m * minute).toISOString()),
            history: null,
          };
          const slots = rankSlots(q);
          check(q, slots);
        },
      ),
      { numRuns: propertyRuns(150) },
    );
  });
});
