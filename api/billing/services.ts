// What the billing slice's routes, tools and workers share, built once per runtime: the configuration (loaded
// and validated at start), the payment provider, the subscription and credit use cases.
import { BillingCatalog, defaultBillingConfigFile, loadBillingConfig } from '../../infra/billing/config.js';
import type { PaymentProvider } from '../../infra/billing/provider.js';
import { paymentProviderFromEnv } from '../../infra/billing/provider-factory.js';
import type { SliceContext } from '../shared/slice.js';

export interface BillingSliceOptions {
  /** The clock of subscriptions and credits; tests move it past a trial or a grace period. */
  now?: () => Date;
}

export interface BillingServices {
  catalog: BillingCatalog;
  now: () => Date;
  /** The configured payment provider (BILLING_PROVIDER: the sandbox, or Paddle Billing). */
  provider: PaymentProvider;
}

const built = new WeakMap<SliceContext, BillingServices>();

/** The billing services of this runtime (built on first call). */
export function billingServicesOf(ctx: SliceContext, options: BillingSliceOptions = {}): BillingServices {
  const existing = built.get(ctx);
  if (existing) return existing;
  const catalog = new BillingCatalog(
    loadBillingConfig(ctx.env.BILLING_CONFIG_FILE ?? defaultBillingConfigFile),
  );
  const now = options.now ?? ctx.services.now ?? (() => new Date());
  const provider = paymentProviderFromEnv(ctx.env, {
    db: ctx.database.db,
    publicBaseUrl: ctx.publicBaseUrl,
    catalog,
    now,
  });
  const services: BillingServices = { catalog, now, provider };
  built.set(ctx, services);
  return services;
}
