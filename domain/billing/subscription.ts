// The subscription aggregate (issue 14): a workspace's trial, its paid periods, past due with a grace period and
// then read-only, cancel, pause, resume and plan changes, and the provider notices applied to it. Stream
// `subscription-<orgId>`. Pure: plans are resolved from provider price ids by the use case (the catalog lives in
// infra), time comes with the command. Access (`accessOf`) is derived when read, so enforcement never waits for a
// timer: a past-due subscription is read-only from `graceEndsAt` on whether or not AccessRestricted was recorded.
import { Conflict, InvalidFields } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { deterministicUuid } from '../shared/ids.js';
import type { ProviderNotice, SubscriptionNotice, TransactionNotice } from './provider-events.js';
import { subscriptionEventCodec, type BillingInterval, type SubscriptionEvent } from './event-codec.js';

export type {
  BillingInterval,
  BillingTransactionRecord,
  ResumedFrom,
  SubscriptionEvent,
} from './event-codec.js';

export const subscriptionCategory = 'subscription';

export type SubscriptionStatus =
  'none' | 'trialing' | 'active' | 'pausing' | 'paused' | 'past_due' | 'canceled';

/** How many provider event ids (and transaction records) the state remembers to refuse repeats. */
export const rememberedProviderEvents = 500;

const dayMs = 24 * 3600 * 1000;

export type SubscriptionEventType = SubscriptionEvent['type'];

/** A plan resolved from a provider price id by the use case (the catalog), or null when the price is unknown. */
export interface ResolvedPrice {
  planKey: string;
  billingInterval: BillingInterval;
}

export type SubscriptionCommand =
  | { type: 'StartTrial'; orgId: string; trialDays: number; trialPlanKey: string; now: string }
  | { type: 'CancelSubscription'; now: string }
  | { type: 'PauseSubscription'; now: string }
  | { type: 'ResumeSubscription'; now: string }
  | { type: 'ChangePlan'; priceId: string; price: ResolvedPrice | null; now: string }
  | {
      type: 'ApplyProviderNotice';
      notice: ProviderNotice;
      /** For a subscription notice: its priceId resolved (null: unknown price, refused). */
      price: ResolvedPrice | null;
      graceDays: number;
      now: string;
    }
  /** Grace over (the timer at graceEndsAt); `force` restricts a past-due subscription at once (the simulator). */
  | { type: 'RestrictAccess'; force?: boolean; now: string }
  /** The period's end (the sandbox's clock): a scheduled cancel or pause takes effect, else one more period. */
  | { type: 'EndPeriod'; now: string };

export interface SubscriptionState {
  status: SubscriptionStatus;
  orgId: string | null;
  planKey: string | null;
  billingInterval: BillingInterval;
  trialStart: string | null;
  trialEndsAt: string | null;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  pastDueSince: string | null;
  graceEndsAt: string | null;
  restrictedSince: string | null;
  providerCustomerId: string | null;
  providerSubscriptionId: string | null;
  /** The newest provider snapshot applied (occurredAt). */
  lastSnapshotAt: string | null;
  /** The last `rememberedProviderEvents` provider event ids applied. */
  appliedEventIds: readonly string[];
  /** `<transactionId>:<status>` of the last transactions recorded. */
  recordedTransactions: readonly string[];
}

export const initialSubscriptionState: SubscriptionState = {
  status: 'none',
  orgId: null,
  planKey: null,
  billingInterval: 'month',
  trialStart: null,
  trialEndsAt: null,
  currentPeriodStart: null,
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
  pastDueSince: null,
  graceEndsAt: null,
  restrictedSince: null,
  providerCustomerId: null,
  providerSubscriptionId: null,
  lastSnapshotAt: null,
  appliedEventIds: [],
  recordedTransactions: [],
};

/** The instant one billing interval after `iso` (calendar months, the day clamped to the month's last). */
export function addInterval(iso: string, interval: BillingInterval): string {
  const d = new Date(iso);
  const months = interval === 'year' ? 12 : 1;
  const day = d.getUTCDate();
  const target = new Date(d.getTime());
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target.toISOString();
}

export function addDays(iso: string, days: number): string {
  return new Date(new Date(iso).getTime() + days * dayMs).toISOString();
}

const remember = (list: readonly string[], item: string): readonly string[] =>
  [...list, item].slice(-rememberedProviderEvents);

const isPaid = (status: SubscriptionStatus) =>
  status === 'active' || status === 'pausing' || status === 'past_due';

function unknownPrice(): InvalidFields {
  return new InvalidFields('Unknown price', [
    { path: 'priceId', message: 'not the provider price id of a plan of this service' },
  ]);
}

function decideTransaction(
  notice: TransactionNotice,
  state: SubscriptionState,
  graceDays: number,
  at: string,
): SubscriptionEvent[] {
  const orgId = notice.orgId;
  const events: SubscriptionEvent[] = [];
  if (!state.recordedTransactions.includes(`${notice.transactionId}:${notice.status}`)) {
    events.push({
      type: 'BillingTransactionRecorded',
      data: {
        orgId,
        at,
        provider: notice.provider,
        transactionId: notice.transactionId,
        type: notice.type,
        status: notice.status,
        amount: notice.amount,
        currency: notice.currency,
        priceId: notice.priceId,
        invoiceId: notice.invoiceId,
        invoiceNumber: notice.invoiceNumber,
        invoiceUrl: notice.invoiceUrl,
        paidAt: notice.paidAt,
        createdAt: notice.createdAt,
        providerEventId: notice.eventId,
      },
    });
  }
  const forSubscription = notice.type === 'subscription' || notice.type === 'renewal';
  if (
    forSubscription &&
    notice.status === 'failed' &&
    (state.status === 'active' || state.status === 'pausing')
  ) {
    events.push({
      type: 'SubscriptionPaymentFailed',
      data: {
        orgId,
        at,
        pastDueSince: notice.occurredAt,
        graceEndsAt: addDays(notice.occurredAt, graceDays),
        providerEventId: notice.eventId,
      },
    });
  }
  if (forSubscription && notice.status === 'completed' && state.status === 'past_due') {
    events.push({
      type: 'SubscriptionRecovered',
      data: { orgId, at, periodStart: null, periodEnd: null, providerEventId: notice.eventId },
    });
  }
  return events;
}

/** The moves that bring the state to the provider's snapshot, in order. */
function decideSnapshot(
  notice: SubscriptionNotice,
  price: ResolvedPrice | null,
  state: SubscriptionState,
  graceDays: number,
  at: string,
): SubscriptionEvent[] {
  const orgId = notice.orgId;
  const events: SubscriptionEvent[] = [];
  let s = state;
  const push = (event: SubscriptionEvent) => {
    events.push(event);
    s = evolveSubscription(s, event);
  };
  // A provider-side trial is a paid subscription here: it was bought through checkout.
  const target = notice.status === 'trialing' ? 'active' : notice.status;
  if (target === 'canceled') {
    if (s.status !== 'canceled' && s.status !== 'none')
      push({ type: 'SubscriptionCanceled', data: { orgId, at, immediately: s.status === 'trialing' } });
    return events;
  }
  if (!price) throw unknownPrice();
  const periodStart = notice.currentPeriodStart ?? s.currentPeriodStart ?? notice.occurredAt;
  const periodEnd =
    notice.currentPeriodEnd ?? s.currentPeriodEnd ?? addInterval(periodStart, price.billingInterval);
  const otherSubscription =
    s.providerSubscriptionId !== null && s.providerSubscriptionId !== notice.providerSubscriptionId;
  const activates =
    s.status === 'none' ||
    s.status === 'trialing' ||
    s.status === 'canceled' ||
    (s.status === 'paused' && target !== 'paused') ||
    otherSubscription;
  if (activates) {
    push({
      type: 'SubscriptionActivated',
      data: {
        orgId,
        at,
        providerCustomerId: notice.providerCustomerId,
        providerSubscriptionId: notice.providerSubscriptionId,
        planKey: price.planKey,
        billingInterval: price.billingInterval,
        periodStart,
        periodEnd,
        providerEventId: notice.eventId,
      },
    });
  } else {
    if (price.planKey !== s.planKey || price.billingInterval !== s.billingInterval)
      push({
        type: 'SubscriptionPlanChanged',
        data: {
          orgId,
          at,
          fromPlanKey: s.planKey,
          toPlanKey: price.planKey,
          billingInterval: price.billingInterval,
          priceId: notice.priceId,
        },
      });
    const recovers = s.status === 'past_due' && target === 'active';
    const newPeriod =
      notice.currentPeriodStart !== null &&
      (s.currentPeriodStart === null || notice.currentPeriodStart > s.currentPeriodStart);
    if (newPeriod && !recovers && s.status !== 'paused')
      push({
        type: 'SubscriptionRenewed',
        data: { orgId, at, periodStart, periodEnd, providerEventId: notice.eventId },
      });
  }
  switch (target) {
    case 'active': {
      if (s.status === 'past_due')
        push({
          type: 'SubscriptionRecovered',
          data: {
            orgId,
            at,
            periodStart: notice.currentPeriodStart,
            periodEnd: notice.currentPeriodEnd,
            providerEventId: notice.eventId,
          },
        });
      if (notice.pauseAtPeriodEnd && s.status === 'active' && !notice.cancelAtPeriodEnd)
        push({ type: 'SubscriptionPauseScheduled', data: { orgId, at } });
      if (!notice.pauseAtPeriodEnd && s.status === 'pausing')
        push({
          type: 'SubscriptionResumed',
          data: { orgId, at, from: 'pausing', periodStart: null, periodEnd: null },
        });
      if (notice.cancelAtPeriodEnd && !s.cancelAtPeriodEnd)
        push({ type: 'SubscriptionCancelScheduled', data: { orgId, at } });
      if (!notice.cancelAtPeriodEnd && s.cancelAtPeriodEnd)
        push({
          type: 'SubscriptionResumed',
          data: { orgId, at, from: 'cancel_scheduled', periodStart: null, periodEnd: null },
        });
      break;
    }
    case 'past_due':
      if (s.status !== 'past_due')
        push({
          type: 'SubscriptionPaymentFailed',
          data: {
            orgId,
            at,
            pastDueSince: notice.occurredAt,
            graceEndsAt: addDays(notice.occurredAt, graceDays),
            providerEventId: notice.eventId,
          },
        });
      break;
    case 'paused':
      if (s.status !== 'paused') push({ type: 'SubscriptionPaused', data: { orgId, at } });
      break;
    default:
      return assertNever(target);
  }
  return events;
}

/**
 * A provider notice that names this workspace but not the provider subscription (or customer) it is bound to:
 * refused, changing nothing. The receiving path records it and answers the provider that it was received, so a
 * notice that will never apply is not redelivered forever.
 */
export class ForeignProviderNotice extends Conflict {
  constructor(message: string) {
    super(message, 'provider_notice_not_bound');
  }
}

/**
 * Why a notice is not the workspace's own, or null when it is. The first paid snapshot binds the workspace to
 * its provider customer and subscription; from then on only notices naming those apply. A canceled workspace
 * may subscribe again as the same customer (a new subscription id). A notice that names no ids (a transaction
 * without them) is judged by the ids it names.
 */
export function foreignNoticeReason(notice: ProviderNotice, state: SubscriptionState): string | null {
  const boundSubscription = state.providerSubscriptionId;
  const boundCustomer = state.providerCustomerId;
  const subscriptionId = notice.providerSubscriptionId ?? null;
  const customerId = notice.providerCustomerId ?? null;
  const sameCustomer = customerId !== null && customerId === boundCustomer;
  if (boundSubscription !== null && subscriptionId !== null && subscriptionId !== boundSubscription) {
    const resubscribes = state.status === 'canceled' && sameCustomer;
    if (!resubscribes)
      return `The notice names provider subscription ${subscriptionId}; the workspace is bound to another`;
  }
  if (boundCustomer !== null && customerId !== null && customerId !== boundCustomer)
    return `The notice names provider customer ${customerId}; the workspace is bound to another`;
  return null;
}

function noStream(): Conflict {
  return new Conflict('This workspace has no subscription yet', 'subscription_required');
}

export const subscriptionDecider: Decider<SubscriptionState, SubscriptionCommand, SubscriptionEvent> = {
  initialState: initialSubscriptionState,
  codec: subscriptionEventCodec,

  decide(command, state) {
    const at = command.now;
    switch (command.type) {
      case 'StartTrial': {
        if (state.status !== 'none') return [];
        return [
          {
            type: 'SubscriptionTrialStarted',
            data: {
              orgId: command.orgId,
              at,
              planKey: command.trialPlanKey,
              trialStart: at,
              trialEndsAt: addDays(at, command.trialDays),
            },
          },
        ];
      }
      case 'CancelSubscription': {
        const orgId = state.orgId;
        if (orgId === null) throw noStream();
        switch (state.status) {
          case 'trialing':
          case 'paused':
            return [{ type: 'SubscriptionCanceled', data: { orgId, at, immediately: true } }];
          case 'active':
          case 'pausing':
          case 'past_due':
            if (state.cancelAtPeriodEnd) return [];
            return [{ type: 'SubscriptionCancelScheduled', data: { orgId, at } }];
          case 'canceled':
            throw new Conflict('The subscription is already canceled', 'subscription_canceled');
          case 'none':
            throw noStream();
          default:
            return assertNever(state.status);
        }
      }
      case 'PauseSubscription': {
        const orgId = state.orgId;
        if (orgId === null) throw noStream();
        switch (state.status) {
          case 'trialing':
            throw new Conflict('A trial cannot be paused', 'trialing');
          case 'active':
            if (state.cancelAtPeriodEnd)
              throw new Conflict(
                'The subscription is canceled at the period end; resume it first',
                'cancel_scheduled',
              );
            return [{ type: 'SubscriptionPauseScheduled', data: { orgId, at } }];
          case 'pausing':
          case 'paused':
            return [];
          case 'past_due':
            throw new Conflict(
              'A past-due subscription cannot be paused; update the payment first',
              'past_due',
            );
          case 'canceled':
            throw new Conflict('The subscription is canceled', 'subscription_canceled');
          case 'none':
            throw noStream();
          default:
            return assertNever(state.status);
        }
      }
      case 'ResumeSubscription': {
        const orgId = state.orgId;
        if (orgId === null) return [];
        if (state.status === 'paused') {
          const periodEnd = addInterval(at, state.billingInterval);
          return [
            { type: 'SubscriptionResumed', data: { orgId, at, from: 'paused', periodStart: at, periodEnd } },
          ];
        }
        if (state.status === 'pausing')
          return [
            {
              type: 'SubscriptionResumed',
              data: { orgId, at, from: 'pausing', periodStart: null, periodEnd: null },
            },
          ];
        if (state.cancelAtPeriodEnd && isPaid(state.status))
          return [
            {
              type: 'SubscriptionResumed',
              data: { orgId, at, from: 'cancel_scheduled', periodStart: null, periodEnd: null },
            },
          ];
        return [];
      }
      case 'ChangePlan': {
        const orgId = state.orgId;
        if (!command.price) throw unknownPrice();
        if (orgId === null || state.providerSubscriptionId === null)
          throw new Conflict(
            'There is no paid subscription to change; subscribe first',
            'no_provider_subscription',
          );
        if (state.status !== 'active' && state.status !== 'pausing')
          throw new Conflict(
            `The plan cannot be changed while the subscription is ${state.status}`,
            state.status,
          );
        if (
          command.price.planKey === state.planKey &&
          command.price.billingInterval === state.billingInterval
        )
          return [];
        return [
          {
            type: 'SubscriptionPlanChanged',
            data: {
              orgId,
              at,
              fromPlanKey: state.planKey,
              toPlanKey: command.price.planKey,
              billingInterval: command.price.billingInterval,
              priceId: command.priceId,
            },
          },
        ];
      }
      case 'ApplyProviderNotice': {
        const notice = command.notice;
        if (state.appliedEventIds.includes(notice.eventId)) return [];
        const foreign = foreignNoticeReason(notice, state);
        if (foreign !== null) throw new ForeignProviderNotice(foreign);
        if (
          notice.kind === 'subscription' &&
          state.lastSnapshotAt !== null &&
          notice.occurredAt < state.lastSnapshotAt
        )
          return [];
        const base =
          notice.kind === 'subscription'
            ? decideSnapshot(notice, command.price, state, command.graceDays, at)
            : decideTransaction(notice, state, command.graceDays, at);
        return [
          ...base,
          {
            type: 'SubscriptionNoticeApplied',
            data: {
              orgId: notice.orgId,
              at,
              provider: notice.provider,
              providerEventId: notice.eventId,
              kind: notice.kind,
              occurredAt: notice.occurredAt,
            },
          },
        ];
      }
      case 'RestrictAccess': {
        const orgId = state.orgId;
        if (orgId === null || state.status !== 'past_due') {
          if (command.force) throw new Conflict('The subscription is not past due', 'not_past_due');
          return [];
        }
        if (state.restrictedSince !== null) return [];
        if (!command.force && state.graceEndsAt !== null && at < state.graceEndsAt) return [];
        return [{ type: 'SubscriptionAccessRestricted', data: { orgId, at } }];
      }
      case 'EndPeriod': {
        const orgId = state.orgId;
        if (orgId === null) return [];
        if (isPaid(state.status) && state.cancelAtPeriodEnd)
          return [{ type: 'SubscriptionCanceled', data: { orgId, at, immediately: false } }];
        if (state.status === 'pausing') return [{ type: 'SubscriptionPaused', data: { orgId, at } }];
        if (state.status === 'active') {
          const periodStart = state.currentPeriodEnd ?? at;
          return [
            {
              type: 'SubscriptionRenewed',
              data: {
                orgId,
                at,
                periodStart,
                periodEnd: addInterval(periodStart, state.billingInterval),
                providerEventId: null,
              },
            },
          ];
        }
        return [];
      }
      default:
        return assertNever(command);
    }
  },

  evolve: evolveSubscription,
};

export function evolveSubscription(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  switch (event.type) {
    case 'SubscriptionTrialStarted': {
      const d = event.data;
      return {
        ...state,
        status: 'trialing',
        orgId: d.orgId,
        planKey: d.planKey,
        trialStart: d.trialStart,
        trialEndsAt: d.trialEndsAt,
      };
    }
    case 'SubscriptionActivated': {
      const d = event.data;
      return {
        ...state,
        status: 'active',
        orgId: d.orgId,
        planKey: d.planKey,
        billingInterval: d.billingInterval,
        currentPeriodStart: d.periodStart,
        currentPeriodEnd: d.periodEnd,
        cancelAtPeriodEnd: false,
        pastDueSince: null,
        graceEndsAt: null,
        restrictedSince: null,
        providerCustomerId: d.providerCustomerId,
        providerSubscriptionId: d.providerSubscriptionId,
      };
    }
    case 'SubscriptionRenewed':
      return { ...state, currentPeriodStart: event.data.periodStart, currentPeriodEnd: event.data.periodEnd };
    case 'SubscriptionPaymentFailed':
      return {
        ...state,
        status: 'past_due',
        pastDueSince: event.data.pastDueSince,
        graceEndsAt: event.data.graceEndsAt,
        restrictedSince: null,
      };
    case 'SubscriptionAccessRestricted':
      return { ...state, restrictedSince: event.data.at };
    case 'SubscriptionRecovered':
      return {
        ...state,
        status: 'active',
        pastDueSince: null,
        graceEndsAt: null,
        restrictedSince: null,
        currentPeriodStart: event.data.periodStart ?? state.currentPeriodStart,
        currentPeriodEnd: event.data.periodEnd ?? state.currentPeriodEnd,
      };
    case 'SubscriptionCancelScheduled':
      // A scheduled cancellation replaces a scheduled pause.
      return {
        ...state,
        status: state.status === 'pausing' ? 'active' : state.status,
        cancelAtPeriodEnd: true,
      };
    case 'SubscriptionCanceled':
      return { ...state, status: 'canceled', cancelAtPeriodEnd: false };
    case 'SubscriptionPauseScheduled':
      return { ...state, status: 'pausing' };
    case 'SubscriptionPaused':
      return { ...state, status: 'paused' };
    case 'SubscriptionResumed': {
      const d = event.data;
      if (d.from === 'cancel_scheduled') return { ...state, cancelAtPeriodEnd: false };
      return {
        ...state,
        status: 'active',
        currentPeriodStart: d.periodStart ?? state.currentPeriodStart,
        currentPeriodEnd: d.periodEnd ?? state.currentPeriodEnd,
      };
    }
    case 'SubscriptionPlanChanged':
      return { ...state, planKey: event.data.toPlanKey, billingInterval: event.data.billingInterval };
    case 'BillingTransactionRecorded':
      return {
        ...state,
        recordedTransactions: remember(
          state.recordedTransactions,
          `${event.data.transactionId}:${event.data.status}`,
        ),
      };
    case 'SubscriptionNoticeApplied': {
      const d = event.data;
      const newer = state.lastSnapshotAt === null || d.occurredAt > state.lastSnapshotAt;
      return {
        ...state,
        appliedEventIds: remember(state.appliedEventIds, d.providerEventId),
        lastSnapshotAt: d.kind === 'subscription' && newer ? d.occurredAt : state.lastSnapshotAt,
      };
    }
    default:
      return assertNever(event);
  }
}

// ---- Derived views (pure; the credits and enforcement slices read these) ----

/** What the views need of the billing configuration (BillingConfig has it). */
export interface SubscriptionTerms {
  trialDays: number;
  trialPlanKey: string;
}

/**
 * A workspace without a subscription stream yet is a trial starting now (docs: billing design): the use cases
 * start it before they need it; views read it alike in the meantime.
 */
export function effectiveState(
  state: SubscriptionState,
  now: Date,
  terms: SubscriptionTerms,
): SubscriptionState {
  if (state.status !== 'none') return state;
  const at = now.toISOString();
  return {
    ...state,
    status: 'trialing',
    planKey: terms.trialPlanKey,
    trialStart: at,
    trialEndsAt: addDays(at, terms.trialDays),
  };
}

export interface CreditPeriod {
  start: string;
  end: string;
  planKey: string;
}

/**
 * The period credits are counted in: the trial while trialing, else the current paid period (for a paused or
 * canceled subscription, the last one). Null when there is neither (no subscription).
 */
export function currentPeriodOf(state: SubscriptionState): CreditPeriod | null {
  if (state.planKey === null) return null;
  if (state.currentPeriodStart !== null && state.currentPeriodEnd !== null && state.status !== 'trialing')
    return { start: state.currentPeriodStart, end: state.currentPeriodEnd, planKey: state.planKey };
  if (state.trialStart !== null && state.trialEndsAt !== null)
    return { start: state.trialStart, end: state.trialEndsAt, planKey: state.planKey };
  return null;
}

export type AccessState = 'full' | 'read_only';
/** The 402 code an action gets. */
export type AccessRefusal = 'subscription_required' | 'subscription_overdue_read_only';

export interface SubscriptionAccess {
  accessState: AccessState;
  /** Paid actions may run (a trial not expired, active, pausing, past due); read-only is told by accessState. */
  usable: boolean;
  /** What a paid action is refused with; null when it may run. */
  reason: AccessRefusal | null;
}

export function isTrialExpired(state: SubscriptionState, now: Date): boolean {
  return (
    state.status === 'trialing' &&
    state.trialEndsAt !== null &&
    now.getTime() >= Date.parse(state.trialEndsAt)
  );
}

/** A past-due subscription is read-only once restricted or from graceEndsAt on (never waiting for the timer). */
export function isReadOnly(state: SubscriptionState, now: Date): boolean {
  if (state.status !== 'past_due') return false;
  if (state.restrictedSince !== null) return true;
  return state.graceEndsAt !== null && now.getTime() >= Date.parse(state.graceEndsAt);
}

export function accessOf(state: SubscriptionState, now: Date): SubscriptionAccess {
  if (isReadOnly(state, now))
    return { accessState: 'read_only', usable: true, reason: 'subscription_overdue_read_only' };
  switch (state.status) {
    case 'none': // a trial starting now
    case 'active':
    case 'pausing':
    case 'past_due':
      return { accessState: 'full', usable: true, reason: null };
    case 'trialing':
      return isTrialExpired(state, now)
        ? { accessState: 'full', usable: false, reason: 'subscription_required' }
        : { accessState: 'full', usable: true, reason: null };
    case 'paused':
    case 'canceled':
      return { accessState: 'full', usable: false, reason: 'subscription_required' };
    default:
      return assertNever(state.status);
  }
}

/** The spec's Subscription. */
export interface SubscriptionView {
  id: string;
  status: Exclude<SubscriptionStatus, 'none'>;
  accessState: AccessState;
  trialEndsAt: string | null;
  trialDaysRemaining: number | null;
  isTrialExpired: boolean;
  canChangePlan: boolean;
  canPause: boolean;
  pastDueSince: string | null;
  graceEndsAt: string | null;
  billingInterval: BillingInterval;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean | null;
  providerCustomerId: string | null;
  hasProviderSubscription: boolean;
}

export const subscriptionIdOf = (orgId: string) => deterministicUuid('billing-subscription', orgId);

/** The Subscription as callers see it; a workspace without a stream yet shows as a trial starting now. */
export function subscriptionView(
  stored: SubscriptionState,
  now: Date,
  terms: SubscriptionTerms,
  orgId: string = stored.orgId ?? '',
): SubscriptionView {
  const state = effectiveState(stored, now, terms);
  const status = state.status === 'none' ? 'trialing' : state.status;
  const trialing = status === 'trialing';
  const period = trialing ? currentPeriodOf(state) : null;
  const trialDaysRemaining =
    trialing && state.trialEndsAt !== null
      ? Math.max(0, Math.ceil((Date.parse(state.trialEndsAt) - now.getTime()) / dayMs))
      : null;
  const hasProviderSubscription = state.providerSubscriptionId !== null;
  return {
    id: subscriptionIdOf(state.orgId ?? orgId),
    status,
    accessState: accessOf(state, now).accessState,
    trialEndsAt: state.trialEndsAt,
    trialDaysRemaining,
    isTrialExpired: isTrialExpired(state, now),
    canChangePlan: hasProviderSubscription && (status === 'active' || status === 'pausing'),
    canPause: status === 'active' && !state.cancelAtPeriodEnd,
    pastDueSince: state.pastDueSince,
    graceEndsAt: state.graceEndsAt,
    billingInterval: state.billingInterval,
    currentPeriodStart: period ? period.start : state.currentPeriodStart,
    currentPeriodEnd: period ? period.end : state.currentPeriodEnd,
    cancelAtPeriodEnd: state.cancelAtPeriodEnd,
    providerCustomerId: state.providerCustomerId,
    hasProviderSubscription,
  };
}
