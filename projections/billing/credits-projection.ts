// Read models of the credit ledger: credit transactions (a `grant` row and, when credits rolled over, a
// `rollover` row per opened period; a `purchase` row per pack; a `spend` row per debit, its amount negative) for
// recentCreditTransactions, and credit usage rows (one per debit, the spec's "Credit usage row") for
// GET ORG/billing/credits/usage and get_usage. Row ids derive from the event id, so folding an event twice
// writes nothing new. Balances are not kept here: the ledger stream answers them exactly.
import { sql, type ColumnType, type Selectable } from 'kysely';
import { creditEventCodec } from '../../domain/billing/credits-codec.js';
import { assertNever } from '../../domain/shared/decider.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';

/** jsonb: read as a value, written as JSON text. */
type JsonMetadata = ColumnType<Record<string, unknown> | null, string | null, string | null>;

export type CreditTransactionsTable = {
  id: string;
  org_id: string;
  period_key: string;
  /** `grant`, `rollover`, `purchase`, `spend`. */
  type: string;
  /** Credits; positive for what is added, negative for spends. */
  amount: number;
  monthly_after: number;
  purchased_after: number;
  metadata: JsonMetadata;
  created_at: string;
  /** Stream revision and the row's place within its event: ties of created_at in ledger order. */
  revision: number;
  ordinal: number;
};

export type CreditUsageTable = {
  id: string;
  org_id: string;
  period_key: string;
  spend_key: string;
  metric_key: string;
  quantity: number;
  type: string | null;
  feature: string | null;
  provider: string | null;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  total_tokens: number | null;
  amount_used: number;
  /** bigint: read as a string. */
  credits_used_milli: number | string | null;
  pricing_version: string | null;
  used_fallback_estimate: boolean;
  monthly_after: number | null;
  purchased_after: number | null;
  metadata: JsonMetadata;
  created_at: string;
};

/** Types, not interfaces, so `withTables` takes them. */
export type CreditTables = {
  credit_transactions: CreditTransactionsTable;
  credit_usage: CreditUsageTable;
};

export const creditsProjection = defineProjection({
  name: 'credits',
  version: 1,
  tables: ['credit_transactions', 'credit_usage'],
  // A closed period lists nothing (the next period's grant and rollover rows show what carried over), and holds
  // of paid calls in flight are not transactions (a settled hold is listed as its CreditsSpent).
  reads: [readsFrom(creditEventCodec, ['CreditPeriodOpened', 'CreditsSpent', 'CreditPackPurchased'])],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.credit_transactions (
        id uuid primary key,
        org_id uuid not null,
        period_key text not null,
        type text not null,
        amount integer not null,
        monthly_after integer not null,
        purchased_after integer not null,
        metadata jsonb,
        created_at timestamptz not null,
        revision integer not null,
        ordinal integer not null
      )`.execute(trx);
    await sql`create index on ${s}.credit_transactions (org_id, created_at desc, period_key desc, revision desc, ordinal desc)`.execute(
      trx,
    );
    await sql`
      create table ${s}.credit_usage (
        id uuid primary key,
        org_id uuid not null,
        period_key text not null,
        spend_key text not null,
        metric_key text not null,
        quantity integer not null,
        type text,
        feature text,
        provider text,
        model text,
        input_tokens integer,
        output_tokens integer,
        total_tokens integer,
        amount_used integer not null,
        credits_used_milli bigint,
        pricing_version text,
        used_fallback_estimate boolean not null,
        monthly_after integer,
        purchased_after integer,
        metadata jsonb,
        created_at timestamptz not null
      )`.execute(trx);
    await sql`create index on ${s}.credit_usage (org_id, created_at desc, id)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<CreditTables>().withSchema(schema);
    const row = (
      ordinal: number,
      values: Omit<Selectable<CreditTransactionsTable>, 'id' | 'revision' | 'ordinal'>,
    ) => ({
      id: ordinal === 0 ? event.id : deterministicUuid('credit-transaction', event.id, String(ordinal)),
      revision: event.revision,
      ordinal,
      ...values,
      metadata: values.metadata === null ? null : JSON.stringify(values.metadata),
    });
    const insert = async (rows: ReturnType<typeof row>[]) => {
      if (rows.length === 0) return;
      await db
        .insertInto('credit_transactions')
        .values(rows)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    };
    switch (event.type) {
      case 'CreditPeriodOpened': {
        const d = event.data;
        const period = { periodKey: d.periodKey, periodStart: d.periodStart, periodEnd: d.periodEnd };
        const base = { org_id: d.orgId, period_key: d.periodKey, created_at: d.at };
        const rows = [
          row(0, {
            ...base,
            type: 'grant',
            amount: d.allowance,
            monthly_after: d.allowance,
            purchased_after: d.purchasedCarried,
            metadata: { ...period, planKey: d.planKey, purchasedCarried: d.purchasedCarried },
          }),
        ];
        if (d.rolledOver > 0)
          rows.push(
            row(1, {
              ...base,
              type: 'rollover',
              amount: d.rolledOver,
              monthly_after: d.allowance + d.rolledOver,
              purchased_after: d.purchasedCarried,
              metadata: { ...period, fromPeriodKey: d.previousPeriodKey },
            }),
          );
        await insert(rows);
        return;
      }
      case 'CreditPackPurchased': {
        const d = event.data;
        await insert([
          row(0, {
            org_id: d.orgId,
            period_key: d.periodKey,
            created_at: d.at,
            type: 'purchase',
            amount: d.credits,
            monthly_after: d.monthlyAfter,
            purchased_after: d.purchasedAfter,
            metadata: { transactionId: d.transactionId, packKey: d.packKey },
          }),
        ]);
        return;
      }
      case 'CreditsSpent': {
        const d = event.data;
        const described = Object.fromEntries(
          Object.entries({
            spendKey: d.spendKey,
            metricKey: d.metricKey,
            quantity: d.quantity,
            actionKey: d.actionKey,
            feature: d.feature,
            model: d.model,
            fromMonthly: d.fromMonthly,
            fromPurchased: d.fromPurchased,
          }).filter(([, v]) => v !== null),
        );
        await insert([
          row(0, {
            org_id: d.orgId,
            period_key: d.periodKey,
            created_at: d.at,
            type: 'spend',
            amount: -d.credits,
            monthly_after: d.monthlyAfter,
            purchased_after: d.purchasedAfter,
            metadata: d.metadata ? { ...described, details: d.metadata } : described,
          }),
        ]);
        await db
          .insertInto('credit_usage')
          .values({
            id: event.id,
            org_id: d.orgId,
            period_key: d.periodKey,
            spend_key: d.spendKey,
            metric_key: d.metricKey,
            quantity: d.quantity,
            type: d.actionKey,
            feature: d.feature,
            provider: d.provider,
            model: d.model,
            input_tokens: d.inputTokens,
            output_tokens: d.outputTokens,
            total_tokens: d.totalTokens,
            amount_used: d.credits,
            credits_used_milli: d.creditsUsedMilli,
            pricing_version: d.pricingVersion,
            used_fallback_estimate: d.usedFallbackEstimate,
            monthly_after: d.monthlyAfter,
            purchased_after: d.purchasedAfter,
            metadata: d.metadata === null ? null : JSON.stringify(d.metadata),
            created_at: d.at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      default:
        return assertNever(event);
    }
  },
});
