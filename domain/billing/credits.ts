// The credit ledger of one workspace for one period (`credits-<orgId>_<periodKey>`): the period's monthly
// allowance with what rolled over, purchased packs, every debit (idempotent by its key) and the credits held for
// paid calls in flight (reserved before the call, settled as the debit of the same key, or released).
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields, PaymentRequired } from '../shared/errors.js';
import type { DataOf } from '../shared/event-codec.js';
import { creditEventCodec, type CreditEvent, type SpendDetails } from './credits-codec.js';

export type { CreditEvent, SpendDetails } from './credits-codec.js';

export const creditsCategory = 'credits';

/**
 * `YYYYMMDDTHHMMSSZ` of the period start: the stream of a period is `credits-<orgId>_<periodKey>`. Two periods
 * can start within one second (a trial turned into a paid period at once); the later one's ledger is then
 * `finePeriodKeyOf` (CreditsService resolves which).
 */
export function periodKeyOf(periodStart: string | Date): string {
  const iso = (typeof periodStart === 'string' ? new Date(periodStart) : periodStart).toISOString();
  return iso.replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The key of a period whose second's key is held by an earlier period: `YYYYMMDDTHHMMSSZ.mmm`, the start to the
 * millisecond. It sorts after the second's key and before the next second's, as the periods do.
 */
export function finePeriodKeyOf(periodStart: string | Date): string {
  const date = typeof periodStart === 'string' ? new Date(periodStart) : periodStart;
  return `${periodKeyOf(date)}.${String(date.getUTCMilliseconds()).padStart(3, '0')}`;
}

export const creditStreamId = (orgId: string, periodKey: string) => `${orgId}_${periodKey}`;

/** What a period is opened with: the command gives it, the event records it, the ledger keeps it. */
type PeriodTerms = Omit<DataOf<CreditEvent, 'CreditPeriodOpened'>, 'at'>;

export type CreditCommand =
  | ({ type: 'OpenCreditPeriod'; now: string } & PeriodTerms)
  | ({ type: 'SpendCredits'; spendKey: string; credits: number; now: string } & SpendDetails)
  | { type: 'AddCreditPack'; transactionId: string; packKey: string; credits: number; now: string }
  | { type: 'ReserveCredits'; reservationKey: string; credits: number; expiresAt: string; now: string }
  | { type: 'ReleaseCredits'; reservationKey: string; reason: 'failed' | 'expired'; now: string }
  | { type: 'CloseCreditPeriod'; nextPeriodKey: string; now: string };

/** The answer to a debit (the first one's, for a repeated key). */
export interface SpendResult {
  spendKey: string;
  credits: number;
  fromMonthly: number;
  fromPurchased: number;
  monthlyAfter: number;
  purchasedAfter: number;
  periodKey: string;
  at: string;
}

export interface OpenLedger extends PeriodTerms {
  status: 'open' | 'closed';
  /** Monthly credits left (allowance + rolled over − monthly spent). */
  monthly: number;
  /** Purchased credits left (carried + bought this period − purchased spent). */
  purchased: number;
  /** Credits spent in this period. */
  used: number;
  /** Credits of packs bought in this period. */
  purchasedInPeriod: number;
  spends: Readonly<Record<string, SpendResult>>;
  packs: Readonly<Record<string, true>>;
  /** Credits held for paid calls in flight, by their debit key (expired ones count for nothing). */
  holds: Readonly<Record<string, CreditHold>>;
  nextPeriodKey: string | null;
}

export interface CreditHold {
  credits: number;
  expiresAt: string;
}

export type CreditLedgerState = { status: 'unopened' } | OpenLedger;

const isLive = (hold: CreditHold, now: string) => Date.parse(hold.expiresAt) > Date.parse(now);

/** Credits held at `now` by holds that have not expired, leaving out `exceptKey`'s own. */
export function heldCredits(ledger: OpenLedger, now: string, exceptKey?: string): number {
  let held = 0;
  for (const [key, hold] of Object.entries(ledger.holds))
    if (key !== exceptKey && isLive(hold, now)) held += hold.credits;
  return held;
}

/** What can be charged or reserved at `now`: monthly and purchased credits less the live holds. */
export function availableCredits(ledger: OpenLedger, now: string, exceptKey?: string): number {
  return ledger.monthly + ledger.purchased - heldCredits(ledger, now, exceptKey);
}

function notEnough(credits: number, available: number): PaymentRequired {
  return new PaymentRequired(
    `This needs ${credits} credits; the workspace has ${available} left this period`,
    'fair_use_limit',
  );
}

/** A write to a period that has been closed: the use case retries it on the current period. */
export class CreditPeriodClosedError extends Conflict {
  constructor(
    readonly periodKey: string,
    readonly nextPeriodKey: string | null,
  ) {
    super(`The credit period ${periodKey} is closed`, 'credit_period_closed');
  }
}

export interface RolloverRule {
  enabled: boolean;
  maxPercentOfAllowance: number;
}

/**
 * What a new period starts with after `previous`: unused monthly credits roll over when enabled, at most
 * maxPercentOfAllowance % of the NEW allowance (rounded down); purchased credits carry over whole.
 */
export function carryOver(
  previous: { monthlyLeft: number; purchasedLeft: number } | null,
  allowance: number,
  rule: RolloverRule,
): { rolledOver: number; purchasedCarried: number } {
  if (!previous) return { rolledOver: 0, purchasedCarried: 0 };
  const cap = Math.floor((allowance * rule.maxPercentOfAllowance) / 100);
  return {
    rolledOver: rule.enabled ? Math.max(0, Math.min(previous.monthlyLeft, cap)) : 0,
    purchasedCarried: Math.max(0, previous.purchasedLeft),
  };
}

const nonNegativeInt = (value: number) => Number.isInteger(value) && value >= 0;

function checkAmount(value: number, path: string, positive = false): void {
  if (!nonNegativeInt(value) || (positive && value === 0))
    throw new InvalidFields(`Invalid ${path}`, [
      { path, message: positive ? 'a positive integer' : 'a non-negative integer' },
    ]);
}

function requireOpen(state: CreditLedgerState): OpenLedger {
  if (state.status === 'unopened')
    throw new Conflict('The credit period is not open', 'credit_period_unopened');
  if (state.status === 'closed') throw new CreditPeriodClosedError(state.periodKey, state.nextPeriodKey);
  return state;
}

export const creditLedgerDecider: Decider<CreditLedgerState, CreditCommand, CreditEvent> = {
  initialState: { status: 'unopened' },
  codec: creditEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'OpenCreditPeriod': {
        if (state.status !== 'unopened') return [];
        checkAmount(command.allowance, 'allowance');
        checkAmount(command.rolledOver, 'rolledOver');
        checkAmount(command.purchasedCarried, 'purchasedCarried');
        const { type: _type, now, ...rest } = command;
        return [{ type: 'CreditPeriodOpened', data: { ...rest, at: now } }];
      }
      case 'SpendCredits': {
        const ledger = state.status === 'unopened' ? requireOpen(state) : state;
        // A key already spent answers its first result, even once the period is closed.
        if (ledger.spends[command.spendKey]) return [];
        const open = requireOpen(ledger);
        checkAmount(command.credits, 'credits');
        checkAmount(command.quantity, 'quantity');
        // Settling a hold of this key may use it; nobody may use credits others hold.
        const available = availableCredits(open, command.now, command.spendKey);
        if (command.credits > available) throw notEnough(command.credits, available);
        const fromMonthly = Math.min(open.monthly, command.credits);
        const fromPurchased = command.credits - fromMonthly;
        const { type: _type, now, ...rest } = command;
        return [
          {
            type: 'CreditsSpent',
            data: {
              ...rest,
              orgId: open.orgId,
              periodKey: open.periodKey,
              fromMonthly,
              fromPurchased,
              monthlyAfter: open.monthly - fromMonthly,
              purchasedAfter: open.purchased - fromPurchased,
              at: now,
            },
          },
        ];
      }
      case 'AddCreditPack': {
        const ledger = state.status === 'unopened' ? requireOpen(state) : state;
        if (ledger.packs[command.transactionId]) return [];
        const open = requireOpen(ledger);
        checkAmount(command.credits, 'credits', true);
        return [
          {
            type: 'CreditPackPurchased',
            data: {
              orgId: open.orgId,
              periodKey: open.periodKey,
              transactionId: command.transactionId,
              packKey: command.packKey,
              credits: command.credits,
              monthlyAfter: open.monthly,
              purchasedAfter: open.purchased + command.credits,
              at: command.now,
            },
          },
        ];
      }
      case 'ReserveCredits': {
        const ledger = state.status === 'unopened' ? requireOpen(state) : state;
        // Charged already (a retry): nothing to hold; held already and live: the same hold.
        if (ledger.spends[command.reservationKey]) return [];
        const open = requireOpen(ledger);
        const own = open.holds[command.reservationKey];
        if (own && isLive(own, command.now)) return [];
        checkAmount(command.credits, 'credits');
        // Holds whose holder never came back are released first (the sweep runs with every reservation).
        const released: CreditEvent[] = Object.entries(open.holds)
          .filter(([, hold]) => !isLive(hold, command.now))
          .map(([reservationKey, hold]) => ({
            type: 'CreditReservationReleased',
            data: {
              orgId: open.orgId,
              periodKey: open.periodKey,
              reservationKey,
              credits: hold.credits,
              reason: 'expired',
              at: command.now,
            },
          }));
        const available = availableCredits(open, command.now);
        if (command.credits > available) throw notEnough(command.credits, available);
        return [
          ...released,
          {
            type: 'CreditsReserved',
            data: {
              orgId: open.orgId,
              periodKey: open.periodKey,
              reservationKey: command.reservationKey,
              credits: command.credits,
              expiresAt: command.expiresAt,
              at: command.now,
            },
          },
        ];
      }
      case 'ReleaseCredits': {
        if (state.status === 'unopened') return [];
        const hold = state.holds[command.reservationKey];
        if (!hold) return [];
        return [
          {
            type: 'CreditReservationReleased',
            data: {
              orgId: state.orgId,
              periodKey: state.periodKey,
              reservationKey: command.reservationKey,
              credits: hold.credits,
              reason: command.reason,
              at: command.now,
            },
          },
        ];
      }
      case 'CloseCreditPeriod': {
        if (state.status !== 'open') return [];
        return [
          {
            type: 'CreditPeriodClosed',
            data: {
              orgId: state.orgId,
              periodKey: state.periodKey,
              monthlyLeft: state.monthly,
              purchasedLeft: state.purchased,
              nextPeriodKey: command.nextPeriodKey,
              at: command.now,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'CreditPeriodOpened': {
        const d = event.data;
        return {
          status: 'open',
          orgId: d.orgId,
          periodKey: d.periodKey,
          periodStart: d.periodStart,
          periodEnd: d.periodEnd,
          planKey: d.planKey,
          allowance: d.allowance,
          rolledOver: d.rolledOver,
          purchasedCarried: d.purchasedCarried,
          previousPeriodKey: d.previousPeriodKey,
          monthly: d.allowance + d.rolledOver,
          purchased: d.purchasedCarried,
          used: 0,
          purchasedInPeriod: 0,
          spends: {},
          packs: {},
          holds: {},
          nextPeriodKey: null,
        };
      }
      case 'CreditsSpent': {
        if (state.status === 'unopened') return state;
        const d = event.data;
        const result: SpendResult = {
          spendKey: d.spendKey,
          credits: d.credits,
          fromMonthly: d.fromMonthly,
          fromPurchased: d.fromPurchased,
          monthlyAfter: d.monthlyAfter,
          purchasedAfter: d.purchasedAfter,
          periodKey: d.periodKey,
          at: d.at,
        };
        // The debit of a held key settles its hold.
        const { [d.spendKey]: _settled, ...holds } = state.holds;
        return {
          ...state,
          monthly: d.monthlyAfter,
          purchased: d.purchasedAfter,
          used: state.used + d.credits,
          spends: { ...state.spends, [d.spendKey]: result },
          holds,
        };
      }
      case 'CreditsReserved': {
        if (state.status === 'unopened') return state;
        const d = event.data;
        return {
          ...state,
          holds: { ...state.holds, [d.reservationKey]: { credits: d.credits, expiresAt: d.expiresAt } },
        };
      }
      case 'CreditReservationReleased': {
        if (state.status === 'unopened') return state;
        const { [event.data.reservationKey]: _released, ...holds } = state.holds;
        return { ...state, holds };
      }
      case 'CreditPackPurchased': {
        if (state.status === 'unopened') return state;
        const d = event.data;
        return {
          ...state,
          monthly: d.monthlyAfter,
          purchased: d.purchasedAfter,
          purchasedInPeriod: state.purchasedInPeriod + d.credits,
          packs: { ...state.packs, [d.transactionId]: true },
        };
      }
      case 'CreditPeriodClosed': {
        if (state.status === 'unopened') return state;
        return { ...state, status: 'closed', nextPeriodKey: event.data.nextPeriodKey };
      }
      default:
        return assertNever(event);
    }
  },
};

/**
 * The spec's creditBalance of a period's ledger (zeros before the first period is opened). Given `now`, `total`
 * leaves out the credits held for paid calls in flight then (what can be spent).
 */
export function creditBalanceOf(
  state: CreditLedgerState,
  now?: string,
): {
  monthly: number;
  purchased: number;
  allowance: number;
  total: number;
  rollover: number;
} {
  if (state.status === 'unopened') return { monthly: 0, purchased: 0, allowance: 0, total: 0, rollover: 0 };
  return {
    monthly: state.monthly,
    purchased: state.purchased,
    allowance: state.allowance,
    total: now === undefined ? state.monthly + state.purchased : availableCredits(state, now),
    rollover: state.rolledOver,
  };
}
