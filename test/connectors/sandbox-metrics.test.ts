// The sandbox platforms' engagement numbers: deterministic per post and hour of age, growing with age and
// saturating after about three days, and following a weekly curve of the LOCAL weekday and hour of publication
// in the workspace's time zone, so the scheduler's history has a real signal to find.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import type { CallContext, PostMetricsReading } from '../../infra/connectors/port.js';
import {
  createSandboxConnector,
  issueAuthorizationCode,
  localSlot,
  sandboxAudience,
  sandboxMetrics,
  sandboxMigrations,
  setSandboxAccountRevoked,
  staticFaultSource,
  type SandboxTables,
} from '../../infra/connectors/sandbox/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { connectorFailure } from './support/connector-fixtures.js';

const hour = 3_600_000;
const engagement = (m: PostMetricsReading) => m.likes + m.reposts + m.replies + m.quotes + (m.bookmarks ?? 0);
const reading = (
  publishedAt: string,
  options: { externalId?: string; timezone?: string; ageMs?: number; platform?: Platform } = {},
) =>
  sandboxMetrics({
    platform: options.platform ?? 'x',
    externalId: options.externalId ?? '1790000000000000001',
    publishedAt,
    timezone: options.timezone ?? 'UTC',
    now: new Date(Date.parse(publishedAt) + (options.ageMs ?? 7 * 24 * hour)),
  });

describe('the curve', () => {
  it('gives the same numbers for the same post within the same hour of its age', () => {
    const at = '2026-03-03T10:00:00.000Z';
    expect(reading(at, { ageMs: 5 * hour })).toEqual(reading(at, { ageMs: 5 * hour + 59 * 60_000 }));
    expect(reading(at, { ageMs: 5 * hour })).not.toEqual(reading(at, { ageMs: 6 * hour }));
  });

  it('grows with the post age and saturates after about three days', () => {
    const at = '2026-03-03T10:00:00.000Z';
    const [h1, d1, d3, d7, d30] = [hour, 24 * hour, 72 * hour, 168 * hour, 720 * hour].map((ageMs) =>
      engagement(reading(at, { ageMs })),
    );
    expect(h1).toBeLessThan(d1!);
    expect(d1).toBeLessThan(d3!);
    expect(d3! / d30!).toBeGreaterThan(0.95);
    expect(d7! / d30!).toBeGreaterThan(0.99);
    expect(engagement(reading(at, { ageMs: 0 }))).toBe(0);
  });

  it('peaks on Tuesday to Thursday mid-morning and is weaker at night and at weekends', () => {
    // 2026-03-03 is a Tuesday.
    const tuesdayMorning = engagement(reading('2026-03-03T10:00:00.000Z'));
    const tuesdayNight = engagement(reading('2026-03-03T02:00:00.000Z'));
    const saturdayMorning = engagement(reading('2026-03-07T10:00:00.000Z'));
    const thursdayMorning = engagement(reading('2026-03-05T10:30:00.000Z'));
    expect(tuesdayMorning).toBeGreaterThan(4 * tuesdayNight);
    expect(tuesdayMorning).toBeGreaterThan(2 * saturdayMorning);
    expect(thursdayMorning).toBeGreaterThan(saturdayMorning);
  });

  it('reads the weekday and hour in the workspace time zone, with its daylight saving time', () => {
    // 14:00 UTC on a Tuesday is 10:00 in New York in summer (EDT), 09:00 in winter (EST); 15:00 UTC on that
    // Tuesday is already Wednesday 00:00 in Tokyo.
    expect(localSlot('2026-07-07T14:00:00.000Z', 'America/New_York')).toEqual({ weekday: 2, hour: 10 });
    expect(localSlot('2026-01-06T14:00:00.000Z', 'America/New_York')).toEqual({ weekday: 2, hour: 9 });
    expect(localSlot('2026-07-07T15:00:00.000Z', 'Asia/Tokyo')).toEqual({ weekday: 3, hour: 0 });
    expect(localSlot('2026-07-07T15:00:00.000Z', 'Not/AZone')).toEqual({ weekday: 2, hour: 15 });
    const sameInstant = '2026-07-07T14:00:00.000Z';
    expect(engagement(reading(sameInstant, { timezone: 'America/New_York' }))).toBeGreaterThan(
      3 * engagement(reading(sameInstant, { timezone: 'Asia/Tokyo' })),
    );
  });

  it('differs from post to post, and carries impressions and the platform counts it has', () => {
    const at = '2026-03-03T10:00:00.000Z';
    const a = reading(at, { externalId: 'a' });
    const b = reading(at, { externalId: 'b' });
    expect(a).not.toEqual(b);
    expect(a.impressions!).toBeGreaterThan(20 * engagement(a));
    expect(reading(at, { platform: 'linkedin' })).toMatchObject({ quotes: 0, bookmarks: null });
    expect(reading(at, { platform: 'x' }).bookmarks).not.toBeNull();
  });
});

describe('the connector', () => {
  let database: TestDatabase<SandboxTables>;
  let db: Kysely<SandboxTables>;
  const now = new Date('2026-03-05T12:00:00.000Z');
  beforeAll(async () => {
    database = await createTestDatabase<SandboxTables>(sandboxMigrations);
    db = database.db;
  });
  afterAll(async () => database?.drop());

  const connector = () =>
    createSandboxConnector('x', {
      db,
      publicBaseUrl: 'http://sandbox.test',
      faults: staticFaultSource('none'),
      pendingMs: 0,
      now: () => now,
    });

  async function connected(): Promise<CallContext> {
    const verifier = 'a-verifier-of-enough-length-0123456789-abcdefghij';
    const callbackUrl = 'http://sandbox.test/v1/marketing/oauth/x/callback';
    const { code } = await issueAuthorizationCode(db, {
      platform: 'x',
      accountHandle: `metrics_${Math.random().toString(36).slice(2, 8)}`,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      redirectUri: callbackUrl,
      now,
    });
    const result = await connector().completeAuthorization({
      params: { code },
      callbackUrl,
      codeVerifier: verifier,
    });
    if (result.kind !== 'accounts') throw new Error('expected accounts');
    const account = result.accounts[0]!;
    return {
      account: {
        id: '00000000-0000-4000-8000-000000000001',
        orgId: '00000000-0000-4000-8000-000000000002',
        platform: 'x',
        accountExternalId: account.profile.accountExternalId,
        accountHandle: account.profile.accountHandle,
        xSubscription: null,
      },
      tokens: account.tokens,
      fetchMedia: async () => {
        throw new Error('no media');
      },
    };
  }

  it('reads a published post, and not_found once it is deleted or for an id it never had', async () => {
    const context = await connected();
    const published = await connector().publish(context, {
      postId: 'post-m1',
      idempotencyKey: 'publish:post-m1:1',
      groupTitle: 'T',
      contentText: 'Metrics please',
      media: null,
      platformPayload: null,
      attemptStartedAt: '2026-03-03T10:00:00.000Z',
    });
    if (published.kind !== 'published') throw new Error('expected published');
    const request = {
      externalId: published.externalId,
      url: published.url,
      publishedAt: '2026-03-03T10:00:00.000Z',
      timezone: 'Europe/Berlin',
    };
    const fetched = await connector().fetchMetrics(context, request);
    expect(fetched).toEqual({
      kind: 'metrics',
      metrics: sandboxMetrics({ platform: 'x', ...request, now }),
    });
    expect(await connector().fetchMetrics(context, request)).toEqual(fetched);
    expect(
      await connector().fetchMetrics(context, { ...request, externalId: '1000000000000000000' }),
    ).toEqual({ kind: 'not_found' });
    await connector().delete(context, published.externalId);
    expect(await connector().fetchMetrics(context, request)).toEqual({ kind: 'not_found' });
  });

  it('reads many posts in one batch, each answered as a single read would', async () => {
    const context = await connected();
    const requests = [];
    for (const n of [1, 2]) {
      const published = await connector().publish(context, {
        postId: `post-b${n}`,
        idempotencyKey: `publish:post-b${n}:1`,
        groupTitle: 'T',
        contentText: `Batch ${n}`,
        media: null,
        platformPayload: null,
        attemptStartedAt: '2026-03-03T10:00:00.000Z',
      });
      if (published.kind !== 'published') throw new Error('expected published');
      requests.push({
        externalId: published.externalId,
        url: published.url,
        publishedAt: `2026-03-0${n + 1}T10:00:00.000Z`,
        timezone: 'UTC',
      });
    }
    const gone = { ...requests[0]!, externalId: '1000000000000000001' };
    const batch = await connector().fetchMetricsBatch!(context, [requests[1]!, gone, requests[0]!]);
    expect(batch).toEqual([
      await connector().fetchMetrics(context, requests[1]!),
      { kind: 'not_found' },
      await connector().fetchMetrics(context, requests[0]!),
    ]);
    expect(batch[0]).toEqual({
      kind: 'metrics',
      metrics: sandboxMetrics({ platform: 'x', ...requests[1]!, now }),
    });
  });

  it("answers the account's followers, following and published posts, growing with time", async () => {
    const context = await connected();
    const stats = await connector().accountStats(context);
    expect(stats).toEqual({
      ...sandboxAudience({ platform: 'x', accountExternalId: context.account.accountExternalId, now }),
      posts: 0,
    });
    expect(stats.followers).toBeGreaterThanOrEqual(300);
    await connector().publish(context, {
      postId: 'post-s1',
      idempotencyKey: 'publish:post-s1:1',
      groupTitle: 'T',
      contentText: 'Counted',
      media: null,
      platformPayload: null,
      attemptStartedAt: now.toISOString(),
    });
    expect((await connector().accountStats(context)).posts).toBe(1);
    // A month later: more followers; within the same hour: the same numbers.
    const later = (days: number) =>
      sandboxAudience({
        platform: 'x',
        accountExternalId: context.account.accountExternalId,
        now: new Date(now.getTime() + days * 86_400_000),
      });
    expect(later(30).followers).toBeGreaterThan(stats.followers);
    expect(later(30).following).toBeGreaterThanOrEqual(stats.following!);
    expect(
      sandboxAudience({
        platform: 'x',
        accountExternalId: context.account.accountExternalId,
        now: new Date(now.getTime() + 59 * 60_000),
      }),
    ).toEqual(sandboxAudience({ platform: 'x', accountExternalId: context.account.accountExternalId, now }));
  });

  it('refuses the follower counts to a grant without the scope, as the platform would', async () => {
    const context = await connected();
    const error = await connectorFailure(
      connector().accountStats({ ...context, tokens: { ...context.tokens, scopes: ['tweet.read'] } }),
    );
    expect(error).toMatchObject({ kind: 'permanent', details: { platformCode: 'needs_permission' } });
    expect(error.message).toMatch(/users\.read/);
  });

  it('refuses a revoked account like every other call', async () => {
    const context = await connected();
    await setSandboxAccountRevoked(db, 'x', context.account.accountExternalId, true);
    const error = await connectorFailure(
      connector().fetchMetrics(context, {
        externalId: '1',
        url: null,
        publishedAt: '2026-03-03T10:00:00.000Z',
        timezone: 'UTC',
      }),
    );
    expect(error.kind).toBe('auth');
  });
});
