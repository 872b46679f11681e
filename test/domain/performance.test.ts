// The performance summary's rules (domain/performance/performance.ts): the engagement score, what a reading adds,
// the consistency label at its boundaries, the window in a zone across a change of clocks and in a quarter-hour
// zone, and the summary folded from activity; properties: a post's increases add up to its latest reading, and the
// trends and platforms add up to the summary.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { engagementOf, type MetricsReading } from '../../domain/analytics/post-metrics.js';
import {
  activityBucket,
  activityBucketMs,
  consistencyLabel,
  engagementRate,
  engagementScore,
  performanceWindow,
  readingIncrease,
  summariseActivity,
  type DayActivity,
} from '../../domain/performance/performance.js';
import { platforms } from '../../domain/shared/platforms.js';
import { propertyRuns } from '../support/property-runs.js';

const reading = (m: Partial<MetricsReading>): MetricsReading => ({
  likes: 0,
  reposts: 0,
  replies: 0,
  quotes: 0,
  bookmarks: null,
  impressions: null,
  ...m,
});

describe('engagement score', () => {
  test('likes + bookmarks + 2 × reposts + 3 × replies + 3 × quotes; no bookmark count counts 0', () => {
    expect(engagementScore(reading({ likes: 30, reposts: 5, replies: 4, quotes: 1, bookmarks: 3 }))).toBe(58);
    expect(engagementScore(reading({ likes: 1 }))).toBe(1);
    expect(engagementScore(reading({ bookmarks: 1 }))).toBe(1);
    expect(engagementScore(reading({ reposts: 1 }))).toBe(2);
    expect(engagementScore(reading({ replies: 1 }))).toBe(3);
    expect(engagementScore(reading({ quotes: 1 }))).toBe(3);
    expect(engagementScore(reading({}))).toBe(0);
  });
});

describe('a reading’s increase', () => {
  test('the first reading is all new; the next adds its difference', () => {
    const first = reading({ likes: 10, reposts: 2, replies: 1, bookmarks: 1, impressions: 500 });
    expect(readingIncrease(null, first)).toEqual({ engagements: 14, impressions: 500, ratedEngagements: 14 });
    const second = reading({ likes: 30, reposts: 5, replies: 4, quotes: 1, bookmarks: 3, impressions: 2000 });
    expect(readingIncrease(first, second)).toEqual({
      engagements: 29,
      impressions: 1500,
      ratedEngagements: 29,
    });
  });

  test('without an impression count: no impressions and nothing rated', () => {
    expect(readingIncrease(null, reading({ likes: 8, replies: 2 }))).toEqual({
      engagements: 10,
      impressions: null,
      ratedEngagements: 0,
    });
  });

  test('impressions counted from a reading on: only the engagement they cover is rated', () => {
    // The earlier reading had no impression count, so its 5 engagements had none to go with.
    const before = reading({ likes: 5 });
    expect(readingIncrease(before, reading({ likes: 7, impressions: 90 }))).toEqual({
      engagements: 2,
      impressions: 90,
      ratedEngagements: 7,
    });
  });

  test('an unlike is a negative increase', () => {
    expect(
      readingIncrease(reading({ likes: 5, impressions: 10 }), reading({ likes: 4, impressions: 12 })),
    ).toEqual({ engagements: -1, impressions: 2, ratedEngagements: -1 });
  });

  const count = fc.integer({ min: 0, max: 1_000_000 });
  const arbReading = fc.record({
    likes: count,
    reposts: count,
    replies: count,
    quotes: count,
    bookmarks: fc.option(count, { nil: null }),
    impressions: fc.option(count, { nil: null }),
  });

  test('property: a post’s increases add up to its latest reading (engagement; impressions when all count them)', () => {
    fc.assert(
      fc.property(fc.array(arbReading, { minLength: 1, maxLength: 12 }), (readings) => {
        let previous: MetricsReading | null = null;
        let engagements = 0;
        let impressions = 0;
        for (const r of readings) {
          const increase = readingIncrease(previous, r);
          engagements += increase.engagements;
          impressions += increase.impressions ?? 0;
          previous = r;
        }
        const last = readings[readings.length - 1]!;
        expect(engagements).toBe(engagementOf(last));
        if (readings.every((r) => r.impressions !== null)) expect(impressions).toBe(last.impressions);
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe('consistency label', () => {
  test.each([
    [0, 30, 'none'],
    [1, 30, 'sparse'],
    [4, 30, 'sparse'],
    // 5 days in 30: 7 × 5 = 35 ≥ 30, more than one a week.
    [5, 30, 'steady'],
    [12, 30, 'steady'],
    // 13 days in 30: 91 ≥ 90, three a week.
    [13, 30, 'strong'],
    [1, 7, 'steady'],
    [2, 7, 'steady'],
    [3, 7, 'strong'],
    [1, 1, 'strong'],
    [0, 1, 'none'],
  ] as const)('%i active days in %i: %s', (active, days, label) => {
    expect(consistencyLabel(active, days)).toBe(label);
  });
});

describe('the window', () => {
  test('Berlin across the change to summer time: 7 local days, the 28th is 23 hours long', () => {
    const w = performanceWindow(Date.parse('2027-04-02T10:00:00.000Z'), 'Europe/Berlin', 7);
    expect(w.dates).toEqual([
      '2027-03-27',
      '2027-03-28',
      '2027-03-29',
      '2027-03-30',
      '2027-03-31',
      '2027-04-01',
      '2027-04-02',
    ]);
    expect(w.previousDates[0]).toBe('2027-03-20');
    expect(new Date(w.previousStartMs).toISOString()).toBe('2027-03-19T23:00:00.000Z');
    expect(new Date(w.startMs).toISOString()).toBe('2027-03-26T23:00:00.000Z');
    expect(new Date(w.endMs).toISOString()).toBe('2027-04-02T22:00:00.000Z');
    expect(w.bounds).toHaveLength(15);
    expect(w.bounds[9]! - w.bounds[8]!).toBe(23 * 3_600_000);
  });

  test('today is the zone’s: late evening in New York is the next day in UTC', () => {
    const w = performanceWindow(Date.parse('2027-04-03T02:00:00.000Z'), 'America/New_York', 1);
    expect(w.dates).toEqual(['2027-04-02']);
    expect(new Date(w.startMs).toISOString()).toBe('2027-04-02T04:00:00.000Z');
  });

  test('property: days start on quarter hours in every zone in use (the activity buckets’ size), in order', () => {
    const zones = [
      'UTC',
      'Europe/Berlin',
      'Asia/Kolkata',
      'Asia/Kathmandu',
      'Australia/Eucla',
      'Pacific/Chatham',
      'America/St_Johns',
      'Pacific/Kiritimati',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2035-01-01T00:00:00Z') }),
        fc.integer({ min: 1, max: 120 }),
        (zone, now, days) => {
          const w = performanceWindow(now, zone, days);
          expect(w.bounds).toHaveLength(2 * days + 1);
          for (let i = 1; i < w.bounds.length; i++) expect(w.bounds[i]!).toBeGreaterThan(w.bounds[i - 1]!);
          for (const b of w.bounds) expect(b % activityBucketMs).toBe(0);
          expect(now).toBeGreaterThanOrEqual(w.bounds[2 * days - 1]!);
          expect(now).toBeLessThan(w.endMs);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  test('activity buckets are the quarter hour an instant falls in', () => {
    expect(activityBucket('2027-03-27T22:44:59.999Z')).toBe('2027-03-27T22:30:00.000Z');
    expect(activityBucket('2027-03-27T22:45:00.000Z')).toBe('2027-03-27T22:45:00.000Z');
  });
});

describe('the summary from activity', () => {
  const window = performanceWindow(Date.parse('2027-04-02T10:00:00.000Z'), 'Europe/Berlin', 7);

  test('days without activity are in the trends; an impression-less day says null; platforms rank by engagement', () => {
    const s = summariseActivity(window, [
      {
        date: '2027-03-27',
        platform: 'x',
        postsPublished: 1,
        engagements: 7,
        impressions: 200,
        ratedEngagements: 7,
      },
      {
        date: '2027-03-30',
        platform: 'linkedin',
        postsPublished: 1,
        engagements: 11,
        impressions: null,
        ratedEngagements: 0,
      },
      {
        date: '2027-03-22',
        platform: 'x',
        postsPublished: 1,
        engagements: 4,
        impressions: 100,
        ratedEngagements: 4,
      },
    ]);
    expect(s.summary).toEqual({
      postsPublished: 2,
      impressions: 200,
      engagements: 18,
      engagementRate: 0.035,
      publishingActiveDays: 2,
      consistencyLabel: 'steady',
    });
    expect(s.previousWindow).toEqual({ postsPublished: 1, impressions: 100, engagements: 4 });
    expect(s.trends[0]).toEqual({ date: '2027-03-27', postsPublished: 1, impressions: 200, engagements: 7 });
    expect(s.trends[3]).toEqual({
      date: '2027-03-30',
      postsPublished: 1,
      impressions: null,
      engagements: 11,
    });
    expect(s.trends[6]).toEqual({ date: '2027-04-02', postsPublished: 0, impressions: null, engagements: 0 });
    expect(s.platforms.map((p) => p.platform)).toEqual(['linkedin', 'x']);
  });

  test('engagement rate: 4 decimals, null without impressions', () => {
    expect(engagementRate(150, 3200)).toBe(0.0469);
    expect(engagementRate(5, null)).toBeNull();
    expect(engagementRate(5, 0)).toBeNull();
  });

  const arbActivity = fc.record({
    // The two windows' dates and one on each side of them, which the summary leaves out.
    date: fc.constantFrom('2027-03-19', ...window.previousDates, ...window.dates, '2027-04-03'),
    platform: fc.constantFrom(...platforms),
    postsPublished: fc.integer({ min: 0, max: 20 }),
    engagements: fc.integer({ min: -50, max: 10_000 }),
    impressions: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
    ratedEngagements: fc.integer({ min: 0, max: 10_000 }),
  });

  test('property: the trends and the platforms add up to the summary; the previous window to the days before', () => {
    fc.assert(
      fc.property(fc.array(arbActivity, { maxLength: 40 }), (activity: DayActivity[]) => {
        const s = summariseActivity(window, activity);
        const inWindow = activity.filter((a) => window.dates.includes(a.date));
        const sum = (
          list: readonly { postsPublished: number; engagements: number; impressions: number | null }[],
        ) => ({
          postsPublished: list.reduce((n, a) => n + a.postsPublished, 0),
          engagements: list.reduce((n, a) => n + a.engagements, 0),
          impressions: list.some((a) => a.impressions !== null)
            ? list.reduce((n, a) => n + (a.impressions ?? 0), 0)
            : null,
        });
        const summary = {
          postsPublished: s.summary.postsPublished,
          engagements: s.summary.engagements,
          impressions: s.summary.impressions,
        };
        expect(sum(s.trends)).toEqual(summary);
        expect(sum(s.platforms)).toEqual(summary);
        expect(sum(inWindow)).toEqual(summary);
        expect(s.previousWindow).toEqual(sum(activity.filter((a) => window.previousDates.includes(a.date))));
        expect(s.trends.map((t) => t.date)).toEqual(window.dates);
        expect(s.summary.publishingActiveDays).toBe(s.trends.filter((t) => t.postsPublished > 0).length);
        expect(new Set(s.platforms.map((p) => p.platform)).size).toBe(s.platforms.length);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
