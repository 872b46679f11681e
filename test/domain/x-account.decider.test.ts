// X account analytics, rule by rule: switching the daily read on and off (the same again changes nothing; another
// account switches it over; an account gone switches it off only when it is the one read), one reading per
// account and date with every day from its first to its date, the days a reading covers, each local day's
// numbers from the posts read, and the totals.
import { describe, expect, test } from 'vitest';
import {
  dailyNumbers,
  engagementRate,
  xAccountAnalyticsDecider,
  xAccountReadingDecider,
  xAccountReadingFrom,
  xAccountTotals,
  type XAccountEvent,
  type XAccountPost,
  type XAccountReadingData,
} from '../../domain/analytics/x-account.js';
import { addLocalDays } from '../../domain/scheduling/time.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const acc = '00000000-0000-4000-8000-0000000000a1';
const other = '00000000-0000-4000-8000-0000000000a2';
const now = '2026-03-10T09:00:00.000Z';

const enabled = (socialAccountId = acc): XAccountEvent => ({
  type: 'XAccountAnalyticsEnabled',
  data: { orgId, socialAccountId, by: 'user-1', at: now },
});
const disabled = (
  reason: 'requested' | 'account_gone' = 'requested',
  socialAccountId = acc,
): XAccountEvent => ({
  type: 'XAccountAnalyticsDisabled',
  data: { orgId, socialAccountId, reason, by: reason === 'requested' ? 'user-1' : 'system', at: now },
});

describe('the setting', () => {
  const spec = deciderSpec(xAccountAnalyticsDecider);
  const enable = (socialAccountId = acc) =>
    ({ type: 'EnableXAccountAnalytics', orgId, socialAccountId, by: 'user-1', now }) as const;
  const disable = (reason: 'requested' | 'account_gone' = 'requested', socialAccountId?: string) =>
    ({
      type: 'DisableXAccountAnalytics',
      orgId,
      reason,
      ...(socialAccountId ? { socialAccountId } : {}),
      by: reason === 'requested' ? 'user-1' : 'system',
      now,
    }) as const;

  test('switching on records the account; on again for it changes nothing', () => {
    spec.given([]).when(enable()).then([enabled()]);
    spec.given([enabled()]).when(enable()).then([]);
    spec
      .given([enabled()])
      .when(enable())
      .thenState((s) => expect(s).toMatchObject({ status: 'on', socialAccountId: acc }));
  });

  test('switching on for another account switches the read over to it', () => {
    spec
      .given([enabled()])
      .when(enable(other))
      .then([enabled(other)]);
  });

  test('switching on after off switches on again', () => {
    spec.given([enabled(), disabled()]).when(enable()).then([enabled()]);
  });

  test('an empty account id is refused, naming it', () => {
    spec
      .given([])
      .when(enable(' '))
      .thenThrows(InvalidFields, /socialAccountId/);
  });

  test('switching off when on records it; off when off (or never on) changes nothing', () => {
    spec.given([enabled()]).when(disable()).then([disabled()]);
    spec.given([enabled(), disabled()]).when(disable()).then([]);
    spec.given([]).when(disable()).then([]);
  });

  test('an account gone switches it off only when it is the account read', () => {
    spec.given([enabled()]).when(disable('account_gone', other)).then([]);
    spec
      .given([enabled()])
      .when(disable('account_gone', acc))
      .then([disabled('account_gone')]);
  });
});

const day = (date: string, overrides: Partial<XAccountReadingData['days'][number]> = {}) => ({
  date,
  impressions: 100,
  engagements: 10,
  likes: 6,
  reposts: 1,
  replies: 1,
  quotes: 1,
  bookmarks: 1,
  posts: 1,
  repliesSent: 0,
  profileVisits: null,
  linkClicks: null,
  ...overrides,
});

function reading(overrides: Partial<XAccountReadingData> = {}): XAccountReadingData {
  const date = overrides.date ?? '2026-03-10';
  const from = overrides.from ?? '2026-03-08';
  return {
    orgId,
    socialAccountId: acc,
    accountExternalId: '2244994945',
    date,
    timezone: 'Europe/Berlin',
    from,
    initial: false,
    readAt: now,
    audience: { followers: 1000, following: 10, postCount: 500 },
    days: [day('2026-03-08'), day('2026-03-09'), day('2026-03-10')],
    postsRead: 3,
    creditsUsed: 1,
    ...overrides,
  };
}

describe('a reading', () => {
  const spec = deciderSpec(xAccountReadingDecider);
  const record = (r = reading()) => ({ type: 'RecordXAccountReading', reading: r }) as const;

  test('is recorded once: the same account and date again adds nothing', () => {
    spec
      .given([])
      .when(record())
      .then([{ type: 'XAccountRead', data: reading() }]);
    spec
      .given([{ type: 'XAccountRead', data: reading() }])
      .when(record(reading({ postsRead: 9 })))
      .then([]);
  });

  test('lists every day from its first to its date, in order', () => {
    spec
      .given([])
      .when(record(reading({ days: [day('2026-03-08'), day('2026-03-10')] })))
      .thenThrows(InvalidFields, /X account reading/);
    spec
      .given([])
      .when(record(reading({ days: [day('2026-03-09'), day('2026-03-08'), day('2026-03-10')] })))
      .thenThrows(InvalidFields);
  });

  test('covers one to thirty days', () => {
    spec
      .given([])
      .when(record(reading({ from: '2026-03-11', days: [] })))
      .thenThrows(InvalidFields);
    const from = addLocalDays('2026-03-10', -30);
    spec
      .given([])
      .when(record(reading({ from, days: Array.from({ length: 31 }, (_, i) => day(addLocalDays(from, i))) })))
      .thenThrows(InvalidFields);
    const thirty = addLocalDays('2026-03-10', -29);
    spec
      .given([])
      .when(
        record(
          reading({ from: thirty, days: Array.from({ length: 30 }, (_, i) => day(addLocalDays(thirty, i))) }),
        ),
      )
      .thenState((s) => expect(s.status).toBe('read'));
  });

  test('refuses numbers that do not add up, naming the field', () => {
    const refusal = (() => {
      try {
        xAccountReadingDecider.decide(
          record(
            reading({
              days: [
                day('2026-03-08', { engagements: 11 }),
                day('2026-03-09'),
                day('2026-03-10', { likes: -1 }),
              ],
            }),
          ),
          { status: 'none' },
        );
      } catch (error) {
        return error as InvalidFields;
      }
      throw new Error('expected a refusal');
    })();
    expect(refusal.details?.map((d) => d.path)).toEqual([
      'days.0.engagements',
      'days.2.likes',
      'days.2.engagements',
    ]);
  });

  test('refuses a date that is not a local date', () => {
    spec
      .given([])
      .when(record(reading({ date: '2026-02-30' })))
      .thenThrows(InvalidFields);
  });
});

describe('the days a reading covers', () => {
  test('switching on, or the first reading: the last 30 days', () => {
    expect(xAccountReadingFrom('2026-03-10', null, false)).toBe('2026-02-09');
    expect(xAccountReadingFrom('2026-03-10', '2026-03-09', true)).toBe('2026-02-09');
  });

  test('a daily reading: the last week, or back to the previous reading when older, at most 30 days', () => {
    expect(xAccountReadingFrom('2026-03-10', '2026-03-09', false)).toBe('2026-03-04');
    expect(xAccountReadingFrom('2026-03-10', '2026-03-01', false)).toBe('2026-03-01');
    expect(xAccountReadingFrom('2026-03-10', '2025-12-01', false)).toBe('2026-02-09');
  });
});

const post = (createdAt: string, overrides: Partial<XAccountPost> = {}): XAccountPost => ({
  id: createdAt,
  createdAt,
  kind: 'post',
  likes: 5,
  reposts: 2,
  replies: 1,
  quotes: 1,
  bookmarks: 1,
  impressions: 300,
  profileVisits: null,
  linkClicks: null,
  ...overrides,
});

describe("each local day's numbers", () => {
  test('a post counts on the local day it was made; every day is listed; days outside are left out', () => {
    const days = dailyNumbers(
      [
        // 23:30 UTC on the 8th is 00:30 on the 9th in Berlin.
        post('2026-03-08T23:30:00Z', { profileVisits: 4, linkClicks: 2 }),
        post('2026-03-09T10:00:00Z', { kind: 'reply', impressions: null }),
        post('2026-03-01T10:00:00Z'),
      ],
      { from: '2026-03-08', to: '2026-03-10', timezone: 'Europe/Berlin' },
    );
    expect(days.map((d) => d.date)).toEqual(['2026-03-08', '2026-03-09', '2026-03-10']);
    expect(days[0]).toMatchObject({ posts: 0, impressions: 0, profileVisits: null });
    expect(days[1]).toEqual({
      date: '2026-03-09',
      impressions: 300,
      engagements: 20,
      likes: 10,
      reposts: 4,
      replies: 2,
      quotes: 2,
      bookmarks: 2,
      posts: 1,
      repliesSent: 1,
      profileVisits: 4,
      linkClicks: 2,
    });
    expect(days[2]!.engagements).toBe(0);
  });

  test('totals add the days; private numbers stay null when no day has them; the rate has four decimals', () => {
    const days = dailyNumbers([post('2026-03-09T10:00:00Z')], {
      from: '2026-03-09',
      to: '2026-03-10',
      timezone: 'UTC',
    });
    expect(xAccountTotals(days)).toEqual({
      impressions: 300,
      engagements: 10,
      engagementRate: 0.0333,
      profileVisits: null,
      linkClicks: null,
      likes: 5,
      reposts: 2,
      replies: 1,
      quotes: 1,
      bookmarks: 1,
      posts: 1,
      repliesSent: 0,
    });
    expect(xAccountTotals([]).engagementRate).toBeNull();
    expect(engagementRate(5, 0)).toBeNull();
  });
});
