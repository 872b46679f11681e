// `billing simulate` end to end through the CLI function: each move goes out as signed sandbox webhooks through
// the receiving path (recorded in billing_webhooks) and moves the subscription: paid → active, payment-failed →
// past_due, past-due → read-only, recovered → active, period-end → renewed; the invoice link it prints opens.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSubscription } from '../../../commands/billing/subscription-commands.js';
import { accessOf } from '../../../domain/billing/subscription.js';
import { billingCommand } from '../../../api/cli/billing.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace } from '../../support/workspace.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await service.stop();
});

async function simulate(move: string, slug: string): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await billingCommand(['simulate', move, '--workspace', slug], {
    db: service.runtime.database.db,
    commands: service.runtime.commands,
    env: service.runtime.env,
    publicBaseUrl: 'http://localhost:3000',
    tokenCipher: service.runtime.tokenCipher,
    out: (line) => lines.push(line),
  });
  return { code, lines };
}

async function workspace() {
  const ws = await createTestWorkspace(service);
  const row = await service.runtime.readModels
    .selectFrom('workspaces')
    .select('slug')
    .where('id', '=', ws.orgId)
    .executeTakeFirstOrThrow();
  return { ...ws, slug: row.slug };
}

async function stateOf(orgId: string) {
  return (await loadSubscription({ commands: service.runtime.commands }, orgId)).state;
}

async function webhookOutcomes(): Promise<string[]> {
  const rows = await service.runtime.database.pool.query<{ outcome: string }>(
    `select outcome from billing_webhooks where provider = 'sandbox' order by id`,
  );
  return rows.rows.map((r) => r.outcome);
}

describe('billing simulate', () => {
  it('walks a workspace through paid, payment-failed, past-due, recovered and period-end', async () => {
    const ws = await workspace();
    const delivered = (await webhookOutcomes()).length;

    const paid = await simulate('paid', ws.slug);
    expect(paid.code).toBe(0);
    expect(paid.lines.at(-2)).toBe('status: active, access: full, plan: pro');
    let state = await stateOf(ws.orgId);
    expect(state.status).toBe('active');
    expect(state.providerSubscriptionId).toMatch(/^sub_sbx_/);
    const firstPeriodEnd = state.currentPeriodEnd;
    expect(firstPeriodEnd).not.toBeNull();
    // Two webhooks (the transaction, the snapshot), both applied through the receiving path.
    expect((await webhookOutcomes()).slice(delivered)).toEqual(['applied', 'applied']);

    // The invoice the sandbox issued opens at its local URL.
    const invoiceLine = paid.lines.find((line) => line.startsWith('  invoice: '));
    expect(invoiceLine).toBeDefined();
    const invoiceUrl = new URL(invoiceLine!.slice('  invoice: '.length));
    const invoice = await service.request('GET', `${invoiceUrl.pathname}${invoiceUrl.search}`);
    expect(invoice.status).toBe(200);
    expect(await invoice.text()).toContain('49.00 USD');
    const forged = await service.request('GET', `${invoiceUrl.pathname}?token=forged`);
    expect(forged.status).toBe(404);

    const failed = await simulate('payment-failed', ws.slug);
    expect(failed.code).toBe(0);
    state = await stateOf(ws.orgId);
    expect(state.status).toBe('past_due');
    expect(accessOf(state, new Date()).accessState).toBe('full'); // within the grace period
    expect(failed.lines).toContain(`grace ends: ${state.graceEndsAt}`);

    const pastDue = await simulate('past-due', ws.slug);
    expect(pastDue.code).toBe(0);
    expect(pastDue.lines).toContain('status: past_due, access: read_only, plan: pro');
    state = await stateOf(ws.orgId);
    expect(state.restrictedSince).not.toBeNull();
    expect(accessOf(state, new Date()).accessState).toBe('read_only');

    const recovered = await simulate('recovered', ws.slug);
    expect(recovered.code).toBe(0);
    state = await stateOf(ws.orgId);
    expect(state.status).toBe('active');
    expect(accessOf(state, new Date()).accessState).toBe('full');

    const periodEnd = await simulate('period-end', ws.slug);
    expect(periodEnd.code).toBe(0);
    expect(periodEnd.lines).toContain('  period end: SubscriptionRenewed');
    state = await stateOf(ws.orgId);
    expect(state.status).toBe('active');
    expect(state.currentPeriodStart).toBe(firstPeriodEnd);
    expect(state.recordedTransactions.filter((t) => t.endsWith(':completed'))).toHaveLength(3);
  });

  it('past-due on an active workspace fails the payment first, then restricts', async () => {
    const ws = await workspace();
    expect((await simulate('paid', ws.slug)).code).toBe(0);
    const { code, lines } = await simulate('past-due', ws.slug);
    expect(code).toBe(0);
    expect(lines).toContain('  grace period over: access restricted');
    expect(accessOf(await stateOf(ws.orgId), new Date()).accessState).toBe('read_only');
  });

  it('refuses moves that do not apply, unknown workspaces and bad usage, changing nothing', async () => {
    const ws = await workspace();
    const trial = await simulate('payment-failed', ws.slug);
    expect(trial.code).toBe(1);
    expect(trial.lines.join('\n')).toMatch(/simulate paid first/);
    expect((await stateOf(ws.orgId)).status).toBe('trialing');
    const recovered = await simulate('recovered', ws.slug);
    expect(recovered.code).toBe(1);
    expect((await stateOf(ws.orgId)).status).toBe('trialing');

    expect((await simulate('paid', 'no-such-workspace')).code).toBe(2);
    expect((await simulate('refunded', ws.slug)).code).toBe(2);
    const lines: string[] = [];
    const code = await billingCommand(['simulate', 'paid'], {
      db: service.runtime.database.db,
      commands: service.runtime.commands,
      env: service.runtime.env,
      publicBaseUrl: 'http://localhost:3000',
      tokenCipher: service.runtime.tokenCipher,
      out: (line) => lines.push(line),
    });
    expect(code).toBe(2);
    expect(lines.join('\n')).toMatch(/usage: billing simulate/);
  });

  it('runs as the operator runs it (tsx api/cli.ts billing simulate …) against the service database', async () => {
    const ws = await workspace();
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'api/cli.ts', 'billing', 'simulate', 'paid', '--workspace', ws.slug],
      {
        cwd: root,
        env: {
          ...process.env,
          DATABASE_URL: service.database.url,
          DATA_DIR: service.dataDir,
          PUBLIC_BASE_URL: 'http://localhost:3000',
          LOG_LEVEL: 'error',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
    expect(code).toBe(0);
    expect(stdout).toContain(`workspace ${ws.slug} (${ws.orgId}): simulate paid`);
    expect(stdout).toContain('status: active, access: full, plan: pro');
    expect((await stateOf(ws.orgId)).status).toBe('active');
  }, 60_000);
});
