// The billing slice (issue 14): plans and credit packs from configuration, the subscription (trial, paid
// periods, past due and read-only, cancel, pause, resume), the credit ledger every paid feature spends through,
// the payment provider (sandbox or Paddle Billing) and its webhooks, and the invoices and transactions lists.
import { billingSettings } from '../../infra/config/env.js';
import { billingWebhookMigrations } from '../../infra/billing/webhook-store.js';
import { migrationsOf, type Slice } from '../shared/slice.js';
import { billingServicesOf, type BillingSliceOptions } from './services.js';
import { providerRoutes } from './webhook-routes.js';

export function createBillingSlice(options: BillingSliceOptions = {}): Slice {
  void options;
  return {
    name: 'billing',
    settings: billingSettings,
    migrations: migrationsOf(billingWebhookMigrations),
    routes: (ctx) => [
      ...providerRoutes({
        ...billingServicesOf(ctx, options),
        db: ctx.database.db,
        commands: ctx.commands,
        logger: ctx.logger,
      }),
    ],
  };
}

export const billingSlice: Slice = createBillingSlice();
