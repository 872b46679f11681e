// The credit use cases: `withCredits` (the one way a slice pays for a paid call: credits reserved before the call,
// settled after it, released when it fails) and `spend` (a debit with nothing to wait for), opening the current
// period's ledger, adding a purchased pack, and the balance summary GET ORG/billing shows. Every ledger write of a
// workspace runs under its ledger lock (credit-ledger-store.ts), so concurrent reservations and spends are decided
// one after the other against the newest balance: none takes it below zero, none is lost.
import { randomUUID } from 'node:crypto';
import {
  carryOver,
  creditBalanceOf,
  creditLedgerDecider,
  CreditPeriodClosedError,
  creditsCategory,
  creditStreamId,
  finePeriodKeyOf,
  periodKeyOf,
  type CreditCommand,
  type CreditLedgerState,
  type OpenLedger,
  type SpendDetails,
  type SpendResult,
} from '../../domain/billing/credits.js';
import {
  accessOf,
  currentPeriodOf,
  effectiveState,
  subscriptionCategory,
  subscriptionDecider,
  type CreditPeriod,
  type SubscriptionState,
} from '../../domain/billing/subscription.js';
import { Conflict, InvalidFields, PaymentRequired } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import type { BillingCatalog } from '../../infra/billing/config.js';
import { DuplicateEventId, streamName } from '../../infra/event-store/port.js';
import {
  awaitReadModels,
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
} from '../shared/command-handler.js';
import type { Kysely } from 'kysely';
import {
  listCreditUsage,
  recentCreditTransactions,
  type CreditTransactionItem,
  type CreditUsageQuery,
  type CreditUsageRow,
} from '../../projections/billing/credits-queries.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import type { BillingListPage } from '../../projections/billing/list-page.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { CreditLedgerStore } from './credit-ledger-store.js';

export const creditStream = (orgId: string, periodKey: string) =>
  streamName(creditsCategory, creditStreamId(orgId, periodKey));

/** What a slice tells `spend`. Either `actionKey` (priced by creditActionCosts × quantity) or `credits`. */
export interface SpendInput {
  orgId: string;
  /** Idempotency key of this debit: the same key again answers the first debit and charges nothing. */
  key: string;
  /** What was used, e.g. `ai_draft`, `x_post_read`; defaults to the actionKey. */
  metricKey?: string;
  /** A creditActionCosts key: credits = its cost × quantity. */
  actionKey?: string;
  /** Credits to charge, when not priced by an action. */
  credits?: number;
  /** Units used (posts read, drafts written); default 1. */
  quantity?: number;
  feature?: string | null;
  provider?: string | null;
  model?: string | null;
  inputTokens?: number | null;
  outputTokens?: number | null;
  totalTokens?: number | null;
  creditsUsedMilli?: number | null;
  pricingVersion?: string | null;
  usedFallbackEstimate?: boolean;
  metadata?: Record<string, unknown> | null;
}

/** Who is charging (for the events' metadata); the service's own work when omitted. */
export interface SpendContext {
  actor?: string;
  userId?: string;
  correlationId?: string;
  causationId?: string | null;
}

export interface SpendOutcome {
  /** Credits this debit took (the first debit's, for a repeated key). */
  creditsUsed: number;
  /** Credits left after it (monthly + purchased). */
  remainingCredits: number;
  fromMonthly: number;
  fromPurchased: number;
  monthlyAfter: number;
  purchasedAfter: number;
  periodKey: string;
  /** True when the key had been spent already and nothing was charged now. */
  replayed: boolean;
}

export interface CreditBalance {
  monthly: number;
  purchased: number;
  allowance: number;
  total: number;
  rollover: number;
}

export interface UsageSummary {
  periodStart: string;
  periodEnd: string;
  periodUsedCredits: number;
  periodAllowanceCredits: number;
  periodPurchasedCredits: number;
  periodBudgetCredits: number;
  periodRemainingCredits: number;
  usagePercent: number;
}

export interface CreditsDeps {
  commands: CommandDeps;
  catalog: BillingCatalog;
  store: CreditLedgerStore;
  now: () => Date;
  /**
   * The workspace's subscription, started (a trial from now) when its stream does not exist yet. Defaults to
   * loading the stream and deciding StartTrial here; the subscription use cases may hand theirs in.
   */
  ensureStarted?: (orgId: string) => Promise<SubscriptionState>;
  /** For recentCreditTransactions in the summary. */
  readModels: Kysely<ReadModels>;
}

/** What GET ORG/billing shows of credits. */
export interface CreditSummary {
  creditBalance: CreditBalance;
  usageSummary: UsageSummary;
  recentCreditTransactions: CreditTransactionItem[];
}

/**
 * How long credits reserved for a paid call stay held: longer than any paid call may take (the image provider
 * gives up after two minutes). A hold its caller never settled or released (a crash) counts for nothing after
 * it, and is released by the workspace's next reservation.
 */
export const CREDIT_RESERVATION_TTL_MS = 10 * 60_000;

/** Credits held for one paid call (CreditsService.reserve), to settle or release. */
export interface CreditReservation {
  orgId: string;
  key: string;
  credits: number;
  details: SpendDetails;
  context: SpendContext;
  /** The key was charged already (a retry of a call that was paid for): nothing is held, settling answers it. */
  charged: SpendOutcome | null;
}

/** What a paid call turned out to use, when it differs from what was reserved (at most that, unless it fits). */
export interface ActualUse {
  credits?: number;
  /** Units actually used (posts returned by a read that reserved for its most), for the usage row. */
  quantity?: number;
  model?: string | null;
  metadata?: Record<string, unknown> | null;
  /** Token counts known only after the call (an AI model's usage), for the usage row. */
  inputTokens?: number | null;
  outputTokens?: number | null;
  totalTokens?: number | null;
  creditsUsedMilli?: number | null;
}

export interface PaidCall<T> {
  result: T;
  charge: SpendOutcome;
}

const maxKeyLength = 200;
const previousPeriodsSearched = 24;
/** Ledger states kept in memory (one per workspace and period loaded lately). */
const foldedStreamsKept = 1000;

function invalid(path: string, message: string): never {
  throw new InvalidFields(`Invalid ${path}`, [{ path, message }]);
}

const optionalCount = (value: number | null | undefined, path: string): number | null => {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || value < 0) invalid(path, 'a non-negative integer');
  return value;
};

const optionalText = (value: string | null | undefined, path: string): string | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length === 0 || value.length > maxKeyLength)
    invalid(path, `1 to ${maxKeyLength} characters`);
  return value;
};

/** The credits and details of a debit, checked; unknown action keys and bad numbers are refused by field name. */
export function resolveSpend(
  catalog: BillingCatalog,
  input: SpendInput,
): { credits: number; details: SpendDetails } {
  if (typeof input.key !== 'string' || input.key.length === 0 || input.key.length > maxKeyLength)
    invalid('key', `1 to ${maxKeyLength} characters`);
  const quantity = input.quantity ?? 1;
  if (!Number.isInteger(quantity) || quantity < 1) invalid('quantity', 'a positive integer');
  let credits: number;
  if (input.actionKey !== undefined) {
    if (input.credits !== undefined) invalid('credits', 'give either actionKey or credits, not both');
    const cost = catalog.actionCost(input.actionKey);
    if (!cost)
      invalid('actionKey', `not one of ${catalog.config.creditActionCosts.map((c) => c.key).join(', ')}`);
    credits = cost.credits * quantity;
  } else {
    if (input.credits === undefined) invalid('credits', 'give actionKey or credits');
    if (!Number.isInteger(input.credits) || input.credits < 0) invalid('credits', 'a non-negative integer');
    credits = input.credits;
  }
  const metricKey = optionalText(input.metricKey ?? input.actionKey, 'metricKey');
  if (metricKey === null) invalid('metricKey', 'required when no actionKey is given');
  return {
    credits,
    details: {
      metricKey,
      quantity,
      actionKey: input.actionKey ?? null,
      feature: optionalText(input.feature, 'feature'),
      provider: optionalText(input.provider, 'provider'),
      model: optionalText(input.model, 'model'),
      inputTokens: optionalCount(input.inputTokens, 'inputTokens'),
      outputTokens: optionalCount(input.outputTokens, 'outputTokens'),
      totalTokens: optionalCount(input.totalTokens, 'totalTokens'),
      creditsUsedMilli: optionalCount(input.creditsUsedMilli, 'creditsUsedMilli'),
      pricingVersion: optionalText(input.pricingVersion, 'pricingVersion'),
      usedFallbackEstimate: input.usedFallbackEstimate ?? false,
      metadata: input.metadata ?? null,
    },
  };
}

const outcomeOf = (result: SpendResult, replayed: boolean): SpendOutcome => ({
  creditsUsed: result.credits,
  remainingCredits: result.monthlyAfter + result.purchasedAfter,
  fromMonthly: result.fromMonthly,
  fromPurchased: result.fromPurchased,
  monthlyAfter: result.monthlyAfter,
  purchasedAfter: result.purchasedAfter,
  periodKey: result.periodKey,
  replayed,
});

interface Loaded {
  periodKey: string;
  state: CreditLedgerState;
  revision: number | null;
}

export class CreditsService {
  private readonly folded = new Map<string, { state: CreditLedgerState; revision: number }>();

  constructor(private readonly deps: CreditsDeps) {}

  /**
   * Charges credits for work that costs nothing to try (a paid provider call goes through withCredits instead,
   * so its credits are held before it is made). Refuses with 402 `subscription_required` when the subscription is not
   * usable (trial over, canceled, paused), 402 `subscription_overdue_read_only` when overdue, 402
   * `fair_use_limit` when the debit does not fit; each refusal records nothing. The same key again answers the
   * first debit.
   */
  async spend(input: SpendInput, context: SpendContext = {}): Promise<SpendOutcome> {
    const { credits, details } = resolveSpend(this.deps.catalog, input);
    const subscription = await this.usableSubscription(input.orgId);
    return this.charge(subscription, input.orgId, input.key, credits, details, context);
  }

  /**
   * Runs a paid call: reserves its credits first (402 as `spend` refuses, before the call is made), runs the
   * call, then charges the reservation (what `actual` says the result used, or what was reserved) or, when the call throws, releases it, so a failure charges nothing. A key charged before (a retry)
   * runs the call again without charging twice.
   */
  async withCredits<T>(
    input: SpendInput,
    call: () => Promise<T>,
    options: { context?: SpendContext; actual?: (result: T) => ActualUse } = {},
  ): Promise<PaidCall<T>> {
    const reservation = await this.reserve(input, options.context);
    let result: T;
    try {
      result = await call();
    } catch (error) {
      // A release that fails leaves the hold to expire: the caller gets the call's own error.
      await this.release(reservation).catch(() => undefined);
      throw error;
    }
    const charge = await this.settle(reservation, options.actual?.(result));
    return { result, charge };
  }

  /** Holds the credits of a paid call (they count against the balance at once); see withCredits. */
  async reserve(input: SpendInput, context: SpendContext = {}): Promise<CreditReservation> {
    const { credits, details } = resolveSpend(this.deps.catalog, input);
    const orgId = input.orgId;
    const subscription = await this.usableSubscription(orgId);
    const now = this.deps.now();
    const period = this.periodOf(subscription, now);
    const metadata = this.metadataOf(orgId, context, now);
    const reservation = { orgId, key: input.key, credits, details, context };
    const { charged, position, eventTypes } = await this.deps.store.withLock(orgId, async () => {
      for (let attempt = 0; ; attempt++) {
        const ledger = await this.currentLedger(orgId, period, metadata);
        const open = ledger.state as OpenLedger;
        const first =
          open.spends[input.key] ?? (await this.findEarlierSpend(orgId, open.previousPeriodKey, input.key));
        if (first) return { charged: outcomeOf(first, true), position: null, eventTypes: [] };
        try {
          const result = await handleCommand(this.deps.commands, {
            stream: creditStream(orgId, ledger.periodKey),
            decider: creditLedgerDecider,
            command: {
              type: 'ReserveCredits',
              reservationKey: input.key,
              credits,
              expiresAt: new Date(now.getTime() + CREDIT_RESERVATION_TTL_MS).toISOString(),
              now: metadata.now,
            },
            metadata,
            loaded: { state: ledger.state, revision: ledger.revision },
            awaitReadModels: false,
          });
          return { charged: null, position: result.position, eventTypes: result.events.map((e) => e.type) };
        } catch (error) {
          if (error instanceof CreditPeriodClosedError && attempt < 3) continue;
          throw error;
        }
      }
    });
    if (position) await awaitReadModels(this.deps.commands, position, eventTypes);
    return { ...reservation, charged };
  }

  /**
   * Charges a reservation: the actual credits (default what was reserved) as the debit of its key, whether or not the
   * subscription is still usable (the call was made). More than reserved is charged only if the rest fits.
   */
  async settle(reservation: CreditReservation, actual: ActualUse = {}): Promise<SpendOutcome> {
    if (reservation.charged) return reservation.charged;
    const credits = actual.credits ?? reservation.credits;
    if (!Number.isInteger(credits) || credits < 0) invalid('credits', 'a non-negative integer');
    if (actual.quantity !== undefined && (!Number.isInteger(actual.quantity) || actual.quantity < 1))
      invalid('quantity', 'a positive integer');
    const details: SpendDetails = {
      ...reservation.details,
      ...(actual.quantity !== undefined ? { quantity: actual.quantity } : {}),
      ...(actual.model !== undefined ? { model: optionalText(actual.model, 'model') } : {}),
      ...(actual.metadata !== undefined ? { metadata: actual.metadata } : {}),
      ...(actual.inputTokens !== undefined
        ? { inputTokens: optionalCount(actual.inputTokens, 'inputTokens') }
        : {}),
      ...(actual.outputTokens !== undefined
        ? { outputTokens: optionalCount(actual.outputTokens, 'outputTokens') }
        : {}),
      ...(actual.totalTokens !== undefined
        ? { totalTokens: optionalCount(actual.totalTokens, 'totalTokens') }
        : {}),
      ...(actual.creditsUsedMilli !== undefined
        ? { creditsUsedMilli: optionalCount(actual.creditsUsedMilli, 'creditsUsedMilli') }
        : {}),
    };
    const outcome = await this.charge(
      await this.subscription(reservation.orgId),
      reservation.orgId,
      reservation.key,
      credits,
      details,
      reservation.context,
    );
    // Charged in an earlier period after all: the hold of this one is not needed.
    if (outcome.replayed) await this.release(reservation).catch(() => undefined);
    return outcome;
  }

  /** Gives a reservation's credits back (the paid call failed); nothing when it was settled or released. */
  async release(
    reservation: Pick<CreditReservation, 'orgId' | 'key' | 'context' | 'charged'>,
    reason: 'failed' | 'expired' = 'failed',
  ): Promise<void> {
    if (reservation.charged) return;
    const { orgId, key } = reservation;
    const subscription = await this.subscription(orgId);
    const now = this.deps.now();
    const period = this.periodOf(subscription, now);
    const metadata = this.metadataOf(orgId, reservation.context, now);
    await this.deps.store.withLock(orgId, async () => {
      const ledger = await this.currentLedger(orgId, period, metadata);
      await handleCommand(this.deps.commands, {
        stream: creditStream(orgId, ledger.periodKey),
        decider: creditLedgerDecider,
        command: { type: 'ReleaseCredits', reservationKey: key, reason, now: metadata.now },
        metadata,
        loaded: { state: ledger.state, revision: ledger.revision },
        awaitReadModels: false,
      });
    });
  }

  /** The subscription, refused with the 402 of a workspace whose paid actions may not run. */
  private async usableSubscription(orgId: string): Promise<SubscriptionState> {
    const subscription = await this.subscription(orgId);
    const access = accessOf(subscription, this.deps.now());
    if (access.reason === 'subscription_overdue_read_only')
      throw new PaymentRequired(
        'The workspace is read-only until its overdue payment is made',
        'subscription_overdue_read_only',
      );
    if (!access.usable)
      throw new PaymentRequired(
        'The workspace needs an active subscription for this',
        'subscription_required',
      );
    return subscription;
  }

  /** The debit of `key` on the current period (a hold of the same key is settled by it). */
  private async charge(
    subscription: SubscriptionState,
    orgId: string,
    key: string,
    credits: number,
    details: SpendDetails,
    context: SpendContext,
  ): Promise<SpendOutcome> {
    const now = this.deps.now();
    const period = this.periodOf(subscription, now);
    const metadata = this.metadataOf(orgId, context, now);

    const { outcome, position, eventTypes } = await this.deps.store.withLock(orgId, async () => {
      for (let attempt = 0; ; attempt++) {
        const ledger = await this.currentLedger(orgId, period, metadata);
        const open = ledger.state as OpenLedger;
        const first = open.spends[key];
        if (first) return { outcome: outcomeOf(first, true), position: null, eventTypes: [] };
        const command: CreditCommand = {
          type: 'SpendCredits',
          spendKey: key,
          credits,
          now: metadata.now,
          ...details,
        };
        try {
          const result = await handleCommand(this.deps.commands, {
            stream: creditStream(orgId, ledger.periodKey),
            decider: creditLedgerDecider,
            command,
            metadata,
            loaded: { state: ledger.state, revision: ledger.revision },
            eventId: () => deterministicUuid('credit-spend', orgId, key),
            awaitReadModels: false,
          });
          const after = result.state as OpenLedger;
          return {
            outcome: outcomeOf(after.spends[key]!, result.events.length === 0),
            position: result.position,
            eventTypes: result.events.map((e) => e.type),
          };
        } catch (error) {
          // Spent in an earlier period (its event id is taken): answer that debit.
          if (error instanceof DuplicateEventId) {
            const earlier = await this.findEarlierSpend(orgId, open.previousPeriodKey, key);
            if (earlier) return { outcome: outcomeOf(earlier, true), position: null, eventTypes: [] };
            throw new Conflict('This spend key was used already', 'spend_key_used');
          }
          if (error instanceof CreditPeriodClosedError && attempt < 3) continue;
          throw error;
        }
      }
    });
    // Read-your-writes outside the lock: the next spend of the workspace need not wait for the read models.
    if (position) await awaitReadModels(this.deps.commands, position, eventTypes);
    return outcome;
  }

  /** Opens the ledger of the subscription's current period (closing and carrying over the previous one). */
  async openCurrentPeriod(orgId: string, context: SpendContext = {}): Promise<CreditLedgerState> {
    const subscription = await this.subscription(orgId);
    const now = this.deps.now();
    const period = this.periodOf(subscription, now);
    const metadata = this.metadataOf(orgId, context, now);
    const ledger = await this.deps.store.withLock(orgId, () => this.currentLedger(orgId, period, metadata));
    return ledger.state;
  }

  /**
   * Adds a purchased pack to the current period, once per provider transaction (also across periods: the event
   * id is the transaction's). Returns false when the transaction had been added already.
   */
  async addPack(
    orgId: string,
    pack: { transactionId: string; packKey: string; credits: number },
    context: SpendContext = {},
  ): Promise<boolean> {
    const subscription = await this.subscription(orgId);
    const now = this.deps.now();
    const period = this.periodOf(subscription, now);
    const metadata = this.metadataOf(orgId, context, now);
    return this.deps.store.withLock(orgId, async () => {
      for (let attempt = 0; ; attempt++) {
        const ledger = await this.currentLedger(orgId, period, metadata);
        try {
          const result = await handleCommand(this.deps.commands, {
            stream: creditStream(orgId, ledger.periodKey),
            decider: creditLedgerDecider,
            command: { type: 'AddCreditPack', ...pack, now: metadata.now },
            metadata,
            loaded: { state: ledger.state, revision: ledger.revision },
            eventId: () => deterministicUuid('credit-pack', orgId, pack.transactionId),
          });
          return result.events.length > 0;
        } catch (error) {
          if (error instanceof DuplicateEventId) return false;
          if (error instanceof CreditPeriodClosedError && attempt < 3) continue;
          throw error;
        }
      }
    });
  }

  /**
   * The balance and the period's usage for GET ORG/billing, from the ledger itself (exact). Before the current
   * period's ledger is opened, what it would open with; nothing is written.
   */
  async summaryOf(orgId: string, options: { recentLimit?: number } = {}): Promise<CreditSummary> {
    const now = this.deps.now();
    const stored = await this.loadSubscription(orgId);
    const subscription = effectiveState(stored, now, this.deps.catalog.config);
    const period = this.periodOf(subscription, now);
    const own = await this.ledgerOf(orgId, period);
    let state: CreditLedgerState = own.state;
    if (state.status === 'unopened') {
      const head = await this.deps.store.head(orgId);
      if (head && head.periodStart > new Date(period.start).toISOString()) {
        state = (await this.load(orgId, head.periodKey)).state;
      } else {
        const previous = head ? (await this.load(orgId, head.periodKey)).state : null;
        state = creditLedgerDecider.evolve(state, {
          type: 'CreditPeriodOpened',
          data: this.openingOf(
            orgId,
            own.periodKey,
            period,
            previous,
            head?.periodKey ?? null,
            now.toISOString(),
          ),
        });
      }
    }
    const recent = await recentCreditTransactions(this.deps.readModels, orgId, options.recentLimit ?? 10);
    return { ...summaryOfLedger(state, period, now.toISOString()), recentCreditTransactions: recent };
  }

  // ---- internals ----

  private periodOf(subscription: SubscriptionState, now: Date): CreditPeriod {
    const period = currentPeriodOf(effectiveState(subscription, now, this.deps.catalog.config));
    if (!period) throw new PaymentRequired('The workspace has no subscription', 'subscription_required');
    return period;
  }

  private metadataOf(orgId: string, context: SpendContext, now: Date): CommandMetadata {
    return {
      orgId,
      actor: context.actor ?? 'system',
      ...(context.userId !== undefined ? { userId: context.userId } : {}),
      correlationId: context.correlationId ?? randomUUID(),
      causationId: context.causationId ?? null,
      now: now.toISOString(),
    };
  }

  private async loadSubscription(orgId: string): Promise<SubscriptionState> {
    const stream = streamName(subscriptionCategory, orgId);
    return (await loadAggregate(this.deps.commands.eventStore, stream, subscriptionDecider)).state;
  }

  private async subscription(orgId: string): Promise<SubscriptionState> {
    if (this.deps.ensureStarted) return this.deps.ensureStarted(orgId);
    const stored = await this.loadSubscription(orgId);
    if (stored.status !== 'none') return stored;
    const { trialDays, trialPlanKey } = this.deps.catalog.config;
    const outcome = await handleCommand(this.deps.commands, {
      stream: streamName(subscriptionCategory, orgId),
      decider: subscriptionDecider,
      command: { type: 'StartTrial', orgId, trialDays, trialPlanKey, now: this.deps.now().toISOString() },
      metadata: this.metadataOf(orgId, {}, this.deps.now()),
    });
    return outcome.state;
  }

  /**
   * A period's ledger. Folded states are kept per stream (immutable, so safe to share) and caught up by reading
   * only the events after the kept revision: a spend does not replay the whole month's debits, and another
   * instance's appends are read like any others.
   */
  private async load(orgId: string, periodKey: string): Promise<Loaded> {
    const stream = creditStream(orgId, periodKey);
    const kept = this.folded.get(stream);
    const recorded = await this.deps.commands.eventStore.readStream(
      stream,
      kept ? { fromRevision: kept.revision + 1 } : {},
    );
    let state = kept?.state ?? creditLedgerDecider.initialState;
    for (const event of creditLedgerDecider.codec.decodeAll(recorded))
      state = creditLedgerDecider.evolve(state, event);
    const revision = recorded.at(-1)?.revision ?? kept?.revision ?? null;
    if (revision !== null) {
      this.folded.delete(stream);
      this.folded.set(stream, { state, revision });
      // Least recently loaded out first.
      if (this.folded.size > foldedStreamsKept) this.folded.delete(this.folded.keys().next().value!);
    }
    return { periodKey, state, revision };
  }

  /**
   * The ledger of a period, which may not be opened yet. It is keyed by its start to the second; when that key's
   * ledger is another period's (one that started earlier in the same second: a trial turned into a paid period
   * at once, an activation renewed at once), the period's own is keyed to the millisecond. Keying both by the
   * second made them one ledger: the later period was taken as open already and never granted its credits.
   */
  private async ledgerOf(orgId: string, period: CreditPeriod): Promise<Loaded> {
    const periodStart = new Date(period.start).toISOString();
    const bySecond = await this.load(orgId, periodKeyOf(periodStart));
    if (bySecond.state.status === 'unopened' || bySecond.state.periodStart === periodStart) return bySecond;
    return this.load(orgId, finePeriodKeyOf(periodStart));
  }

  private allowanceOf(planKey: string): number {
    return this.deps.catalog.plan(planKey)?.monthlyCredits ?? 0;
  }

  private openingOf(
    orgId: string,
    periodKey: string,
    period: CreditPeriod,
    previous: CreditLedgerState | null,
    previousPeriodKey: string | null,
    at: string,
  ) {
    const allowance = this.allowanceOf(period.planKey);
    const carried = carryOver(
      previous && previous.status !== 'unopened'
        ? { monthlyLeft: previous.monthly, purchasedLeft: previous.purchased }
        : null,
      allowance,
      this.deps.catalog.config.rollover,
    );
    return {
      orgId,
      periodKey,
      periodStart: new Date(period.start).toISOString(),
      periodEnd: new Date(period.end).toISOString(),
      planKey: period.planKey,
      allowance,
      ...carried,
      previousPeriodKey: previous && previous.status !== 'unopened' ? previousPeriodKey : null,
      at,
    };
  }

  /**
   * The ledger spends go to, opened if needed; called holding the workspace's lock. The previous period (the
   * head) is closed first, then the new one opened with what carries over, then the head moved: each step is
   * idempotent, so a crash in between is finished by the next call.
   */
  private async currentLedger(
    orgId: string,
    period: CreditPeriod,
    metadata: CommandMetadata,
  ): Promise<Loaded> {
    const periodStart = new Date(period.start).toISOString();
    const head = await this.deps.store.head(orgId);
    let current = await this.ledgerOf(orgId, period);
    const key = current.periodKey;
    if (current.state.status === 'unopened' && head && head.periodStart > periodStart) {
      // The subscription's period is older than the newest ledger (e.g. a late notice): keep to the newest.
      current = await this.load(orgId, head.periodKey);
    }
    // A closed period sends its writes on to the one that closed it.
    for (
      let hops = 0;
      current.state.status === 'closed' && current.state.nextPeriodKey && hops < 12;
      hops++
    ) {
      const next = await this.load(orgId, current.state.nextPeriodKey);
      if (next.state.status === 'unopened') break;
      current = next;
    }
    if (current.state.status === 'open') {
      if (!head || head.periodStart < current.state.periodStart)
        await this.deps.store.setHead(orgId, {
          periodKey: current.periodKey,
          periodStart: current.state.periodStart,
        });
      return current;
    }
    if (current.state.status === 'closed') return current; // cannot happen unless its successor vanished

    let previous: Loaded | null = null;
    if (head && head.periodKey !== key) {
      previous = await this.load(orgId, head.periodKey);
      if (previous.state.status === 'open') {
        const closed = await handleCommand(this.deps.commands, {
          stream: creditStream(orgId, head.periodKey),
          decider: creditLedgerDecider,
          command: { type: 'CloseCreditPeriod', nextPeriodKey: key, now: metadata.now },
          metadata,
          loaded: { state: previous.state, revision: previous.revision },
        });
        previous = { ...previous, state: closed.state, revision: closed.revision };
      }
    }
    const opening = this.openingOf(
      orgId,
      key,
      period,
      previous?.state ?? null,
      previous?.periodKey ?? null,
      metadata.now,
    );
    const opened = await handleCommand(this.deps.commands, {
      stream: creditStream(orgId, key),
      decider: creditLedgerDecider,
      command: { type: 'OpenCreditPeriod', ...opening, now: metadata.now },
      metadata,
      loaded: { state: current.state, revision: current.revision },
    });
    await this.deps.store.setHead(orgId, { periodKey: key, periodStart });
    return { periodKey: key, state: opened.state, revision: opened.revision };
  }

  private async findEarlierSpend(
    orgId: string,
    previousPeriodKey: string | null,
    key: string,
  ): Promise<SpendResult | null> {
    let periodKey = previousPeriodKey;
    for (let i = 0; periodKey !== null && i < previousPeriodsSearched; i++) {
      const { state } = await this.load(orgId, periodKey);
      if (state.status === 'unopened') return null;
      const found = state.spends[key];
      if (found) return found;
      periodKey = state.previousPeriodKey;
    }
    return null;
  }
}

/** The spec's creditBalance and usageSummary of one period's ledger. */
export function summaryOfLedger(
  state: CreditLedgerState,
  period: CreditPeriod,
  now?: string,
): { creditBalance: CreditBalance; usageSummary: UsageSummary } {
  // With `now`, credits held for paid calls in flight are not counted as left.
  const creditBalance = creditBalanceOf(state, now);
  const open = state.status === 'unopened' ? null : state;
  const allowanceCredits = open ? open.allowance + open.rolledOver : 0;
  const purchasedCredits = open ? open.purchasedCarried + open.purchasedInPeriod : 0;
  const budget = allowanceCredits + purchasedCredits;
  const used = open ? open.used : 0;
  return {
    creditBalance,
    usageSummary: {
      periodStart: open ? open.periodStart : new Date(period.start).toISOString(),
      periodEnd: open ? open.periodEnd : new Date(period.end).toISOString(),
      periodUsedCredits: used,
      periodAllowanceCredits: allowanceCredits,
      periodPurchasedCredits: purchasedCredits,
      periodBudgetCredits: budget,
      periodRemainingCredits: creditBalance.total,
      usagePercent: budget === 0 ? 0 : Math.round((used / budget) * 1000) / 10,
    },
  };
}

/**
 * GET ORG/billing/credits/usage and get_usage: every member (workspace:read; get_usage is an mcp:read tool, "read
 * workspace data"); assistants with mcp:read. The rest of billing stays with owners and admins (billing:manage).
 */
export async function creditUsageOf(
  deps: { readModels: Kysely<ReadModels> },
  caller: Caller,
  query: CreditUsageQuery,
): Promise<BillingListPage<CreditUsageRow>> {
  authorize(caller, { orgId: query.orgId, permission: 'workspace:read', scope: 'mcp:read' });
  return listCreditUsage(deps.readModels, query);
}
