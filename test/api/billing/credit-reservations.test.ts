// Finding 9 at the credits use case on real PostgreSQL: withCredits reserves before the paid call, so parallel
// calls beyond the balance never run (402 fair_use_limit); a call that throws charges nothing; a hold whose
// caller crashed holds nothing once expired, and the next reservation records its release.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import {
  CREDIT_RESERVATION_TTL_MS,
  creditStream,
  CreditsService,
} from '../../../commands/billing/credits.js';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import { PaymentRequired } from '../../../domain/shared/errors.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace } from '../../support/workspace.js';

let service: TestService;
let credits: CreditsService;
let clock = new Date();

beforeAll(async () => {
  service = await startTestService();
  const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  const now = () => clock;
  const commands = service.runtime.commands;
  credits = new CreditsService({
    commands,
    catalog,
    store: new CreditLedgerStore(service.runtime.database.db),
    now,
    ensureStarted: async (orgId) => (await ensureStarted({ commands, catalog, now }, orgId)).state,
    readModels: service.runtime.readModels,
  });
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

async function orgWith(left: number): Promise<string> {
  clock = new Date();
  const { orgId } = await createTestWorkspace(service, 'Reservations');
  const total = (await credits.summaryOf(orgId)).creditBalance.total;
  await credits.spend({ orgId, key: 'drain', credits: total - left, metricKey: 'test' });
  return orgId;
}

const total = async (orgId: string) => (await credits.summaryOf(orgId)).creditBalance.total;

test('parallel paid calls beyond the balance are refused before they run', async () => {
  const orgId = await orgWith(30);
  let calls = 0;
  const outcomes = await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) =>
      credits.withCredits({ orgId, key: `call-${i}`, credits: 10, metricKey: 'paid' }, async () => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return i;
      }),
    ),
  );
  expect(calls).toBe(3);
  expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
  for (const o of outcomes.filter((o) => o.status === 'rejected'))
    expect(o.reason).toMatchObject({ code: 'fair_use_limit', status: 402 });
  expect(await total(orgId)).toBe(0);
});

test('a paid call that fails charges nothing; the actual amount is charged when less than reserved', async () => {
  const orgId = await orgWith(20);
  await expect(
    credits.withCredits({ orgId, key: 'boom', credits: 20, metricKey: 'paid' }, async () => {
      expect(await total(orgId)).toBe(0); // held while it runs
      throw new Error('provider down');
    }),
  ).rejects.toThrow('provider down');
  expect(await total(orgId)).toBe(20);
  const paid = await credits.withCredits(
    { orgId, key: 'cheap', credits: 20, metricKey: 'paid' },
    async () => 'done',
    { actual: () => ({ credits: 5 }) },
  );
  expect(paid).toMatchObject({ result: 'done', charge: { creditsUsed: 5, remainingCredits: 15 } });
  expect(await total(orgId)).toBe(15);
});

test('a hold left by a crash expires: the credits come back and the next reservation releases it', async () => {
  const orgId = await orgWith(10);
  await credits.reserve({ orgId, key: 'crashed', credits: 10, metricKey: 'paid' }); // never settled
  expect(await total(orgId)).toBe(0);
  await expect(credits.reserve({ orgId, key: 'next', credits: 1, metricKey: 'paid' })).rejects.toThrow(
    PaymentRequired,
  );
  clock = new Date(clock.getTime() + CREDIT_RESERVATION_TTL_MS + 1000);
  expect(await total(orgId)).toBe(10);
  const next = await credits.reserve({ orgId, key: 'next', credits: 10, metricKey: 'paid' });
  await credits.settle(next);
  const ledger = (await credits.openCurrentPeriod(orgId)) as { periodKey: string };
  const events = await service.runtime.commands.eventStore.readStream(creditStream(orgId, ledger.periodKey));
  const released = events.filter((e) => e.type === 'CreditReservationReleased');
  expect(released.map((e) => (e.data as { reservationKey: string; reason: string }).reason)).toEqual([
    'expired',
  ]);
  expect(await total(orgId)).toBe(0);
});
