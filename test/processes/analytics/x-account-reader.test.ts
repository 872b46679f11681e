// The daily X account reader on the sandbox, driven by an injected clock: the day after switching on, two
// instances sweeping at once record one reading and charge one `x_account_read` (idempotent per day and account);
// the same day again reads nothing; a workspace held by another instance's live lease is left alone until the
// lease runs out; a failed reading charges nothing and is tried again after its pause; an account removed from
// the workspace switches the daily read off.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  xAccountAnalyticsStream,
  type XAccountReadingDeps,
} from '../../../commands/analytics/x-account-analytics.js';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../../commands/billing/credits.js';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import { addLocalDays, todayIn } from '../../../domain/scheduling/time.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { ConnectorError, type PlatformConnector } from '../../../infra/connectors/port.js';
import { createLogger } from '../../../infra/logging/logger.js';
import { latestXAccountReading } from '../../../projections/analytics/x-account-queries.js';
import { effectiveTimezoneOf } from '../../../projections/scheduling/queries.js';
import { XAccountReader } from '../../../processes/analytics/x-account-reader.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

const day = 24 * 3_600_000;
const logger = createLogger({ level: 'silent' });

let service: TestService;
let credits: CreditsService;
/** While set, the X connector's timeline read fails (X unavailable). */
let xDown = false;
let deps: XAccountReadingDeps;

beforeAll(async () => {
  service = await startTestService();
  const { runtime } = service;
  const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  const now = () => new Date();
  credits = new CreditsService({
    commands: runtime.commands,
    catalog,
    store: new CreditLedgerStore(runtime.database.db),
    now,
    ensureStarted: async (orgId) =>
      (await ensureStarted({ commands: runtime.commands, catalog, now }, orgId)).state,
    readModels: runtime.readModels,
  });
  const x = runtime.connectors.get('x');
  const flaky: PlatformConnector = Object.assign(Object.create(x) as PlatformConnector, {
    readXAccountActivity: (...args: Parameters<NonNullable<PlatformConnector['readXAccountActivity']>>) => {
      if (xDown)
        throw new ConnectorError('retryable', 'x (sandbox): unavailable (simulated)', { status: 503 });
      return x.readXAccountActivity!(...args);
    },
  });
  deps = {
    commands: runtime.commands,
    readModels: runtime.readModels,
    accounts: runtime.accounts,
    connectors: { get: (platform) => (platform === 'x' ? flaky : runtime.connectors.get(platform)) },
    credits,
    timezoneOf: (orgId) => effectiveTimezoneOf(runtime.readModels, orgId),
  };
}, 120_000);
afterAll(async () => service?.stop());

const reader = (owner: string, now: Date) =>
  new XAccountReader({ db: service.runtime.readModels, deps, logger, owner, now: () => now });

const balance = async (orgId: string) => (await credits.summaryOf(orgId)).creditBalance.total;
const readingDates = async (orgId: string) => {
  const { rows } = await service.runtime.database.pool.query<{ stream_name: string }>(
    `select distinct stream_name from es_events where stream_name like $1 order by stream_name`,
    [`xAccountReading-${orgId}_%`],
  );
  return rows.map((r) => r.stream_name.slice(-10));
};

/** A workspace with its X account's daily read switched on today. */
async function switchedOn(name: string): Promise<{ ws: TestWorkspace; accountId: string; today: string }> {
  const ws = await createTestWorkspace(service, name);
  const account = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x', {
    account: `reader_${name.toLowerCase()}`,
  });
  const res = await service.request('PUT', `/v1/orgs/${ws.orgId}/marketing/analytics/x-account`, {
    token: ws.tokens.owner,
    body: { enabled: true },
  });
  expect(res.status).toBe(200);
  const timezone = await effectiveTimezoneOf(service.runtime.readModels, ws.orgId);
  return { ws, accountId: account.id, today: todayIn(new Date().toISOString(), timezone) };
}

describe('the day after switching on', () => {
  test('two instances at once: one reading, one charge; the same day again reads nothing', async () => {
    const { ws, accountId, today } = await switchedOn('Twins');
    const before = await balance(ws.orgId);
    const tomorrow = new Date(Date.now() + day);
    const [a, b] = await Promise.all([reader('a', tomorrow).runOnce(), reader('b', tomorrow).runOnce()]);
    expect(await readingDates(ws.orgId)).toEqual([today, addLocalDays(today, 1)]);
    expect(await balance(ws.orgId)).toBe(before - 1);
    // Whichever got it read it; the other found it held or read already.
    expect(a.failed + b.failed).toBe(0);
    const reading = await latestXAccountReading(service.runtime.readModels, ws.orgId, accountId);
    expect(reading).toMatchObject({ date: addLocalDays(today, 1), readAt: tomorrow.toISOString() });

    const again = await reader('c', new Date(tomorrow.getTime() + 3_600_000)).runOnce();
    expect(again.read).toBe(0);
    expect(await readingDates(ws.orgId)).toHaveLength(2);
    expect(await balance(ws.orgId)).toBe(before - 1);
  });

  test('a live lease of another instance holds the workspace until it runs out', async () => {
    const { ws, today } = await switchedOn('Leased');
    const at = new Date(Date.now() + day);
    await sql`
      insert into x_account_read_leases (org_id, lease_owner, lease_until)
      values (${ws.orgId}, 'crashed', ${new Date(at.getTime() + 5 * 60_000).toISOString()})`.execute(
      service.runtime.readModels,
    );
    await reader('a', at).runOnce();
    expect(await readingDates(ws.orgId)).toEqual([today]);
    await reader('a', new Date(at.getTime() + 6 * 60_000)).runOnce();
    expect(await readingDates(ws.orgId)).toEqual([today, addLocalDays(today, 1)]);
  });
});

test('a failed reading charges nothing and is tried again after its pause', async () => {
  const { ws, today } = await switchedOn('Flaky');
  const before = await balance(ws.orgId);
  const at = new Date(Date.now() + day);
  xDown = true;
  try {
    const failed = await reader('a', at).runOnce();
    expect(failed.failed).toBeGreaterThanOrEqual(1);
  } finally {
    xDown = false;
  }
  expect(await balance(ws.orgId)).toBe(before);
  expect(await readingDates(ws.orgId)).toEqual([today]);
  const { rows } = await sql<{ attempts: number; retry_at: Date; last_error: string }>`
    select attempts, retry_at, last_error from x_account_read_leases where org_id = ${ws.orgId}`.execute(
    service.runtime.readModels,
  );
  expect(rows[0]).toMatchObject({ attempts: 1, last_error: expect.stringContaining('could not be reached') });
  expect(new Date(rows[0]!.retry_at).getTime()).toBe(at.getTime() + 15 * 60_000);

  // Not before its pause; then read, and the failures forgotten.
  await reader('a', new Date(at.getTime() + 10 * 60_000)).runOnce();
  expect(await readingDates(ws.orgId)).toEqual([today]);
  await reader('a', new Date(at.getTime() + 16 * 60_000)).runOnce();
  expect(await readingDates(ws.orgId)).toEqual([today, addLocalDays(today, 1)]);
  expect(await balance(ws.orgId)).toBe(before - 1);
  const { rows: after } = await sql<{ attempts: number }>`
    select attempts from x_account_read_leases where org_id = ${ws.orgId}`.execute(
    service.runtime.readModels,
  );
  expect(after[0]!.attempts).toBe(0);
});

test('an account removed from the workspace switches the daily read off', async () => {
  const { ws, accountId } = await switchedOn('Gone');
  const res = await service.request('DELETE', `${ws.base}/accounts/${accountId}`, { token: ws.tokens.owner });
  expect(res.status).toBe(200);
  const round = await reader('a', new Date(Date.now() + day)).runOnce();
  expect(round.stopped).toBeGreaterThanOrEqual(1);
  const events = await service.runtime.eventStore.readStream(xAccountAnalyticsStream(ws.orgId));
  expect(events.at(-1)).toMatchObject({
    type: 'XAccountAnalyticsDisabled',
    data: { reason: 'account_gone', by: 'system' },
  });
  const view = await service.request('GET', `/v1/orgs/${ws.orgId}/marketing/analytics/x-account`, {
    token: ws.tokens.viewer,
  });
  expect(((await view.json()) as { data: { enabled: boolean } }).data.enabled).toBe(false);
});
