// The credit periods process: when a subscription period starts (a trial, the first paid period, a renewal, a
// recovery or a resume into a new period) the workspace's ledger for it is opened, closing and carrying over
// the previous one; when a credit pack transaction completes, the pack is added to the ledger once (its event
// id is the transaction's). Jobs go through the outbox, so a crash between the event and the ledger write is
// finished by the consumer, and running a job twice writes nothing twice.
import type { CreditsService } from '../../commands/billing/credits.js';
import { subscriptionEventCodec } from '../../domain/billing/event-codec.js';
import { assertNever } from '../../domain/shared/decider.js';
import type { BillingCatalog } from '../../infra/billing/config.js';
import type { Bus, Consumer } from '../../infra/bus/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import { readsFrom } from '../../projections/engine/event-sources.js';
import { defineProcess, outboxMessageId } from '../runner/process-manager.js';

export const CREDIT_PERIODS_QUEUE = 'billing.credits';

export type CreditPeriodJob =
  | { kind: 'open_period'; orgId: string; causationId: string }
  | { kind: 'add_pack'; orgId: string; transactionId: string; priceId: string | null; causationId: string };

const processName = 'credit-periods';

export const creditPeriodsProcess = defineProcess({
  name: processName,
  reads: [
    readsFrom(subscriptionEventCodec, [
      'SubscriptionTrialStarted',
      'SubscriptionActivated',
      'SubscriptionRenewed',
      'SubscriptionRecovered',
      'SubscriptionResumed',
      'BillingTransactionRecorded',
    ]),
  ],
  async handle(_trx, event, ctx) {
    let job: CreditPeriodJob | null = null;
    switch (event.type) {
      case 'SubscriptionTrialStarted':
      case 'SubscriptionActivated':
      case 'SubscriptionRenewed':
        job = { kind: 'open_period', orgId: event.data.orgId, causationId: event.id };
        break;
      case 'SubscriptionRecovered':
      case 'SubscriptionResumed':
        // Only a move into a new period opens one; the others keep the period they had.
        if (event.data.periodStart !== null)
          job = { kind: 'open_period', orgId: event.data.orgId, causationId: event.id };
        break;
      case 'BillingTransactionRecorded': {
        const d = event.data;
        if (d.type === 'credit_pack' && d.status === 'completed')
          job = {
            kind: 'add_pack',
            orgId: d.orgId,
            transactionId: d.transactionId,
            priceId: d.priceId,
            causationId: event.id,
          };
        break;
      }
      default:
        return assertNever(event);
    }
    if (job)
      await ctx.enqueue({
        id: outboxMessageId(processName, event.id),
        destination: CREDIT_PERIODS_QUEUE,
        payload: job,
      });
  },
});

/** Runs one job; a pack whose price is not a configured pack is logged and dropped (nothing to add). */
export async function runCreditPeriodJob(
  job: CreditPeriodJob,
  deps: { credits: CreditsService; catalog: BillingCatalog; logger?: Pick<Logger, 'warn'> },
): Promise<void> {
  const context = { actor: 'system', causationId: job.causationId };
  if (job.kind === 'open_period') {
    await deps.credits.openCurrentPeriod(job.orgId, context);
    return;
  }
  const pack = job.priceId === null ? undefined : deps.catalog.packByPriceId(job.priceId);
  if (!pack) {
    deps.logger?.warn(
      { orgId: job.orgId, transactionId: job.transactionId, priceId: job.priceId },
      'credit pack transaction with a price that is not a configured pack; no credits added',
    );
    return;
  }
  await deps.credits.addPack(
    job.orgId,
    { transactionId: job.transactionId, packKey: pack.key, credits: pack.credits },
    context,
  );
}

export async function consumeCreditPeriodJobs(
  bus: Bus,
  deps: { credits: CreditsService; catalog: BillingCatalog; logger?: Pick<Logger, 'warn'> },
): Promise<Consumer> {
  return bus.consume(
    CREDIT_PERIODS_QUEUE,
    (message) => runCreditPeriodJob(message.data as CreditPeriodJob, deps),
    {
      concurrency: 2,
    },
  );
}
