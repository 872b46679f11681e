// The billing slice (issue 14): plans and credit packs from configuration, the subscription (trial, paid
// periods, past due and read-only, cancel, pause, resume), the credit ledger every paid feature spends through,
// the payment provider (sandbox or Paddle Billing) and its webhooks, and the invoices and transactions lists.
import { billingProbe } from '../../projections/billing/onboarding-probe.js';
import { billingNotificationRules } from '../../domain/billing/notification-rules.js';
import { notificationRules } from '../notifications/rules.js';
import { onboardingProbes } from '../onboarding/probes.js';
import { contribute } from '../shared/service.js';
import { billingSettings } from '../../infra/billing/settings.js';
import { billingWebhookMigrations } from '../../infra/billing/webhook-store.js';
import { migrationsOf, defineSlice } from '../shared/slice.js';
import { billingHistoryProjection } from '../../projections/billing/history-projection.js';
import { billingSubscriptionsProjection } from '../../projections/billing/subscriptions-projection.js';
import { BillingAccess } from '../../commands/billing/access.js';
import { provide } from '../shared/provider.js';
import { billingAccessCacheWorker, billingAccessService } from './access-middleware.js';
import { providerRoutes } from './webhook-routes.js';
import { billingServices, buildBillingServices, type BillingSliceOptions } from './services.js';
import { consumeTrialStarts, trialStartProcess } from '../../processes/billing/trial-start.js';
import { startGraceTimer } from '../../processes/billing/grace-timer.js';
import { creditLedgerMigrations } from '../../commands/billing/credit-ledger-store.js';
import { creditsProjection } from '../../projections/billing/credits-projection.js';
import { consumeCreditPeriodJobs, creditPeriodsProcess } from '../../processes/billing/credit-periods.js';
import { billingOperations } from './operations/index.js';

export function createBillingSlice(options: BillingSliceOptions = {}) {
  return defineSlice({
    name: 'billing',
    contributes: [
      contribute(onboardingProbes, billingProbe),
      contribute(notificationRules, billingNotificationRules),
    ],
    settings: [billingSettings],
    migrations: migrationsOf(billingWebhookMigrations, creditLedgerMigrations),
    projections: [billingSubscriptionsProjection, billingHistoryProjection, creditsProjection],
    provides: [
      provide(billingServices, { build: (ctx) => buildBillingServices(ctx, options) }),
      // The 402 policy of this runtime, with the billing clock (installed at the edge by the runtime).
      provide(billingAccessService, {
        requires: [billingServices],
        build: (ctx) => new BillingAccess({ db: ctx.readModels, now: ctx.use(billingServices).now }),
      }),
    ],
    operations: [billingOperations],
    // The webhooks (signed raw bodies, no bearer) and the sandbox provider's HTML pages stay raw routes.
    routes: (ctx) =>
      providerRoutes({
        ...ctx.use(billingServices),
        db: ctx.database.db,
        commands: ctx.commands,
        logger: ctx.logger,
      }),
    processManagers: [trialStartProcess, creditPeriodsProcess],
    workers: [
      {
        name: 'billing-trial-start',
        async start(ctx) {
          return ctx.bus ? consumeTrialStarts(ctx.bus, ctx.use(billingServices).subscriptions) : undefined;
        },
      },
      {
        name: 'billing-grace-timer',
        async start(ctx) {
          return startGraceTimer(ctx.use(billingServices).subscriptions, ctx.readModels, ctx.logger);
        },
      },
      {
        name: 'billing-credit-periods',
        async start(ctx) {
          const { credits, catalog } = ctx.use(billingServices);
          return ctx.bus
            ? consumeCreditPeriodJobs(ctx.bus, { credits, catalog, logger: ctx.logger })
            : undefined;
        },
      },
      billingAccessCacheWorker(),
    ],
  });
}

export const billingSlice = createBillingSlice();
