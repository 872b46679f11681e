// GET and PUT ORG/marketing/analytics/x-account (Tool: get_x_account_analytics) through the X sandbox: switching
// on reads the last 30 days at once and charges one `x_account_read`; on again, off and on again the same day
// read and charge nothing more (idempotent per day and account); the window, the window before, the audience and
// the days; 402 when the credits run out and 409 when X refuses, each switching nothing on and charging nothing;
// bad input 400 naming the field; roles and other workspaces refused; the tool for mcp:read.
import type { Kysely } from 'kysely';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { XAccountAnalyticsView } from '../../../commands/analytics/x-account-analytics.js';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../../commands/billing/credits.js';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import { addLocalDays, todayIn } from '../../../domain/scheduling/time.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { setSandboxAccountRevoked, type SandboxTables } from '../../../infra/connectors/sandbox/index.js';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let credits: CreditsService;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
  const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  const commands = service.runtime.commands;
  const now = () => new Date();
  credits = new CreditsService({
    commands,
    catalog,
    store: new CreditLedgerStore(service.runtime.database.db),
    now,
    ensureStarted: async (orgId) => (await ensureStarted({ commands, catalog, now }, orgId)).state,
    readModels: service.runtime.readModels,
  });
}, 120_000);
afterAll(async () => service?.stop());

const path = (w: TestWorkspace) => `/v1/orgs/${w.orgId}/marketing/analytics/x-account`;
const get = (w = ws, query = '', token = w.tokens.owner) =>
  service.request('GET', `${path(w)}${query}`, { token });
const put = (body: unknown, w = ws, token = w.tokens.owner) =>
  service.request('PUT', path(w), { token, body });
const view = async (res: Response) => ((await res.json()) as { data: XAccountAnalyticsView }).data;
const balance = async (orgId = ws.orgId) => (await credits.summaryOf(orgId)).creditBalance.total;
const readingStreams = async (orgId: string) => {
  const { rows } = await service.runtime.database.pool.query<{ n: string }>(
    `select count(distinct stream_name) as n from es_events where stream_name like $1`,
    [`xAccountReading-${orgId}_%`],
  );
  return Number(rows[0]!.n);
};

describe('switching on and reading', () => {
  test('before: off, no account, nothing read', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(await view(res)).toEqual({
      enabled: false,
      account: null,
      lastSyncedAt: null,
      windowDays: 30,
      totals: {
        impressions: 0,
        engagements: 0,
        engagementRate: null,
        profileVisits: null,
        linkClicks: null,
        likes: 0,
        reposts: 0,
        replies: 0,
        quotes: 0,
        bookmarks: 0,
        posts: 0,
        repliesSent: 0,
      },
      previous: null,
      audience: { followers: null, followerChange: null, following: null, postCount: null },
      days: [],
    });
  });

  test('on: the last 30 days read at once, one x_account_read charged; GET shows the same', async () => {
    const before = await balance();
    const res = await put({ enabled: true });
    expect(res.status).toBe(200);
    const on = await view(res);
    const today = todayIn(new Date().toISOString(), 'UTC');
    expect(on).toMatchObject({
      enabled: true,
      account: { handle: 'sandbox_x', socialAccountId: expect.any(String) },
      windowDays: 30,
      previous: null,
    });
    expect(on.days.map((d) => d.date)).toEqual(
      Array.from({ length: 30 }, (_, i) => addLocalDays(today, i - 29)),
    );
    expect(on.totals.posts + on.totals.repliesSent).toBeGreaterThan(0);
    expect(on.totals.impressions).toBe(on.days.reduce((n, d) => n + d.impressions, 0));
    expect(on.totals.engagements).toBe(
      on.totals.likes + on.totals.reposts + on.totals.replies + on.totals.quotes + on.totals.bookmarks,
    );
    expect(on.totals.engagementRate).toBe(
      Math.round((on.totals.engagements / on.totals.impressions) * 10_000) / 10_000,
    );
    expect(on.audience.followers).toBeGreaterThan(0);
    expect(on.lastSyncedAt).not.toBeNull();
    expect(await balance()).toBe(before - 1);
    expect(await view(await get(ws, '', ws.tokens.viewer))).toEqual(on);
  });

  test('on again, off, and on again the same day: nothing more read or charged; off keeps the numbers', async () => {
    const before = await balance();
    const streams = await readingStreams(ws.orgId);
    const again = await view(await put({ enabled: true }));
    expect(again.enabled).toBe(true);
    const off = await view(await put({ enabled: false }));
    expect(off.enabled).toBe(false);
    expect(off.days).toHaveLength(30);
    expect(off.totals).toEqual(again.totals);
    const onAgain = await view(await put({ enabled: true }));
    expect(onAgain.enabled).toBe(true);
    expect(onAgain.totals).toEqual(again.totals);
    expect(await balance()).toBe(before);
    expect(await readingStreams(ws.orgId)).toBe(streams);
  });

  test('a shorter window: its days, and the window before it', async () => {
    const week = await view(await get(ws, '?days=7'));
    expect(week.windowDays).toBe(7);
    expect(week.days).toHaveLength(7);
    expect(week.previous).not.toBeNull();
    expect(week.totals.posts).toBe(week.days.reduce((n, d) => n + d.posts, 0));
  });
});

describe('refusals', () => {
  test('bad input is a 400 naming the field and changes nothing', async () => {
    const before = await eventCount(service);
    for (const [query, field] of [
      ['?days=0', 'query.days'],
      ['?days=91', 'query.days'],
      ['?days=week', 'query.days'],
      ['?window=7', 'query'],
    ] as const) {
      const res = await get(ws, query);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(await res.json()), query).toContain(field);
    }
    for (const [body, field] of [
      [{}, 'body.enabled'],
      [{ enabled: 'yes' }, 'body.enabled'],
      [{ enabled: true, extra: 1 }, 'body'],
      [{ enabled: true, socialAccountId: 'x' }, 'body.socialAccountId'],
      [{ enabled: true, socialAccountId: '00000000-0000-4000-8000-000000000099' }, 'body.socialAccountId'],
    ] as const) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(await res.json()), JSON.stringify(body)).toContain(field);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('only owners and admins switch it; every member reads it; other workspaces are refused', async () => {
    for (const role of ['reviewer', 'editor', 'viewer'] as const)
      expect((await put({ enabled: false }, ws, ws.tokens[role])).status).toBe(403);
    for (const role of ['admin', 'reviewer', 'editor', 'viewer'] as const)
      expect((await get(ws, '', ws.tokens[role])).status).toBe(200);
    const other = await createTestWorkspace(service, 'Other');
    expect((await get(ws, '', other.tokens.owner)).status).toBe(403);
    expect((await put({ enabled: true }, ws, other.tokens.owner)).status).toBe(403);
    // Without an X account there is nothing to read.
    const none = await put({ enabled: true }, other);
    expect(none.status).toBe(409);
    expect(await none.json()).toMatchObject({ code: 'account_none' });
    expect((await view(await get(other))).enabled).toBe(false);
  });

  test('402 fair_use_limit when the credits run out: nothing is switched on or charged', async () => {
    const poor = await createTestWorkspace(service, 'Poor');
    await connectSandboxAccount(service, { orgId: poor.orgId, userId: poor.userIds.owner }, 'x');
    await credits.spend({
      orgId: poor.orgId,
      key: 'drain',
      credits: await balance(poor.orgId),
      metricKey: 'test',
    });
    const before = await eventCount(service);
    const res = await put({ enabled: true }, poor);
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: 'fair_use_limit' });
    expect(await eventCount(service)).toBe(before);
    expect(await view(await get(poor))).toMatchObject({ enabled: false, days: [] });
    // Switching off needs no credits.
    expect((await put({ enabled: false }, poor)).status).toBe(200);
  });

  test('a read X refuses (revoked access) switches nothing on and charges nothing', async () => {
    const revoked = await createTestWorkspace(service, 'Revoked');
    const acc = await connectSandboxAccount(
      service,
      { orgId: revoked.orgId, userId: revoked.userIds.owner },
      'x',
      {
        account: 'revoked_analytics',
      },
    );
    await setSandboxAccountRevoked(
      service.runtime.readModels as unknown as Kysely<SandboxTables>,
      'x',
      acc.accountExternalId,
      true,
    );
    const before = await balance(revoked.orgId);
    const res = await put({ enabled: true }, revoked);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'account_needs_reconnect' });
    expect(await balance(revoked.orgId)).toBe(before);
    expect(await readingStreams(revoked.orgId)).toBe(0);
    expect((await view(await get(revoked))).enabled).toBe(false);
  });
});

test('get_x_account_analytics for mcp:read answers what GET answers', async () => {
  const assistant = await connectAssistant(service, {
    userId: ws.userIds.viewer,
    orgId: ws.orgId,
    scopes: ['mcp:read'],
  });
  const result = (await assistant.client.callTool({
    name: 'get_x_account_analytics',
    arguments: { days: 7 },
  })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toEqual(await view(await get(ws, '?days=7')));
  expect(JSON.stringify(result.content)).toContain('over 7 days');
});
