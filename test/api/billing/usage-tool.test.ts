// The get_usage tool through the tool server (MCP SDK client, the whole service): listed for every connection
// (its scope, mcp:read, is always granted), it answers the balance, this period's usage and a page of debits with
// the usage route's filters; bad input is a tool error with 400 details; every member reads it through their
// assistant (an mcp:read tool), as on the route; another workspace's usage is refused (403).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../../commands/billing/credits.js';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { connectAssistant } from '../../support/assistant.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let allowance: number;

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const structured = (result: unknown) => (result as CallToolResult).structuredContent as Loose;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Usage tool');
  const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  allowance = catalog.plan(catalog.config.trialPlanKey)!.monthlyCredits;
  const now = () => new Date();
  const commands = service.runtime.commands;
  const credits = new CreditsService({
    commands,
    catalog,
    store: new CreditLedgerStore(service.runtime.database.db),
    now,
    ensureStarted: async (orgId) => (await ensureStarted({ commands, catalog, now }, orgId)).state,
    readModels: service.runtime.readModels,
  });
  await credits.spend({
    orgId: ws.orgId,
    key: 't1',
    actionKey: 'ai_draft',
    model: 'gpt-a',
    feature: 'drafts',
  });
  await credits.spend({
    orgId: ws.orgId,
    key: 't2',
    actionKey: 'x_post_read',
    quantity: 3,
    feature: 'x_reads',
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

test('an owner’s assistant reads the balance, the period and the debits, filtered', async () => {
  const assistant = await connectAssistant(service, {
    userId: ws.userIds.owner,
    orgId: ws.orgId,
    scopes: [],
  });
  const { tools } = await assistant.client.listTools();
  const tool = tools.find((t) => t.name === 'get_usage');
  expect(tool?.annotations).toMatchObject({ readOnlyHint: true });

  const all = (await assistant.client.callTool({ name: 'get_usage', arguments: {} })) as CallToolResult;
  expect(all.isError).toBeFalsy();
  const out = structured(all);
  expect(out.creditBalance).toMatchObject({ monthly: allowance - 5, purchased: 0, total: allowance - 5 });
  expect(out.usageSummary).toMatchObject({ periodUsedCredits: 5, periodAllowanceCredits: allowance });
  expect(out.usage.metadata).toEqual({
    page: 1,
    limit: 20,
    total: 2,
    totalPages: 1,
    hasNext: false,
    hasPrev: false,
  });
  expect((out.usage.data as Array<{ metricKey: string }>).map((r) => r.metricKey)).toEqual([
    'x_post_read',
    'ai_draft',
  ]);
  const text = (all.content as Array<{ type: string; text: string }>)[0]!.text;
  expect(text).toContain(`${allowance - 5} credits left`);

  const filtered = structured(
    await assistant.client.callTool({ name: 'get_usage', arguments: { model: 'gpt-a', limit: 1 } }),
  );
  expect(filtered.usage.data).toHaveLength(1);
  expect(filtered.usage.data[0]).toMatchObject({ model: 'gpt-a', amountUsed: 2, feature: 'drafts' });
});

test('bad input is a tool error naming the field', async () => {
  const assistant = await connectAssistant(service, {
    userId: ws.userIds.admin,
    orgId: ws.orgId,
    scopes: [],
  });
  const result = (await assistant.client.callTool({
    name: 'get_usage',
    arguments: { limit: 500 },
  })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toMatchObject({ status: 400 });
  expect(JSON.stringify(result.structuredContent)).toContain('limit');
});

test('members who are not owners or admins read it through their assistant too (mcp:read only)', async () => {
  for (const role of ['editor', 'reviewer', 'viewer'] as const) {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds[role],
      orgId: ws.orgId,
      scopes: [],
    });
    const result = (await assistant.client.callTool({ name: 'get_usage', arguments: {} })) as CallToolResult;
    expect(result.isError, role).toBeFalsy();
    expect(structured(result).usage.metadata.total, role).toBe(2);
  }
});
