// The credit ledger's rules, one period stream at a time: opening with the allowance, rollover and carried
// purchases; monthly credits spent before purchased; a debit that does not fit refused with 402 fair_use_limit;
// repeated spend keys and pack transactions deciding nothing; a closed period taking no more writes.
import { describe, expect, test } from 'vitest';
import {
  carryOver,
  creditBalanceOf,
  creditLedgerDecider,
  CreditPeriodClosedError,
  periodKeyOf,
  type CreditCommand,
  type CreditEvent,
  type SpendDetails,
} from '../../domain/billing/credits.js';
import { InvalidFields, PaymentRequired } from '../../domain/shared/errors.js';
import { fold } from '../../domain/shared/decider.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(creditLedgerDecider);
const orgId = '6f1f8a8e-2a43-4d0c-9d43-3c2b7e1f0a11';
const now = '2026-11-25T10:00:00.000Z';
const periodKey = '20261101T000000Z';

const opened = (over: Partial<Extract<CreditEvent, { type: 'CreditPeriodOpened' }>['data']> = {}) =>
  ({
    type: 'CreditPeriodOpened',
    data: {
      orgId,
      periodKey,
      periodStart: '2026-11-01T00:00:00.000Z',
      periodEnd: '2026-12-01T00:00:00.000Z',
      planKey: 'starter',
      allowance: 300,
      rolledOver: 0,
      purchasedCarried: 0,
      previousPeriodKey: null,
      at: now,
      ...over,
    },
  }) satisfies CreditEvent;

const details: SpendDetails = {
  metricKey: 'ai_draft',
  quantity: 1,
  actionKey: 'ai_draft',
  feature: 'drafts',
  provider: 'openai',
  model: 'gpt-x',
  inputTokens: 120,
  outputTokens: 80,
  totalTokens: 200,
  creditsUsedMilli: 1800,
  pricingVersion: '2026-11',
  usedFallbackEstimate: false,
  metadata: { postGroupId: 'g1' },
};

const spend = (spendKey: string, credits: number): CreditCommand => ({
  type: 'SpendCredits',
  spendKey,
  credits,
  now,
  ...details,
});

const spent = (
  spendKey: string,
  credits: number,
  split: { fromMonthly: number; fromPurchased: number; monthlyAfter: number; purchasedAfter: number },
): CreditEvent => ({
  type: 'CreditsSpent',
  data: { orgId, periodKey, spendKey, credits, ...split, ...details, at: now },
});

const pack = (transactionId: string, credits: number, monthlyAfter: number, purchasedAfter: number) =>
  ({
    type: 'CreditPackPurchased',
    data: {
      orgId,
      periodKey,
      transactionId,
      packKey: 'credits_500',
      credits,
      monthlyAfter,
      purchasedAfter,
      at: now,
    },
  }) satisfies CreditEvent;

describe('opening a period', () => {
  test('records the allowance, what rolled over and the purchased credits carried', () => {
    spec
      .given([])
      .when({
        type: 'OpenCreditPeriod',
        orgId,
        periodKey,
        periodStart: '2026-11-01T00:00:00.000Z',
        periodEnd: '2026-12-01T00:00:00.000Z',
        planKey: 'starter',
        allowance: 300,
        rolledOver: 40,
        purchasedCarried: 500,
        previousPeriodKey: '20261001T000000Z',
        now,
      })
      .then([opened({ rolledOver: 40, purchasedCarried: 500, previousPeriodKey: '20261001T000000Z' })]);
  });

  test('the balance is the allowance plus the rollover (monthly) and the carried purchases', () => {
    const state = fold(creditLedgerDecider, [opened({ rolledOver: 40, purchasedCarried: 500 })]);
    expect(creditBalanceOf(state)).toEqual({
      monthly: 340,
      purchased: 500,
      allowance: 300,
      total: 840,
      rollover: 40,
    });
  });

  test('opening an opened period again decides nothing', () => {
    spec
      .given([opened()])
      .when({
        type: 'OpenCreditPeriod',
        orgId,
        periodKey,
        periodStart: '2026-11-01T00:00:00.000Z',
        periodEnd: '2026-12-01T00:00:00.000Z',
        planKey: 'pro',
        allowance: 1500,
        rolledOver: 0,
        purchasedCarried: 0,
        previousPeriodKey: null,
        now,
      })
      .then([]);
  });

  test('a negative allowance is refused', () => {
    spec
      .given([])
      .when({
        type: 'OpenCreditPeriod',
        orgId,
        periodKey,
        periodStart: '2026-11-01T00:00:00.000Z',
        periodEnd: '2026-12-01T00:00:00.000Z',
        planKey: 'starter',
        allowance: -1,
        rolledOver: 0,
        purchasedCarried: 0,
        previousPeriodKey: null,
        now,
      })
      .thenThrows(InvalidFields, /allowance/);
  });
});

describe('rollover rule', () => {
  const rule = { enabled: true, maxPercentOfAllowance: 50 };
  test('unused monthly credits roll over up to the cap (a share of the new allowance)', () => {
    expect(carryOver({ monthlyLeft: 100, purchasedLeft: 7 }, 300, rule)).toEqual({
      rolledOver: 100,
      purchasedCarried: 7,
    });
    expect(carryOver({ monthlyLeft: 280, purchasedLeft: 0 }, 300, rule)).toEqual({
      rolledOver: 150,
      purchasedCarried: 0,
    });
    expect(carryOver({ monthlyLeft: 280, purchasedLeft: 0 }, 301, rule).rolledOver).toBe(150);
  });
  test('nothing rolls over when rollover is off; purchased credits still carry whole', () => {
    expect(carryOver({ monthlyLeft: 280, purchasedLeft: 90 }, 300, { ...rule, enabled: false })).toEqual({
      rolledOver: 0,
      purchasedCarried: 90,
    });
  });
  test('the first period carries nothing', () => {
    expect(carryOver(null, 300, rule)).toEqual({ rolledOver: 0, purchasedCarried: 0 });
  });
});

describe('spending', () => {
  test('takes monthly credits first', () => {
    spec
      .given([opened(), pack('txn_1', 500, 300, 500)])
      .when(spend('k1', 10))
      .then([spent('k1', 10, { fromMonthly: 10, fromPurchased: 0, monthlyAfter: 290, purchasedAfter: 500 })]);
  });

  test('then purchased credits, splitting a debit that spans both', () => {
    spec
      .given([
        opened(),
        pack('txn_1', 500, 300, 500),
        spent('k1', 295, { fromMonthly: 295, fromPurchased: 0, monthlyAfter: 5, purchasedAfter: 500 }),
      ])
      .when(spend('k2', 12))
      .then([spent('k2', 12, { fromMonthly: 5, fromPurchased: 7, monthlyAfter: 0, purchasedAfter: 493 })]);
  });

  test('exactly the balance fits', () => {
    spec
      .given([opened()])
      .when(spend('k1', 300))
      .then([spent('k1', 300, { fromMonthly: 300, fromPurchased: 0, monthlyAfter: 0, purchasedAfter: 0 })]);
  });

  test('a debit that does not fit is refused with 402 fair_use_limit and records nothing', () => {
    spec
      .given([opened()])
      .when(spend('k1', 301))
      .thenThrows(PaymentRequired, /301 credits/);
    try {
      creditLedgerDecider.decide(spend('k1', 301), fold(creditLedgerDecider, [opened()]));
    } catch (error) {
      expect((error as PaymentRequired).code).toBe('fair_use_limit');
    }
  });

  test('a key already spent decides nothing, even when the balance would no longer cover it', () => {
    spec
      .given([
        opened(),
        spent('k1', 300, { fromMonthly: 300, fromPurchased: 0, monthlyAfter: 0, purchasedAfter: 0 }),
      ])
      .when(spend('k1', 300))
      .then([]);
  });

  test('a zero-credit debit records the usage', () => {
    spec
      .given([opened()])
      .when(spend('k0', 0))
      .then([spent('k0', 0, { fromMonthly: 0, fromPurchased: 0, monthlyAfter: 300, purchasedAfter: 0 })]);
  });

  test('negative or fractional credits are refused', () => {
    spec
      .given([opened()])
      .when(spend('k1', -1))
      .thenThrows(InvalidFields, /credits/);
    spec
      .given([opened()])
      .when(spend('k1', 1.5))
      .thenThrows(InvalidFields, /credits/);
  });

  test('spending before the period is opened is a conflict', () => {
    spec
      .given([])
      .when(spend('k1', 1))
      .thenThrows(Error, /not open/);
  });
});

describe('credit packs', () => {
  test('add to purchased credits', () => {
    spec
      .given([opened()])
      .when({ type: 'AddCreditPack', transactionId: 'txn_1', packKey: 'credits_500', credits: 500, now })
      .then([pack('txn_1', 500, 300, 500)]);
  });

  test('the same transaction again decides nothing', () => {
    spec
      .given([opened(), pack('txn_1', 500, 300, 500)])
      .when({ type: 'AddCreditPack', transactionId: 'txn_1', packKey: 'credits_500', credits: 500, now })
      .then([]);
  });
});

describe('closing a period', () => {
  const closed: CreditEvent = {
    type: 'CreditPeriodClosed',
    data: {
      orgId,
      periodKey,
      monthlyLeft: 300,
      purchasedLeft: 0,
      nextPeriodKey: '20261201T000000Z',
      at: now,
    },
  };

  test('records what was left and the next period', () => {
    spec
      .given([opened()])
      .when({ type: 'CloseCreditPeriod', nextPeriodKey: '20261201T000000Z', now })
      .then([closed]);
  });

  test('closing again decides nothing', () => {
    spec
      .given([opened(), closed])
      .when({ type: 'CloseCreditPeriod', nextPeriodKey: '20261201T000000Z', now })
      .then([]);
  });

  test('a spend on a closed period is refused as closed (the use case retries on the current one)', () => {
    spec
      .given([opened(), closed])
      .when(spend('k1', 1))
      .thenThrows(CreditPeriodClosedError, /closed/);
  });

  test('a pack on a closed period is refused as closed', () => {
    spec
      .given([opened(), closed])
      .when({ type: 'AddCreditPack', transactionId: 'txn_2', packKey: 'credits_500', credits: 500, now })
      .thenThrows(CreditPeriodClosedError);
  });

  test('a key spent before the close still answers nothing to decide', () => {
    spec
      .given([
        opened(),
        spent('k1', 1, { fromMonthly: 1, fromPurchased: 0, monthlyAfter: 299, purchasedAfter: 0 }),
        { ...closed, data: { ...closed.data, monthlyLeft: 299 } },
      ])
      .when(spend('k1', 1))
      .then([]);
  });
});

test('period keys are the period start as YYYYMMDDTHHMMSSZ', () => {
  expect(periodKeyOf('2026-11-01T00:00:00.000Z')).toBe('20261101T000000Z');
  expect(periodKeyOf(new Date('2026-02-03T04:05:06.789Z'))).toBe('20260203T040506Z');
});

describe('reservations for paid calls (finding 9)', () => {
  const later = '2026-11-25T10:05:00.000Z';
  const afterExpiry = '2026-11-25T10:20:00.000Z';
  const expiresAt = '2026-11-25T10:10:00.000Z';
  const reserve = (key: string, credits: number, at = now): CreditCommand => ({
    type: 'ReserveCredits',
    reservationKey: key,
    credits,
    expiresAt,
    now: at,
  });
  const reserved = (key: string, credits: number, at = now): CreditEvent => ({
    type: 'CreditsReserved',
    data: { orgId, periodKey, reservationKey: key, credits, expiresAt, at },
  });
  const released = (key: string, credits: number, reason: 'failed' | 'expired', at = now): CreditEvent => ({
    type: 'CreditReservationReleased',
    data: { orgId, periodKey, reservationKey: key, credits, reason, at },
  });
  const release = (key: string, at = now): CreditCommand => ({
    type: 'ReleaseCredits',
    reservationKey: key,
    reason: 'failed',
    now: at,
  });
  const balance = (events: CreditEvent[], at = now) => creditBalanceOf(fold(creditLedgerDecider, events), at);

  test('a reservation holds credits at once: the balance shows them gone, nothing is charged yet', () => {
    spec
      .given([opened()])
      .when(reserve('r1', 200))
      .then([reserved('r1', 200)]);
    expect(balance([opened(), reserved('r1', 200)])).toMatchObject({ monthly: 300, total: 100 });
  });

  test('a reservation that does not fit beside the others is refused with 402 fair_use_limit', () => {
    spec
      .given([opened(), reserved('r1', 200)])
      .when(reserve('r2', 101))
      .thenThrows(PaymentRequired, /needs 101 credits; the workspace has 100 left/);
    spec
      .given([opened(), reserved('r1', 200)])
      .when(reserve('r2', 100))
      .then([reserved('r2', 100)]);
  });

  test('no spend may take credits another call holds', () => {
    spec
      .given([opened(), reserved('r1', 250)])
      .when(spend('s1', 51))
      .thenThrows(PaymentRequired, /fair_use_limit|left/);
  });

  test('settling is the debit of the same key: the hold becomes the charge', () => {
    const given = [opened(), reserved('r1', 300)];
    spec
      .given(given)
      .when(spend('r1', 300))
      .then([spent('r1', 300, { fromMonthly: 300, fromPurchased: 0, monthlyAfter: 0, purchasedAfter: 0 })]);
    const after = [
      ...given,
      spent('r1', 300, { fromMonthly: 300, fromPurchased: 0, monthlyAfter: 0, purchasedAfter: 0 }),
    ];
    expect(fold(creditLedgerDecider, after)).toMatchObject({ holds: {}, used: 300 });
  });

  test('settling for less (the actual amount) gives the rest back', () => {
    const given = [
      opened(),
      reserved('r1', 100),
      spent('r1', 40, { fromMonthly: 40, fromPurchased: 0, monthlyAfter: 260, purchasedAfter: 0 }),
    ];
    expect(balance(given)).toMatchObject({ monthly: 260, total: 260 });
  });

  test('a failed call releases its hold: the balance is whole again and nothing was charged', () => {
    spec
      .given([opened(), reserved('r1', 200)])
      .when(release('r1'))
      .then([released('r1', 200, 'failed')]);
    const after = [opened(), reserved('r1', 200), released('r1', 200, 'failed')];
    expect(balance(after)).toMatchObject({ monthly: 300, total: 300 });
    expect(fold(creditLedgerDecider, after)).toMatchObject({ used: 0, holds: {} });
    spec.given(after).when(release('r1')).then([]);
  });

  test('the same key reserved again while held, or once charged, decides nothing', () => {
    spec
      .given([opened(), reserved('r1', 200)])
      .when(reserve('r1', 200, later))
      .then([]);
    spec
      .given([
        opened(),
        spent('r1', 10, { fromMonthly: 10, fromPurchased: 0, monthlyAfter: 290, purchasedAfter: 0 }),
      ])
      .when(reserve('r1', 10))
      .then([]);
  });

  test('a hold left by a crash expires: it no longer counts, and the next reservation releases it', () => {
    expect(balance([opened(), reserved('r1', 300)], afterExpiry)).toMatchObject({ total: 300 });
    spec
      .given([opened(), reserved('r1', 300)])
      .when(reserve('r2', 300, afterExpiry))
      .then([released('r1', 300, 'expired', afterExpiry), reserved('r2', 300, afterExpiry)]);
  });

  test('the new events decode', () => {
    const events = [reserved('r1', 1), released('r1', 1, 'expired')];
    for (const [revision, e] of events.entries())
      expect(
        creditLedgerDecider.codec.decode({
          streamName: `credits-${orgId}_${periodKey}`,
          revision,
          type: e.type,
          data: e.data,
          metadata: { schemaVersion: 1 },
        }),
      ).toEqual(e);
  });
});
