// Finding 9, as a property over random interleavings of paid calls on one period's ledger: reservations
// (keys from a small pool, so calls overlap and repeat), settlements of the actual amount (less or more than
// held), releases of failed calls, plain spends, credit packs and the clock moving past holds' expiry. Whatever
// the order, the ledger is never overdrawn: monthly and purchased stay ≥ 0, the live holds never exceed what is
// left, and what was charged plus what is held never exceeds what was granted.
import fc from 'fast-check';
import { expect, test } from 'vitest';
import {
  availableCredits,
  creditLedgerDecider,
  heldCredits,
  type CreditCommand,
  type CreditEvent,
  type CreditLedgerState,
  type OpenLedger,
  type SpendDetails,
} from '../../domain/billing/credits.js';
import { InvalidFields, PaymentRequired } from '../../domain/shared/errors.js';
import { propertyRuns } from '../support/property-runs.js';

type Op =
  | { kind: 'reserve'; key: string; credits: number }
  | { kind: 'settle'; key: string; credits: number }
  | { kind: 'release'; key: string }
  | { kind: 'spend'; key: string; credits: number }
  | { kind: 'pack'; credits: number }
  | { kind: 'tick'; minutes: number };

const keys = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('reserve' as const), key: keys, credits: fc.nat(80) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('settle' as const), key: keys, credits: fc.nat(100) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), key: keys }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('spend' as const),
      key: fc.constantFrom('s1', 's2', 's3', 's4'),
      credits: fc.nat(60),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('pack' as const), credits: fc.integer({ min: 1, max: 50 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('tick' as const), minutes: fc.integer({ min: 1, max: 8 }) }),
  },
);

const details: SpendDetails = {
  metricKey: 'm',
  quantity: 1,
  actionKey: null,
  feature: null,
  provider: null,
  model: null,
  inputTokens: null,
  outputTokens: null,
  totalTokens: null,
  creditsUsedMilli: null,
  pricingVersion: null,
  usedFallbackEstimate: false,
  metadata: null,
};

const ttlMinutes = 10;
const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 10, minute)).toISOString();

test('no interleaving of reserve, settle, release, spend, packs and expiry overdraws the ledger', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 200 }), fc.array(op, { maxLength: 120 }), (allowance, ops) => {
      let state: CreditLedgerState = creditLedgerDecider.initialState;
      const events: CreditEvent[] = [];
      let minute = 0;
      let packs = 0;
      let pack = 0;
      const run = (command: CreditCommand): CreditEvent[] => {
        const decided = creditLedgerDecider.decide(command, state);
        for (const e of decided) {
          events.push(e);
          state = creditLedgerDecider.evolve(state, e);
        }
        return decided;
      };
      run({
        type: 'OpenCreditPeriod',
        orgId: 'o',
        periodKey: 'p',
        periodStart: at(0),
        periodEnd: at(0),
        planKey: 'plan',
        allowance,
        rolledOver: 0,
        purchasedCarried: 0,
        previousPeriodKey: null,
        now: at(0),
      });
      const ledger = () => state as OpenLedger;

      for (const o of ops) {
        const now = at(minute);
        const before = ledger();
        const available = availableCredits(before, now);
        try {
          switch (o.kind) {
            case 'reserve': {
              const decided = run({
                type: 'ReserveCredits',
                reservationKey: o.key,
                credits: o.credits,
                expiresAt: at(minute + ttlMinutes),
                now,
              });
              // A new hold is granted only when it fits beside the live ones.
              if (decided.some((e) => e.type === 'CreditsReserved'))
                expect(o.credits).toBeLessThanOrEqual(available);
              break;
            }
            case 'settle':
            case 'spend': {
              const own = o.kind === 'settle' ? (before.holds[o.key] ?? null) : null;
              const ownLive = own && Date.parse(own.expiresAt) > Date.parse(now) ? own.credits : 0;
              const decided = run({
                type: 'SpendCredits',
                spendKey: o.key,
                credits: o.credits,
                now,
                ...details,
              });
              if (decided.length > 0) expect(o.credits).toBeLessThanOrEqual(available + ownLive);
              break;
            }
            case 'release':
              run({ type: 'ReleaseCredits', reservationKey: o.key, reason: 'failed', now });
              break;
            case 'pack':
              pack++;
              if (
                run({
                  type: 'AddCreditPack',
                  transactionId: `t${pack}`,
                  packKey: 'k',
                  credits: o.credits,
                  now,
                }).length
              )
                packs += o.credits;
              break;
            case 'tick':
              minute += o.minutes;
              break;
          }
        } catch (error) {
          // Refusals: too few credits, or a bad amount; they record nothing.
          if (!(error instanceof PaymentRequired) && !(error instanceof InvalidFields)) throw error;
          expect(ledger()).toBe(before);
        }
        const l = ledger();
        const nowAfter = at(minute);
        const charged = events.reduce((n, e) => n + (e.type === 'CreditsSpent' ? e.data.credits : 0), 0);
        const held = heldCredits(l, nowAfter);
        expect(l.monthly).toBeGreaterThanOrEqual(0);
        expect(l.purchased).toBeGreaterThanOrEqual(0);
        expect(held).toBeLessThanOrEqual(l.monthly + l.purchased);
        expect(availableCredits(l, nowAfter)).toBeGreaterThanOrEqual(0);
        expect(charged + held).toBeLessThanOrEqual(allowance + packs);
        expect(l.monthly + l.purchased).toBe(allowance + packs - charged);
        // A key is charged at most once, and a charged key holds nothing.
        for (const key of Object.keys(l.spends)) expect(l.holds[key]).toBeUndefined();
      }
    }),
    { numRuns: propertyRuns(400) },
  );
});
