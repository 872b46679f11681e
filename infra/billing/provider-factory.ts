// The payment provider the configuration names (BILLING_PROVIDER): the embedded sandbox, or Paddle Billing with
// its API key, webhook secret and environment (PADDLE_API_URL overrides the API base URL).
import type { Kysely } from 'kysely';
import type { BillingEnv } from './settings.js';
import type { BillingCatalog } from './config.js';
import type { PaddlePaymentProvider } from './paddle-provider.js';
import type { PaymentProvider } from './provider.js';
import { SandboxPaymentProvider } from './sandbox-provider.js';

export interface PaymentProviderDeps {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database that has run the migrations
  db: Kysely<any>;
  publicBaseUrl: string;
  catalog: BillingCatalog;
  now?: () => Date;
}

type ProviderSettings = Pick<
  BillingEnv,
  'BILLING_PROVIDER' | 'PADDLE_API_KEY' | 'PADDLE_WEBHOOK_SECRET' | 'PADDLE_ENVIRONMENT' | 'PADDLE_API_URL'
>;

export function paymentProviderFromEnv(env: ProviderSettings, deps: PaymentProviderDeps): PaymentProvider {
  if (env.BILLING_PROVIDER === 'paddle') {
    // The settings check (infra/billing/settings.ts) requires both with paddle; repeated for a hand-built env.
    if (!env.PADDLE_API_KEY || !env.PADDLE_WEBHOOK_SECRET)
      throw new Error('BILLING_PROVIDER=paddle needs PADDLE_API_KEY and PADDLE_WEBHOOK_SECRET');
    return lazyPaddle({
      apiKey: env.PADDLE_API_KEY,
      webhookSecret: env.PADDLE_WEBHOOK_SECRET,
      environment: env.PADDLE_ENVIRONMENT,
      ...(env.PADDLE_API_URL ? { apiUrl: env.PADDLE_API_URL } : {}),
      creditPackPriceIds: deps.catalog.config.creditPacks.flatMap((pack) =>
        pack.providerPriceId ? [pack.providerPriceId] : [],
      ),
    });
  }
  return new SandboxPaymentProvider({
    db: deps.db,
    publicBaseUrl: deps.publicBaseUrl,
    ...(deps.now ? { now: deps.now } : {}),
  });
}

/**
 * Paddle's adapter, with its SDK, is loaded by the provider's first call: a start never waits for it (the default
 * sandbox provider never loads it at all). The settings were checked when the service started.
 */
function lazyPaddle(options: ConstructorParameters<typeof PaddlePaymentProvider>[0]): PaymentProvider {
  let loaded: Promise<PaymentProvider> | undefined;
  const provider = () =>
    (loaded ??= import('./paddle-provider.js').then((module) => new module.PaddlePaymentProvider(options)));
  return {
    name: 'paddle',
    changePlan: async (...args) => (await provider()).changePlan(...args),
    cancelAtPeriodEnd: async (...args) => (await provider()).cancelAtPeriodEnd(...args),
    pauseAtPeriodEnd: async (...args) => (await provider()).pauseAtPeriodEnd(...args),
    resume: async (...args) => (await provider()).resume(...args),
    updatePaymentMethod: async (...args) => (await provider()).updatePaymentMethod(...args),
    invoiceUrl: async (...args) => (await provider()).invoiceUrl(...args),
    customerCreditBalances: async (...args) => (await provider()).customerCreditBalances(...args),
    readWebhook: async (...args) => (await provider()).readWebhook(...args),
  };
}
