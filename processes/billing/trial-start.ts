// A new workspace starts its trial: this process manager asks for it through the outbox when a workspace is
// created, and its consumer starts the trial (idempotent: a subscription that exists decides nothing). The trial
// starts when the consumer runs, so replaying the log over an installation that had no billing gives its
// existing workspaces a fresh trial (docs/decisions.md, billing); use cases start it on demand alike.
import { workspaceEventCodec } from '../../domain/workspaces/event-codec.js';
import type { Bus, Consumer } from '../../infra/bus/port.js';
import { readsFrom } from '../../projections/engine/event-sources.js';
import {
  startTrial,
  systemMetadata,
  type SubscriptionCommandDeps,
} from '../../commands/billing/subscription-commands.js';
import { defineProcess, outboxMessageId } from '../runner/process-manager.js';

export const TRIAL_START_QUEUE = 'billing.trial-start';

export interface TrialStartJob {
  orgId: string;
  /** The WorkspaceCreated event, as the trial's causation. */
  causationId: string;
}

export const trialStartProcess = defineProcess({
  name: 'billing-trial-start',
  reads: [readsFrom(workspaceEventCodec, ['WorkspaceCreated'])],
  async handle(_trx, event, ctx) {
    await ctx.enqueue({
      id: outboxMessageId('billing-trial-start', event.id),
      destination: TRIAL_START_QUEUE,
      payload: { orgId: event.data.orgId, causationId: event.id } satisfies TrialStartJob,
    });
  },
});

/** Starts the trials asked for; a repeated job decides nothing. */
export async function consumeTrialStarts(bus: Bus, deps: SubscriptionCommandDeps): Promise<Consumer> {
  return bus.consume(
    TRIAL_START_QUEUE,
    async (message) => {
      const job = message.data as TrialStartJob;
      await startTrial(
        deps,
        job.orgId,
        systemMetadata(job.orgId, deps.now(), { causationId: job.causationId }),
      );
    },
    { concurrency: 2 },
  );
}
