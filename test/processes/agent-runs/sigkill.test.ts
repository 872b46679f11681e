// A worker killed mid-run (SIGKILL while its model call is in flight) leaves its run `running` with a lease; once
// the lease runs out the process manager fails the run as `worker_lost` (its open step closed, its held credits
// released, nothing charged), and the same idempotency key resumes it with its next attempt, charged once.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CreditsService } from '../../../commands/billing/credits.js';
import type { AiJobRunner } from '../../../domain/ai/job.js';
import { expireLostRuns } from '../../../processes/agent-runs/lease-expiry.js';
import { localModelEnv, slicesWithRunner, testCredits } from '../../support/ai-runtime.js';
import { testJob, validPost } from '../../support/ai-jobs.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

const root = path.resolve(import.meta.dirname, '../../..');
let server: ModelServer;
let service: TestService;
let credits: CreditsService;
let ws: TestWorkspace;
const holder: { runner?: AiJobRunner } = {};
/** The lease a step gives its worker in this test (AI_RUN_LEASE_SECONDS). */
const leaseSeconds = 2;

beforeAll(async () => {
  server = await startModelServer();
  // The first call never answers (the worker is killed while it waits); later ones do.
  server.scenarios.set('hang-once', (call) =>
    call.callNumber === 1
      ? { wait: new Promise<void>(() => undefined), then: { content: validPost() } }
      : { content: validPost() },
  );
  const env = localModelEnv(server.baseUrl, {
    AI_TIMEOUT_SECONDS: '60',
    AI_RUN_LEASE_SECONDS: String(leaseSeconds),
  });
  service = await startTestService({ env, slices: slicesWithRunner(holder) });
  credits = testCredits(service).credits;
  ws = await createTestWorkspace(service, 'Killed worker');
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await server?.close();
});

interface Run {
  id: string;
  status: string;
  attemptCount: number;
  errorMessage: string | null;
  costCredits: number | null;
  idempotencyKey: string | null;
}

async function runOfKey(key: string): Promise<Run | undefined> {
  const res = await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs`, { token: ws.tokens.viewer });
  return ((await res.json()) as { data: { items: Run[] } }).data.items.find((r) => r.idempotencyKey === key);
}
async function stepStatuses(runId: string): Promise<string[]> {
  const res = await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs/${runId}/steps`, {
    token: ws.tokens.viewer,
  });
  return ((await res.json()) as { data: { items: { status: string }[] } }).data.items.map((s) => s.status);
}

test('a run whose worker is SIGKILLed mid-call ends failed, never stuck running, and resumes by its key', async () => {
  const full = (await credits.summaryOf(ws.orgId)).creditBalance.total;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/processes/agent-runs/fixtures/run-job.ts'],
    {
      cwd: root,
      env: {
        ...process.env,
        ...localModelEnv(server.baseUrl, {
          AI_TIMEOUT_SECONDS: '60',
          AI_RUN_LEASE_SECONDS: String(leaseSeconds),
        }),
        DATABASE_URL: service.database.url,
        DATA_DIR: service.dataDir,
        PUBLIC_BASE_URL: 'http://localhost:3000',
        LOG_LEVEL: 'silent',
        RUN_ORG_ID: ws.orgId,
        RUN_KEY: 'killed',
        RUN_SCENARIO: 'hang-once',
      },
      stdio: 'pipe',
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );

  // The child's run is in its model call: running, one step running, the credits held.
  const running = (await waitUntil(
    async () => {
      const run = await runOfKey('killed');
      return run?.status === 'running' && (await stepStatuses(run.id)).includes('running') ? run : undefined;
    },
    { timeoutMs: 60_000, what: `the child's run to be running (child output: ${output})` },
  ))!;
  await waitUntil(() => server.requests.some((r) => r.scenario === 'hang-once'), { what: 'the model call' });
  expect((await credits.summaryOf(ws.orgId)).creditBalance.total).toBeLessThan(full);
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  expect(output).not.toMatch(/DONE|FAILED/);

  // Still running until its lease runs out; then the process manager fails it.
  expect((await runOfKey('killed'))!.status).toBe('running');
  const failed = (await waitUntil(
    async () => {
      await expireLostRuns(
        {
          commands: service.runtime.commands,
          readModels: service.runtime.readModels,
          credits,
          leaseMs: leaseSeconds * 1000,
        },
        new Date(),
      );
      const run = await runOfKey('killed');
      return run?.status === 'failed' ? run : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250, what: 'the lost run to be failed' },
  ))!;
  expect(failed.id).toBe(running.id);
  expect(failed.errorMessage).toMatch(/stopped \(its lease ran out/);
  expect(failed.costCredits).toBe(0);
  expect(await stepStatuses(failed.id)).toEqual(['failed']);
  expect((await credits.summaryOf(ws.orgId)).creditBalance.total).toBe(full);

  // The same key resumes the run with its second attempt, and it is charged once.
  const resumed = await holder.runner!.run(testJob, {
    orgId: ws.orgId,
    userId: null,
    input: { topic: 'a killed worker', scenario: 'hang-once' },
    idempotencyKey: 'killed',
  });
  expect(resumed.runId).toBe(running.id);
  expect(resumed.source).toBe('ai');
  const done = (await runOfKey('killed'))!;
  expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2 });
  expect(await stepStatuses(done.id)).toEqual(['failed', 'succeeded']);
  expect((await credits.summaryOf(ws.orgId)).creditBalance.total).toBe(full - resumed.creditsUsed);
}, 120_000);
