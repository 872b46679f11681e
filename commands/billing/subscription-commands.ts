// The subscription's commands on its stream `subscription-<orgId>`: start the trial (also as `ensureStarted`,
// for a workspace whose stream does not exist yet), apply a provider notice, restrict access when the grace is
// over, end the period (the sandbox's clock), and the decide-then-call-the-provider-then-append step the caller
// use cases (subscription-use-cases.ts) run. Provider calls happen before the append: a failed call appends nothing.
import { randomUUID } from 'node:crypto';
import type { ProviderNotice } from '../../domain/billing/provider-events.js';
import {
  subscriptionCategory,
  subscriptionDecider,
  type ResolvedPrice,
  type SubscriptionCommand,
  type SubscriptionEvent,
  type SubscriptionState,
} from '../../domain/billing/subscription.js';
import { AppError, ServiceUnavailable } from '../../domain/shared/errors.js';
import type { BillingCatalog } from '../../infra/billing/config.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type CommandOutcome,
  type SideWriteOption,
} from '../shared/command-handler.js';

export const subscriptionStream = (orgId: string) => streamName(subscriptionCategory, orgId);

export interface SubscriptionCommandDeps {
  commands: CommandDeps;
  catalog: BillingCatalog;
  /** The billing clock (tests move it past a trial or a grace period). */
  now: () => Date;
}

export type SubscriptionOutcome = CommandOutcome<SubscriptionState, SubscriptionEvent>;

/** Metadata of the service's own subscription work (process managers, webhooks, the CLI, timers). */
export function systemMetadata(
  orgId: string,
  now: Date,
  extra: { correlationId?: string; causationId?: string | null; actor?: string } = {},
): CommandMetadata {
  return {
    orgId,
    actor: extra.actor ?? 'system',
    correlationId: extra.correlationId ?? randomUUID(),
    causationId: extra.causationId ?? null,
    now: now.toISOString(),
  };
}

/** The subscription as stored (status `none` when its stream does not exist yet). */
export async function loadSubscription(
  deps: Pick<SubscriptionCommandDeps, 'commands'>,
  orgId: string,
): Promise<{ state: SubscriptionState; revision: number | null }> {
  const { state, revision } = await loadAggregate(
    deps.commands.eventStore,
    subscriptionStream(orgId),
    subscriptionDecider,
  );
  return { state, revision };
}

/** A plan's provider price id as the decider takes it; null when no plan has that price. */
export function resolvePrice(catalog: BillingCatalog, priceId: string): ResolvedPrice | null {
  const found = catalog.planByPriceId(priceId);
  return found ? { planKey: found.plan.key, billingInterval: found.interval } : null;
}

/**
 * Starts the workspace's trial (length and plan from the configuration) unless its subscription exists: a
 * repeat decides nothing. The trial starts at `metadata.now`.
 */
export async function startTrial(
  deps: SubscriptionCommandDeps,
  orgId: string,
  metadata: CommandMetadata,
): Promise<SubscriptionOutcome> {
  const { trialDays, trialPlanKey } = deps.catalog.config;
  return handleCommand(deps.commands, {
    stream: subscriptionStream(orgId),
    decider: subscriptionDecider,
    command: { type: 'StartTrial', orgId, trialDays, trialPlanKey, now: metadata.now },
    metadata: { ...metadata, orgId },
  });
}

/**
 * The subscription, its trial started now when its stream does not exist yet (a workspace created before
 * billing, or whose trial the process manager has not started yet).
 */
export async function ensureStarted(
  deps: SubscriptionCommandDeps,
  orgId: string,
  metadata: CommandMetadata = systemMetadata(orgId, deps.now()),
): Promise<{ state: SubscriptionState; revision: number | null }> {
  const loaded = await loadSubscription(deps, orgId);
  if (loaded.state.status !== 'none') return loaded;
  const outcome = await startTrial(deps, orgId, metadata);
  return { state: outcome.state, revision: outcome.revision };
}

/** The side write (the idempotency record) receives the outcome. */
export interface SubscriptionStepOptions extends SideWriteOption<SubscriptionOutcome> {
  /**
   * Runs when the command decided events, before they are appended (the payment provider call): when it
   * throws, nothing is appended. Not called when the command decides nothing.
   */
  beforeAppend?: (state: SubscriptionState, events: readonly SubscriptionEvent[]) => Promise<void>;
}

/**
 * One subscription command for a started subscription: decided once against the stored state (a refusal
 * throws before the provider is asked), the provider asked, then decided again and appended (retrying on a
 * concurrent write).
 */
export async function runSubscriptionCommand(
  deps: SubscriptionCommandDeps,
  orgId: string,
  command: (state: SubscriptionState) => SubscriptionCommand,
  metadata: CommandMetadata,
  options: SubscriptionStepOptions = {},
): Promise<SubscriptionOutcome> {
  const loaded = await ensureStarted(deps, orgId, metadata);
  const planned = subscriptionDecider.decide(command(loaded.state), loaded.state);
  if (planned.length > 0 && options.beforeAppend) await options.beforeAppend(loaded.state, planned);
  return handleCommand(deps.commands, {
    stream: subscriptionStream(orgId),
    decider: subscriptionDecider,
    command,
    metadata: { ...metadata, orgId },
    loaded,
    sideWrite: options.sideWrite,
  });
}

/** A payment provider call: its own refusals pass through; any other failure is a 503 and nothing changes. */
export async function callProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new ServiceUnavailable(
      `The payment provider could not be reached; nothing was changed (${(error as Error).message})`,
      'payment_provider_unavailable',
    );
  }
}

/**
 * Applies a provider notice (webhook, sandbox simulator) to the workspace's subscription: a notice applied
 * before, or a snapshot older than the last one applied, decides nothing; an unknown plan price is refused
 * (400 naming priceId). Starts the trial first when the stream does not exist, so the history reads in order.
 */
export async function applyNotice(
  deps: SubscriptionCommandDeps,
  notice: ProviderNotice,
  metadata: CommandMetadata = systemMetadata(notice.orgId, deps.now()),
): Promise<SubscriptionOutcome> {
  const price = notice.kind === 'subscription' ? resolvePrice(deps.catalog, notice.priceId) : null;
  return runSubscriptionCommand(
    deps,
    notice.orgId,
    () => ({
      type: 'ApplyProviderNotice',
      notice,
      price,
      graceDays: deps.catalog.config.graceDays,
      now: metadata.now,
    }),
    metadata,
  );
}

/**
 * Grace over: a past-due subscription becomes read-only (recorded; access is derived read-only from
 * graceEndsAt anyway). `force` restricts at once (the simulator's `past-due`); without it, before graceEndsAt
 * or when not past due, nothing is decided.
 */
export async function restrictAccess(
  deps: SubscriptionCommandDeps,
  orgId: string,
  options: { force?: boolean } = {},
  metadata: CommandMetadata = systemMetadata(orgId, deps.now()),
): Promise<SubscriptionOutcome> {
  return runSubscriptionCommand(
    deps,
    orgId,
    () => ({ type: 'RestrictAccess', ...(options.force ? { force: true } : {}), now: metadata.now }),
    metadata,
  );
}

/**
 * The current period ends (the sandbox's `billing simulate period-end`): a scheduled cancellation cancels, a
 * scheduled pause pauses, an active subscription renews one period of its interval; otherwise nothing.
 */
export async function endPeriod(
  deps: SubscriptionCommandDeps,
  orgId: string,
  metadata: CommandMetadata = systemMetadata(orgId, deps.now()),
): Promise<SubscriptionOutcome> {
  return runSubscriptionCommand(deps, orgId, () => ({ type: 'EndPeriod', now: metadata.now }), metadata);
}
