// The subscription's use cases for a member with billing:manage (owners and admins; assistants may not):
// cancel, pause, resume, change plan and update the payment method, each through the write pipeline
// (Idempotency-Key) and, where the provider has a subscription, asking the payment provider before appending.
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { Conflict } from '../../domain/shared/errors.js';
import type {
  SubscriptionCommand,
  SubscriptionState,
  SubscriptionStatus,
} from '../../domain/billing/subscription.js';
import type { PaymentProvider, ProviderSubscriptionRef } from '../../infra/billing/provider.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import {
  callProvider,
  ensureStarted,
  resolvePrice,
  runSubscriptionCommand,
  type SubscriptionCommandDeps,
  type SubscriptionOutcome,
} from './subscription-commands.js';

export interface SubscriptionDeps extends WriteDeps, SubscriptionCommandDeps {
  provider: PaymentProvider;
}

const managing = (orgId: string) => ({ orgId, permission: 'billing:manage', scope: null }) as const;

export type ShownStatus = Exclude<SubscriptionStatus, 'none'>;

export interface CancelAnswer {
  cancelAtPeriodEnd: boolean;
  message: string;
}
export interface StatusAnswer {
  status: ShownStatus;
  message: string;
}
export interface ChangePlanAnswer {
  updated: boolean;
  message: string;
}
export interface UpdatePaymentAnswer {
  transactionId: string;
  checkoutUrl: string | null;
}

const refOf = (orgId: string, state: SubscriptionState): ProviderSubscriptionRef => ({
  orgId,
  providerCustomerId: state.providerCustomerId,
  providerSubscriptionId: state.providerSubscriptionId,
});

const shown = (state: SubscriptionState): ShownStatus =>
  state.status === 'none' ? 'trialing' : state.status;

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : 'the end of the current period');

type Answered = Pick<SubscriptionOutcome, 'state' | 'events'>;

/**
 * One subscription command through the write pipeline: the provider asked first when the subscription is the
 * provider's (a trial has nothing there), the answer stored with the append when the request has an
 * Idempotency-Key. The caller is authorized before.
 */
async function providerBackedStep<Answer>(
  deps: SubscriptionDeps,
  caller: Caller,
  orgId: string,
  request: WriteRequest,
  step: {
    command: (now: string) => SubscriptionCommand;
    call: (ref: ProviderSubscriptionRef) => Promise<void>;
    answer: (outcome: Answered) => Answer;
  },
): Promise<Written<Answer>> {
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const outcome = await runSubscriptionCommand(deps, orgId, () => step.command(metadata.now), metadata, {
      beforeAppend: async (state) => {
        if (state.providerSubscriptionId === null) return;
        await callProvider(() => step.call(refOf(orgId, state)));
      },
      ...(record ? { sideWrite: (trx, done) => record(trx, step.answer(done)) } : {}),
    });
    return step.answer(outcome);
  });
}

/** Trials cancel at once; paid subscriptions at the period end (the provider is told first). */
export async function cancelSubscription(
  deps: SubscriptionDeps,
  caller: Caller,
  input: { orgId: string },
  request: WriteRequest,
): Promise<Written<CancelAnswer>> {
  authorize(caller, managing(input.orgId));
  return providerBackedStep(deps, caller, input.orgId, request, {
    command: (now) => ({ type: 'CancelSubscription', now }),
    call: (ref) => deps.provider.cancelAtPeriodEnd(ref),
    answer: ({ state }): CancelAnswer =>
      state.cancelAtPeriodEnd
        ? {
            cancelAtPeriodEnd: true,
            message: `The subscription will be canceled at the end of the current period (${day(state.currentPeriodEnd)})`,
          }
        : { cancelAtPeriodEnd: false, message: 'The subscription was canceled' },
  });
}

/** At the period end (`pausing`, then `paused`); refused while trialing (409 `trialing`). */
export async function pauseSubscription(
  deps: SubscriptionDeps,
  caller: Caller,
  input: { orgId: string },
  request: WriteRequest,
): Promise<Written<StatusAnswer>> {
  authorize(caller, managing(input.orgId));
  return providerBackedStep(deps, caller, input.orgId, request, {
    command: (now) => ({ type: 'PauseSubscription', now }),
    call: (ref) => deps.provider.pauseAtPeriodEnd(ref),
    answer: ({ state }): StatusAnswer => ({
      status: shown(state),
      message:
        state.status === 'paused'
          ? 'The subscription is paused'
          : `The subscription will be paused at the end of the current period (${day(state.currentPeriodEnd)})`,
    }),
  });
}

/** Takes back a scheduled pause or cancellation, or resumes a paused subscription; else answers the status. */
export async function resumeSubscription(
  deps: SubscriptionDeps,
  caller: Caller,
  input: { orgId: string },
  request: WriteRequest,
): Promise<Written<StatusAnswer>> {
  authorize(caller, managing(input.orgId));
  return providerBackedStep(deps, caller, input.orgId, request, {
    command: (now) => ({ type: 'ResumeSubscription', now }),
    call: (ref) => deps.provider.resume(ref),
    answer: ({ state, events }): StatusAnswer => ({
      status: shown(state),
      message:
        events.length > 0
          ? 'The subscription was resumed'
          : `Nothing to resume; the subscription is ${shown(state)}`,
    }),
  });
}

/**
 * Switches a paid subscription to another plan price (a plan's monthly or annual provider price id): 400
 * naming priceId for any other price; 409 without a provider subscription or unless active or pausing.
 */
export async function changePlan(
  deps: SubscriptionDeps,
  caller: Caller,
  input: { orgId: string; priceId: string },
  request: WriteRequest,
): Promise<Written<ChangePlanAnswer>> {
  authorize(caller, managing(input.orgId));
  const price = resolvePrice(deps.catalog, input.priceId);
  return providerBackedStep(deps, caller, input.orgId, request, {
    command: (now) => ({ type: 'ChangePlan', priceId: input.priceId, price, now }),
    call: (ref) => deps.provider.changePlan(ref, input.priceId),
    answer: ({ state, events }): ChangePlanAnswer => {
      const name = deps.catalog.plan(state.planKey ?? '')?.name ?? state.planKey;
      const billed = state.billingInterval === 'year' ? 'yearly' : 'monthly';
      return events.length > 0
        ? { updated: true, message: `The plan is now ${name}, billed ${billed}` }
        : { updated: false, message: `The subscription is already on ${name}, billed ${billed}` };
    },
  });
}

/**
 * A provider transaction (or management URL) where the customer updates the payment method; allowed while
 * read-only (it is how an overdue workspace pays). Records nothing in the subscription: the provider's
 * notices do, once the customer acts. 409 `no_provider_subscription` for a workspace that never subscribed.
 */
export async function updatePaymentMethod(
  deps: SubscriptionDeps,
  caller: Caller,
  input: { orgId: string; checkoutUrl?: string },
  request: WriteRequest,
): Promise<Written<UpdatePaymentAnswer>> {
  authorize(caller, managing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata }) => {
    const { state } = await ensureStarted(deps, input.orgId, metadata);
    if (state.providerSubscriptionId === null)
      throw new Conflict(
        'There is no paid subscription to update the payment method of; subscribe through checkout first',
        'no_provider_subscription',
      );
    const { transactionId, checkoutUrl } = await callProvider(() =>
      deps.provider.updatePaymentMethod(refOf(input.orgId, state), input.checkoutUrl),
    );
    return { transactionId, checkoutUrl };
  });
}
