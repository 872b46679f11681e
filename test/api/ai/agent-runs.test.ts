// The AI runtime end to end against a locally served OpenAI-compatible model: a job runs as an agent run whose
// steps and cost GET ORG/agent-runs and …/steps show; credits are reserved before the call, charged once after a
// valid output and released when the run fails (nothing charged); malformed output is asked again, then fails
// clearly; a refusal, a timeout and a long 429 fail with their codes; a short 429 is waited out; the same key
// answers the first run; parallel runs never overdraw; steps are readable while a run is in progress.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CreditsService } from '../../../commands/billing/credits.js';
import type { AiJobRunner } from '../../../domain/ai/job.js';
import { AppError } from '../../../domain/shared/errors.js';
import { localModelEnv, slicesWithRunner, testCredits } from '../../support/ai-runtime.js';
import { testJob, validPost } from '../../support/ai-jobs.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let server: ModelServer;
let service: TestService;
let credits: CreditsService;
let cost: number;
let ws: TestWorkspace;
const holder: { runner?: AiJobRunner } = {};
const runner = () => holder.runner!;

let release: () => void = () => undefined;
const gate = () => new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  server = await startModelServer();
  server.scenarios.set('ok', () => ({ content: validPost(), usage: { input: 120, output: 40 } }));
  server.scenarios.set('parallel', () => ({ delayMs: 100, then: { content: validPost() } }));
  server.scenarios.set('malformed-once', (call) =>
    call.callNumber === 1 ? { content: '{"headline": ' } : { content: validPost() },
  );
  server.scenarios.set('malformed', () => ({ content: 'Sure! Here is your post: great stuff' }));
  server.scenarios.set('refusal', () => ({ refusal: "I can't write that." }));
  server.scenarios.set('slow', () => ({ delayMs: 2500, then: { content: validPost() } }));
  server.scenarios.set('busy-once', (call) =>
    call.callNumber === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { content: validPost() },
  );
  server.scenarios.set('busy-long', () => ({ status: 429, headers: { 'retry-after': '120' } }));
  server.scenarios.set('gated', () => ({ wait: gate(), then: { content: validPost() } }));
  service = await startTestService({ env: localModelEnv(server.baseUrl), slices: slicesWithRunner(holder) });
  const billing = testCredits(service);
  credits = billing.credits;
  cost = billing.catalog.actionCost('ai_text')!.credits;
  ws = await createTestWorkspace(service, 'AI runs');
}, 120_000);
afterAll(async () => {
  release();
  await service?.stop();
  await server?.close();
});

const balance = async (orgId = ws.orgId) => (await credits.summaryOf(orgId)).creditBalance.total;

interface Run {
  id: string;
  status: string;
  jobType: string;
  attemptCount: number;
  maxAttempts: number;
  costCredits: number | null;
  estimatedCostMilliUsd: number | null;
  errorMessage: string | null;
  idempotencyKey: string | null;
  resultSummary: Record<string, unknown> | null;
  payload: Record<string, unknown>;
}
interface Step {
  kind: string;
  role: string;
  status: string;
  promptTokens: number;
  completionTokens: number;
  input: Record<string, unknown> | null;
  output: string | null;
  errorMessage: string | null;
  durationMs: number | null;
}

async function runsOf(query = '', token = ws.tokens.viewer): Promise<{ items: Run[]; total: number }> {
  const res = await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs${query}`, { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { items: Run[]; total: number } }).data;
}
async function runById(runId: string): Promise<Run> {
  const { items } = await runsOf('?limit=100');
  const run = items.find((r) => r.id === runId);
  expect(run).toBeDefined();
  return run!;
}
async function stepsOf(runId: string, orgId = ws.orgId): Promise<Step[]> {
  const res = await service.request('GET', `/v1/orgs/${orgId}/agent-runs/${runId}/steps`, {
    token: ws.tokens.viewer,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { items: Step[] } }).data.items;
}
async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}
/** The id of the run of `key` (the last one listed with it). */
async function runOfKey(key: string): Promise<Run> {
  const { items } = await runsOf('?limit=100');
  const run = items.find((r) => r.idempotencyKey === key);
  expect(run).toBeDefined();
  return run!;
}

describe('a job with a model', () => {
  test('succeeds as a run with one model round, its tokens and cost, charged once through the ledger', async () => {
    const before = await balance();
    const result = await runner().run(testJob, {
      orgId: ws.orgId,
      userId: ws.userIds.editor,
      input: { topic: 'lighthouses' },
      idempotencyKey: 'first',
    });
    expect(result).toMatchObject({
      output: JSON.parse(validPost()),
      source: 'ai',
      providerModel: 'openai-compatible:gpt-4o-mini',
      creditsUsed: cost,
    });
    expect(await balance()).toBe(before - cost);
    const run = await runById(result.runId);
    expect(run).toMatchObject({
      status: 'succeeded',
      jobType: 'test.write',
      attemptCount: 1,
      maxAttempts: 2,
      costCredits: cost,
      idempotencyKey: 'first',
      payload: { topic: 'lighthouses' },
      resultSummary: { output: 'post', source: 'ai', providerModel: 'openai-compatible:gpt-4o-mini' },
    });
    expect(run.estimatedCostMilliUsd).toBeGreaterThan(0);
    const steps = await stepsOf(result.runId);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({
      kind: 'model_round',
      role: 'writer',
      status: 'succeeded',
      promptTokens: 120,
      completionTokens: 40,
    });
    expect(String(steps[0]!.input?.prompt)).toContain('lighthouses');
    expect(server.prompts().some((p) => p.includes('Write a post about lighthouses'))).toBe(true);

    // The usage row has the tokens and the model.
    const usage = await service.request(
      'GET',
      `/v1/orgs/${ws.orgId}/billing/credits/usage?metricKey=ai_text`,
      {
        token: ws.tokens.owner,
      },
    );
    const rows = ((await usage.json()) as { data: { data: Record<string, unknown>[] } }).data.data;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      inputTokens: 120,
      outputTokens: 40,
      totalTokens: 160,
      model: 'gpt-4o-mini',
      feature: 'test.write',
    });
  });

  test('the same key again answers the first run: no model call, no second charge', async () => {
    const calls = server.requests.length;
    const before = await balance();
    const again = await runner().run(testJob, {
      orgId: ws.orgId,
      userId: null,
      input: { topic: 'lighthouses' },
      idempotencyKey: 'first',
    });
    expect(again.runId).toBe((await runOfKey('first')).id);
    expect(again.output).toEqual(JSON.parse(validPost()));
    expect(server.requests.length).toBe(calls);
    expect(await balance()).toBe(before);
  });

  test('the same key for another job is a 409', async () => {
    const other = { ...testJob, jobType: 'test.other' };
    expect(
      (
        await failureOf(
          runner().run(other, {
            orgId: ws.orgId,
            userId: null,
            input: { topic: 'x' },
            idempotencyKey: 'first',
          }),
        )
      ).code,
    ).toBe('idempotency_key_reused');
  });

  test('malformed output is asked again: two rounds, charged once', async () => {
    const before = await balance();
    const result = await runner().run(testJob, {
      orgId: ws.orgId,
      userId: null,
      input: { topic: 't', scenario: 'malformed-once' },
    });
    expect(await balance()).toBe(before - cost);
    const steps = await stepsOf(result.runId);
    expect(steps.map((s) => s.status)).toEqual(['failed', 'succeeded']);
    expect(steps[0]!.errorMessage).toMatch(/structured output/);
  });

  test('malformed output every round fails the run with a clear 503 and charges nothing', async () => {
    const before = await balance();
    const error = await failureOf(
      runner().run(testJob, {
        orgId: ws.orgId,
        userId: null,
        input: { topic: 't', scenario: 'malformed' },
        idempotencyKey: 'malformed',
      }),
    );
    expect(error.status).toBe(503);
    expect(error.code).toBe('ai_output_invalid');
    expect(error.message).toMatch(/not a valid post after 3 rounds/);
    expect(await balance()).toBe(before);
    const run = await runOfKey('malformed');
    expect(run).toMatchObject({ status: 'failed', costCredits: 0, attemptCount: 1 });
    expect(run.errorMessage).toMatch(/not a valid post/);
    expect((await stepsOf(run.id)).map((s) => s.status)).toEqual(['failed', 'failed', 'failed']);
    // The same key again answers the same error, without asking the model.
    const calls = server.requests.length;
    expect(
      (
        await failureOf(
          runner().run(testJob, {
            orgId: ws.orgId,
            userId: null,
            input: { topic: 't', scenario: 'malformed' },
            idempotencyKey: 'malformed',
          }),
        )
      ).code,
    ).toBe('ai_output_invalid');
    expect(server.requests.length).toBe(calls);
  });

  test('a refusal is a 422 ai_refused, charged nothing', async () => {
    const before = await balance();
    const error = await failureOf(
      runner().run(testJob, { orgId: ws.orgId, userId: null, input: { topic: 't', scenario: 'refusal' } }),
    );
    expect(error.status).toBe(422);
    expect(error.code).toBe('ai_refused');
    expect(await balance()).toBe(before);
  });

  test('a timeout is tried again as a second attempt, then a 503 ai_provider_timeout, charged nothing', async () => {
    const before = await balance();
    const error = await failureOf(
      runner().run(testJob, {
        orgId: ws.orgId,
        userId: null,
        input: { topic: 't', scenario: 'slow' },
        idempotencyKey: 'slow',
      }),
    );
    expect(error.status).toBe(503);
    expect(error.code).toBe('ai_provider_timeout');
    expect(await balance()).toBe(before);
    const run = await runOfKey('slow');
    expect(run).toMatchObject({ status: 'failed', attemptCount: 2 });
    expect((await stepsOf(run.id)).map((s) => `${s.kind}:${s.status}`)).toEqual([
      'model_round:failed',
      'model_round:failed',
    ]);
  }, 20_000);

  test('a 429 with a short Retry-After is waited out', async () => {
    const started = Date.now();
    const result = await runner().run(testJob, {
      orgId: ws.orgId,
      userId: null,
      input: { topic: 't', scenario: 'busy-once' },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    const steps = await stepsOf(result.runId);
    expect(steps.map((s) => s.status)).toEqual(['failed', 'succeeded']);
    expect(steps[0]!.errorMessage).toMatch(/429/);
  });

  test('a 429 asking for longer than AI_MAX_RETRY_AFTER_SECONDS fails without waiting it: 503 ai_provider_busy', async () => {
    const started = Date.now();
    const error = await failureOf(
      runner().run(testJob, { orgId: ws.orgId, userId: null, input: { topic: 't', scenario: 'busy-long' } }),
    );
    expect(error.code).toBe('ai_provider_busy');
    expect(error.message).toMatch(/wait 120 s/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test('runs at once with credits for two: two model calls, the others 402 before any call, never overdrawn', async () => {
    const poor = await createTestWorkspace(service, 'Two credits');
    const { creditBalance } = await credits.summaryOf(poor.orgId);
    await credits.spend({
      orgId: poor.orgId,
      key: 'drain',
      credits: creditBalance.total - 2 * cost,
      metricKey: 'test',
    });
    const calls = server.requests.filter((r) => r.scenario === 'parallel').length;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        runner().run(testJob, {
          orgId: poor.orgId,
          userId: null,
          input: { topic: `p${i}`, scenario: 'parallel' },
        }),
      ),
    );
    const ok = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as AppError] : []));
    expect(ok).toHaveLength(2);
    expect(refused.map((e) => e.status)).toEqual([402, 402, 402, 402]);
    expect(server.requests.filter((r) => r.scenario === 'parallel').length - calls).toBe(2);
    expect(await balance(poor.orgId)).toBe(0);
  });

  test('steps are readable while the run is in progress', async () => {
    const heldFrom = await balance();
    const pending = runner().run(testJob, {
      orgId: ws.orgId,
      userId: null,
      input: { topic: 't', scenario: 'gated' },
      idempotencyKey: 'gated',
    });
    const running = (await waitUntil(
      async () =>
        (await runsOf('?status=running&jobType=test.write')).items.find((r) => r.idempotencyKey === 'gated'),
      { what: 'the run to be listed as running' },
    ))!;
    const inProgress = (await waitUntil(
      async () => (await stepsOf(running.id)).find((s) => s.status === 'running'),
      { what: 'a running step' },
    ))!;
    expect(inProgress.kind).toBe('model_round');
    // The same key while it runs (another request, another process) is a 409, and makes no second call.
    const calls = server.requests.length;
    const twin = await failureOf(
      runner().run(testJob, {
        orgId: ws.orgId,
        userId: null,
        input: { topic: 't', scenario: 'gated' },
        idempotencyKey: 'gated',
      }),
    );
    expect(twin).toMatchObject({ status: 409, code: 'agent_run_in_progress' });
    expect(server.requests.length).toBe(calls);
    // The credits are held while the call is made: not left to spend, not yet charged.
    expect((await credits.summaryOf(ws.orgId)).creditBalance.total).toBe(heldFrom - cost);
    release();
    const result = await pending;
    expect(result.runId).toBe(running.id);
    expect((await stepsOf(running.id)).map((s) => s.status)).toEqual(['succeeded']);
    expect((await runById(running.id)).status).toBe('succeeded');
    expect(await balance()).toBe(heldFrom - cost);
  });
});

describe('reading runs', () => {
  test('filters by status and jobType, newest first, paged', async () => {
    const failed = await runsOf('?status=failed&limit=2');
    expect(failed.items.every((r) => r.status === 'failed')).toBe(true);
    expect(failed.items.length).toBeLessThanOrEqual(2);
    expect(failed.total).toBeGreaterThanOrEqual(3);
    expect((await runsOf('?jobType=nothing.like.this')).total).toBe(0);
  });

  test('a bad status is a 400 naming the field; an unknown or foreign run is a 404', async () => {
    const bad = await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs?status=done`, {
      token: ws.tokens.viewer,
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('query.status');
    const unknown = await service.request(
      'GET',
      `/v1/orgs/${ws.orgId}/agent-runs/00000000-0000-4000-8000-000000000000/steps`,
      { token: ws.tokens.viewer },
    );
    expect(unknown.status).toBe(404);
    const other = await createTestWorkspace(service, 'Other');
    const mine = await runOfKey('first');
    const foreign = await service.request('GET', `/v1/orgs/${other.orgId}/agent-runs/${mine.id}/steps`, {
      token: other.tokens.owner,
    });
    expect(foreign.status).toBe(404);
    expect((await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs`)).status).toBe(401);
  });
});
