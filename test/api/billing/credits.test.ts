// The credit ledger through the whole service on real PostgreSQL: credits.spend (priced by an action, idempotent
// by key), 50 concurrent spends from two service instances racing for the last 10 credits (exactly 10 succeed, the
// ledger sums), a debit that does not fit answering 402 fair_use_limit and changing nothing, 402
// subscription_required once the trial is canceled, a credit pack added once by the credit periods process, a
// new paid period opened with the rollover and the purchased credits carried, GET ORG/billing showing the
// ledger's balance, and GET ORG/billing/credits/usage (filters, paging, billing list envelope, 400, 401, 403).
import { randomUUID } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import { creditStream, CreditsService, type SpendOutcome } from '../../../commands/billing/credits.js';
import {
  applyNotice,
  ensureStarted,
  type SubscriptionCommandDeps,
} from '../../../commands/billing/subscription-commands.js';
import { creditLedgerDecider, finePeriodKeyOf, periodKeyOf } from '../../../domain/billing/credits.js';
import { PaymentRequired } from '../../../domain/shared/errors.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { loadAggregate } from '../../../commands/shared/command-handler.js';
import { creditsProjection } from '../../../projections/billing/credits-projection.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { waitUntil } from '../../support/wait.js';

let service: TestService;
/** A second instance of the service on the same database (its own process-local queue and pool). */
let second: TestService;
let catalog: BillingCatalog;
let credits: CreditsService;
let creditsOnSecond: CreditsService;
let subscriptionDeps: SubscriptionCommandDeps;

function creditsOf(s: TestService, options: { readYourWrites: boolean }): CreditsService {
  const commands = options.readYourWrites
    ? s.runtime.commands
    : { ...s.runtime.commands, waitForProjections: undefined };
  const deps = { commands, catalog, now: () => new Date() };
  return new CreditsService({
    commands,
    catalog,
    store: new CreditLedgerStore(s.runtime.database.db),
    now: deps.now,
    ensureStarted: async (orgId) => (await ensureStarted(deps, orgId)).state,
    readModels: s.runtime.readModels,
  });
}

beforeAll(async () => {
  service = await startTestService();
  second = await startTestService({ database: service.database, background: false });
  catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  credits = creditsOf(service, { readYourWrites: true });
  // The second instance runs no read models; it does not wait for them.
  creditsOnSecond = creditsOf(second, { readYourWrites: false });
  subscriptionDeps = { commands: service.runtime.commands, catalog, now: () => new Date() };
}, 120_000);

afterAll(async () => {
  await second?.runtime.stop();
  await service?.stop();
});

const trialAllowance = () => catalog.plan(catalog.config.trialPlanKey)!.monthlyCredits;

async function ledgerOf(orgId: string) {
  const summary = await credits.summaryOf(orgId);
  return summary;
}

/** Events in the workspace's credit streams (the whole store also gets other slices' background events). */
async function ledgerEvents(orgId: string): Promise<number> {
  const { rows } = await service.runtime.database.pool.query<{ n: string }>(
    `select count(*) as n from es_events where stream_name like $1`,
    [`credits-${orgId}\\_%`],
  );
  return Number(rows[0]!.n);
}

async function currentStream(orgId: string) {
  const { state } = await ensureStarted(subscriptionDeps, orgId);
  const start = state.status === 'trialing' ? state.trialStart! : state.currentPeriodStart!;
  return creditStream(orgId, periodKeyOf(start));
}

describe('credits.spend', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createTestWorkspace(service, 'Spender');
  });

  test('charges an action cost × quantity, monthly credits first, and answers the balance', async () => {
    const outcome = await credits.spend({
      orgId: ws.orgId,
      key: 'draft-1',
      actionKey: 'ai_draft',
      quantity: 3,
    });
    expect(outcome).toMatchObject({
      creditsUsed: 6,
      fromMonthly: 6,
      fromPurchased: 0,
      remainingCredits: trialAllowance() - 6,
      replayed: false,
    });
    const summary = await ledgerOf(ws.orgId);
    expect(summary.creditBalance).toMatchObject({
      monthly: trialAllowance() - 6,
      purchased: 0,
      total: trialAllowance() - 6,
    });
    expect(summary.usageSummary).toMatchObject({
      periodUsedCredits: 6,
      periodAllowanceCredits: trialAllowance(),
    });
    // Read-your-writes: the transaction is listed at once, its amount negative.
    expect(summary.recentCreditTransactions[0]).toMatchObject({
      type: 'spend',
      amount: -6,
      monthlyCreditsAfter: trialAllowance() - 6,
      purchasedCreditsAfter: 0,
    });
    expect(summary.recentCreditTransactions.at(-1)).toMatchObject({
      type: 'grant',
      amount: trialAllowance(),
    });
  });

  test('the same key again answers the first debit and records nothing', async () => {
    const before = await ledgerEvents(ws.orgId);
    const again = await credits.spend({
      orgId: ws.orgId,
      key: 'draft-1',
      actionKey: 'ai_draft',
      quantity: 5,
    });
    expect(again).toMatchObject({ creditsUsed: 6, remainingCredits: trialAllowance() - 6, replayed: true });
    // Also from the other instance.
    const there = await creditsOnSecond.spend({ orgId: ws.orgId, key: 'draft-1', actionKey: 'ai_draft' });
    expect(there).toMatchObject({ creditsUsed: 6, replayed: true });
    expect(await ledgerEvents(ws.orgId)).toBe(before);
  });

  test('a debit that does not fit answers 402 fair_use_limit and changes nothing', async () => {
    const before = await ledgerEvents(ws.orgId);
    const { creditBalance } = await ledgerOf(ws.orgId);
    const refused = await credits
      .spend({ orgId: ws.orgId, key: 'too-much', metricKey: 'x_post_read', credits: creditBalance.total + 1 })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaymentRequired);
    expect((refused as PaymentRequired).code).toBe('fair_use_limit');
    expect(await ledgerEvents(ws.orgId)).toBe(before);
    expect((await ledgerOf(ws.orgId)).creditBalance.total).toBe(creditBalance.total);
  });

  test('bad input is refused by field name and records nothing', async () => {
    const before = await ledgerEvents(ws.orgId);
    await expect(
      credits.spend({ orgId: ws.orgId, key: 'k', actionKey: 'no_such_action' }),
    ).rejects.toMatchObject({
      status: 400,
      details: [{ path: 'actionKey' }],
    });
    await expect(
      credits.spend({ orgId: ws.orgId, key: 'k', metricKey: 'm', credits: -1 }),
    ).rejects.toMatchObject({
      details: [{ path: 'credits' }],
    });
    await expect(
      credits.spend({ orgId: ws.orgId, key: '', metricKey: 'm', credits: 1 }),
    ).rejects.toMatchObject({
      details: [{ path: 'key' }],
    });
    expect(await ledgerEvents(ws.orgId)).toBe(before);
  });
});

describe('50 concurrent spends racing for the last 10 credits, from two instances', () => {
  test('exactly 10 succeed, 40 get 402 fair_use_limit, and the ledger sums', async () => {
    const ws = await createTestWorkspace(service, 'Race');
    const allowance = trialAllowance();
    await credits.spend({ orgId: ws.orgId, key: 'fill', metricKey: 'setup', credits: allowance - 10 });

    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? credits : creditsOnSecond).spend({
          orgId: ws.orgId,
          key: `race-${i}`,
          metricKey: 'x_post_read',
          credits: 1,
        }),
      ),
    );
    const succeeded = results.filter(
      (r): r is PromiseFulfilledResult<SpendOutcome> => r.status === 'fulfilled',
    );
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(succeeded).toHaveLength(10);
    expect(failed).toHaveLength(40);
    for (const f of failed) {
      expect(f.reason).toBeInstanceOf(PaymentRequired);
      expect((f.reason as PaymentRequired).code).toBe('fair_use_limit');
    }
    // Each success saw a different balance: 9, 8, …, 0 left.
    expect(succeeded.map((s) => s.value.remainingCredits).sort((a, b) => a - b)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);

    const { state } = await loadAggregate(
      service.runtime.eventStore,
      await currentStream(ws.orgId),
      creditLedgerDecider,
    );
    if (state.status !== 'open') throw new Error(`ledger is ${state.status}`);
    const debits = Object.values(state.spends);
    expect(debits).toHaveLength(11);
    expect(debits.reduce((n, d) => n + d.credits, 0)).toBe(allowance);
    expect(state.monthly + state.purchased).toBe(0);
    expect(state.used).toBe(allowance);

    // The usage read model lists every debit once (the second instance does not wait for read models).
    await waitUntil(
      async () => {
        const res = await service.request(
          'GET',
          `/v1/orgs/${ws.orgId}/billing/credits/usage?metricKey=x_post_read&limit=100`,
          { token: ws.tokens.owner },
        );
        const body = (await res.json()) as {
          data: { data: Array<{ amountUsed: number }>; metadata: { total: number } };
        };
        return body.data.metadata.total === 10 && body.data.data.every((r) => r.amountUsed === 1);
      },
      { what: 'the 10 debits in the usage read model' },
    );
  }, 60_000);

  test('50 concurrent spends that all fit all succeed: none exhausts the retries, none is lost', async () => {
    const ws = await createTestWorkspace(service, 'Crowd');
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? credits : creditsOnSecond).spend({
          orgId: ws.orgId,
          key: `crowd-${i}`,
          metricKey: 'x_post_read',
          credits: 2,
        }),
      ),
    );
    const refused: unknown[] = [];
    for (const r of results) if (r.status === 'rejected') refused.push(r.reason);
    expect(refused).toEqual([]);
    const { state } = await loadAggregate(
      service.runtime.eventStore,
      await currentStream(ws.orgId),
      creditLedgerDecider,
    );
    if (state.status !== 'open') throw new Error(`ledger is ${state.status}`);
    expect(Object.keys(state.spends)).toHaveLength(50);
    expect(state.monthly).toBe(trialAllowance() - 100);
  }, 60_000);
});

describe('subscription', () => {
  test('a canceled trial answers 402 subscription_required and records nothing', async () => {
    const ws = await createTestWorkspace(service, 'Canceled');
    const cancel = await service.request('POST', `/v1/orgs/${ws.orgId}/billing/subscription/cancel`, {
      token: ws.tokens.owner,
      body: {},
    });
    expect(cancel.status).toBe(200);
    // The credit periods process opens the trial's ledger in the background; measure after it.
    await waitUntil(async () => (await ledgerEvents(ws.orgId)) > 0, { what: "the trial's ledger" });
    const before = await ledgerEvents(ws.orgId);
    const refused = await credits
      .spend({ orgId: ws.orgId, key: 'after-cancel', actionKey: 'ai_draft' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaymentRequired);
    expect((refused as PaymentRequired).code).toBe('subscription_required');
    expect(await ledgerEvents(ws.orgId)).toBe(before);
  });

  test('a completed credit pack is added once; a new paid period carries rollover and purchases', async () => {
    const ws = await createTestWorkspace(service, 'Packs');
    const pro = trialAllowance();
    await credits.spend({ orgId: ws.orgId, key: 'use-some', metricKey: 'm', credits: 100 });
    const pack = catalog.pack('credits_500')!;
    const packNotice = (eventId: string) =>
      applyNotice(subscriptionDeps, {
        kind: 'transaction',
        provider: 'sandbox',
        eventId,
        occurredAt: new Date().toISOString(),
        orgId: ws.orgId,
        transactionId: `txn_pack_${ws.orgId.slice(0, 8)}`,
        type: 'credit_pack',
        status: 'completed',
        amount: pack.price,
        currency: 'USD',
        priceId: pack.providerPriceId,
        invoiceId: null,
        invoiceNumber: null,
        invoiceUrl: null,
        paidAt: new Date().toISOString(),
        createdAt: new Date().toISOString(),
      });
    await packNotice(`evt_pack_${ws.orgId.slice(0, 8)}`);
    const withPack = await waitUntil(
      async () => {
        const s = await ledgerOf(ws.orgId);
        return s.creditBalance.purchased === pack.credits ? s : null;
      },
      { what: 'the pack in the ledger' },
    );
    expect(withPack!.creditBalance).toMatchObject({
      monthly: pro - 100,
      purchased: 500,
      total: pro - 100 + 500,
    });
    expect(withPack!.usageSummary).toMatchObject({
      periodPurchasedCredits: 500,
      periodBudgetCredits: pro + 500,
    });
    // The same transaction again (a replayed job, or a second notice) adds nothing.
    const transactionId = `txn_pack_${ws.orgId.slice(0, 8)}`;
    expect(await credits.addPack(ws.orgId, { transactionId, packKey: pack.key, credits: pack.credits })).toBe(
      false,
    );
    expect((await ledgerOf(ws.orgId)).creditBalance.purchased).toBe(500);

    // The first paid period (Starter): the trial's ledger closes, what is left carries over.
    const start = new Date(Date.now() + 1000);
    const end = new Date(start.getTime() + 30 * 86_400_000);
    const starter = catalog.plan('starter')!;
    await applyNotice(subscriptionDeps, {
      kind: 'subscription',
      provider: 'sandbox',
      eventId: `evt_sub_${ws.orgId.slice(0, 8)}`,
      occurredAt: new Date().toISOString(),
      orgId: ws.orgId,
      status: 'active',
      providerCustomerId: 'ctm_1',
      providerSubscriptionId: 'sub_1',
      priceId: starter.providerPriceId!,
      currentPeriodStart: start.toISOString(),
      currentPeriodEnd: end.toISOString(),
      cancelAtPeriodEnd: false,
      pauseAtPeriodEnd: false,
    });
    const cap = Math.floor((starter.monthlyCredits * catalog.config.rollover.maxPercentOfAllowance) / 100);
    const rolled = catalog.config.rollover.enabled ? Math.min(pro - 100, cap) : 0;
    const paid = await waitUntil(
      async () => {
        const s = await ledgerOf(ws.orgId);
        return s.usageSummary.periodStart === start.toISOString() &&
          s.creditBalance.allowance === starter.monthlyCredits
          ? s
          : null;
      },
      { what: 'the paid period in the ledger' },
    );
    // The process opens it (the summary only reads: before that it shows what the period would open with).
    const { state } = (await waitUntil(
      async () => {
        const loaded = await loadAggregate(
          service.runtime.eventStore,
          creditStream(ws.orgId, periodKeyOf(start)),
          creditLedgerDecider,
        );
        return loaded.state.status === 'open' ? loaded : null;
      },
      { what: 'the credit periods process to open the paid period' },
    ))!;
    expect(state.status).toBe('open');
    expect(paid!.creditBalance).toEqual({
      monthly: starter.monthlyCredits + rolled,
      purchased: 500,
      allowance: starter.monthlyCredits,
      total: starter.monthlyCredits + rolled + 500,
      rollover: rolled,
    });
    // Monthly first, then purchased, in the new period too.
    const big = await credits.spend({
      orgId: ws.orgId,
      key: 'big',
      metricKey: 'm',
      credits: starter.monthlyCredits + rolled + 20,
    });
    expect(big).toMatchObject({
      fromMonthly: starter.monthlyCredits + rolled,
      fromPurchased: 20,
      purchasedAfter: 480,
    });
    // The trial ledger is closed with what it had left.
    if (state.status !== 'open') throw new Error(`paid ledger is ${state.status}`);
    const trial = await loadAggregate(
      service.runtime.eventStore,
      creditStream(ws.orgId, state.previousPeriodKey!),
      creditLedgerDecider,
    );
    expect(trial.state.status).toBe('closed');
    // A spend key of the trial period still answers its first debit.
    expect(
      await credits.spend({ orgId: ws.orgId, key: 'use-some', metricKey: 'm', credits: 100 }),
    ).toMatchObject({
      creditsUsed: 100,
      replayed: true,
    });

    // GET ORG/billing shows the ledger's balance and the recent credit transactions.
    const overview = await service.request('GET', `/v1/orgs/${ws.orgId}/billing`, { token: ws.tokens.owner });
    expect(overview.status).toBe(200);
    const o = (await overview.json()) as {
      data: {
        creditBalance: { total: number };
        recentCreditTransactions: Array<{ type: string; amount: number }>;
      };
    };
    expect(o.data.creditBalance.total).toBe(480);
    expect(o.data.recentCreditTransactions.map((t) => t.type)).toEqual(
      expect.arrayContaining(['spend', 'grant', 'purchase', ...(rolled > 0 ? ['rollover'] : [])]),
    );
  }, 60_000);
});

describe('periods starting within one second', () => {
  test('each gets a ledger of its own and its grant: the later one is not taken for the earlier', async () => {
    const ws = await createTestWorkspace(service, 'Same second');
    const starter = catalog.plan('starter')!;
    // Two paid periods in one second (an activation renewed at once), after the trial's.
    const second = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    const first = new Date(second + 100);
    const next = new Date(second + 600);
    const notice = (start: Date, n: number) =>
      applyNotice(subscriptionDeps, {
        kind: 'subscription',
        provider: 'sandbox',
        eventId: `evt_same_second_${n}_${ws.orgId}`,
        occurredAt: new Date().toISOString(),
        orgId: ws.orgId,
        status: 'active',
        providerCustomerId: `ctm_${ws.orgId}`,
        providerSubscriptionId: `sub_${ws.orgId}`,
        priceId: starter.providerPriceId!,
        currentPeriodStart: start.toISOString(),
        currentPeriodEnd: new Date(start.getTime() + 30 * 86_400_000).toISOString(),
        cancelAtPeriodEnd: false,
        pauseAtPeriodEnd: false,
      });
    const opened = (key: string) =>
      waitUntil(
        async () => {
          const loaded = await loadAggregate(
            service.runtime.eventStore,
            creditStream(ws.orgId, key),
            creditLedgerDecider,
          );
          return loaded.state.status === 'open' ? loaded.state : null;
        },
        { what: `the ledger ${key}` },
      );
    await notice(first, 1);
    expect((await opened(periodKeyOf(first)))!.periodStart).toBe(first.toISOString());
    await notice(next, 2);
    expect(periodKeyOf(next)).toBe(periodKeyOf(first));
    const later = (await opened(finePeriodKeyOf(next)))!;
    expect(later).toMatchObject({
      periodStart: next.toISOString(),
      allowance: starter.monthlyCredits,
      previousPeriodKey: periodKeyOf(first),
    });
    const earlier = await loadAggregate(
      service.runtime.eventStore,
      creditStream(ws.orgId, periodKeyOf(first)),
      creditLedgerDecider,
    );
    expect(earlier.state).toMatchObject({ status: 'closed', nextPeriodKey: finePeriodKeyOf(next) });
    // Spends and the summary go to the later period; the read model has the three grants.
    expect((await ledgerOf(ws.orgId)).usageSummary.periodStart).toBe(next.toISOString());
    const spent = await credits.spend({ orgId: ws.orgId, key: 'same-second', metricKey: 'm', credits: 1 });
    expect(spent.periodKey).toBe(finePeriodKeyOf(next));
    await waitUntil(
      async () =>
        (
          await sql<{ n: number }>`
            select count(*)::int as n from credit_transactions where org_id = ${ws.orgId} and type = 'grant'`.execute(
            service.runtime.readModels,
          )
        ).rows[0]!.n === 3,
      { what: 'the grants of the trial and both paid periods' },
    );
  });
});

describe('GET ORG/billing/credits/usage', () => {
  let ws: TestWorkspace;
  let url: string;
  interface Page {
    data: {
      data: Array<{
        id: string;
        metricKey: string;
        feature: string | null;
        model: string | null;
        amountUsed: number;
        createdAt: string;
        type: string | null;
        inputTokens: number | null;
        monthlyCreditsAfter: number | null;
      }>;
      metadata: {
        page: number;
        limit: number;
        total: number;
        totalPages: number;
        hasNext: boolean;
        hasPrev: boolean;
      };
    };
  }
  const get = async (query: string, token = ws.tokens.owner) =>
    service.request('GET', `${url}${query}`, { token });
  const page = async (query: string) => {
    const res = await get(query);
    expect(res.status).toBe(200);
    return ((await res.json()) as Page).data;
  };

  beforeAll(async () => {
    ws = await createTestWorkspace(service, 'Usage');
    url = `/v1/orgs/${ws.orgId}/billing/credits/usage`;
    await credits.spend({
      orgId: ws.orgId,
      key: 'u1',
      actionKey: 'ai_draft',
      feature: 'drafts',
      provider: 'openai',
      model: 'gpt-a',
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
    });
    await credits.spend({
      orgId: ws.orgId,
      key: 'u2',
      actionKey: 'ai_draft',
      feature: 'drafts',
      model: 'gpt-b',
    });
    await credits.spend({
      orgId: ws.orgId,
      key: 'u3',
      actionKey: 'x_post_read',
      quantity: 4,
      feature: 'x_reads',
    });
  });

  test('lists the debits newest first in the billing list envelope', async () => {
    const p = await page('');
    expect(p.metadata).toEqual({
      page: 1,
      limit: 20,
      total: 3,
      totalPages: 1,
      hasNext: false,
      hasPrev: false,
    });
    expect(p.data.map((r) => r.metricKey)).toEqual(['x_post_read', 'ai_draft', 'ai_draft']);
    expect(p.data[0]).toMatchObject({ amountUsed: 4, type: 'x_post_read', feature: 'x_reads' });
    expect(p.data[2]).toMatchObject({
      model: 'gpt-a',
      inputTokens: 10,
      monthlyCreditsAfter: trialAllowance() - 2,
    });
  });

  test('filters by metricKey, feature, model and time', async () => {
    expect((await page('?metricKey=ai_draft')).metadata.total).toBe(2);
    expect((await page('?feature=x_reads')).data.map((r) => r.amountUsed)).toEqual([4]);
    expect((await page('?model=gpt-b')).metadata.total).toBe(1);
    const all = await page('');
    const newest = all.data[0]!.createdAt;
    expect((await page(`?createdAtFrom=${encodeURIComponent(newest)}`)).metadata.total).toBe(1);
    expect((await page(`?createdAtTo=${encodeURIComponent(all.data[2]!.createdAt)}`)).metadata.total).toBe(1);
    expect(
      (await page('?createdAtFrom=2000-01-01T00:00:00Z&createdAtTo=2000-01-02T00:00:00Z')).metadata.total,
    ).toBe(0);
  });

  test('pages', async () => {
    const second = await page('?limit=2&page=2');
    expect(second.metadata).toEqual({
      page: 2,
      limit: 2,
      total: 3,
      totalPages: 2,
      hasNext: false,
      hasPrev: true,
    });
    expect(second.data).toHaveLength(1);
    expect((await page('?limit=2')).metadata).toMatchObject({ hasNext: true, hasPrev: false });
  });

  test('a bad query answers 400 naming the field', async () => {
    for (const [query, path] of [
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?page=x', 'query.page'],
      ['?createdAtFrom=yesterday', 'query.createdAtFrom'],
      ['?sortBy=amount', 'query'],
    ] as const) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { details: Array<{ path: string }> };
      expect(body.details.map((d) => d.path).join(' '), query).toContain(path);
    }
  });

  test('every member reads it (as get_usage is an mcp:read tool); 401 without a token', async () => {
    for (const role of ['admin', 'editor', 'reviewer', 'viewer'] as const)
      expect((await get('', ws.tokens[role])).status, role).toBe(200);
    expect((await service.request('GET', url)).status).toBe(401);
  });

  test("another workspace's usage is not shown", async () => {
    const other = await createTestWorkspace(service, 'Other');
    const res = await service.request('GET', `/v1/orgs/${other.orgId}/billing/credits/usage`, {
      token: other.tokens.owner,
    });
    expect(((await res.json()) as Page).data.metadata.total).toBe(0);
    expect(
      (
        await service.request('GET', `/v1/orgs/${other.orgId}/billing/credits/usage`, {
          token: ws.tokens.owner,
        })
      ).status,
    ).toBe(403);
  });
});

test('the OpenAPI document lists the usage route and stays valid', async () => {
  const res = await service.request('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  const doc = (await res.json()) as {
    paths: Record<string, Record<string, { operationId?: string; parameters?: Array<{ name: string }> }>>;
    components: { schemas: Record<string, unknown> };
  };
  const result = await new Validator().validate(doc);
  expect(result.errors ?? []).toEqual([]);
  const usage = doc.paths['/v1/orgs/{orgId}/billing/credits/usage']?.get;
  expect(usage?.operationId).toBe('get_usage');
  expect(usage?.parameters?.map((p) => p.name)).toEqual(
    expect.arrayContaining([
      'page',
      'limit',
      'metricKey',
      'feature',
      'model',
      'createdAtFrom',
      'createdAtTo',
    ]),
  );
  expect(Object.keys(doc.components.schemas)).toEqual(
    expect.arrayContaining(['CreditUsageRow', 'CreditUsagePage']),
  );
});

test('the credit read models fold idempotently: the same events again change nothing, a fresh fold gives the rows served', async () => {
  const ws = await createTestWorkspace(service, 'Refold');
  await credits.spend({
    orgId: ws.orgId,
    key: 'r1',
    actionKey: 'ai_draft',
    model: 'm',
    metadata: { postId: 'p1' },
  });
  await credits.spend({ orgId: ws.orgId, key: 'r2', metricKey: 'x_post_read', credits: 3 });
  const stream = await currentStream(ws.orgId);
  const events = await service.runtime.eventStore.readStream(stream);
  expect(events.map((e) => e.type)).toEqual(['CreditPeriodOpened', 'CreditsSpent', 'CreditsSpent']);
  // The process may still be opening the period it was told of: wait for the read model to show the spends.
  await waitUntil(async () => (await credits.summaryOf(ws.orgId)).recentCreditTransactions.length === 3);

  const db = service.runtime.database.db;
  const schema = `test_credits_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const rowsOf = async (from: string) => ({
    transactions: (
      await sql`select * from ${sql.table(`${from}.credit_transactions`)} where org_id = ${ws.orgId} order by id`.execute(
        db,
      )
    ).rows,
    usage: (
      await sql`select * from ${sql.table(`${from}.credit_usage`)} where org_id = ${ws.orgId} order by id`.execute(
        db,
      )
    ).rows,
  });
  await sql`create schema ${sql.id(schema)}`.execute(db);
  try {
    await db.transaction().execute((trx) => creditsProjection.createTables(trx, schema));
    const foldAll = () =>
      db.transaction().execute(async (trx) => {
        for (const e of events) await creditsProjection.fold(trx, [e], schema);
      });
    await foldAll();
    const once = await rowsOf(schema);
    expect(once.transactions).toHaveLength(3);
    expect(once.usage).toHaveLength(2);
    await foldAll();
    expect(await rowsOf(schema)).toEqual(once);
    expect(await rowsOf('public')).toEqual(once);
  } finally {
    await sql`drop schema ${sql.id(schema)} cascade`.execute(db);
  }
});
