// Follower counts on the sandbox: connecting an account puts it on the daily schedule, the reader (on a clock
// shared with the sandbox platform and the account access) records AccountStatsRead on the account's own stream
// with the sandbox's deterministic, growing numbers, a grant without the scope the platform needs is recorded as
// unavailable without asking the platform, a removed account is read no more, and the audience reader answers
// followers at a window's end, their change over it and each account's tracking.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { accountAudienceStream } from '../../../commands/analytics/audience-commands.js';
import { AccountAccess } from '../../../commands/social-accounts/account-access.js';
import { tokenStoreFor } from '../../../commands/social-accounts/social-account-commands.js';
import { audienceEventCodec, type AudienceEvent } from '../../../domain/analytics/audience-codec.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import type { ConnectorRegistry, PlatformConnector } from '../../../infra/connectors/port.js';
import {
  createSandboxConnector,
  sandboxAudience,
  setSandboxAccountRevoked,
  staticFaultSource,
} from '../../../infra/connectors/sandbox/index.js';
import { createLogger } from '../../../infra/logging/logger.js';
import { AccountStatsReader } from '../../../processes/analytics/account-stats-reader.js';
import { ACCOUNT_STATS_FIRST_READ_MS } from '../../../processes/analytics/account-stats-schedule.js';
import type { AccountStatsReadsTable } from '../../../processes/analytics/migrations.js';
import { createAudienceReader } from '../../../projections/analytics/audience.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

const hour = 3_600_000;
const day = 24 * hour;
const logger = createLogger({ level: 'silent' });

let service: TestService;
let ws: TestWorkspace;
/** The clock of the reader, of the sandbox platform it reads and of the account access it uses. */
let clock = new Date();
const accounts = {} as Record<
  'x' | 'bluesky' | 'tiktok' | 'linkedin',
  { id: string; accountExternalId: string }
>;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  for (const platform of ['x', 'bluesky', 'tiktok', 'linkedin'] as const)
    accounts[platform] = await connectSandboxAccount(
      service,
      { orgId: ws.orgId, userId: ws.userIds.owner },
      platform,
      { account: `audience_${platform}` },
    );
});
afterAll(async () => service?.stop());

function sandboxRegistry(): ConnectorRegistry {
  const built = new Map<Platform, PlatformConnector>();
  return {
    get(platform) {
      let connector = built.get(platform);
      if (!connector) {
        connector = createSandboxConnector(platform, {
          db: service.runtime.readModels,
          publicBaseUrl: 'http://localhost:3000',
          faults: staticFaultSource('none'),
          pendingMs: 0,
          now: () => clock,
        });
        built.set(platform, connector);
      }
      return connector;
    },
  };
}

function reader(owner = 'test-instance'): AccountStatsReader {
  const { runtime } = service;
  const connectors = sandboxRegistry();
  return new AccountStatsReader({
    db: runtime.readModels,
    commands: runtime.commands,
    connectors,
    accounts: new AccountAccess({
      db: runtime.readModels,
      commands: runtime.commands,
      tokens: tokenStoreFor(runtime.readModels, runtime.tokenCipher),
      connectors,
      logger,
      now: () => clock,
    }),
    logger,
    owner,
    now: () => clock,
  });
}

async function scheduleRow(accountId: string): Promise<AccountStatsReadsTable | undefined> {
  const { rows } = await sql<AccountStatsReadsTable>`
    select * from account_stats_reads where social_account_id = ${accountId}`.execute(
    service.runtime.readModels,
  );
  return rows[0];
}

async function events(accountId: string): Promise<AudienceEvent[]> {
  return audienceEventCodec.decodeAll(
    await service.runtime.eventStore.readStream(accountAudienceStream(accountId)),
  );
}

const expected = (platform: Platform, accountExternalId: string, at: Date) =>
  sandboxAudience({ platform, accountExternalId, now: at });

const audience = () => createAudienceReader(service.runtime.readModels);

let firstRead: Date;

describe('reading follower counts', () => {
  test('a connected account is due ten minutes later, then read daily; a grant without the scope is recorded unavailable', async () => {
    for (const platform of ['x', 'bluesky', 'tiktok', 'linkedin'] as const) {
      const row = await waitUntil(() => scheduleRow(accounts[platform].id), {
        what: `${platform} scheduled`,
      });
      expect(row).toMatchObject({ org_id: ws.orgId, platform, status: 'active' });
      // Connected at updated_at; due ten minutes after.
      expect(Date.parse(row!.next_read_at!)).toBe(Date.parse(row!.updated_at) + ACCOUNT_STATS_FIRST_READ_MS);
    }
    const instance = reader();
    clock = new Date();
    expect(await instance.runOnce()).toEqual({ read: 0, unavailable: 0, retried: 0, stopped: 0 });
    firstRead = new Date(Date.now() + ACCOUNT_STATS_FIRST_READ_MS + 60_000);
    clock = firstRead;
    expect(await instance.runOnce()).toEqual({ read: 2, unavailable: 2, retried: 0, stopped: 0 });
    expect(await instance.runOnce()).toEqual({ read: 0, unavailable: 0, retried: 0, stopped: 0 });

    const x = expected('x', accounts.x.accountExternalId, clock);
    expect(await events(accounts.x.id)).toEqual([
      {
        type: 'AccountStatsRead',
        data: {
          orgId: ws.orgId,
          socialAccountId: accounts.x.id,
          platform: 'x',
          followers: x.followers,
          following: x.following,
          posts: 0,
          readAt: clock.toISOString(),
        },
      },
    ]);
    // The sandbox grants TikTok and LinkedIn members what the live apps ask for, which lacks the stats scopes.
    expect(await events(accounts.tiktok.id)).toEqual([
      {
        type: 'AccountStatsUnavailable',
        data: expect.objectContaining({
          platform: 'tiktok',
          reason: 'needs_permission',
          missingScopes: ['user.info.stats'],
          at: clock.toISOString(),
        }),
      },
    ]);
    expect((await events(accounts.linkedin.id))[0]!.data).toMatchObject({
      missingScopes: ['r_member_profileAnalytics'],
    });
    expect(await scheduleRow(accounts.x.id)).toMatchObject({
      next_read_at: new Date(clock.getTime() + day).toISOString(),
      last_read_at: clock.toISOString(),
      attempts: 0,
      lease_owner: null,
    });

    // A day later: read again (the numbers grew); the refusal is not recorded twice.
    clock = new Date(firstRead.getTime() + day);
    expect(await instance.runOnce()).toEqual({ read: 2, unavailable: 2, retried: 0, stopped: 0 });
    const [first, second] = await events(accounts.bluesky.id);
    expect(second).toMatchObject({
      type: 'AccountStatsRead',
      data: { followers: expected('bluesky', accounts.bluesky.accountExternalId, clock).followers },
    });
    expect((second!.data as { followers: number }).followers).toBeGreaterThan(
      (first!.data as { followers: number }).followers,
    );
    expect(await events(accounts.tiktok.id)).toHaveLength(1);
  });

  test('two readers at once read an account once', async () => {
    clock = new Date(firstRead.getTime() + 2 * day);
    const [a, b] = await Promise.all([reader('instance-a').runOnce(), reader('instance-b').runOnce()]);
    expect(a.read + b.read).toBe(2);
    expect(await events(accounts.x.id)).toHaveLength(3);
  });
});

describe('the audience', () => {
  test('followers at the window’s end, their change since its start, and each account’s tracking', async () => {
    const pending = await connectSandboxAccount(
      service,
      { orgId: ws.orgId, userId: ws.userIds.owner },
      'threads',
      { account: 'audience_threads' },
    );
    await waitUntil(async () => {
      const rows = await sql<{ n: number }>`
        select count(*)::int as n from account_audience_readings where org_id = ${ws.orgId}`.execute(
        service.runtime.readModels,
      );
      return rows.rows[0]!.n === 6;
    });
    // The window ends between the second and third readings and starts between the first and second.
    const from = new Date(firstRead.getTime() + hour);
    const to = new Date(firstRead.getTime() + day + hour);
    const result = await audience().forOrg(ws.orgId, { from, to });
    const byId = new Map(result.accounts.map((a) => [a.socialAccountId, a]));
    const x0 = expected('x', accounts.x.accountExternalId, firstRead).followers;
    const x1 = expected('x', accounts.x.accountExternalId, new Date(firstRead.getTime() + day)).followers;
    expect(byId.get(accounts.x.id)).toEqual({
      socialAccountId: accounts.x.id,
      platform: 'x',
      name: expect.any(String),
      followers: x1,
      change: x1 - x0,
      tracking: 'live',
    });
    expect(byId.get(accounts.tiktok.id)).toMatchObject({
      followers: null,
      change: null,
      tracking: 'needs_permission',
    });
    expect(byId.get(accounts.linkedin.id)).toMatchObject({ tracking: 'needs_permission' });
    // Threads: its grant lacks threads_manage_insights, whatever has been read.
    expect(byId.get(pending.id)).toMatchObject({ followers: null, tracking: 'needs_permission' });
    expect(result.available).toBe(true);
    expect(result.note).toMatch(/once a day/);
    expect(result.note).toMatch(/3 accounts need reconnecting/);
    // Ordered by platform, then connection.
    expect(result.accounts.map((a) => a.platform)).toEqual(['bluesky', 'linkedin', 'threads', 'tiktok', 'x']);

    // A window that ends before any reading: nothing to show, but still tracked.
    const early = await audience().forOrg(ws.orgId, {
      from: new Date(firstRead.getTime() - 2 * day),
      to: new Date(firstRead.getTime() - day),
    });
    expect(early.available).toBe(false);
    expect(early.accounts.find((a) => a.socialAccountId === accounts.x.id)).toMatchObject({
      followers: null,
      change: null,
      tracking: 'live',
    });
    // A window that starts before the first reading: followers, but no change.
    const wide = await audience().forOrg(ws.orgId, { from: new Date(firstRead.getTime() - day), to });
    expect(wide.accounts.find((a) => a.socialAccountId === accounts.x.id)).toMatchObject({
      followers: x1,
      change: null,
    });
  });

  test('an account connected and not read yet is pending; one the platform stopped letting in needs reconnecting', async () => {
    const fresh = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x', {
      account: 'audience_x_second',
    });
    await waitUntil(() => scheduleRow(fresh.id));
    const now = new Date(firstRead.getTime() + 2 * day + hour);
    let result = await audience().forOrg(ws.orgId, { from: firstRead, to: now });
    expect(result.accounts.find((a) => a.socialAccountId === fresh.id)).toMatchObject({
      followers: null,
      tracking: 'pending',
    });
    // Bluesky revokes our access: the next read fails and the account needs reconnecting.
    await setSandboxAccountRevoked(
      service.runtime.readModels as never,
      'bluesky',
      accounts.bluesky.accountExternalId,
      true,
    );
    clock = new Date(firstRead.getTime() + 3 * day);
    const round = await reader().runOnce();
    expect(round.retried).toBeGreaterThanOrEqual(1);
    await waitUntil(async () => {
      const r = await audience().forOrg(ws.orgId, { from: firstRead, to: clock });
      return (
        r.accounts.find((a) => a.socialAccountId === accounts.bluesky.id)?.tracking === 'needs_permission'
      );
    });
    result = await audience().forOrg(ws.orgId, { from: firstRead, to: clock });
    // Its last count still shows.
    expect(result.accounts.find((a) => a.socialAccountId === accounts.bluesky.id)!.followers).not.toBeNull();
    expect(await scheduleRow(accounts.bluesky.id)).toMatchObject({ status: 'active', attempts: 1 });
  });

  test('a removed account is read no more and leaves the audience', async () => {
    const removed = await service.request('DELETE', `${ws.base}/accounts/${accounts.x.id}`, {
      token: ws.tokens.owner,
    });
    expect(removed.status).toBeLessThan(300);
    await waitUntil(async () => (await scheduleRow(accounts.x.id))?.status === 'stopped');
    const before = (await events(accounts.x.id)).length;
    clock = new Date(firstRead.getTime() + 10 * day);
    await reader().runOnce();
    expect(await events(accounts.x.id)).toHaveLength(before);
    const result = await audience().forOrg(ws.orgId, { from: firstRead, to: clock });
    expect(result.accounts.some((a) => a.socialAccountId === accounts.x.id)).toBe(false);
  });

  test('a workspace without accounts: nothing available, and it says so', async () => {
    const empty = await createTestWorkspace(service, 'Empty');
    expect(await audience().forOrg(empty.orgId, { from: new Date(0), to: new Date() })).toEqual({
      available: false,
      note: 'No social account is connected.',
      accounts: [],
    });
  });
});
