// The billing configuration (config/billing.json): the shipped file is valid, and a bad one stops the start with
// a message naming each bad field.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  BillingCatalog,
  BillingConfigError,
  defaultBillingConfigFile,
  loadBillingConfig,
  parseBillingConfig,
} from '../../../infra/billing/config.js';
import { startTestService } from '../../support/runtime.js';

const shipped = async () =>
  JSON.parse(await readFile(defaultBillingConfigFile, 'utf8')) as Record<string, unknown>;

function problemsOf(input: unknown): string[] {
  try {
    parseBillingConfig(input, 'billing.json');
  } catch (error) {
    expect(error).toBeInstanceOf(BillingConfigError);
    return (error as BillingConfigError).fieldProblems;
  }
  throw new Error('the configuration was accepted');
}

describe('billing configuration', () => {
  test('the shipped file is valid: plans with stable ids, packs, costs, lookups by key and price id', () => {
    const config = loadBillingConfig();
    const catalog = new BillingCatalog(config);
    expect(config.plans.map((p) => p.key)).toEqual(['starter', 'pro', 'business']);
    expect(catalog.plan('pro')!.id).toBe(new BillingCatalog(loadBillingConfig()).plan('pro')!.id);
    expect(catalog.planByPriceId('pri_pro_annual')).toMatchObject({ plan: { key: 'pro' }, interval: 'year' });
    expect(catalog.packByPriceId('pri_credits_500')?.credits).toBe(500);
    expect(catalog.actionCost('ai_draft')?.credits).toBeGreaterThan(0);
    for (const plan of config.plans) expect(Number.isInteger(plan.monthlyPrice)).toBe(true);
  });

  test('each bad field is named', async () => {
    const base = await shipped();
    const plans = base.plans as Array<Record<string, unknown>>;
    expect(problemsOf({ ...base, currency: 'usd' })).toEqual([expect.stringMatching(/^currency: /)]);
    expect(problemsOf({ ...base, trialPlanKey: 'gold' })).toEqual([
      'trialPlanKey: must be the key of one of the plans',
    ]);
    expect(problemsOf({ ...base, plans: [{ ...plans[0], monthlyPrice: 19.99 }, ...plans.slice(1)] })).toEqual(
      [expect.stringMatching(/^plans\.0\.monthlyPrice: /)],
    );
    expect(problemsOf({ ...base, plans: [...plans, { ...plans[0] }] })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^plans\.3\.key: "starter" is used twice/)]),
    );
    expect(
      problemsOf({
        ...base,
        creditActionCosts: [{ key: 'ai_draft', label: 'x', description: 'y', credits: -1 }],
      }),
    ).toEqual([expect.stringMatching(/^creditActionCosts\.0\.credits: /)]);
    expect(
      problemsOf({
        ...base,
        creditPacks: [
          { key: 'pack', name: 'Pack', credits: 10, price: 100, providerPriceId: 'pri_pro_monthly' },
        ],
      }),
    ).toEqual([
      expect.stringContaining('price id "pri_pro_monthly" is used by plans.pro and creditPacks.pack'),
    ]);
  });

  test('an unreadable or non-JSON file is named', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'billing-config-'));
    const file = path.join(dir, 'billing.json');
    await writeFile(file, '{ not json');
    expect(() => loadBillingConfig(file)).toThrow(/- .*billing\.json: is not JSON/);
    expect(() => loadBillingConfig(path.join(dir, 'missing.json'))).toThrow(/cannot be read/);
  });

  test('a service given a bad file does not start', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'billing-config-'));
    const file = path.join(dir, 'billing.json');
    await writeFile(file, JSON.stringify({ ...(await shipped()), graceDays: -1 }));
    await expect(startTestService({ env: { BILLING_CONFIG_FILE: file }, background: false })).rejects.toThrow(
      /graceDays: /,
    );
  });
});
