// The reply inbox's auto refresh and refresh cursors against the service's database, event store and the sandbox
// connectors, on a clock of its own: a workspace with autoRefresh on is refreshed without anybody asking, once per
// interval; two instances at once refresh it once; a workspace whose subscription does not allow paid work is
// passed over; switching autoRefresh off stops it. X mentions and searches are read from where the last refresh
// stopped (since_id), so a refresh right after another reads (and charges) only newer posts; the settings'
// communities are read as community posts.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import { CreditsService } from '../../../commands/billing/credits.js';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import type { RefreshDeps } from '../../../commands/engagement/inbox-refresh.js';
import { readRefreshCursors } from '../../../commands/engagement/refresh-cursors.js';
import { InboxAutoRefresher } from '../../../processes/engagement/inbox-auto-refresh.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
let deps: RefreshDeps;
const silent = { info: () => {}, warn: () => {}, error: () => {} };

beforeAll(async () => {
  service = await startTestService({ env: { INBOX_AUTO_REFRESH_INTERVAL_MS: '0' } });
  const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  const commands = service.runtime.commands;
  const now = () => new Date();
  deps = {
    commands,
    idempotency: service.runtime.idempotency,
    readModels: service.runtime.readModels,
    accounts: service.runtime.accounts,
    connectors: service.runtime.connectors,
    credits: new CreditsService({
      commands,
      catalog,
      store: new CreditLedgerStore(service.runtime.database.db),
      now,
      ensureStarted: async (orgId) => (await ensureStarted({ commands, catalog, now }, orgId)).state,
      readModels: service.runtime.readModels,
    }),
    xPostCost: catalog.actionCost('x_post_read')!.credits,
  };
}, 120_000);
afterAll(async () => service?.stop());

async function call(w: TestWorkspace, method: string, rest: string, body?: unknown): Promise<Loose> {
  const res = await service.request(method, `/v1/orgs/${w.orgId}/engagement${rest}`, {
    token: w.tokens.owner,
    ...(body !== undefined ? { body } : {}),
  });
  const json = (await res.json()) as Loose;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data as Loose;
}

async function workspaceWithX(name: string): Promise<TestWorkspace> {
  const w = await createTestWorkspace(service, name);
  await connectSandboxAccount(service, { orgId: w.orgId, userId: w.userIds.owner }, 'x');
  return w;
}

function refresher(clock: { now: Date }, owner: string, mayPay: (orgId: string) => boolean = () => true) {
  return new InboxAutoRefresher({
    deps,
    db: service.runtime.readModels,
    mayPay: async (orgId) => mayPay(orgId),
    logger: silent,
    owner,
    refreshEveryMs: 30 * 60_000,
    now: () => clock.now,
  });
}

const total = async (w: TestWorkspace) => (await call(w, 'GET', '?status=all&limit=1')).total as number;

test('a workspace with autoRefresh on is refreshed once per interval, by one instance, until switched off', async () => {
  const w = await workspaceWithX('Auto refresh');
  const off = await workspaceWithX('No auto refresh');
  await call(off, 'PATCH', '/settings', { keywords: ['launch'] });
  await call(w, 'PATCH', '/settings', { keywords: ['launch'], autoRefresh: true });
  await waitUntil(async () => {
    const { rows } = await sql<{ auto_refresh: boolean }>`
      select auto_refresh from engagement_auto_refresh where org_id = ${w.orgId}`.execute(
      service.runtime.readModels,
    );
    return rows[0]?.auto_refresh === true;
  });
  const clock = { now: new Date() };
  const [a, b] = [refresher(clock, 'instance-a'), refresher(clock, 'instance-b')];

  // Two instances at once: the workspace is refreshed by one of them.
  const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
  const refreshed = [...ra.refreshed, ...rb.refreshed].filter((r) => r.orgId === w.orgId);
  expect(refreshed).toHaveLength(1);
  expect(refreshed[0]!.added).toBeGreaterThan(0);
  expect([...ra.refreshed, ...rb.refreshed].some((r) => r.orgId === off.orgId)).toBe(false);
  const afterFirst = await total(w);
  expect(afterFirst).toBe(refreshed[0]!.added);
  expect(await total(off)).toBe(0);

  // Within the interval: not due.
  clock.now = new Date(clock.now.getTime() + 10 * 60_000);
  expect((await a.runOnce()).refreshed.filter((r) => r.orgId === w.orgId)).toHaveLength(0);

  // Past it: refreshed again; the sandbox's timelines have moved on, so newer posts are added.
  clock.now = new Date(clock.now.getTime() + 25 * 60_000);
  const again = await a.runOnce();
  expect(again.refreshed.filter((r) => r.orgId === w.orgId)).toHaveLength(1);

  // A workspace that may not pay now is passed over.
  clock.now = new Date(clock.now.getTime() + 31 * 60_000);
  const broke = refresher(clock, 'instance-c', (orgId) => orgId !== w.orgId);
  const skipped = await broke.runOnce();
  expect(skipped.skipped).toContain(w.orgId);
  expect(skipped.refreshed.some((r) => r.orgId === w.orgId)).toBe(false);

  // Switched off: never again.
  await call(w, 'PATCH', '/settings', { autoRefresh: false });
  await waitUntil(async () => {
    const { rows } = await sql<{ auto_refresh: boolean }>`
      select auto_refresh from engagement_auto_refresh where org_id = ${w.orgId}`.execute(
      service.runtime.readModels,
    );
    return rows[0]?.auto_refresh === false;
  });
  clock.now = new Date(clock.now.getTime() + 60 * 60_000);
  expect((await a.runOnce()).refreshed.some((r) => r.orgId === w.orgId)).toBe(false);
});

test('X mentions and searches go on from where the last refresh stopped; communities are read', async () => {
  const w = await workspaceWithX('Cursors');
  await call(w, 'PATCH', '/settings', {
    keywords: ['scheduling'],
    communities: ['https://x.com/i/communities/1600000000000000001', '1600000000000000002'],
  });
  const settings = await call(w, 'GET', '/settings');
  expect(settings.communities).toEqual(['1600000000000000001', '1600000000000000002']);

  const first = await call(w, 'POST', '/refresh', {});
  expect(first.added).toBeGreaterThan(0);
  expect(first.communityFound).toBeGreaterThan(0);
  const community = (first.items as Loose[]).filter((i) => i.kind === 'community');
  expect(community.length).toBeGreaterThan(0);
  for (const item of community) expect(item.canSendFromApp).toBe(false);
  expect((first.items as Loose[]).some((i) => String(i.matchedBy).startsWith('community:'))).toBe(true);

  const cursors = await readRefreshCursors(service.runtime.readModels, w.orgId);
  expect(Object.keys(cursors).sort()).toEqual(['mention', 'search:(scheduling) -is:retweet']);
  // Right after: the mentions and the search read nothing at or before their cursor.
  const second = await call(w, 'POST', '/refresh', {});
  // Without the cursors the same timelines would be found again (mentionsFound counts posts found, new or not).
  expect(second.mentionsFound).toBeLessThan(first.mentionsFound);
  for (const item of second.items as Loose[])
    if (item.matchedBy === 'mention' || String(item.matchedBy).startsWith('search:'))
      expect(BigInt(item.externalPostId as string) > BigInt(cursors[item.matchedBy as string]!)).toBe(true);
  const afterSecond = await readRefreshCursors(service.runtime.readModels, w.orgId);
  for (const key of Object.keys(cursors))
    expect(BigInt(afterSecond[key]!) >= BigInt(cursors[key]!)).toBe(true);

  // A changed search starts afresh, and the old search's cursor is dropped.
  await call(w, 'PATCH', '/settings', { keywords: ['calendar'] });
  await call(w, 'POST', '/refresh', {});
  const changed = await readRefreshCursors(service.runtime.readModels, w.orgId);
  expect(Object.keys(changed).filter((k) => k.startsWith('search:'))).toEqual([
    expect.stringContaining('calendar'),
  ]);
});
