// GET ORG/billing/transactions, …/invoices and …/transactions/{transactionId}/invoice through the whole service:
// transactions recorded from provider notices (the subscription's applyNotice, as webhooks apply them), the
// spec's filters (status and type eq|in, createdAtFrom gte, createdAtTo lte), sorts, the billing list envelope,
// a late `pending` not undoing a completed status, the invoice link (recorded, or asked of the provider), 404
// for another workspace's transaction, 400 naming the field, owners and admins only.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  applyNotice,
  type SubscriptionCommandDeps,
} from '../../../commands/billing/subscription-commands.js';
import type { TransactionNotice } from '../../../domain/billing/provider-events.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { billingHistoryProjection } from '../../../projections/billing/history-projection.js';
import { billingSubscriptionsProjection } from '../../../projections/billing/subscriptions-projection.js';
import { SandboxPaymentProvider } from '../../../infra/billing/sandbox-provider.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let deps: SubscriptionCommandDeps;
let ws: TestWorkspace;
let other: TestWorkspace;

interface Row {
  id: string;
  type?: string;
  status: string;
  amount?: number;
  total?: number;
  currency: string;
  invoiceUrl: string | null;
  paidAt: string | null;
  createdAt: string;
  transactionId?: string;
}
interface Envelope {
  data: {
    data: Row[];
    metadata: {
      page: number;
      limit: number;
      total: number;
      totalPages: number;
      hasNext: boolean;
      hasPrev: boolean;
    };
  };
}

let eventNumber = 0;
function transaction(orgId: string, fields: Partial<TransactionNotice> & { transactionId: string }) {
  eventNumber += 1;
  const notice: TransactionNotice = {
    kind: 'transaction',
    provider: 'sandbox',
    eventId: `evt_history_${orgId.slice(0, 8)}_${eventNumber}`,
    occurredAt: new Date(Date.UTC(2026, 0, 1, 0, eventNumber)).toISOString(),
    orgId,
    type: 'subscription',
    status: 'completed',
    amount: 4900,
    currency: 'USD',
    priceId: null,
    invoiceId: null,
    invoiceNumber: null,
    invoiceUrl: null,
    paidAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
  return applyNotice(deps, notice);
}

const day = (d: number) => new Date(Date.UTC(2026, 0, d)).toISOString();

beforeAll(async () => {
  service = await startTestService();
  deps = {
    commands: service.runtime.commands,
    catalog: new BillingCatalog(loadBillingConfig(defaultBillingConfigFile)),
    now: () => new Date(),
  };
  ws = await createTestWorkspace(service, 'History');
  other = await createTestWorkspace(service, 'Other');
  const org = ws.orgId;
  await transaction(org, {
    transactionId: 'txn_a',
    type: 'subscription',
    status: 'completed',
    amount: 4900,
    createdAt: day(2),
    paidAt: day(2),
    invoiceId: 'inv_a',
    invoiceNumber: '2026-0001',
    invoiceUrl: 'https://invoices.example.org/inv_a.pdf',
  });
  await transaction(org, {
    transactionId: 'txn_b',
    type: 'renewal',
    status: 'failed',
    amount: 4900,
    createdAt: day(5),
  });
  await transaction(org, {
    transactionId: 'txn_c',
    type: 'credit_pack',
    status: 'pending',
    amount: 1000,
    createdAt: day(8),
    priceId: 'pri_credits_500',
  });
  await transaction(org, {
    transactionId: 'txn_c',
    type: 'credit_pack',
    status: 'completed',
    amount: 1000,
    createdAt: day(8),
    paidAt: day(8),
    priceId: 'pri_credits_500',
    invoiceId: 'inv_c',
    invoiceNumber: '2026-0002',
  });
  // A late `pending` of a completed transaction: the list keeps `completed`.
  await transaction(org, {
    transactionId: 'txn_a',
    type: 'subscription',
    status: 'pending',
    amount: 4900,
    createdAt: day(2),
  });
  await transaction(org, {
    transactionId: 'txn_d',
    type: 'payment_method_update',
    status: 'canceled',
    amount: 0,
    createdAt: day(11),
  });
  await transaction(other.orgId, {
    transactionId: 'txn_other',
    status: 'completed',
    amount: 1900,
    createdAt: day(3),
    invoiceId: 'inv_other',
    invoiceUrl: 'https://invoices.example.org/inv_other.pdf',
  });
});
afterAll(async () => service.stop());

const transactions = (query = '', token = ws.tokens.owner) =>
  service.request('GET', `/v1/orgs/${ws.orgId}/billing/transactions${query}`, { token });
const invoices = (query = '', token = ws.tokens.owner) =>
  service.request('GET', `/v1/orgs/${ws.orgId}/billing/invoices${query}`, { token });

async function ids(res: Response): Promise<string[]> {
  expect(res.status).toBe(200);
  return ((await res.json()) as Envelope).data.data.map((r) => r.id);
}

describe('GET ORG/billing/transactions', () => {
  test('newest first in the billing list envelope, amounts in minor units with a currency', async () => {
    const res = await transactions();
    expect(res.status).toBe(200);
    const body = (await res.json()) as Envelope;
    expect(body.data.data.map((r) => r.id)).toEqual(['txn_d', 'txn_c', 'txn_b', 'txn_a']);
    expect(body.data.metadata).toEqual({
      page: 1,
      limit: 20,
      total: 4,
      totalPages: 1,
      hasNext: false,
      hasPrev: false,
    });
    expect(body.data.data.find((r) => r.id === 'txn_a')).toEqual({
      id: 'txn_a',
      type: 'subscription',
      amount: 4900,
      currency: 'USD',
      status: 'completed',
      invoiceUrl: 'https://invoices.example.org/inv_a.pdf',
      paidAt: day(2),
      createdAt: day(2),
    });
    // The pending notice of txn_c came first; its completion replaced it.
    expect(body.data.data.find((r) => r.id === 'txn_c')).toMatchObject({
      status: 'completed',
      paidAt: day(8),
    });
  });

  test('filters: status and type eq|in, createdAtFrom gte, createdAtTo lte', async () => {
    expect(await ids(await transactions('?filter[status]=completed'))).toEqual(['txn_c', 'txn_a']);
    expect(
      await ids(await transactions('?filter[status]=failed,canceled&filterOp[status]=in&sortDir=asc')),
    ).toEqual(['txn_b', 'txn_d']);
    expect(await ids(await transactions('?filter[type]=renewal&filterOp[type]=eq'))).toEqual(['txn_b']);
    expect(
      await ids(await transactions('?filter[type]=credit_pack,payment_method_update&filterOp[type]=in')),
    ).toEqual(['txn_d', 'txn_c']);
    expect(await ids(await transactions(`?filter[createdAtFrom]=${day(5)}`))).toEqual([
      'txn_d',
      'txn_c',
      'txn_b',
    ]);
    expect(await ids(await transactions(`?filter[createdAtTo]=${day(5)}`))).toEqual(['txn_b', 'txn_a']);
    expect(
      await ids(
        await transactions(
          `?filter[createdAtFrom]=${day(3)}&filter[createdAtTo]=${day(9)}&filter[status]=completed`,
        ),
      ),
    ).toEqual(['txn_c']);
  });

  test('sorts by amount, status and type in either direction', async () => {
    expect(await ids(await transactions('?sortBy=amount&sortDir=asc'))).toEqual([
      'txn_d',
      'txn_c',
      'txn_a',
      'txn_b',
    ]);
    // Ties in the order of the id, in the same direction.
    expect(await ids(await transactions('?sortBy=status&sortDir=asc'))).toEqual([
      'txn_d',
      'txn_a',
      'txn_c',
      'txn_b',
    ]);
    expect(await ids(await transactions('?sortBy=type&sortDir=desc'))).toEqual([
      'txn_a',
      'txn_b',
      'txn_d',
      'txn_c',
    ]);
    expect(await ids(await transactions('?sortBy=createdAt&sortDir=asc'))).toEqual([
      'txn_a',
      'txn_b',
      'txn_c',
      'txn_d',
    ]);
  });

  test('paging metadata: page 2 of 3 with limit 1 and 2', async () => {
    let body = (await (await transactions('?limit=3&page=2')).json()) as Envelope;
    expect(body.data.data.map((r) => r.id)).toEqual(['txn_a']);
    expect(body.data.metadata).toEqual({
      page: 2,
      limit: 3,
      total: 4,
      totalPages: 2,
      hasNext: false,
      hasPrev: true,
    });
    body = (await (await transactions('?limit=1&page=2')).json()) as Envelope;
    expect(body.data.data.map((r) => r.id)).toEqual(['txn_c']);
    expect(body.data.metadata).toMatchObject({ total: 4, totalPages: 4, hasNext: true, hasPrev: true });
    body = (await (await transactions('?page=9')).json()) as Envelope;
    expect(body.data.data).toEqual([]);
    expect(body.data.metadata).toMatchObject({
      page: 9,
      total: 4,
      totalPages: 1,
      hasNext: false,
      hasPrev: true,
    });
  });

  test('a bad query is a 400 naming the field; nothing else is read', async () => {
    const cases: Array<[string, string]> = [
      ['?filter[status]=paid', 'query.filter[status]'],
      ['?filter[type]=gift&filterOp[type]=in', 'query.filter[type]'],
      ['?filter[status]=completed&filterOp[status]=contains', 'query.filterOp[status]'],
      ['?filter[createdAtFrom]=yesterday', 'query.filter[createdAtFrom]'],
      [
        '?filter[createdAtFrom]=2026-01-01T00:00:00Z&filterOp[createdAtFrom]=lte',
        'query.filterOp[createdAtFrom]',
      ],
      ['?sortBy=currency', 'query.sortBy'],
      ['?sortDir=up', 'query.sortDir'],
      ['?limit=101', 'query.limit'],
      ['?page=0', 'query.page'],
      ['?filter[invoiceId]=x', 'query.filter[invoiceId]'],
    ];
    for (const [query, path] of cases) {
      const res = await transactions(query);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { details: Array<{ path: string }> };
      expect(
        body.details.map((d) => d.path),
        query,
      ).toContain(path);
    }
  });

  test('owners and admins only; another workspace sees only its own', async () => {
    for (const role of ['reviewer', 'editor', 'viewer'] as const)
      expect((await transactions('', ws.tokens[role])).status, role).toBe(403);
    expect(await ids(await transactions('', ws.tokens.admin))).toHaveLength(4);
    expect((await transactions('', other.tokens.owner)).status).toBe(403);
    const theirs = await service.request('GET', `/v1/orgs/${other.orgId}/billing/transactions`, {
      token: other.tokens.owner,
    });
    expect(await ids(theirs)).toEqual(['txn_other']);
    expect((await service.request('GET', `/v1/orgs/${ws.orgId}/billing/transactions`)).status).toBe(401);
  });
});

describe('GET ORG/billing/invoices', () => {
  test('an invoice per transaction with an invoice id; filters, sorts and the envelope', async () => {
    const res = await invoices();
    expect(res.status).toBe(200);
    const body = (await res.json()) as Envelope;
    expect(body.data.data).toEqual([
      {
        id: 'inv_c',
        transactionId: 'txn_c',
        invoiceNumber: '2026-0002',
        status: 'paid',
        total: 1000,
        currency: 'USD',
        invoiceUrl: null,
        paidAt: day(8),
        createdAt: day(8),
      },
      {
        id: 'inv_a',
        transactionId: 'txn_a',
        invoiceNumber: '2026-0001',
        status: 'paid',
        total: 4900,
        currency: 'USD',
        invoiceUrl: 'https://invoices.example.org/inv_a.pdf',
        paidAt: day(2),
        createdAt: day(2),
      },
    ]);
    expect(body.data.metadata).toEqual({
      page: 1,
      limit: 20,
      total: 2,
      totalPages: 1,
      hasNext: false,
      hasPrev: false,
    });
    expect(await ids(await invoices('?sortBy=amount&sortDir=desc'))).toEqual(['inv_a', 'inv_c']);
    expect(await ids(await invoices('?filter[status]=paid,open&filterOp[status]=in&sortDir=asc'))).toEqual([
      'inv_a',
      'inv_c',
    ]);
    expect(await ids(await invoices('?filter[status]=open'))).toEqual([]);
    expect(await ids(await invoices(`?filter[createdAtFrom]=${day(3)}`))).toEqual(['inv_c']);
    expect(await ids(await invoices(`?filter[createdAtTo]=${day(2)}`))).toEqual(['inv_a']);
    const bad = await invoices('?filter[type]=renewal');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { details: Array<{ path: string }> }).details[0]!.path).toBe(
      'query.filter[type]',
    );
    expect((await invoices('', ws.tokens.editor)).status).toBe(403);
  });
});

describe('GET ORG/billing/transactions/{transactionId}/invoice', () => {
  const link = (orgId: string, id: string, token: string) =>
    service.request('GET', `/v1/orgs/${orgId}/billing/transactions/${id}/invoice`, { token });

  test('the link recorded with the transaction', async () => {
    const res = await link(ws.orgId, 'txn_a', ws.tokens.owner);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { url: 'https://invoices.example.org/inv_a.pdf' } });
  });

  test("without a recorded link, the provider's; none from either is a 404", async () => {
    // A completed sandbox transaction whose notice came without the link: the route asks the provider.
    const provider = new SandboxPaymentProvider({
      db: service.runtime.database.db,
      publicBaseUrl: 'http://localhost:3000',
    });
    const notice = await provider.transactionNotice({
      orgId: ws.orgId,
      type: 'credit_pack',
      status: 'completed',
      amount: 1000,
      currency: 'USD',
      priceId: 'pri_credits_500',
      description: '500 credits',
    });
    await applyNotice(deps, { ...notice, invoiceUrl: null });
    const res = await link(ws.orgId, notice.transactionId, ws.tokens.admin);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { url: string } };
    expect(data.url).toBe(await provider.invoiceUrl(ws.orgId, notice.transactionId));
    expect(data.url).toMatch(/^http:\/\/localhost:3000\/v1\/billing\/sandbox\/invoices\/txn_sbx_/);
    // txn_c has no link recorded and the provider never made it.
    const none = await link(ws.orgId, 'txn_c', ws.tokens.owner);
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: string }).error).toMatch(/no invoice yet/);
  });

  test("another workspace's transaction or an unknown id is a 404; a bad id a 400; a viewer a 403", async () => {
    expect((await link(ws.orgId, 'txn_other', ws.tokens.owner)).status).toBe(404);
    expect((await link(ws.orgId, 'txn_nope', ws.tokens.owner)).status).toBe(404);
    expect((await link(other.orgId, 'txn_a', other.tokens.owner)).status).toBe(404);
    const bad = await link(ws.orgId, 'txn%20a', ws.tokens.owner);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { details: Array<{ path: string }> }).details[0]!.path).toBe(
      'param.transactionId',
    );
    expect((await link(ws.orgId, 'txn_a', ws.tokens.viewer)).status).toBe(403);
  });
});

describe('the billing read models fold idempotently', () => {
  test('folding the same events again changes nothing; a fold from scratch gives the rows served', async () => {
    // A subscription with history rows too: trial, activation, pause scheduled, resumed, a transaction.
    const org = (await createTestWorkspace(service, 'Refold')).orgId;
    await applyNotice(deps, {
      kind: 'subscription',
      provider: 'sandbox',
      eventId: `evt_refold_${org}`,
      occurredAt: new Date().toISOString(),
      orgId: org,
      status: 'active',
      providerCustomerId: 'ctm_refold',
      providerSubscriptionId: 'sub_refold',
      priceId: 'pri_pro_monthly',
      currentPeriodStart: day(1),
      currentPeriodEnd: day(31),
      cancelAtPeriodEnd: false,
      pauseAtPeriodEnd: true,
    });
    const resume = await service.request('POST', `/v1/orgs/${org}/billing/subscription/resume`, {
      token: (await service.userToken(undefined, { orgId: org, role: 'owner' })).token,
    });
    expect(resume.status).toBe(200);
    await transaction(org, { transactionId: 'txn_refold', invoiceId: 'inv_refold', createdAt: day(1) });

    const events = await service.runtime.eventStore.readStream(`subscription-${org}`);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'SubscriptionPauseScheduled',
        'SubscriptionResumed',
        'BillingTransactionRecorded',
      ]),
    );
    const db = service.runtime.database.db;
    const schema = `test_refold_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const tables = {
      billing_subscriptions: 'org_id',
      billing_subscription_events: 'org_id',
      billing_transactions: 'org_id',
      billing_invoices: 'org_id',
    } as const;
    const rowsOf = async (from: string) => {
      const out: Record<string, unknown[]> = {};
      for (const [table, column] of Object.entries(tables))
        out[table] = (
          await sql`select * from ${sql.table(`${from}.${table}`)} where ${sql.ref(column)} = ${org} order by 1, 2`.execute(
            db,
          )
        ).rows;
      return out;
    };
    await sql`create schema ${sql.id(schema)}`.execute(db);
    try {
      const projections = [billingSubscriptionsProjection, billingHistoryProjection];
      await db.transaction().execute(async (trx) => {
        for (const p of projections) await p.createTables(trx, schema);
      });
      const foldAll = () =>
        db.transaction().execute(async (trx) => {
          for (const p of projections)
            for (const e of events) if (p.eventTypes!.includes(e.type)) await p.fold(trx, [e], schema);
        });
      await foldAll();
      const once = await rowsOf(schema);
      expect(once.billing_subscriptions).toHaveLength(1);
      expect((once.billing_subscription_events as Array<{ type: string }>).map((r) => r.type).sort()).toEqual(
        ['pausing', 'resumed'],
      );
      await foldAll();
      expect(await rowsOf(schema)).toEqual(once);
      expect(await rowsOf('public')).toEqual(once);
    } finally {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(db);
    }
  });
});
