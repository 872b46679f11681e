// billing: what issue 14 adds to requests and what its reads cost.
// - Rate limits: the same read (GET …/tags) and write (POST …/drafts, a new post group each) on a service with limits off and on (limits
//   high enough never to refuse), so the difference is the two counter upserts per request.
// - The 402 check runs on every workspace write in both (cached per workspace): the write rows include it.
// - GET ORG/billing (subscription, credit balance from the ledger, recent history) and GET …/credits/usage
//   (usage rows, 50 a page) for a workspace with BENCH_BILLING_SPENDS debits.
// - credits.spend: debits from BENCH_BILLING_CALLERS concurrent callers over BENCH_BILLING_WORKSPACES workspaces.
//   No HTTP route spends credits yet (the paid features that will arrive later call the use case), so this row
//   calls the use case inside the service process; its latency includes the per-workspace lock's queue.
// HTTP loads come from the load generator's own process.
//
// Sizes: BENCH_BILLING_REQUESTS (per HTTP row, default 3000), BENCH_BILLING_CONNECTIONS (8), BENCH_BILLING_SPENDS
// (2000), BENCH_BILLING_WORKSPACES (8), BENCH_BILLING_CALLERS (16).
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreditLedgerStore } from '../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../commands/billing/credits.js';
import { ensureStarted } from '../../commands/billing/subscription-commands.js';
import { BillingCatalog, defaultBillingConfigFile, parseBillingConfig } from '../../infra/billing/config.js';
import {
  createWorkspaces,
  describeLatency,
  describeStatuses,
  envInt,
  fmt,
  freshDatabase,
  percentile,
  record,
  runLoad,
  startService,
  type BenchContext,
  type BenchService,
} from './shared.js';

/** The default configuration with a trial allowance large enough for the spends. */
/** The shipped billing config with a trial allowance no benchmark runs out of (paid reads are counted, never refused). */
export async function benchConfigFile(): Promise<string> {
  const config = JSON.parse(await readFile(defaultBillingConfigFile, 'utf8')) as {
    trialPlanKey: string;
    plans: Array<{ key: string; monthlyCredits: number }>;
  };
  for (const plan of config.plans) if (plan.key === config.trialPlanKey) plan.monthlyCredits = 10_000_000;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-billing-'));
  const file = path.join(dir, 'billing.json');
  await writeFile(file, JSON.stringify(config));
  return file;
}

export async function billingBench(ctx: BenchContext): Promise<void> {
  const requests = envInt('BENCH_BILLING_REQUESTS', 3000);
  const connections = envInt('BENCH_BILLING_CONNECTIONS', 8);
  const spends = envInt('BENCH_BILLING_SPENDS', 2000);
  const workspaceCount = envInt('BENCH_BILLING_WORKSPACES', 8);
  const callers = envInt('BENCH_BILLING_CALLERS', 16);
  const configFile = await benchConfigFile();
  const catalog = new BillingCatalog(parseBillingConfig(JSON.parse(await readFile(configFile, 'utf8'))));
  const limitsOn = JSON.stringify({
    read: { perToken: 10_000_000, perWorkspace: 10_000_000, windowSeconds: 60 },
    write: { perToken: 10_000_000, perWorkspace: 10_000_000, windowSeconds: 60 },
    billing: { perToken: 10_000_000, perWorkspace: 10_000_000, windowSeconds: 60 },
  });

  for (const [label, env] of [
    ['rate limits off', { BILLING_CONFIG_FILE: configFile, RATE_LIMITS_ENABLED: 'false' }],
    [
      'rate limits on',
      { BILLING_CONFIG_FILE: configFile, RATE_LIMITS_ENABLED: 'true', RATE_LIMITS: limitsOn },
    ],
  ] as const) {
    const database = await freshDatabase(ctx, 'billing');
    let service: BenchService | undefined;
    try {
      service = await startService(database.url, { ...env });
      await service.startBackground();
      const [ws] = await createWorkspaces(service, 1, 'bench-billing');
      const headers = { authorization: `Bearer ${ws!.token}`, 'content-type': 'application/json' };
      const read = await runLoad({
        origin: service.origin,
        connections,
        amount: requests,
        requests: [{ method: 'GET', path: `${ws!.base}/tags`, headers }],
      });
      record(
        `GET …/tags, ${connections} conn, ${label}`,
        `${fmt(read.rate)} req/s`,
        `${describeLatency(read)}; ${describeStatuses(read.statuses)}`,
      );
      const write = await runLoad({
        origin: service.origin,
        connections,
        amount: requests,
        requests: [
          {
            method: 'POST',
            path: `${ws!.base}/drafts`,
            headers,
            body: JSON.stringify({
              title: 'Draft {n}',
              posts: [{ platform: 'x', contentText: 'Bench draft {n}' }],
            }),
          },
        ],
      });
      record(
        `POST …/drafts, ${connections} conn, ${label}`,
        `${fmt(write.rate)} req/s`,
        `${describeLatency(write)}; ${describeStatuses(write.statuses)}`,
      );
      if (label === 'rate limits on') continue;

      // The ledger: debits over several workspaces from concurrent callers, then the billing reads.
      const workspaces = await createWorkspaces(service, workspaceCount, 'bench-credits');
      const { runtime } = service;
      const deps = { commands: runtime.commands, catalog, now: () => new Date() };
      const credits = new CreditsService({
        commands: runtime.commands,
        catalog,
        store: new CreditLedgerStore(runtime.database.db),
        now: deps.now,
        ensureStarted: async (orgId) => (await ensureStarted(deps, orgId)).state,
        readModels: runtime.readModels,
      });
      for (const w of workspaces) await credits.openCurrentPeriod(w.orgId);
      const metrics = ['ai_draft', 'x_post_read', 'analytics_read'] as const;
      const latencies: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: callers }, async () => {
          for (;;) {
            const i = next++;
            if (i >= spends) return;
            const w = workspaces[i % workspaces.length]!;
            const t = performance.now();
            await credits.spend({
              orgId: w.orgId,
              key: `bench-${randomUUID()}`,
              actionKey: metrics[i % metrics.length]!,
              feature: 'bench',
              provider: 'openai',
              model: 'gpt-bench',
              inputTokens: 400,
              outputTokens: 120,
              totalTokens: 520,
            });
            latencies.push(performance.now() - t);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      record(
        `credits.spend, ${callers} callers over ${workspaceCount} workspaces (in process)`,
        `${fmt(spends / seconds)} debits/s`,
        `p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms, ${fmt(spends)} debits`,
      );

      const busy = workspaces[0]!;
      const busyHeaders = { authorization: `Bearer ${busy.token}` };
      for (const [name, p] of [
        ['GET ORG/billing', `/v1/orgs/${busy.orgId}/billing`],
        ['GET …/billing/credits/usage?limit=50', `/v1/orgs/${busy.orgId}/billing/credits/usage?limit=50`],
      ] as const) {
        const load = await runLoad({
          origin: service.origin,
          connections,
          amount: requests,
          requests: [{ method: 'GET', path: p, headers: busyHeaders }],
        });
        record(
          `${name}, ${fmt(Math.ceil(spends / workspaceCount))} debits, ${connections} conn`,
          `${fmt(load.rate)} req/s`,
          `${describeLatency(load)}; ${describeStatuses(load.statuses)}`,
        );
      }
    } finally {
      await service?.stop().catch(() => undefined);
      await database.drop().catch(() => undefined);
    }
  }
}
