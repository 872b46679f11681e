// The one billing access policy (issue 14, 402 enforcement): whether a workspace's subscription allows a write or
// a paid action now. Which calls are writes or paid actions is each operation's declared rule
// (api/shared/operation.ts, `access.billing`). An overdue workspace
// is read-only (every write 402 `subscription_overdue_read_only`, reads work); a workspace without a usable
// subscription (trial over, canceled, paused) gets 402 `subscription_required` on paid actions. Billing, leaving
// or deleting the workspace and one's own notifications stay writable.
//
// The answer comes from the subscriptions read model, evaluated with the clock (`accessOf`: past due and past
// its grace is read-only before the restricting event), cached per workspace in this process
// (infra/db/notified-cache.ts):
// - every process LISTENs on the channel the subscriptions projection notifies in the transaction that changes
//   a row, and drops that workspace when the notification arrives (at the commit);
// - the process folding the change hears of it before the commit and reads that workspace from the database
//   until the notification arrives (at most `settleMs`), so its own next request sees it (read-your-writes);
// - nothing is cached while the LISTEN connection is down or not started (`listen`), everything is dropped on
//   (re)connecting, and an entry lives at most `ttlMs`.
import type { Kysely } from 'kysely';
import {
  accessOf,
  type SubscriptionAccess,
  type SubscriptionState,
} from '../../domain/billing/subscription.js';
import { initialSubscriptionState } from '../../domain/billing/subscription.js';
import { PaymentRequired } from '../../domain/shared/errors.js';
import { NotifiedCache } from '../../infra/db/notified-cache.js';
import {
  BILLING_ACCESS_CHANNEL,
  onLocalAccessChange,
  subscriptionStateFromReadModel,
} from '../../projections/billing/subscriptions-projection.js';
import type { ReadModels } from '../../projections/read-models.js';

/** `write`: refused while read-only; `paid`: also refused without a usable subscription. */
export type AccessKind = 'write' | 'paid';

// ---- The decision ----

export const overdueMessage =
  "This workspace's payment is overdue, so it is read-only until the invoice is paid; billing stays available";
export const subscriptionRequiredMessage =
  'This action needs an active subscription: the trial has ended, or the subscription is canceled or paused';

/** Throws the 402 the action gets with this access, if any. */
export function enforce(access: SubscriptionAccess, kind: AccessKind): void {
  if (access.accessState === 'read_only')
    throw new PaymentRequired(overdueMessage, 'subscription_overdue_read_only');
  if (kind === 'paid' && !access.usable)
    throw new PaymentRequired(subscriptionRequiredMessage, 'subscription_required');
}

export interface BillingAccessOptions {
  db: Kysely<ReadModels>;
  now: () => Date;
  /** Longest life of a cached subscription (bounds a notification PostgreSQL lost without an error). */
  ttlMs?: number;
  /** Longest time a workspace whose change this process folds is read uncached, waiting for its notification. */
  settleMs?: number;
  maxEntries?: number;
  /** Whether to hear this process's own folds before their commit (tests of other instances turn it off). */
  followLocalChanges?: boolean;
}

export class BillingAccess {
  private readonly cache: NotifiedCache<SubscriptionState | null>;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: BillingAccessOptions) {
    this.cache = new NotifiedCache<SubscriptionState | null>({
      channel: BILLING_ACCESS_CHANNEL,
      name: 'billing-access-cache',
      keyOf: (orgId) => orgId,
      ttlMs: options.ttlMs,
      settleMs: options.settleMs,
      maxEntries: options.maxEntries,
    });
    this.unsubscribe =
      options.followLocalChanges === false
        ? () => undefined
        : onLocalAccessChange((orgId) => this.cache.changing(orgId));
  }

  /** Starts caching: LISTENs for the subscriptions projection's notifications (until `close`). */
  async listen(url: string): Promise<void> {
    await this.cache.listen(url);
  }

  /** The workspace's access now (a workspace without a subscription yet: a trial starting now, full). */
  async accessOf(orgId: string): Promise<SubscriptionAccess> {
    const state = await this.cache.get(orgId, () => subscriptionStateFromReadModel(this.options.db, orgId));
    return accessOf(state ?? { ...initialSubscriptionState, orgId }, this.options.now());
  }

  /** Throws 402 when the workspace's subscription does not allow the action now. */
  async check(orgId: string, kind: AccessKind): Promise<void> {
    enforce(await this.accessOf(orgId), kind);
  }

  forget(orgId: string): void {
    this.cache.forget(orgId);
  }

  clear(): void {
    this.cache.clear();
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.cache.close();
  }
}
