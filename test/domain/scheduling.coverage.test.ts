// Schedule coverage, pure: each status (covered, gap, clustered, waiting), targets from a strategy, today's closed
// windows, days over the cap, the overall status, and local days across a DST change.
import { describe, expect, test } from 'vitest';
import {
  assessCoverage,
  type CoverageChannelInput,
  type CoverageInput,
} from '../../domain/scheduling/coverage.js';
import { resolveProfile } from '../../domain/scheduling/profile.js';
import { emptySchedulingSettings } from '../../domain/scheduling/types.js';

// Monday 2026-11-23 07:00 in UTC: the b2b X windows (Mon–Fri 08–10, 12–13, 17–18) are all still ahead today.
const monday = '2026-11-23T07:00:00.000Z';
const profile = resolveProfile(emptySchedulingSettings, null); // b2b, UTC, 2 a day, no weekends

const at = (day: string, time = '09:00') => new Date(`${day}T${time}:00.000Z`).toISOString();
const scheduled = (day: string, time?: string) => ({ status: 'scheduled' as const, at: at(day, time) });

function coverage(channel: Partial<CoverageChannelInput>, overrides: Partial<CoverageInput> = {}) {
  const result = assessCoverage({
    now: monday,
    days: 7,
    timezone: 'UTC',
    profile,
    channels: [{ platform: 'x', postsPerWeek: null, posts: [], ...channel }],
    ...overrides,
  });
  return { ...result.channels[0]!, overall: result.overallStatus, pending: result.pendingApprovalTotal };
}

const weekdays = ['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'];

describe('schedule coverage', () => {
  test('a post on every posting day (weekdays for b2b) covers the week; weekends are not gaps', () => {
    const result = coverage({ posts: weekdays.map((d) => scheduled(d)) });
    expect(result).toMatchObject({
      status: 'covered',
      scheduledCount: 5,
      nextGapAt: null,
      overall: 'covered',
    });
    expect(result.notes[0]).toMatch(/on track/);
  });

  test('nothing planned: a gap from the first posting window, with a note on what to do', () => {
    const result = coverage({ posts: [] });
    expect(result).toMatchObject({
      status: 'gap',
      nextGapAt: at('2026-11-23', '08:00'),
      overall: 'needs_attention',
    });
    expect(result.notes.join(' ')).toMatch(/slots/);
  });

  test('two quiet posting days in a row make a gap; it starts at the first one', () => {
    const result = coverage({
      posts: [scheduled('2026-11-23'), scheduled('2026-11-24'), scheduled('2026-11-27')],
    });
    expect(result).toMatchObject({ status: 'gap', nextGapAt: at('2026-11-25', '08:00') });
  });

  test('the target met but the posts bunched at the start, the rest of the week quiet: clustered', () => {
    const result = coverage({
      postsPerWeek: 3,
      posts: [scheduled('2026-11-23', '08:00'), scheduled('2026-11-23', '12:00'), scheduled('2026-11-24')],
    });
    expect(result).toMatchObject({
      status: 'clustered',
      targetPosts: 3,
      nextGapAt: at('2026-11-25', '08:00'),
    });
    expect(result.notes.join(' ')).toMatch(/bunched together/);
  });

  test('short of the strategy target, with enough posts waiting for approval: waiting', () => {
    const result = coverage({
      postsPerWeek: 5,
      posts: [
        scheduled('2026-11-23'),
        scheduled('2026-11-24'),
        { status: 'pending_approval', at: null },
        { status: 'pending_approval', at: null },
        { status: 'pending_approval', at: at('2026-11-26') },
      ],
    });
    expect(result).toMatchObject({ status: 'waiting', targetPosts: 5, pendingApprovalCount: 3, pending: 3 });
    expect(result.notes.join(' ')).toMatch(/3 more needed/);
    expect(result.notes.join(' ')).toMatch(/approving them would cover/);
  });

  test('short of the target with nothing waiting: gap; the target scales with the window', () => {
    const result = coverage({ postsPerWeek: 3, posts: [scheduled('2026-11-23')] }, { days: 14 });
    expect(result).toMatchObject({ status: 'gap', targetPosts: 6 });
  });

  test('a channel the strategy switches off (target 0) is covered with nothing planned, and says why', () => {
    const result = coverage({ postsPerWeek: 0, posts: [] });
    expect(result).toMatchObject({ status: 'covered', targetPosts: 0, nextGapAt: null });
    expect(result.notes.join(' ')).toMatch(/switched off in the active strategy/);
  });

  test('a day over maxPostsPerDay is clustered even when the target is met', () => {
    const result = coverage(
      {
        postsPerWeek: 3,
        posts: [
          scheduled('2026-11-24', '08:00'),
          scheduled('2026-11-24', '12:00'),
          scheduled('2026-11-24', '17:00'),
        ],
      },
      { days: 2 },
    );
    expect(result.status).toBe('clustered');
    expect(result.notes.join(' ')).toMatch(/Tue 24 Nov has 3 posts, above the 2 a day/);
  });

  test("published posts count; today's windows once closed no longer open a gap", () => {
    const evening = '2026-11-23T19:00:00.000Z';
    const result = coverage(
      {
        posts: [
          { status: 'published', at: at('2026-11-23', '09:00') },
          ...weekdays.slice(1).map((d) => scheduled(d)),
        ],
      },
      { now: evening },
    );
    expect(result).toMatchObject({ status: 'covered', publishedCount: 1, scheduledCount: 4 });
    const quietToday = coverage({ posts: weekdays.slice(1).map((d) => scheduled(d)) }, { now: evening });
    expect(quietToday.status).toBe('covered');
  });

  test('posts outside the window do not count', () => {
    const result = coverage({ posts: [scheduled('2026-12-10'), scheduled('2026-11-20')] });
    expect(result).toMatchObject({ scheduledCount: 0, status: 'gap' });
  });

  test('local days in the time zone, across the end of summer time', () => {
    // Europe/Berlin leaves summer time on Sunday 2026-10-25; Monday's 08:00 is then 07:00 UTC, not 06:00.
    const berlin = resolveProfile(emptySchedulingSettings, 'Europe/Berlin');
    const result = assessCoverage({
      now: '2026-10-24T10:00:00.000Z',
      days: 3,
      timezone: 'Europe/Berlin',
      profile: berlin,
      channels: [{ platform: 'x', postsPerWeek: null, posts: [] }],
    });
    expect(result.channels[0]!.nextGapAt).toBe('2026-10-26T07:00:00.000Z');
  });

  test('no channels: needs attention', () => {
    expect(assessCoverage({ now: monday, days: 7, timezone: 'UTC', profile, channels: [] })).toEqual({
      windowDays: 7,
      timezone: 'UTC',
      overallStatus: 'needs_attention',
      channels: [],
      pendingApprovalTotal: 0,
    });
  });
});
