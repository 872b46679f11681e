// Read models of a workspace's billing transactions and invoices, folded from BillingTransactionRecorded (one
// per transaction and status, in the order the subscription recorded them): a transaction row per provider
// transaction, showing its latest status; an invoice row per transaction that has an invoice id. A status never
// goes back to `pending` once the transaction completed, failed or was canceled (a late `pending` notice).
// Also the queries of GET ORG/billing/invoices, …/transactions, …/transactions/{id}/invoice and GET ORG/billing.
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { subscriptionEventCodec } from '../../domain/billing/event-codec.js';
import type { BillingTransactionRecord } from '../../domain/billing/subscription.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';
import type { ReadModels } from '../read-models.js';
import { recentSubscriptionEvents, type SubscriptionEventItem } from './subscriptions-projection.js';

export type BillingTransactionsTable = {
  org_id: string;
  /** The provider's transaction id (`txn_…`). */
  id: string;
  type: string;
  status: string;
  /** Minor units; int8, read as a string. */
  amount: string;
  currency: string;
  price_id: string | null;
  invoice_id: string | null;
  invoice_number: string | null;
  invoice_url: string | null;
  paid_at: string | null;
  created_at: string;
  updated_at: string;
};

export type BillingInvoicesTable = {
  org_id: string;
  /** The provider's invoice id. */
  id: string;
  transaction_id: string;
  invoice_number: string | null;
  status: string;
  total: string;
  currency: string;
  invoice_url: string | null;
  paid_at: string | null;
  created_at: string;
  updated_at: string;
};

export type BillingHistoryTables = {
  billing_transactions: BillingTransactionsTable;
  billing_invoices: BillingInvoicesTable;
};

const recordedType = 'BillingTransactionRecorded';

/** A transaction's status never moves back to pending once settled. */
const settled = (status: string) => status !== 'pending';

/** An invoice's status, from its transaction's: pending → open, completed → paid, failed, canceled. */
export function invoiceStatusOf(transactionStatus: string): string {
  switch (transactionStatus) {
    case 'pending':
      return 'open';
    case 'completed':
      return 'paid';
    default:
      return transactionStatus;
  }
}
export const invoiceStatuses = ['open', 'paid', 'failed', 'canceled'] as const;

export const billingHistoryProjection = defineProjection({
  name: 'billing_history',
  version: 1,
  tables: ['billing_transactions', 'billing_invoices'],
  reads: [readsFrom(subscriptionEventCodec, [recordedType])],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.billing_transactions (
        org_id uuid not null,
        id text not null,
        type text not null,
        status text not null,
        amount bigint not null,
        currency text not null,
        price_id text,
        invoice_id text,
        invoice_number text,
        invoice_url text,
        paid_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, id)
      )`.execute(trx);
    await sql`create index on ${s}.billing_transactions (org_id, created_at desc, id)`.execute(trx);
    await sql`
      create table ${s}.billing_invoices (
        org_id uuid not null,
        id text not null,
        transaction_id text not null,
        invoice_number text,
        status text not null,
        total bigint not null,
        currency text not null,
        invoice_url text,
        paid_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, id)
      )`.execute(trx);
    await sql`create index on ${s}.billing_invoices (org_id, created_at desc, id)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const d: BillingTransactionRecord = event.data;
    const db = trx.withTables<BillingHistoryTables>().withSchema(schema);
    const existing = await db
      .selectFrom('billing_transactions')
      .select(['status', 'invoice_id', 'invoice_number', 'invoice_url', 'paid_at'])
      .where('org_id', '=', d.orgId)
      .where('id', '=', d.transactionId)
      .executeTakeFirst();
    // A late `pending` does not undo a settled status; what it adds (an invoice link) is still kept.
    const status = existing && settled(existing.status) && !settled(d.status) ? existing.status : d.status;
    const invoiceId = d.invoiceId ?? existing?.invoice_id ?? null;
    const invoiceNumber = d.invoiceNumber ?? existing?.invoice_number ?? null;
    const invoiceUrl = d.invoiceUrl ?? existing?.invoice_url ?? null;
    const paidAt = d.paidAt ?? existing?.paid_at ?? null;
    const row: BillingTransactionsTable = {
      org_id: d.orgId,
      id: d.transactionId,
      type: d.type,
      status,
      amount: String(d.amount),
      currency: d.currency,
      price_id: d.priceId,
      invoice_id: invoiceId,
      invoice_number: invoiceNumber,
      invoice_url: invoiceUrl,
      paid_at: paidAt,
      created_at: d.createdAt,
      updated_at: d.at,
    };
    await db
      .insertInto('billing_transactions')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['org_id', 'id']).doUpdateSet({
          status: row.status,
          amount: row.amount,
          currency: row.currency,
          price_id: row.price_id,
          invoice_id: row.invoice_id,
          invoice_number: row.invoice_number,
          invoice_url: row.invoice_url,
          paid_at: row.paid_at,
          updated_at: row.updated_at,
        }),
      )
      .execute();
    if (invoiceId === null) return;
    const invoice: BillingInvoicesTable = {
      org_id: d.orgId,
      id: invoiceId,
      transaction_id: d.transactionId,
      invoice_number: invoiceNumber,
      status: invoiceStatusOf(status),
      total: String(d.amount),
      currency: d.currency,
      invoice_url: invoiceUrl,
      paid_at: paidAt,
      created_at: d.createdAt,
      updated_at: d.at,
    };
    await db
      .insertInto('billing_invoices')
      .values(invoice)
      .onConflict((oc) =>
        oc.columns(['org_id', 'id']).doUpdateSet({
          transaction_id: invoice.transaction_id,
          invoice_number: invoice.invoice_number,
          status: invoice.status,
          total: invoice.total,
          currency: invoice.currency,
          invoice_url: invoice.invoice_url,
          paid_at: invoice.paid_at,
          updated_at: invoice.updated_at,
        }),
      )
      .execute();
  },
});

// ---- Queries ----

type Db = Kysely<ReadModels>;
const tablesOf = (db: Db) => db.withTables<BillingHistoryTables>();

/** The spec's Billing transaction. */
export interface BillingTransactionItem {
  id: string;
  type: string;
  amount: number;
  currency: string;
  status: string;
  invoiceUrl: string | null;
  paidAt: string | null;
  createdAt: string;
}

/** The spec's Invoice, with the transaction it belongs to (for …/transactions/{transactionId}/invoice). */
export interface InvoiceItem {
  id: string;
  transactionId: string;
  invoiceNumber: string | null;
  status: string;
  total: number;
  currency: string;
  invoiceUrl: string | null;
  paidAt: string | null;
  createdAt: string;
}

export type HistoryFilter<Field extends string> =
  { field: Field; op: 'eq' | 'gte' | 'lte'; value: string } | { field: Field; op: 'in'; values: string[] };

export interface HistoryQuery<Field extends string, Sort extends string> {
  filters: readonly HistoryFilter<Field>[];
  sortBy: Sort;
  sortDir: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export type TransactionFilterField = 'status' | 'type' | 'createdAtFrom' | 'createdAtTo';
export type TransactionSort = 'createdAt' | 'amount' | 'status' | 'type';
export type InvoiceFilterField = 'status' | 'createdAtFrom' | 'createdAtTo';
export type InvoiceSort = 'createdAt' | 'amount' | 'status';

const columnOf: Record<string, string> = {
  status: 'status',
  type: 'type',
  createdAtFrom: 'created_at',
  createdAtTo: 'created_at',
  createdAt: 'created_at',
};

function condition(filter: HistoryFilter<string>): Expression<SqlBool> {
  const column = sql.ref(columnOf[filter.field]!);
  switch (filter.op) {
    case 'in':
      return sql<SqlBool>`${column} in (${sql.join(filter.values)})`;
    case 'eq':
      return sql<SqlBool>`${column} = ${filter.value}`;
    case 'gte':
      return sql<SqlBool>`${column} >= ${filter.value}::timestamptz`;
    case 'lte':
      return sql<SqlBool>`${column} <= ${filter.value}::timestamptz`;
    default: {
      const never: never = filter;
      throw new Error(`unknown filter ${JSON.stringify(never)}`);
    }
  }
}

function transactionItem(r: BillingTransactionsTable): BillingTransactionItem {
  return {
    id: r.id,
    type: r.type,
    amount: Number(r.amount),
    currency: r.currency,
    status: r.status,
    invoiceUrl: r.invoice_url,
    paidAt: r.paid_at,
    createdAt: r.created_at,
  };
}

function invoiceItem(r: BillingInvoicesTable): InvoiceItem {
  return {
    id: r.id,
    transactionId: r.transaction_id,
    invoiceNumber: r.invoice_number,
    status: r.status,
    total: Number(r.total),
    currency: r.currency,
    invoiceUrl: r.invoice_url,
    paidAt: r.paid_at,
    createdAt: r.created_at,
  };
}

// The two history tables are read alike. Kysely takes their names as a union (`from`), not as a type parameter,
// and types a selected row with the columns of both; the rows are `table`'s.

/** One page of a history table's rows of the workspace, filtered and sorted, and how many match. */
async function historyPage<Table extends keyof BillingHistoryTables>(
  db: Db,
  table: Table,
  orgId: string,
  query: HistoryQuery<string, string>,
  amountColumn: 'amount' | 'total',
): Promise<{ rows: BillingHistoryTables[Table][]; total: number }> {
  const from: keyof BillingHistoryTables = table;
  let select = tablesOf(db).selectFrom(from).where('org_id', '=', orgId);
  for (const filter of query.filters) select = select.where(condition(filter));
  const sortColumn = sql.ref(query.sortBy === 'amount' ? amountColumn : columnOf[query.sortBy]!);
  const direction = query.sortDir === 'desc' ? sql`desc` : sql`asc`;
  const [rows, count] = await Promise.all([
    select
      .selectAll()
      .orderBy(sql`${sortColumn} ${direction}`)
      .orderBy(sql`id ${direction}`)
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    select.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}

/** One page of the workspace's transactions and how many match. */
export async function listBillingTransactions(
  db: Db,
  orgId: string,
  query: HistoryQuery<TransactionFilterField, TransactionSort>,
): Promise<{ rows: BillingTransactionItem[]; total: number }> {
  const { rows, total } = await historyPage(db, 'billing_transactions', orgId, query, 'amount');
  return { rows: rows.map(transactionItem), total };
}

/** One page of the workspace's invoices and how many match. */
export async function listInvoices(
  db: Db,
  orgId: string,
  query: HistoryQuery<InvoiceFilterField, InvoiceSort>,
): Promise<{ rows: InvoiceItem[]; total: number }> {
  const { rows, total } = await historyPage(db, 'billing_invoices', orgId, query, 'total');
  return { rows: rows.map(invoiceItem), total };
}

/** A transaction of this workspace (null for an unknown id or another workspace's). */
export async function billingTransactionOf(
  db: Db,
  orgId: string,
  transactionId: string,
): Promise<BillingTransactionItem | null> {
  const row = await tablesOf(db)
    .selectFrom('billing_transactions')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', transactionId)
    .executeTakeFirst();
  return row ? transactionItem(row) : null;
}

/** A history table's newest rows of the workspace. */
async function newestRows<Table extends keyof BillingHistoryTables>(
  db: Db,
  table: Table,
  orgId: string,
  limit: number,
): Promise<BillingHistoryTables[Table][]> {
  const from: keyof BillingHistoryTables = table;
  const rows = await tablesOf(db)
    .selectFrom(from)
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows;
}

/** GET ORG/billing's recentBillingTransactions: newest first. */
export async function recentBillingTransactions(
  db: Db,
  orgId: string,
  limit = 10,
): Promise<BillingTransactionItem[]> {
  return (await newestRows(db, 'billing_transactions', orgId, limit)).map(transactionItem);
}

/** GET ORG/billing's recentInvoices: newest first. */
export async function recentInvoices(db: Db, orgId: string, limit = 10): Promise<InvoiceItem[]> {
  return (await newestRows(db, 'billing_invoices', orgId, limit)).map(invoiceItem);
}

/** What GET ORG/billing shows of the history (billingServicesOf(ctx).history). */
export interface BillingHistory {
  recentTransactions(orgId: string): Promise<BillingTransactionItem[]>;
  recentInvoices(orgId: string): Promise<InvoiceItem[]>;
  recentSubscriptionEvents(orgId: string): Promise<SubscriptionEventItem[]>;
}

export function billingHistoryOf(db: Db): BillingHistory {
  return {
    recentTransactions: (orgId) => recentBillingTransactions(db, orgId),
    recentInvoices: (orgId) => recentInvoices(db, orgId),
    recentSubscriptionEvents: (orgId) => recentSubscriptionEvents(db, orgId),
  };
}
