// The subscription decider, row by row of the spec's state table (cancel, pause, resume, overdue read-only) and
// each move added here: trial start, activation, renewal, payment failure with grace, restriction, recovery,
// plan change, provider notices applied once and in order, and the period end.
import { describe, expect, test } from 'vitest';
import { fold } from '../../domain/shared/decider.js';
import { Conflict, ValidationError } from '../../domain/shared/errors.js';
import type { SubscriptionNotice, TransactionNotice } from '../../domain/billing/provider-events.js';
import {
  accessOf,
  addInterval,
  ForeignProviderNotice,
  currentPeriodOf,
  subscriptionDecider,
  subscriptionView,
  type ResolvedPrice,
  type SubscriptionCommand,
  type SubscriptionEvent,
} from '../../domain/billing/subscription.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const t0 = '2026-11-01T10:00:00.000Z';
const trialEnd = '2026-11-15T10:00:00.000Z';
const paidAt = '2026-11-05T10:00:00.000Z';
const periodEnd = '2026-12-05T10:00:00.000Z';
const later = '2026-11-20T10:00:00.000Z';
const terms = { trialDays: 14, trialPlanKey: 'pro' };
const pro: ResolvedPrice = { planKey: 'pro', billingInterval: 'month' };
const spec = deciderSpec(subscriptionDecider);

const trialStarted: SubscriptionEvent = {
  type: 'SubscriptionTrialStarted',
  data: { orgId, at: t0, planKey: 'pro', trialStart: t0, trialEndsAt: trialEnd },
};
const activated: SubscriptionEvent = {
  type: 'SubscriptionActivated',
  data: {
    orgId,
    at: paidAt,
    providerCustomerId: 'ctm_1',
    providerSubscriptionId: 'sub_1',
    planKey: 'pro',
    billingInterval: 'month',
    periodStart: paidAt,
    periodEnd,
    providerEventId: 'evt_1',
  },
};
const applied = (
  eventId: string,
  occurredAt: string,
  kind: 'subscription' | 'transaction' = 'subscription',
) =>
  ({
    type: 'SubscriptionNoticeApplied',
    data: { orgId, at: occurredAt, provider: 'sandbox', providerEventId: eventId, kind, occurredAt },
  }) satisfies SubscriptionEvent;
const trialing = [trialStarted];
const active = [trialStarted, activated, applied('evt_1', paidAt)];
const failedAt = '2026-12-05T11:00:00.000Z';
const graceEnd = '2026-12-12T11:00:00.000Z';
const paymentFailed: SubscriptionEvent = {
  type: 'SubscriptionPaymentFailed',
  data: { orgId, at: failedAt, pastDueSince: failedAt, graceEndsAt: graceEnd, providerEventId: 'evt_2' },
};
const pastDue = [...active, paymentFailed, applied('evt_2', failedAt)];

const snapshot = (over: Partial<SubscriptionNotice> = {}): SubscriptionNotice => ({
  kind: 'subscription',
  provider: 'sandbox',
  eventId: 'evt_1',
  occurredAt: paidAt,
  orgId,
  status: 'active',
  providerCustomerId: 'ctm_1',
  providerSubscriptionId: 'sub_1',
  priceId: 'pri_pro_monthly',
  currentPeriodStart: paidAt,
  currentPeriodEnd: periodEnd,
  cancelAtPeriodEnd: false,
  pauseAtPeriodEnd: false,
  ...over,
});
const transaction = (over: Partial<TransactionNotice> = {}): TransactionNotice => ({
  kind: 'transaction',
  provider: 'sandbox',
  eventId: 'evt_t1',
  occurredAt: failedAt,
  orgId,
  transactionId: 'txn_1',
  type: 'renewal',
  status: 'completed',
  amount: 4900,
  currency: 'USD',
  priceId: 'pri_pro_monthly',
  invoiceId: 'inv_1',
  invoiceNumber: '2026-0001',
  invoiceUrl: null,
  paidAt: failedAt,
  createdAt: failedAt,
  ...over,
});
const apply = (
  notice: SubscriptionNotice | TransactionNotice,
  now = notice.occurredAt,
  price: ResolvedPrice | null = pro,
): SubscriptionCommand => ({ type: 'ApplyProviderNotice', notice, price, graceDays: 7, now });
const cmd = (
  type: 'CancelSubscription' | 'PauseSubscription' | 'ResumeSubscription' | 'EndPeriod',
  now = later,
) => ({ type, now }) as SubscriptionCommand;
const stateOf = (events: SubscriptionEvent[]) => fold(subscriptionDecider, events);

describe('the trial', () => {
  test('a new workspace starts a trial of the configured length on the trial plan', () => {
    spec
      .given([])
      .when({ type: 'StartTrial', orgId, trialDays: 14, trialPlanKey: 'pro', now: t0 })
      .then([trialStarted]);
  });

  test('starting it again decides nothing', () => {
    spec
      .given(trialing)
      .when({ type: 'StartTrial', orgId, trialDays: 14, trialPlanKey: 'pro', now: later })
      .then([]);
    spec
      .given(active)
      .when({ type: 'StartTrial', orgId, trialDays: 14, trialPlanKey: 'pro', now: later })
      .then([]);
  });

  test('the trial is the credit period and is usable until it ends, then paid actions need a subscription', () => {
    const s = stateOf(trialing);
    expect(currentPeriodOf(s)).toEqual({ start: t0, end: trialEnd, planKey: 'pro' });
    expect(accessOf(s, new Date('2026-11-10T00:00:00Z'))).toEqual({
      accessState: 'full',
      usable: true,
      reason: null,
    });
    expect(accessOf(s, new Date(trialEnd))).toEqual({
      accessState: 'full',
      usable: false,
      reason: 'subscription_required',
    });
    const view = subscriptionView(s, new Date('2026-11-10T10:00:00Z'), terms);
    expect(view).toMatchObject({
      status: 'trialing',
      trialEndsAt: trialEnd,
      trialDaysRemaining: 5,
      isTrialExpired: false,
      canPause: false,
      canChangePlan: false,
      hasProviderSubscription: false,
      accessState: 'full',
    });
    expect(subscriptionView(s, new Date(later), terms)).toMatchObject({
      isTrialExpired: true,
      trialDaysRemaining: 0,
    });
  });

  test('a workspace without a stream yet reads as a trial starting now', () => {
    const now = new Date(t0);
    expect(accessOf(stateOf([]), now).usable).toBe(true);
    expect(subscriptionView(stateOf([]), now, terms, orgId)).toMatchObject({
      status: 'trialing',
      trialEndsAt: trialEnd,
      trialDaysRemaining: 14,
    });
  });
});

describe('cancel (state table)', () => {
  test('a trial is canceled immediately', () => {
    spec
      .given(trialing)
      .when(cmd('CancelSubscription'))
      .then([{ type: 'SubscriptionCanceled', data: { orgId, at: later, immediately: true } }]);
    const s = stateOf([
      ...trialing,
      { type: 'SubscriptionCanceled', data: { orgId, at: later, immediately: true } },
    ]);
    expect(s.status).toBe('canceled');
    expect(accessOf(s, new Date(later)).reason).toBe('subscription_required');
  });

  test('a paid subscription cancels at the period end (cancelAtPeriodEnd), once', () => {
    spec
      .given(active)
      .when(cmd('CancelSubscription'))
      .then([{ type: 'SubscriptionCancelScheduled', data: { orgId, at: later } }]);
    const scheduled = [
      ...active,
      { type: 'SubscriptionCancelScheduled', data: { orgId, at: later } } as const,
    ];
    expect(stateOf(scheduled)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    spec.given(scheduled).when(cmd('CancelSubscription')).then([]);
  });

  test('cancel scheduled, then the period end: canceled', () => {
    const scheduled = [
      ...active,
      { type: 'SubscriptionCancelScheduled', data: { orgId, at: later } } as const,
    ];
    spec
      .given(scheduled)
      .when(cmd('EndPeriod', periodEnd))
      .then([{ type: 'SubscriptionCanceled', data: { orgId, at: periodEnd, immediately: false } }]);
  });

  test('canceling while pausing replaces the pause; the period end then cancels', () => {
    const pausing = [...active, { type: 'SubscriptionPauseScheduled', data: { orgId, at: later } } as const];
    spec
      .given(pausing)
      .when(cmd('CancelSubscription'))
      .then([{ type: 'SubscriptionCancelScheduled', data: { orgId, at: later } }]);
    const scheduled = [
      ...pausing,
      { type: 'SubscriptionCancelScheduled', data: { orgId, at: later } } as const,
    ];
    expect(stateOf(scheduled)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    spec
      .given(scheduled)
      .when(cmd('EndPeriod', periodEnd))
      .then([{ type: 'SubscriptionCanceled', data: { orgId, at: periodEnd, immediately: false } }]);
  });

  test('a paused subscription is canceled at once', () => {
    spec
      .given([
        ...active,
        { type: 'SubscriptionPauseScheduled', data: { orgId, at: later } },
        { type: 'SubscriptionPaused', data: { orgId, at: periodEnd } },
      ])
      .when(cmd('CancelSubscription', periodEnd))
      .then([{ type: 'SubscriptionCanceled', data: { orgId, at: periodEnd, immediately: true } }]);
  });

  test('canceling a canceled subscription is a conflict', () => {
    spec
      .given([...trialing, { type: 'SubscriptionCanceled', data: { orgId, at: later, immediately: true } }])
      .when(cmd('CancelSubscription'))
      .thenThrows(Conflict, /already canceled/);
  });
});

describe('pause (state table)', () => {
  test('refused while trialing, with the code trialing', () => {
    spec.given(trialing).when(cmd('PauseSubscription')).thenThrows(Conflict, /trial/);
    expect(() => subscriptionDecider.decide(cmd('PauseSubscription'), stateOf(trialing))).toThrow(
      expect.objectContaining({ code: 'trialing' }),
    );
  });

  test('not trialing: pausing, then paused at the period end', () => {
    spec
      .given(active)
      .when(cmd('PauseSubscription'))
      .then([{ type: 'SubscriptionPauseScheduled', data: { orgId, at: later } }]);
    const pausing = [...active, { type: 'SubscriptionPauseScheduled', data: { orgId, at: later } } as const];
    expect(stateOf(pausing).status).toBe('pausing');
    expect(accessOf(stateOf(pausing), new Date(later)).usable).toBe(true);
    spec.given(pausing).when(cmd('PauseSubscription')).then([]);
    spec
      .given(pausing)
      .when(cmd('EndPeriod', periodEnd))
      .then([{ type: 'SubscriptionPaused', data: { orgId, at: periodEnd } }]);
    const paused = [...pausing, { type: 'SubscriptionPaused', data: { orgId, at: periodEnd } } as const];
    expect(stateOf(paused).status).toBe('paused');
    expect(accessOf(stateOf(paused), new Date(periodEnd)).usable).toBe(false);
  });

  test('refused while past due and while a cancellation is scheduled', () => {
    spec
      .given(pastDue)
      .when(cmd('PauseSubscription'))
      .thenThrows(Conflict, /past-due/);
    spec
      .given([...active, { type: 'SubscriptionCancelScheduled', data: { orgId, at: later } }])
      .when(cmd('PauseSubscription'))
      .thenThrows(Conflict, /resume it first/);
  });
});

describe('resume (state table: event resumed, status returned)', () => {
  const pausing = [...active, { type: 'SubscriptionPauseScheduled', data: { orgId, at: later } } as const];

  test('pausing → active', () => {
    spec
      .given(pausing)
      .when(cmd('ResumeSubscription'))
      .then([
        {
          type: 'SubscriptionResumed',
          data: { orgId, at: later, from: 'pausing', periodStart: null, periodEnd: null },
        },
      ]);
    spec
      .given(pausing)
      .when(cmd('ResumeSubscription'))
      .thenState((s) => expect(s.status).toBe('active'));
  });

  test('paused → active with a new period', () => {
    const resumeAt = '2026-12-20T10:00:00.000Z';
    spec
      .given([...pausing, { type: 'SubscriptionPaused', data: { orgId, at: periodEnd } }])
      .when(cmd('ResumeSubscription', resumeAt))
      .thenState((s) => {
        expect(s).toMatchObject({
          status: 'active',
          currentPeriodStart: resumeAt,
          currentPeriodEnd: '2027-01-20T10:00:00.000Z',
        });
      });
  });

  test('a scheduled cancellation is taken back', () => {
    spec
      .given([...active, { type: 'SubscriptionCancelScheduled', data: { orgId, at: later } }])
      .when(cmd('ResumeSubscription'))
      .thenState((s) => expect(s).toMatchObject({ status: 'active', cancelAtPeriodEnd: false }));
  });

  test('nothing to resume: no event (the current status is returned)', () => {
    spec.given(active).when(cmd('ResumeSubscription')).then([]);
    spec.given(trialing).when(cmd('ResumeSubscription')).then([]);
  });
});

describe('provider notices', () => {
  test('trial → active by the first paid snapshot', () => {
    spec
      .given(trialing)
      .when(apply(snapshot()))
      .then([activated, applied('evt_1', paidAt)]);
    const view = subscriptionView(stateOf(active), new Date(later), terms);
    expect(view).toMatchObject({
      status: 'active',
      canPause: true,
      canChangePlan: true,
      hasProviderSubscription: true,
      providerCustomerId: 'ctm_1',
      currentPeriodStart: paidAt,
      currentPeriodEnd: periodEnd,
      trialDaysRemaining: null,
    });
    expect(currentPeriodOf(stateOf(active))).toEqual({ start: paidAt, end: periodEnd, planKey: 'pro' });
  });

  test('an unknown price is refused naming priceId', () => {
    spec
      .given(trialing)
      .when(apply(snapshot(), paidAt, null))
      .thenThrows(ValidationError, /Unknown price/);
  });

  test('the same notice twice: the second decides nothing', () => {
    spec.given(active).when(apply(snapshot())).then([]);
  });

  test('a snapshot older than the last one applied decides nothing', () => {
    const older = snapshot({
      eventId: 'evt_old',
      occurredAt: '2026-11-04T10:00:00.000Z',
      status: 'past_due',
    });
    spec.given(active).when(apply(older)).then([]);
  });

  test('a newer snapshot matching the state is recorded, so an older one arriving after it is ignored', () => {
    const same = snapshot({ eventId: 'evt_same', occurredAt: later });
    spec
      .given(active)
      .when(apply(same))
      .then([applied('evt_same', later)]);
    spec
      .given([...active, applied('evt_same', later)])
      .when(
        apply(snapshot({ eventId: 'evt_mid', occurredAt: '2026-11-10T00:00:00.000Z', status: 'past_due' })),
      )
      .then([]);
  });

  test('renewal: a snapshot with a new period', () => {
    const next = snapshot({
      eventId: 'evt_r',
      occurredAt: periodEnd,
      currentPeriodStart: periodEnd,
      currentPeriodEnd: '2027-01-05T10:00:00.000Z',
    });
    spec
      .given(active)
      .when(apply(next))
      .then([
        {
          type: 'SubscriptionRenewed',
          data: {
            orgId,
            at: periodEnd,
            periodStart: periodEnd,
            periodEnd: '2027-01-05T10:00:00.000Z',
            providerEventId: 'evt_r',
          },
        },
        applied('evt_r', periodEnd),
      ]);
  });

  test('active → past_due with grace: access stays full until graceEndsAt, then read-only', () => {
    spec
      .given(active)
      .when(apply(transaction({ eventId: 'evt_2', status: 'failed', paidAt: null })))
      .thenState((s) => {
        expect(s).toMatchObject({ status: 'past_due', pastDueSince: failedAt, graceEndsAt: graceEnd });
      });
    const s = stateOf(pastDue);
    expect(accessOf(s, new Date('2026-12-10T00:00:00Z'))).toEqual({
      accessState: 'full',
      usable: true,
      reason: null,
    });
    expect(accessOf(s, new Date(graceEnd))).toEqual({
      accessState: 'read_only',
      usable: true,
      reason: 'subscription_overdue_read_only',
    });
    expect(subscriptionView(s, new Date(graceEnd), terms)).toMatchObject({
      status: 'past_due',
      accessState: 'read_only',
      pastDueSince: failedAt,
      graceEndsAt: graceEnd,
      canPause: false,
    });
  });

  test('a past-due snapshot moves an active subscription to past_due', () => {
    spec
      .given(active)
      .when(apply(snapshot({ eventId: 'evt_2', occurredAt: failedAt, status: 'past_due' })))
      .then([paymentFailed, applied('evt_2', failedAt)]);
  });

  test('a failed transaction records it once per status', () => {
    const failed = transaction({ eventId: 'evt_2', status: 'failed', paidAt: null });
    spec
      .given(active)
      .when(apply(failed))
      .thenState((s) => expect(s.recordedTransactions).toEqual(['txn_1:failed']));
    const recorded = [...active, ...subscriptionDecider.decide(apply(failed), stateOf(active))];
    spec
      .given(recorded)
      .when(apply({ ...failed, eventId: 'evt_again' }))
      .then([applied('evt_again', failedAt, 'transaction')]);
  });

  test('grace over → read-only (the timer), not before; forced by the simulator', () => {
    spec.given(pastDue).when({ type: 'RestrictAccess', now: '2026-12-10T00:00:00.000Z' }).then([]);
    spec
      .given(pastDue)
      .when({ type: 'RestrictAccess', now: graceEnd })
      .then([{ type: 'SubscriptionAccessRestricted', data: { orgId, at: graceEnd } }]);
    spec
      .given(pastDue)
      .when({ type: 'RestrictAccess', force: true, now: failedAt })
      .thenState((s) => expect(accessOf(s, new Date(failedAt)).accessState).toBe('read_only'));
    spec.given(active).when({ type: 'RestrictAccess', now: graceEnd }).then([]);
    spec.given(active).when({ type: 'RestrictAccess', force: true, now: graceEnd }).thenThrows(Conflict);
  });

  test('recovered: full access again, by snapshot or by a completed payment', () => {
    const restricted = [
      ...pastDue,
      { type: 'SubscriptionAccessRestricted', data: { orgId, at: graceEnd } } as const,
    ];
    spec
      .given(restricted)
      .when(apply(snapshot({ eventId: 'evt_3', occurredAt: '2026-12-13T00:00:00.000Z' })))
      .thenState((s) => {
        expect(s).toMatchObject({
          status: 'active',
          pastDueSince: null,
          graceEndsAt: null,
          restrictedSince: null,
        });
        expect(accessOf(s, new Date('2026-12-13T00:00:00.000Z')).accessState).toBe('full');
      });
    spec
      .given(restricted)
      .when(apply(transaction({ eventId: 'evt_4', occurredAt: '2026-12-13T00:00:00.000Z' })))
      .thenState((s) => expect(s.status).toBe('active'));
  });

  test('a canceled snapshot cancels; a paused snapshot pauses', () => {
    spec
      .given(active)
      .when(apply(snapshot({ eventId: 'evt_c', occurredAt: periodEnd, status: 'canceled' })))
      .thenState((s) => expect(s.status).toBe('canceled'));
    spec
      .given(active)
      .when(apply(snapshot({ eventId: 'evt_p', occurredAt: periodEnd, status: 'paused' })))
      .thenState((s) => expect(s.status).toBe('paused'));
  });

  test('a snapshot with another plan changes the plan', () => {
    spec
      .given(active)
      .when(
        apply(snapshot({ eventId: 'evt_b', occurredAt: later, priceId: 'pri_business_annual' }), later, {
          planKey: 'business',
          billingInterval: 'year',
        }),
      )
      .then([
        {
          type: 'SubscriptionPlanChanged',
          data: {
            orgId,
            at: later,
            fromPlanKey: 'pro',
            toPlanKey: 'business',
            billingInterval: 'year',
            priceId: 'pri_business_annual',
          },
        },
        applied('evt_b', later),
      ]);
  });
});

describe("notices bound to the workspace's own provider subscription (finding 6)", () => {
  const other = { providerCustomerId: 'ctm_2', providerSubscriptionId: 'sub_2' };
  const canceledState = [
    ...active,
    { type: 'SubscriptionCanceled', data: { orgId, at: later, immediately: false } },
  ] satisfies SubscriptionEvent[];

  test('the first paid snapshot binds the customer and subscription', () => {
    const state = stateOf(active);
    expect([state.providerCustomerId, state.providerSubscriptionId]).toEqual(['ctm_1', 'sub_1']);
  });

  test('a snapshot naming another subscription and customer is refused: cancel, plan, customer unchanged', () => {
    for (const over of [{ status: 'canceled' as const }, { priceId: 'pri_business_annual' }, {}])
      spec
        .given(active)
        .when(apply(snapshot({ eventId: 'evt_x', occurredAt: later, ...other, ...over }), later))
        .thenThrows(ForeignProviderNotice, /bound to another/);
  });

  test('the same subscription id under another customer is refused', () => {
    spec
      .given(active)
      .when(apply(snapshot({ eventId: 'evt_x', occurredAt: later, providerCustomerId: 'ctm_2' }), later))
      .thenThrows(ForeignProviderNotice, /customer ctm_2/);
  });

  test("a transaction of another subscription or customer is refused (no payment failure of someone else's)", () => {
    spec
      .given(active)
      .when(apply(transaction({ eventId: 'evt_x', status: 'failed', ...other })))
      .thenThrows(ForeignProviderNotice);
    spec
      .given(active)
      .when(apply(transaction({ eventId: 'evt_x', type: 'credit_pack', providerCustomerId: 'ctm_2' })))
      .thenThrows(ForeignProviderNotice);
  });

  test('notices of the bound subscription, and transactions naming no ids, still apply', () => {
    spec
      .given(active)
      .when(apply(snapshot({ eventId: 'evt_c', occurredAt: later, status: 'canceled' }), later))
      .then([
        { type: 'SubscriptionCanceled', data: { orgId, at: later, immediately: false } },
        applied('evt_c', later),
      ]);
    expect(
      subscriptionDecider
        .decide(
          apply(
            transaction({ status: 'failed', providerSubscriptionId: 'sub_1', providerCustomerId: 'ctm_1' }),
          ),
          stateOf(active),
        )
        .map((e) => e.type),
    ).toContain('SubscriptionPaymentFailed');
  });

  test('once canceled, the same customer may subscribe again; another customer may not', () => {
    const again = snapshot({ eventId: 'evt_n', occurredAt: periodEnd, providerSubscriptionId: 'sub_2' });
    expect(
      subscriptionDecider.decide(apply(again, periodEnd), stateOf(canceledState)).map((e) => e.type),
    ).toEqual(['SubscriptionActivated', 'SubscriptionNoticeApplied']);
    spec
      .given(canceledState)
      .when(apply({ ...again, ...other }, periodEnd))
      .thenThrows(ForeignProviderNotice);
  });
});

describe('plan change', () => {
  const change = (price: ResolvedPrice | null): SubscriptionCommand => ({
    type: 'ChangePlan',
    priceId: 'pri_business_annual',
    price,
    now: later,
  });

  test('active with a provider subscription: the plan changes', () => {
    spec
      .given(active)
      .when(change({ planKey: 'business', billingInterval: 'year' }))
      .thenState((s) => expect(s).toMatchObject({ planKey: 'business', billingInterval: 'year' }));
  });

  test('the same plan and interval decides nothing', () => {
    spec.given(active).when(change(pro)).then([]);
  });

  test('an unknown price is refused naming priceId', () => {
    spec
      .given(active)
      .when(change(null))
      .thenThrows(ValidationError, /Unknown price/);
  });

  test('without a provider subscription, or while past due, a conflict', () => {
    spec
      .given(trialing)
      .when(change(pro))
      .thenThrows(Conflict, /subscribe first/);
    spec
      .given(pastDue)
      .when(change(pro))
      .thenThrows(Conflict, /past_due/);
  });
});

describe('the period end', () => {
  test('an active subscription renews one interval', () => {
    spec
      .given(active)
      .when(cmd('EndPeriod', periodEnd))
      .then([
        {
          type: 'SubscriptionRenewed',
          data: {
            orgId,
            at: periodEnd,
            periodStart: periodEnd,
            periodEnd: addInterval(periodEnd, 'month'),
            providerEventId: null,
          },
        },
      ]);
  });

  test('a trial, a paused or canceled subscription: nothing', () => {
    spec.given(trialing).when(cmd('EndPeriod')).then([]);
    spec.given([]).when(cmd('EndPeriod')).then([]);
  });

  test('intervals: calendar months, clamped to the month end; years', () => {
    expect(addInterval('2026-01-31T00:00:00.000Z', 'month')).toBe('2026-02-28T00:00:00.000Z');
    expect(addInterval('2026-11-05T10:00:00.000Z', 'year')).toBe('2027-11-05T10:00:00.000Z');
  });
});

describe('the event codec', () => {
  test('every event this decider writes decodes', () => {
    const all = [
      ...pastDue,
      { type: 'SubscriptionAccessRestricted', data: { orgId, at: graceEnd } } as const,
    ];
    for (const [revision, event] of all.entries()) {
      const decoded = subscriptionDecider.codec.decode({
        streamName: `subscription-${orgId}`,
        revision,
        type: event.type,
        data: event.data,
        metadata: { schemaVersion: 1 },
      });
      expect(decoded).toEqual(event);
    }
  });
});
