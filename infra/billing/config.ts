// The billing configuration: plans, credit packs, what each paid action costs in credits, the trial and the grace
// period. One JSON file (config/billing.json, or BILLING_CONFIG_FILE), validated when the service starts; a bad
// file stops the start naming the field. Prices are integers in minor units of `currency` (cents for USD).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { ConfigError } from '../config/env.js';
import { projectFile } from '../config/project-root.js';

const key = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be lower_snake_case (a-z, 0-9, _), at most 64');
const minor = z.number().int().min(0);

const planSchema = z.object({
  key,
  name: z.string().min(1).max(100),
  /** Minor units per month; null for a plan without a list price (e.g. negotiated). */
  monthlyPrice: minor.nullable(),
  annualPrice: minor.nullable().default(null),
  monthlyCredits: z.number().int().min(0),
  teamsEnabled: z.boolean(),
  maxMembers: z.number().int().min(1),
  providerPriceId: z.string().min(1).nullable().default(null),
  providerPriceIdAnnual: z.string().min(1).nullable().default(null),
});

const creditPackSchema = z.object({
  key,
  name: z.string().min(1).max(100),
  credits: z.number().int().min(1),
  /** Minor units. */
  price: minor,
  providerPriceId: z.string().min(1).nullable().default(null),
});

const creditActionCostSchema = z.object({
  key,
  label: z.string().min(1).max(100),
  description: z.string().min(1).max(500),
  credits: z.number().int().min(0),
});

function uniqueKeys(items: ReadonlyArray<{ key: string }>, ctx: z.RefinementCtx, path: string): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.key))
      ctx.addIssue({ code: 'custom', path: [path, index, 'key'], message: `"${item.key}" is used twice` });
    seen.add(item.key);
  });
}

export const billingConfigSchema = z
  .object({
    /** ISO 4217, upper case. */
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD'),
    trialDays: z.number().int().min(0).max(365),
    /** The plan a trial runs on (its monthly credits are the trial's allowance). */
    trialPlanKey: key,
    /** Days a past-due subscription keeps full access before the workspace becomes read-only. */
    graceDays: z.number().int().min(0).max(60),
    rollover: z.object({
      enabled: z.boolean(),
      /** Unused monthly credits carried into the next period, at most this share of the new allowance. */
      maxPercentOfAllowance: z.number().int().min(0).max(1000),
    }),
    plans: z.array(planSchema).min(1),
    creditPacks: z.array(creditPackSchema),
    creditActionCosts: z.array(creditActionCostSchema),
  })
  .superRefine((config, ctx) => {
    uniqueKeys(config.plans, ctx, 'plans');
    uniqueKeys(config.creditPacks, ctx, 'creditPacks');
    uniqueKeys(config.creditActionCosts, ctx, 'creditActionCosts');
    if (!config.plans.some((p) => p.key === config.trialPlanKey))
      ctx.addIssue({
        code: 'custom',
        path: ['trialPlanKey'],
        message: 'must be the key of one of the plans',
      });
    const priceIds = new Map<string, string>();
    const items = [
      ...config.plans.flatMap((p) => [
        [p.providerPriceId, `plans.${p.key}`],
        [p.providerPriceIdAnnual, `plans.${p.key}`],
      ]),
      ...config.creditPacks.map((p) => [p.providerPriceId, `creditPacks.${p.key}`]),
    ];
    for (const [priceId, owner] of items) {
      if (priceId === null || priceId === undefined) continue;
      const other = priceIds.get(priceId);
      if (other !== undefined && other !== owner)
        ctx.addIssue({
          code: 'custom',
          path: ['plans'],
          message: `price id "${priceId}" is used by ${other} and ${owner}`,
        });
      priceIds.set(priceId, owner!);
    }
  });

export type BillingConfigInput = z.input<typeof billingConfigSchema>;

export type Plan = z.infer<typeof planSchema> & { /** Stable uuid derived from the key. */ id: string };
export type CreditPack = z.infer<typeof creditPackSchema>;
export type CreditActionCost = z.infer<typeof creditActionCostSchema>;
export type BillingInterval = 'month' | 'year';

export interface BillingConfig extends Omit<z.infer<typeof billingConfigSchema>, 'plans'> {
  plans: Plan[];
}

/** A configuration error (the entry points print it without a stack and exit 1), each problem naming the file. */
export class BillingConfigError extends ConfigError {
  constructor(
    readonly file: string,
    readonly fieldProblems: string[],
  ) {
    super(fieldProblems.map((p) => `${file}: ${p}`));
    this.name = 'BillingConfigError';
  }
}

/** The default file, config/billing.json at the repository root. */
export const defaultBillingConfigFile = projectFile('config', 'billing.json');

/** Validates a parsed configuration; throws BillingConfigError naming each bad field. */
export function parseBillingConfig(input: unknown, file = '(billing configuration)'): BillingConfig {
  const result = billingConfigSchema.safeParse(input);
  if (!result.success)
    throw new BillingConfigError(
      file,
      result.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`),
    );
  return {
    ...result.data,
    plans: result.data.plans.map((plan) => ({ ...plan, id: deterministicUuid('billing-plan', plan.key) })),
  };
}

/** Reads and validates the file (BILLING_CONFIG_FILE, else config/billing.json). */
export function loadBillingConfig(file: string = defaultBillingConfigFile): BillingConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new BillingConfigError(file, [`cannot be read: ${(error as Error).message}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new BillingConfigError(file, [`is not JSON: ${(error as Error).message}`]);
  }
  return parseBillingConfig(json, file);
}

/** Lookups over one configuration. */
export class BillingCatalog {
  constructor(readonly config: BillingConfig) {}

  plan(key: string): Plan | undefined {
    return this.config.plans.find((p) => p.key === key);
  }

  /** The plan and interval a provider price id belongs to. */
  planByPriceId(priceId: string): { plan: Plan; interval: BillingInterval } | undefined {
    for (const plan of this.config.plans) {
      if (plan.providerPriceId === priceId) return { plan, interval: 'month' };
      if (plan.providerPriceIdAnnual === priceId) return { plan, interval: 'year' };
    }
    return undefined;
  }

  pack(key: string): CreditPack | undefined {
    return this.config.creditPacks.find((p) => p.key === key);
  }

  packByPriceId(priceId: string): CreditPack | undefined {
    return this.config.creditPacks.find((p) => p.providerPriceId === priceId);
  }

  actionCost(key: string): CreditActionCost | undefined {
    return this.config.creditActionCosts.find((c) => c.key === key);
  }
}
