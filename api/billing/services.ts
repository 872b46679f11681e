// What the billing slice's operations, routes and workers share, built once per runtime: the configuration (loaded
// and validated at start), the payment provider, the subscription and credit use cases.
import { CheckoutTokens } from '../../infra/billing/checkout-token.js';
import { BillingCatalog, defaultBillingConfigFile, loadBillingConfig } from '../../infra/billing/config.js';
import type { PaymentProvider } from '../../infra/billing/provider.js';
import { paymentProviderFromEnv } from '../../infra/billing/provider-factory.js';
import { billingHistoryOf, type BillingHistory } from '../../projections/billing/history-projection.js';
import type { SubscriptionDeps } from '../../commands/billing/subscription-use-cases.js';
import { service } from '../shared/service.js';
import type { BillingEnv } from '../../infra/billing/settings.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { SliceContext } from '../shared/slice.js';
import { CreditLedgerStore } from '../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../commands/billing/credits.js';
import { ensureStarted } from '../../commands/billing/subscription-commands.js';

export interface BillingSliceOptions {
  /** The clock of subscriptions and credits; tests move it past a trial or a grace period. */
  now?: () => Date;
}

export interface BillingServices {
  catalog: BillingCatalog;
  now: () => Date;
  /** The configured payment provider (BILLING_PROVIDER: the sandbox, or Paddle Billing). */
  provider: PaymentProvider;
  /** Recent transactions, invoices and subscription events, for GET ORG/billing (the history read models). */
  history: BillingHistory;
  /** The subscription use cases' dependencies (commands/billing/subscription-*.ts): applyNotice, ensureStarted, … */
  subscriptions: SubscriptionDeps;
  /**
   * The credit ledger: `credits.withCredits(…)` for a paid call (credits held before it), `credits.spend(…)` for
   * a debit with nothing to wait for; `summaryOf` for GET ORG/billing.
   */
  credits: CreditsService;
  /** Issues the checkout token (checkout-data) and checks it on the notices that would bind a workspace. */
  checkoutTokens: CheckoutTokens;
}

/** The billing slice's services (provided once per runtime; the visuals slice charges AI backgrounds through them). */
export const billingServices = service<BillingServices>()('billing');

/** Builds the billing services of a runtime (the billing slice's provider). */
export function buildBillingServices(
  ctx: SliceContext<never, PlatformEnv & BillingEnv>,
  options: BillingSliceOptions = {},
): BillingServices {
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
  const subscriptions: SubscriptionDeps = {
    commands: ctx.commands,
    idempotency: ctx.idempotency,
    catalog,
    now,
    provider,
  };
  const credits = new CreditsService({
    commands: ctx.commands,
    catalog,
    store: new CreditLedgerStore(ctx.database.db),
    now,
    ensureStarted: async (orgId) => (await ensureStarted(subscriptions, orgId)).state,
    readModels: ctx.readModels,
  });
  return {
    catalog,
    now,
    provider,
    history: billingHistoryOf(ctx.readModels),
    subscriptions,
    credits,
    checkoutTokens: new CheckoutTokens(ctx.services.tokenCipher),
  };
}
