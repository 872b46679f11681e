// Read model of each workspace's subscription (one row, folded with the aggregate's own evolve) and of its
// pause/resume history (the spec's Subscription event rows: pausing, paused, resumed), for 402 enforcement
// (commands/billing/access.ts), the publishing sweep's hold and GET ORG/billing. Access is derived when read
// (`accessOf` at the reader's clock), so a grace period ending needs no event to take effect.
// Every fold that changes a row is announced (to this process before the commit, to every process by NOTIFY
// at the commit) so the per-process access cache drops that workspace.
import { sql, type Kysely } from 'kysely';
import { subscriptionEventCodec } from '../../domain/billing/event-codec.js';
import {
  evolveSubscription,
  initialSubscriptionState,
  type BillingInterval,
  type SubscriptionEvent,
  type SubscriptionState,
  type SubscriptionStatus,
} from '../../domain/billing/subscription.js';
import { defineProjection, type ReadModelTransaction } from '../engine/projection.js';
import { readsFrom, type Decoded } from '../engine/event-sources.js';
import type { ReadModels } from '../read-models.js';

/** One row per workspace with a subscription stream. A type, not an interface, so `withTables` takes it. */
export type BillingSubscriptionsTable = {
  org_id: string;
  status: string;
  plan_key: string | null;
  billing_interval: string;
  trial_start: string | null;
  trial_ends_at: string | null;
  current_period_start: string | null;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  past_due_since: string | null;
  grace_ends_at: string | null;
  restricted_since: string | null;
  provider_customer_id: string | null;
  provider_subscription_id: string | null;
  /** Stream revision of the last event folded (a replayed event is skipped). */
  revision: number;
  updated_at: string;
};

export type SubscriptionEventRowType = 'pausing' | 'paused' | 'resumed';

export type BillingSubscriptionEventsTable = {
  /** The event's id. */
  id: string;
  org_id: string;
  type: string;
  created_at: string;
};

export type BillingSubscriptionTables = {
  billing_subscriptions: BillingSubscriptionsTable;
  billing_subscription_events: BillingSubscriptionEventsTable;
};

/** The events that change a row; provider bookkeeping and transactions do not (history-projection.ts). */
const foldedTypes = subscriptionEventCodec.types.filter(
  (t) => t !== 'BillingTransactionRecorded' && t !== 'SubscriptionNoticeApplied',
);

// ---- Announcements, for caches of a workspace's access (the access policy's) ----

/** NOTIFY channel; the payload is the workspace id. */
export const BILLING_ACCESS_CHANNEL = 'billing_access';

type AccessChangeListener = (orgId: string) => void;
const localListeners = new Set<AccessChangeListener>();

/** Calls `listener` when this process folds a change of a workspace's subscription (before it commits). */
export function onLocalAccessChange(listener: AccessChangeListener): () => void {
  localListeners.add(listener);
  return () => localListeners.delete(listener);
}

async function announce(trx: ReadModelTransaction, orgIds: readonly string[]): Promise<void> {
  const distinct = [...new Set(orgIds)];
  if (distinct.length === 0) return;
  for (const orgId of distinct) for (const listener of [...localListeners]) listener(orgId);
  await sql`select pg_notify(${BILLING_ACCESS_CHANNEL}, o) from unnest(${distinct}::text[]) as o`.execute(
    trx,
  );
}

// ---- Row <-> state ----

type Row = BillingSubscriptionsTable;

/** The aggregate state a row stands for (without the provider event ids, which only the decider needs). */
export function subscriptionStateOf(row: Omit<Row, 'revision' | 'updated_at'>): SubscriptionState {
  return {
    ...initialSubscriptionState,
    status: row.status as SubscriptionStatus,
    orgId: row.org_id,
    planKey: row.plan_key,
    billingInterval: row.billing_interval as BillingInterval,
    trialStart: row.trial_start,
    trialEndsAt: row.trial_ends_at,
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    cancelAtPeriodEnd: row.cancel_at_period_end,
    pastDueSince: row.past_due_since,
    graceEndsAt: row.grace_ends_at,
    restrictedSince: row.restricted_since,
    providerCustomerId: row.provider_customer_id,
    providerSubscriptionId: row.provider_subscription_id,
  };
}

function rowOf(orgId: string, state: SubscriptionState, revision: number, at: string): Row {
  return {
    org_id: orgId,
    status: state.status,
    plan_key: state.planKey,
    billing_interval: state.billingInterval,
    trial_start: state.trialStart,
    trial_ends_at: state.trialEndsAt,
    current_period_start: state.currentPeriodStart,
    current_period_end: state.currentPeriodEnd,
    cancel_at_period_end: state.cancelAtPeriodEnd,
    past_due_since: state.pastDueSince,
    grace_ends_at: state.graceEndsAt,
    restricted_since: state.restrictedSince,
    provider_customer_id: state.providerCustomerId,
    provider_subscription_id: state.providerSubscriptionId,
    revision,
    updated_at: at,
  };
}

/** The history row an event makes, if any (spec: Subscription event, type pausing | paused | resumed). */
const historyTypes: Partial<Record<SubscriptionEvent['type'], SubscriptionEventRowType>> = {
  SubscriptionPauseScheduled: 'pausing',
  SubscriptionPaused: 'paused',
  SubscriptionResumed: 'resumed',
};

const rowColumns = [
  'org_id',
  'status',
  'plan_key',
  'billing_interval',
  'trial_start',
  'trial_ends_at',
  'current_period_start',
  'current_period_end',
  'cancel_at_period_end',
  'past_due_since',
  'grace_ends_at',
  'restricted_since',
  'provider_customer_id',
  'provider_subscription_id',
  'revision',
  'updated_at',
] as const;

export const billingSubscriptionsProjection = defineProjection({
  name: 'billing_subscriptions',
  version: 1,
  tables: ['billing_subscriptions', 'billing_subscription_events'],
  reads: [readsFrom(subscriptionEventCodec, foldedTypes)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.billing_subscriptions (
        org_id uuid primary key,
        status text not null,
        plan_key text,
        billing_interval text not null,
        trial_start timestamptz,
        trial_ends_at timestamptz,
        current_period_start timestamptz,
        current_period_end timestamptz,
        cancel_at_period_end boolean not null,
        past_due_since timestamptz,
        grace_ends_at timestamptz,
        restricted_since timestamptz,
        provider_customer_id text,
        provider_subscription_id text,
        revision integer not null,
        updated_at timestamptz not null
      )`.execute(trx);
    // The publishing sweep asks which workspaces may not publish now: few rows are in these states.
    await sql`create index on ${s}.billing_subscriptions (status) where status <> 'active'`.execute(trx);
    await sql`
      create table ${s}.billing_subscription_events (
        id uuid primary key,
        org_id uuid not null,
        type text not null,
        created_at timestamptz not null
      )`.execute(trx);
    await sql`create index on ${s}.billing_subscription_events (org_id, created_at desc, id)`.execute(trx);
  },

  async apply(trx, event, schema) {
    await foldSubscriptions(trx, [event], schema);
  },

  applyBatch: foldSubscriptions,
});

/** Each workspace's row read once and written once per batch. */
async function foldSubscriptions(
  trx: ReadModelTransaction,
  events: readonly Decoded<SubscriptionEvent>[],
  schema: string,
): Promise<void> {
  const db = trx.withTables<BillingSubscriptionTables>().withSchema(schema);
  if (events.length === 0) return;
  const orgIds = [...new Set(events.map((event) => event.data.orgId))];
  const existing = await db
    .selectFrom('billing_subscriptions')
    .select(rowColumns)
    .where('org_id', 'in', orgIds)
    .execute();
  const rows = new Map<string, Row>(existing.map((r) => [r.org_id, r]));
  const changed = new Set<string>();
  const history: BillingSubscriptionEventsTable[] = [];
  for (const event of events) {
    const orgId = event.data.orgId;
    const before = rows.get(orgId);
    if (before && event.revision <= before.revision) continue;
    const state = evolveSubscription(
      before ? subscriptionStateOf(before) : { ...initialSubscriptionState, orgId },
      event,
    );
    rows.set(orgId, rowOf(orgId, state, event.revision, event.data.at));
    changed.add(orgId);
    const type = historyTypes[event.type];
    if (type) history.push({ id: event.id, org_id: orgId, type, created_at: event.data.at });
  }
  if (changed.size === 0) return;
  const values = [...changed].map((orgId) => rows.get(orgId)!);
  await db
    .insertInto('billing_subscriptions')
    .values(values)
    .onConflict((oc) =>
      oc
        .column('org_id')
        .doUpdateSet((eb) =>
          Object.fromEntries(
            rowColumns.filter((c) => c !== 'org_id').map((c) => [c, eb.ref(`excluded.${c}`)]),
          ),
        ),
    )
    .execute();
  if (history.length > 0)
    await db
      .insertInto('billing_subscription_events')
      .values(history)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  await announce(trx, [...changed]);
}

// ---- Queries ----

type Db = Kysely<ReadModels>;
const tablesOf = (db: Db) => db.withTables<BillingSubscriptionTables>();

/** The workspace's subscription as the read model has it; null before its stream exists (a trial starting now). */
export async function subscriptionStateFromReadModel(
  db: Db,
  orgId: string,
): Promise<SubscriptionState | null> {
  const row = await tablesOf(db)
    .selectFrom('billing_subscriptions')
    .select(rowColumns)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return row ? subscriptionStateOf(row) : null;
}

export interface SubscriptionEventItem {
  id: string;
  type: SubscriptionEventRowType;
  createdAt: string;
}

/** The spec's recentSubscriptionEvents: the workspace's latest pausing, paused and resumed rows, newest first. */
export async function recentSubscriptionEvents(
  db: Db,
  orgId: string,
  limit = 10,
): Promise<SubscriptionEventItem[]> {
  const rows = await tablesOf(db)
    .selectFrom('billing_subscription_events')
    .select(['id', 'type', 'created_at'])
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, type: r.type as SubscriptionEventRowType, createdAt: r.created_at }));
}

/**
 * SQL true for a workspace whose subscription lets it publish at `now` (`accessOf`: full access and usable):
 * no row (a trial starting now), active, pausing, past due within its grace, a trial not over. Kept beside
 * `subscriptionStateOf` so the publishing sweep and the access policy read the same columns.
 */
export function mayPublishSql(table: string, now: string) {
  const col = (name: string) => sql.ref(`${table}.${name}`);
  return sql<boolean>`(
    ${col('status')} in ('active', 'pausing')
    or (${col('status')} = 'trialing' and (${col('trial_ends_at')} is null or ${col('trial_ends_at')} > ${now}::timestamptz))
    or (${col('status')} = 'past_due' and ${col('restricted_since')} is null
        and (${col('grace_ends_at')} is null or ${col('grace_ends_at')} > ${now}::timestamptz))
  )`;
}
