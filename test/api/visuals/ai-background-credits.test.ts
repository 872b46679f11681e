// Finding 9 through HTTP: AI backgrounds are paid by credits reserved before the image provider is asked. Ten
// renders at once with credits for two make at most two provider calls; the other eight are 402
// fair_use_limit and never reach the provider. A generation that fails charges nothing and leaves the balance
// whole (its hold released).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../../commands/billing/credits.js';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { pngOf } from './support.js';

let provider: http.Server;
let providerCalls = 0;
let failing = false;
let service: TestService;
let credits: CreditsService;
let cost: number;

beforeAll(async () => {
  const background = pngOf(1024, 1024).toString('base64');
  provider = http.createServer((req, res) => {
    providerCalls++;
    req.resume();
    req.on('end', () => {
      // Slow enough that the renders are all in flight together.
      setTimeout(() => {
        if (failing) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'upstream exploded', type: 'server_error' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ created: 1, data: [{ b64_json: background }] }));
      }, 300);
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  service = await startTestService({
    env: {
      IMAGE_GENERATION_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`,
      IMAGE_GENERATION_API_KEY: 'sk-local',
      // Ten renders of one workspace at once: the render queue must admit them all, so credits decide.
      RENDER_QUEUE_PER_WORKSPACE: '10',
    },
  });
  const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  cost = catalog.actionCost('ai_background')!.credits;
  const now = () => new Date();
  const commands = service.runtime.commands;
  credits = new CreditsService({
    commands,
    catalog,
    store: new CreditLedgerStore(service.runtime.database.db),
    now,
    ensureStarted: async (orgId) => (await ensureStarted({ commands, catalog, now }, orgId)).state,
    readModels: service.runtime.readModels,
  });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  provider?.closeAllConnections();
  await new Promise((resolve) => provider?.close(resolve));
});

/** A workspace left with exactly `left` credits. */
async function workspaceWith(left: number): Promise<TestWorkspace> {
  const ws = await createTestWorkspace(service, 'Paid calls');
  const { creditBalance } = await credits.summaryOf(ws.orgId);
  await credits.spend({
    orgId: ws.orgId,
    key: 'drain',
    credits: creditBalance.total - left,
    metricKey: 'test',
  });
  expect((await credits.summaryOf(ws.orgId)).creditBalance.total).toBe(left);
  return ws;
}

const render = (ws: TestWorkspace, i: number) =>
  service.request('POST', `${ws.base}/visuals/image`, {
    token: ws.tokens.editor,
    body: { content: { title: `Launch ${i}` }, aiBackground: { prompt: `a calm sea, take ${i}` } },
  });

test('ten AI backgrounds at once with credits for two: at most two provider calls, the rest 402 before it', async () => {
  const ws = await workspaceWith(2 * cost);
  failing = false;
  const callsBefore = providerCalls;
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => render(ws, i)));
  const statuses = answers.map((r) => r.status).sort();
  const refused = await Promise.all(
    answers.filter((r) => r.status === 402).map(async (r) => ((await r.json()) as { code: string }).code),
  );
  expect(statuses.filter((s) => s === 200)).toHaveLength(2);
  expect(refused).toEqual(Array(8).fill('fair_use_limit'));
  expect(providerCalls - callsBefore).toBe(2);
  const summary = await credits.summaryOf(ws.orgId);
  expect(summary.creditBalance.total).toBe(0);
  expect(summary.usageSummary.periodUsedCredits).toBe(summary.usageSummary.periodBudgetCredits);
});

test('a generation that fails charges nothing: the hold is released and the balance restored', async () => {
  const ws = await workspaceWith(cost);
  failing = true;
  try {
    const callsBefore = providerCalls;
    const res = await render(ws, 0);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { code: string }).code).toBe('ai_background_failed');
    expect(providerCalls - callsBefore).toBeGreaterThanOrEqual(1);
  } finally {
    failing = false;
  }
  const summary = await credits.summaryOf(ws.orgId);
  expect(summary.creditBalance.total).toBe(cost);
  // The credits are whole again: the next background is generated and charged.
  expect((await render(ws, 1)).status).toBe(200);
  expect((await credits.summaryOf(ws.orgId)).creditBalance.total).toBe(0);
});
