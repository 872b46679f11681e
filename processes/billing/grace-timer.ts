// The grace period's end: a past-due subscription whose graceEndsAt has passed is restricted (the event
// SubscriptionAccessRestricted, which tells the members). Access is already derived read-only from graceEndsAt
// when read, so this timer only records it; a late or repeated round changes nothing (restrictAccess decides
// nothing once restricted), so several instances may run it at once.
import type { Kysely } from 'kysely';
import type { Logger } from '../../infra/logging/logger.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { BillingSubscriptionTables } from '../../projections/billing/subscriptions-projection.js';
import {
  restrictAccess,
  systemMetadata,
  type SubscriptionCommandDeps,
} from '../../commands/billing/subscription-commands.js';

/** How often the timer looks for grace periods that ended. */
export const graceTimerIntervalMs = 60_000;

/** Restricts every past-due subscription whose grace ended by `now`; returns the workspaces restricted. */
export async function restrictOverdue(
  deps: SubscriptionCommandDeps,
  readModels: Kysely<ReadModels>,
  now: Date = deps.now(),
): Promise<string[]> {
  const due = await readModels
    .withTables<BillingSubscriptionTables>()
    .selectFrom('billing_subscriptions')
    .select('org_id')
    .where('status', '=', 'past_due')
    .where('restricted_since', 'is', null)
    .where('grace_ends_at', '<=', now.toISOString())
    .orderBy('grace_ends_at')
    .limit(500)
    .execute();
  const restricted: string[] = [];
  for (const { org_id: orgId } of due) {
    const outcome = await restrictAccess(deps, orgId, {}, systemMetadata(orgId, now));
    if (outcome.events.length > 0) restricted.push(orgId);
  }
  return restricted;
}

/** Runs `restrictOverdue` every interval until stopped; a failed round is logged and tried again next time. */
export function startGraceTimer(
  deps: SubscriptionCommandDeps,
  readModels: Kysely<ReadModels>,
  logger: Pick<Logger, 'warn'>,
  intervalMs = graceTimerIntervalMs,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = restrictOverdue(deps, readModels).catch((err: unknown) =>
      logger.warn({ err }, 'billing grace timer round failed'),
    );
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
