// Billing history routes (owners and admins, permission billing:manage): GET ORG/billing/invoices,
// GET ORG/billing/transactions (the spec's filters, sorts and billing list envelope) and
// GET ORG/billing/transactions/{transactionId}/invoice (a link to the invoice: the one recorded with the
// transaction, else asked of the payment provider). Answers come from the billing history read model.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { NotFound } from '../../domain/shared/errors.js';
import {
  billingTransactionOf,
  invoiceStatuses,
  listBillingTransactions,
  listInvoices,
  type HistoryFilter,
  type HistoryQuery,
} from '../../projections/billing/history-projection.js';
import { billingListPage } from '../../projections/billing/list-page.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { defineListQuery, type ListQuery } from '../platform/paging.js';
import { dataOf, jsonResponse } from '../platform/responses.js';
import { orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';

const transactionTypes = ['subscription', 'renewal', 'credit_pack', 'payment_method_update'] as const;
const transactionStatuses = ['pending', 'completed', 'failed', 'canceled'] as const;

export const billingTransactionSchema = z
  .object({
    id: z.string().openapi({ example: 'txn_01hv8x' }),
    type: z.string().openapi({ description: transactionTypes.join(', ') }),
    amount: z.number().int().openapi({ description: 'Minor units of `currency` (cents for USD)' }),
    currency: z.string().openapi({ example: 'USD' }),
    status: z.string().openapi({ description: transactionStatuses.join(', ') }),
    invoiceUrl: z.string().nullable(),
    paidAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('BillingTransaction');

export const invoiceSchema = z
  .object({
    id: z.string().openapi({ description: "The provider's invoice id" }),
    transactionId: z
      .string()
      .openapi({ description: 'The transaction it invoices (…/transactions/{transactionId}/invoice)' }),
    invoiceNumber: z.string().nullable(),
    status: z.string().openapi({ description: invoiceStatuses.join(', ') }),
    total: z.number().int().openapi({ description: 'Minor units of `currency`' }),
    currency: z.string(),
    invoiceUrl: z.string().nullable(),
    paidAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('Invoice');

/** The spec's billing list envelope: `data` = { data: rows[], metadata }, its metadata named for the document. */
export function billingListSchema<T extends z.ZodType>(
  row: T,
  name: string,
  metadataName = 'BillingListMetadata',
) {
  const metadata = z
    .object({
      page: z.number().int().min(1),
      limit: z.number().int().min(1),
      total: z.number().int().min(0),
      totalPages: z.number().int().min(0),
      hasNext: z.boolean(),
      hasPrev: z.boolean(),
    })
    .openapi(metadataName);
  return z.object({ data: z.array(row), metadata }).openapi(name);
}

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

/** What the two history lists share: owners and admins, paged in the billing list envelope. */
const historyList = {
  ...secured({ permission: 'billing:manage' }),
  method: 'get' as const,
  tags: ['billing'],
  description: 'Owners and admins. Page size default 20, maximum 100. Amounts in minor units.',
};

const listInvoicesRoute = createRoute({
  ...historyList,
  path: `${base}/invoices`,
  operationId: 'listInvoices',
  summary: "The workspace's invoices, newest first by default (billing list envelope)",
  request: { params: orgParams, query: invoiceListQuery.schema },
  responses: {
    200: jsonResponse(dataOf(billingListSchema(invoiceSchema, 'InvoiceList')), 'Invoices'),
    ...errorResponses(400, 401, 403, 429),
  },
});

const listTransactionsRoute = createRoute({
  ...historyList,
  path: `${base}/transactions`,
  operationId: 'listBillingTransactions',
  summary: "The workspace's billing transactions, newest first by default (billing list envelope)",
  request: { params: orgParams, query: transactionListQuery.schema },
  responses: {
    200: jsonResponse(
      dataOf(billingListSchema(billingTransactionSchema, 'BillingTransactionList')),
      'Billing transactions',
    ),
    ...errorResponses(400, 401, 403, 429),
  },
});

const invoiceUrlRoute = createRoute({
  ...secured({ permission: 'billing:manage' }),
  method: 'get',
  path: `${base}/transactions/{transactionId}/invoice`,
  operationId: 'getTransactionInvoice',
  tags: ['billing'],
  summary: "A link to a transaction's invoice (PDF)",
  description:
    'Owners and admins. The link recorded with the transaction, else a fresh one from the payment provider ' +
    '(it may expire: ask again). 404 for a transaction not in this workspace, or one without an invoice yet.',
  request: { params: transactionParams },
  responses: {
    200: jsonResponse(dataOf(z.object({ url: z.url() }).openapi('InvoiceLink')), 'The invoice link'),
    ...errorResponses(400, 401, 403, 404, 429),
  },
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

export interface HistoryRouteDeps {
  /** The payment provider's link to a transaction's invoice (null when it has none yet). */
  invoiceUrl?: (orgId: string, transactionId: string) => Promise<string | null>;
}

export function billingHistoryRoutes(services: RouteServices, deps: HistoryRouteDeps = {}) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listInvoicesRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      const { rows, total } = await listInvoices(services.readModels, orgId, historyQueryOf(query));
      return c.json({ data: billingListPage(rows, query.page, query.limit, total) }, 200);
    });

    app.openapi(listTransactionsRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      const { rows, total } = await listBillingTransactions(
        services.readModels,
        orgId,
        historyQueryOf(query),
      );
      return c.json({ data: billingListPage(rows, query.page, query.limit, total) }, 200);
    });

    app.openapi(invoiceUrlRoute, async (c) => {
      const { orgId, transactionId } = c.req.valid('param');
      const transaction = await billingTransactionOf(services.readModels, orgId, transactionId);
      if (!transaction) throw new NotFound('No such transaction in this workspace');
      const url = transaction.invoiceUrl ?? (await deps.invoiceUrl?.(orgId, transactionId)) ?? null;
      if (url === null) throw new NotFound('This transaction has no invoice yet');
      return c.json({ data: { url } }, 200);
    });
  };
}
