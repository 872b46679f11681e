// The metrics cadence (1 h, 6 h, 24 h, then weekly to 30 days) and the rows the old schedule left behind, and
// the platforms' read budgets: what a take grants within a window and a limit, per app or per account, across
// windows and limits, and under concurrent takes (never more than the limit, as a property too).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  liveMetricsReadLimits,
  metricsReadLimitsOf,
  sandboxMetricsReadLimits,
} from '../../../infra/connectors/analytics-access.js';
import type { RateLimit } from '../../../infra/connectors/port.js';
import { analyticsMigrations, resumeFinishedReadings } from '../../../processes/analytics/migrations.js';
import {
  METRICS_FETCH_OFFSETS_MS,
  METRICS_WINDOW_MS,
  nextFetchAt,
} from '../../../processes/analytics/post-metrics-schedule.js';
import { ReadBudget } from '../../../processes/analytics/read-budget.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { propertyRuns } from '../../support/property-runs.js';

const hour = 3_600_000;
const day = 24 * hour;
const published = '2026-03-02T09:00:00.000Z';
const after = (ms: number) => new Date(Date.parse(published) + ms);

let database: TestDatabase<unknown>;
let db: Kysely<unknown>;
beforeAll(async () => {
  database = await createTestDatabase(analyticsMigrations);
  db = database.db;
});
afterAll(async () => database?.drop());

describe('the cadence', () => {
  test('readings at 1 h, 6 h, 24 h, 7, 14, 21 and 28 days, and a last one at 30 days', () => {
    expect(METRICS_FETCH_OFFSETS_MS).toEqual([
      hour,
      6 * hour,
      day,
      7 * day,
      14 * day,
      21 * day,
      28 * day,
      30 * day,
    ]);
    expect(METRICS_WINDOW_MS).toBe(30 * day);
    const walk: string[] = [];
    let at: Date | null = new Date(published);
    for (;;) {
      const next: string | null = nextFetchAt(published, at);
      if (next === null) break;
      walk.push(next);
      at = new Date(next);
    }
    expect(walk.map((t) => (Date.parse(t) - Date.parse(published)) / hour)).toEqual([
      1, 6, 24, 168, 336, 504, 672, 720,
    ]);
  });

  test('readings whose time passed unread are skipped, not taken one after another; nothing after 30 days', () => {
    expect(nextFetchAt(published, after(3 * day))).toBe(after(7 * day).toISOString());
    // A row of the old schedule read at +72 h moves on to the new cadence's next reading.
    expect(nextFetchAt(published, after(72 * hour + 5_000))).toBe(after(7 * day).toISOString());
    expect(nextFetchAt(published, after(29 * day))).toBe(after(30 * day).toISOString());
    expect(nextFetchAt(published, after(30 * day))).toBeNull();
  });

  test('property: the next reading is the first offset still ahead, never behind, none after 30 days', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -2 * day, max: 40 * day }),
        fc.integer({ min: 0, max: 5 * day }),
        (age, step) => {
          const at = after(age);
          const next = nextFetchAt(published, at);
          const due = METRICS_FETCH_OFFSETS_MS.map((o) => Date.parse(published) + o);
          if (next === null) {
            expect(at.getTime()).toBeGreaterThanOrEqual(due.at(-1)!);
            return;
          }
          const t = Date.parse(next);
          expect(t).toBeGreaterThan(at.getTime());
          expect(due).toContain(t);
          // No offset lies between now and the next reading: none is skipped that is still ahead.
          expect(due.filter((d) => d > at.getTime() && d < t)).toEqual([]);
          // Later readings never come earlier.
          const later = nextFetchAt(published, after(age + step));
          if (later !== null) expect(Date.parse(later)).toBeGreaterThanOrEqual(t);
        },
      ),
      { numRuns: propertyRuns(500) },
    );
  });

  test('rows the old schedule finished within 30 days are taken up again at their next reading; older ones stay done', async () => {
    const now = after(10 * day);
    const rows = {
      finishedRecently: randomUUID(),
      finishedLongAgo: randomUUID(),
      stillActive: randomUUID(),
      stopped: randomUUID(),
    };
    const insert = (postId: string, publishedAt: string, status: string, next: string | null) =>
      sql`
        insert into post_metrics_fetches (post_id, org_id, group_id, external_id, published_at, status, next_fetch_at, fetches)
        values (${postId}, ${randomUUID()}, ${randomUUID()}, 'x1', ${publishedAt}, ${status}, ${next}, 4)`.execute(
        db,
      );
    await insert(rows.finishedRecently, published, 'done', null);
    await insert(rows.finishedLongAgo, after(-40 * day).toISOString(), 'done', null);
    await insert(rows.stillActive, published, 'active', after(72 * hour).toISOString());
    await insert(rows.stopped, published, 'stopped', null);
    expect(await resumeFinishedReadings(db, now)).toBe(1);
    const { rows: found } = await sql<{ post_id: string; status: string; next_fetch_at: string | null }>`
      select post_id, status, next_fetch_at from post_metrics_fetches`.execute(db);
    const byId = new Map(found.map((r) => [r.post_id, r]));
    expect(byId.get(rows.finishedRecently)).toMatchObject({
      status: 'active',
      next_fetch_at: after(14 * day).toISOString(),
    });
    expect(byId.get(rows.finishedLongAgo)).toMatchObject({ status: 'done', next_fetch_at: null });
    // An active row of the old schedule keeps its due time (its next reading moves it onto the cadence).
    expect(byId.get(rows.stillActive)).toMatchObject({
      status: 'active',
      next_fetch_at: after(72 * hour).toISOString(),
    });
    expect(byId.get(rows.stopped)).toMatchObject({ status: 'stopped' });
  });
});

describe('read budgets', () => {
  const perAccount: RateLimit = { requests: 10, windowMs: 15 * 60_000, per: 'account' };
  const perApp: RateLimit = { requests: 25, windowMs: 60_000, per: 'app' };
  const t0 = new Date('2026-03-02T09:00:00.000Z');
  let budget: ReadBudget;
  beforeEach(async () => {
    await sql`delete from metrics_read_budgets`.execute(db);
    budget = new ReadBudget(db);
  });

  test('grants what is left of the window, then nothing, and when its next window opens', async () => {
    expect(await budget.take('x', 'acc-1', [perAccount], 6, t0)).toEqual({ granted: 6, nextWindowAt: null });
    expect(await budget.take('x', 'acc-1', [perAccount], 6, t0)).toEqual({
      granted: 4,
      nextWindowAt: new Date('2026-03-02T09:15:00.000Z'),
    });
    expect(await budget.take('x', 'acc-1', [perAccount], 1, new Date(t0.getTime() + 60_000))).toMatchObject({
      granted: 0,
    });
    // Another account has its own; the next window starts afresh.
    expect(await budget.take('x', 'acc-2', [perAccount], 10, t0)).toMatchObject({ granted: 10 });
    expect(
      await budget.take('x', 'acc-1', [perAccount], 10, new Date('2026-03-02T09:15:00.000Z')),
    ).toMatchObject({ granted: 10 });
  });

  test("an app-wide limit is shared by every account, and a tighter limit's shortfall is given back to the others", async () => {
    expect(await budget.take('reddit', 'acc-1', [perApp], 20, t0)).toMatchObject({ granted: 20 });
    expect(await budget.take('reddit', 'acc-2', [perApp], 20, t0)).toMatchObject({ granted: 5 });
    // Per account 10, app 25 already spent 25 in this minute: nothing, and the account's window is not charged.
    expect(await budget.take('reddit', 'acc-3', [perAccount, perApp], 8, t0)).toMatchObject({ granted: 0 });
    const nextMinute = new Date(t0.getTime() + 60_000);
    expect(await budget.take('reddit', 'acc-3', [perAccount, perApp], 10, nextMinute)).toMatchObject({
      granted: 10,
    });
  });

  test('requests taken but not made are refunded to the window they were taken in', async () => {
    expect(await budget.take('youtube', 'acc-1', [perAccount], 10, t0)).toMatchObject({ granted: 10 });
    await budget.refund('youtube', 'acc-1', [perAccount], 4, t0);
    expect(await budget.take('youtube', 'acc-1', [perAccount], 10, t0)).toMatchObject({ granted: 4 });
  });

  test('property: concurrent takes never grant more than the limit within a window', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 30 }),
        async (asks, limit) => {
          const platform = 'tiktok';
          const scope = randomUUID();
          const rule: RateLimit = { requests: limit, windowMs: 60_000, per: 'account' };
          const grants = await Promise.all(asks.map((n) => budget.take(platform, scope, [rule], n, t0)));
          const granted = grants.reduce((sum, g) => sum + g.granted, 0);
          expect(granted).toBe(
            Math.min(
              limit,
              asks.reduce((a, b) => a + b, 0),
            ),
          );
          for (const [i, g] of grants.entries()) expect(g.granted).toBeLessThanOrEqual(asks[i]!);
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  test('each platform has documented limits; the sandbox a generous one; no batch read means one post a request', () => {
    for (const limits of Object.values(liveMetricsReadLimits)) {
      expect(limits.limits.length).toBeGreaterThan(0);
      for (const l of limits.limits) expect(l.requests).toBeGreaterThan(0);
    }
    expect(liveMetricsReadLimits.x).toMatchObject({ postsPerRequest: 100 });
    expect(liveMetricsReadLimits.x.limits[0]).toEqual({
      requests: 900,
      windowMs: 15 * 60_000,
      per: 'account',
    });
    expect(
      metricsReadLimitsOf({
        platform: 'x',
        mode: 'live',
        metricsReadLimits: undefined,
        fetchMetricsBatch: undefined,
      }),
    ).toMatchObject({ postsPerRequest: 1 });
    expect(
      metricsReadLimitsOf({
        platform: 'x',
        mode: 'sandbox',
        metricsReadLimits: undefined,
        fetchMetricsBatch: async () => [],
      }),
    ).toEqual(sandboxMetricsReadLimits);
  });
});
