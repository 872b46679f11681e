// The agent runs' process manager: a run left `running` by a worker that stopped (killed, crashed, its host
// gone) holds a lease renewed by each step; once the lease has run out the run is failed as `worker_lost` (so is
// a run left `queued` between two attempts for longer than a lease), its
// open steps closed, so no run stays running for ever. Its credits were only held (reserved), never charged,
// and the hold lapses on its own (CREDIT_RESERVATION_TTL_MS). The same idempotency key resumes the run with its
// next attempt while attempts remain. Deciding ExpireLease twice changes nothing, so instances may all run it.
// The credits the lost attempt held are released at once (a run that was charged already keeps its charge: the
// hold is gone, and a retry with the same key is not charged again).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from '../../infra/logging/logger.js';
import type { ReadModels } from '../../projections/read-models.js';
import { runsWithExpiredLeases } from '../../projections/agent-runs/queries.js';
import { decideRun } from '../../commands/agent-runs/agent-run-commands.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import type { CreditsService } from '../../commands/billing/credits.js';
import { runCreditKey } from '../../commands/ai/job-runner.js';

export interface LeaseExpiryDeps {
  commands: CommandDeps;
  readModels: Kysely<ReadModels>;
  credits: Pick<CreditsService, 'release'>;
  /** A queued run untouched this long has no worker (the lease a step gives, AI_RUN_LEASE_SECONDS). */
  leaseMs: number;
}

/** How often the process manager looks for lost runs. */
export const leaseExpiryIntervalMs = 15_000;

/** Fails every running run whose lease ran out by `now`; returns the ids of those it failed. */
export async function expireLostRuns(deps: LeaseExpiryDeps, now: Date): Promise<string[]> {
  const staleQueuedBefore = new Date(now.getTime() - deps.leaseMs);
  const expired = await runsWithExpiredLeases(deps.readModels, now, staleQueuedBefore);
  const failed: string[] = [];
  for (const run of expired) {
    const outcome = await decideRun(
      deps.commands,
      run.id,
      { type: 'ExpireLease', now: now.toISOString(), staleQueuedBefore: staleQueuedBefore.toISOString() },
      { orgId: run.orgId, actor: 'system', correlationId: randomUUID(), now: now.toISOString() },
      { awaitReadModels: true },
    );
    if (outcome.events.length === 0) continue;
    failed.push(run.id);
    await deps.credits.release(
      { orgId: run.orgId, key: runCreditKey(run.id), context: {}, charged: null },
      'expired',
    );
  }
  return failed;
}

export function startLeaseExpiry(
  deps: LeaseExpiryDeps & { now: () => Date },
  logger: Pick<Logger, 'warn' | 'info'>,
  intervalMs = leaseExpiryIntervalMs,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const round = () => {
    running = expireLostRuns(deps, deps.now())
      .then((ids) => {
        if (ids.length > 0) logger.info({ runIds: ids }, 'agent runs of a stopped worker failed');
      })
      .catch((err: unknown) => logger.warn({ err }, 'agent run lease round failed'));
  };
  round();
  const timer = setInterval(round, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
