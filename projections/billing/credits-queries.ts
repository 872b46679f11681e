// Queries over the credit read models: a page of credit usage rows (GET ORG/billing/credits/usage, get_usage)
// and the newest credit transactions (recentCreditTransactions of GET ORG/billing).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ReadModels } from '../read-models.js';
import type { CreditTables, CreditTransactionsTable, CreditUsageTable } from './credits-projection.js';
import { billingListPage, type BillingListPage } from './list-page.js';

const tablesOf = (db: Kysely<ReadModels>) => db.withTables<CreditTables>();

/** The spec's Credit usage row. */
export interface CreditUsageRow {
  id: string;
  metricKey: string;
  quantity: number;
  type: string | null;
  feature: string | null;
  provider: string | null;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
  amountUsed: number;
  creditsUsedMilli: number | null;
  pricingVersion: string | null;
  usedFallbackEstimate: boolean;
  monthlyCreditsAfter: number | null;
  purchasedCreditsAfter: number | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
}

/** The spec's Credit transaction; `amount` is negative for spends. */
export interface CreditTransactionItem {
  id: string;
  type: string;
  amount: number;
  monthlyCreditsAfter: number;
  purchasedCreditsAfter: number;
  metadata: Record<string, unknown> | null;
  createdAt: string;
}

export interface CreditUsageQuery {
  orgId: string;
  page: number;
  limit: number;
  metricKey?: string;
  feature?: string;
  model?: string;
  /** ISO instants, inclusive. */
  createdAtFrom?: string;
  createdAtTo?: string;
}

const nullableNumber = (value: number | string | null) => (value === null ? null : Number(value));

function usageRow(r: Selectable<CreditUsageTable>): CreditUsageRow {
  return {
    id: r.id,
    metricKey: r.metric_key,
    quantity: r.quantity,
    type: r.type,
    feature: r.feature,
    provider: r.provider,
    model: r.model,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    totalTokens: r.total_tokens,
    amountUsed: r.amount_used,
    creditsUsedMilli: nullableNumber(r.credits_used_milli),
    pricingVersion: r.pricing_version,
    usedFallbackEstimate: r.used_fallback_estimate,
    monthlyCreditsAfter: r.monthly_after,
    purchasedCreditsAfter: r.purchased_after,
    metadata: r.metadata,
    createdAt: r.created_at,
  };
}

/** A page of the workspace's debits, newest first, with the filters of the usage route. */
export async function listCreditUsage(
  db: Kysely<ReadModels>,
  query: CreditUsageQuery,
): Promise<BillingListPage<CreditUsageRow>> {
  let q = tablesOf(db).selectFrom('credit_usage').where('org_id', '=', query.orgId);
  if (query.metricKey !== undefined) q = q.where('metric_key', '=', query.metricKey);
  if (query.feature !== undefined) q = q.where('feature', '=', query.feature);
  if (query.model !== undefined) q = q.where('model', '=', query.model);
  if (query.createdAtFrom !== undefined)
    q = q.where(sql<boolean>`created_at >= ${query.createdAtFrom}::timestamptz`);
  if (query.createdAtTo !== undefined)
    q = q.where(sql<boolean>`created_at <= ${query.createdAtTo}::timestamptz`);
  const [rows, count] = await Promise.all([
    q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return billingListPage(rows.map(usageRow), query.page, query.limit, Number(count.n));
}

function transactionItem(r: Selectable<CreditTransactionsTable>): CreditTransactionItem {
  return {
    id: r.id,
    type: r.type,
    amount: r.amount,
    monthlyCreditsAfter: r.monthly_after,
    purchasedCreditsAfter: r.purchased_after,
    metadata: r.metadata,
    createdAt: r.created_at,
  };
}

/** The workspace's newest credit transactions (grants, rollovers, purchases, spends), newest first. */
export async function recentCreditTransactions(
  db: Kysely<ReadModels>,
  orgId: string,
  limit = 10,
): Promise<CreditTransactionItem[]> {
  const rows = await tablesOf(db)
    .selectFrom('credit_transactions')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('period_key', 'desc')
    .orderBy('revision', 'desc')
    .orderBy('ordinal', 'desc')
    .limit(limit)
    .execute();
  return rows.map(transactionItem);
}
