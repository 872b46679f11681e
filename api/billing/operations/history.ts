// The billing slice's history operations (owners and admins, permission billing:manage): GET
// ORG/billing/invoices, GET ORG/billing/transactions (the spec's filters, sorts and billing list envelope) and
// GET ORG/billing/transactions/{transactionId}/invoice (a link to the invoice: the one recorded with the
// transaction, else asked of the payment provider). Answers come from the billing history read model.
import { z } from '@hono/zod-openapi';
import { NotFound } from '../../../domain/shared/errors.js';
import {
  billingTransactionOf,
  invoiceStatuses,
  listBillingTransactions,
  listInvoices,
  type HistoryFilter,
  type HistoryQuery,
} from '../../../projections/billing/history-projection.js';
import { billingListPage } from '../../../projections/billing/list-page.js';
import { defineListQuery, type ListQuery } from '../../platform/paging.js';
import { orgParams } from '../../shared/params.js';
import {
  billingListSchema,
  billingTransactionSchema,
  invoiceSchema,
  transactionStatuses,
  transactionTypes,
} from '../schemas.js';
import { billingOperation, managing } from './deps.js';

const instant = z.iso.datetime({ offset: true }).transform((v) => new Date(v).toISOString());
const createdAtFilters = {
  createdAtFrom: { ops: ['gte'], value: instant, description: 'Created at or after this instant' },
  createdAtTo: { ops: ['lte'], value: instant, description: 'Created at or before this instant' },
} as const;

export const transactionListQuery = defineListQuery({
  filters: {
    status: { ops: ['eq', 'in'], value: z.enum(transactionStatuses) },
    type: { ops: ['eq', 'in'], value: z.enum(transactionTypes) },
    ...createdAtFilters,
  },
  sortBy: ['createdAt', 'amount', 'status', 'type'],
  defaultSort: { by: 'createdAt', dir: 'desc' },
  defaultLimit: 20,
  maxLimit: 100,
});

export const invoiceListQuery = defineListQuery({
  filters: {
    status: { ops: ['eq', 'in'], value: z.enum(invoiceStatuses) },
    ...createdAtFilters,
  },
  sortBy: ['createdAt', 'amount', 'status'],
  defaultSort: { by: 'createdAt', dir: 'desc' },
  defaultLimit: 20,
  maxLimit: 100,
});

const base = '/v1/orgs/{orgId}/billing';
const transactionParams = orgParams.extend({
  transactionId: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'Must be a transaction id (letters, digits, _ . : -)')
    .openapi({ param: { name: 'transactionId', in: 'path' }, example: 'txn_01hv8x' }),
});

/** A parsed list query as the history read model takes it (sorted by createdAt unless asked otherwise). */
function historyQueryOf<Field extends string, Sort extends string>(
  query: ListQuery<Field, Sort>,
): HistoryQuery<Field, Sort | 'createdAt'> {
  return {
    filters: query.filters.map((f): HistoryFilter<Field> =>
      f.op === 'in'
        ? { field: f.field, op: 'in', values: f.values.map(String) }
        : { field: f.field, op: f.op === 'gte' || f.op === 'lte' ? f.op : 'eq', value: String(f.value) },
    ),
    sortBy: query.sortBy ?? 'createdAt',
    sortDir: query.sortDir,
    limit: query.limit,
    offset: query.offset,
  };
}

/** What the two history lists share: owners and admins, paged in the billing list envelope. */
const historyList = {
  kind: 'read' as const,
  method: 'get' as const,
  tags: ['billing'],
  description: 'Owners and admins. Page size default 20, maximum 100. Amounts in minor units.',
  params: orgParams,
  errors: [400, 401, 403, 429] as const,
  access: managing,
};

export const historyOperations = [
  billingOperation({
    ...historyList,
    name: 'listInvoices',
    path: `${base}/invoices`,
    summary: "The workspace's invoices, newest first by default (billing list envelope)",
    query: invoiceListQuery.schema,
    output: billingListSchema(invoiceSchema, 'InvoiceList'),
    outputDescription: 'Invoices',
    run: async ({ services }, _call, { orgId, ...query }) => {
      const { rows, total } = await listInvoices(services.readModels, orgId, historyQueryOf(query));
      return billingListPage(rows, query.page, query.limit, total);
    },
  }),
  billingOperation({
    ...historyList,
    name: 'listBillingTransactions',
    path: `${base}/transactions`,
    summary: "The workspace's billing transactions, newest first by default (billing list envelope)",
    query: transactionListQuery.schema,
    output: billingListSchema(billingTransactionSchema, 'BillingTransactionList'),
    outputDescription: 'Billing transactions',
    run: async ({ services }, _call, { orgId, ...query }) => {
      const { rows, total } = await listBillingTransactions(
        services.readModels,
        orgId,
        historyQueryOf(query),
      );
      return billingListPage(rows, query.page, query.limit, total);
    },
  }),
  billingOperation({
    name: 'getTransactionInvoice',
    kind: 'read',
    method: 'get',
    path: `${base}/transactions/{transactionId}/invoice`,
    tags: ['billing'],
    summary: "A link to a transaction's invoice (PDF)",
    description:
      'Owners and admins. The link recorded with the transaction, else a fresh one from the payment provider ' +
      '(it may expire: ask again). 404 for a transaction not in this workspace, or one without an invoice yet.',
    params: transactionParams,
    output: z.object({ url: z.url() }).openapi('InvoiceLink'),
    outputDescription: 'The invoice link',
    errors: [400, 401, 403, 404, 429],
    access: managing,
    run: async ({ services, billing }, _call, { orgId, transactionId }) => {
      const transaction = await billingTransactionOf(services.readModels, orgId, transactionId);
      if (!transaction) throw new NotFound('No such transaction in this workspace');
      const url = transaction.invoiceUrl ?? (await billing.provider.invoiceUrl(orgId, transactionId)) ?? null;
      if (url === null) throw new NotFound('This transaction has no invoice yet');
      return { url };
    },
  }),
];
