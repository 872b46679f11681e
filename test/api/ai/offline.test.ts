// The embedded default: no model provider configured. A job is written by its offline writer, labelled honestly
// (`source: heuristic`, `providerModel: offline`), free, and still recorded as a run with its step. The AI
// settings refuse half a configuration at start, naming the variable.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadEnv } from '../../../api/env.js';
import type { AiJobRunner } from '../../../domain/ai/job.js';
import { ConfigError } from '../../../infra/config/env.js';
import { slicesWithRunner, testCredits } from '../../support/ai-runtime.js';
import { testJob } from '../../support/ai-jobs.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
const holder: { runner?: AiJobRunner } = {};

beforeAll(async () => {
  service = await startTestService({ slices: slicesWithRunner(holder) });
  ws = await createTestWorkspace(service, 'Offline');
}, 120_000);
afterAll(async () => service?.stop());

describe('without a model provider', () => {
  test('the offline writer answers, free, recorded as a run with one tool_call step', async () => {
    const { credits } = testCredits(service);
    const before = (await credits.summaryOf(ws.orgId)).creditBalance.total;
    const result = await holder.runner!.run(testJob, {
      orgId: ws.orgId,
      userId: ws.userIds.owner,
      input: { topic: 'tide pools' },
      idempotencyKey: 'offline-1',
    });
    expect(result).toMatchObject({
      output: testJob.heuristic({ topic: 'tide pools' }),
      source: 'heuristic',
      providerModel: 'offline',
      creditsUsed: 0,
    });
    expect((await credits.summaryOf(ws.orgId)).creditBalance.total).toBe(before);

    const runs = await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs?jobType=test.write`, {
      token: ws.tokens.viewer,
    });
    const { items } = ((await runs.json()) as { data: { items: Record<string, unknown>[] } }).data;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      id: result.runId,
      status: 'succeeded',
      costCredits: 0,
      estimatedCostMilliUsd: 0,
      createdByUserId: ws.userIds.owner,
      resultSummary: { source: 'heuristic', providerModel: 'offline' },
    });
    const steps = await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs/${result.runId}/steps`, {
      token: ws.tokens.viewer,
    });
    const stepItems = ((await steps.json()) as { data: { items: Record<string, unknown>[] } }).data.items;
    expect(stepItems).toEqual([
      expect.objectContaining({
        kind: 'tool_call',
        role: 'offline_writer',
        status: 'succeeded',
        promptTokens: 0,
        output: JSON.stringify(testJob.heuristic({ topic: 'tide pools' })),
      }),
    ]);
  });

  test('a large input is kept in the run as its field names, not whole', async () => {
    const topic = 'x'.repeat(20_000);
    const terse = { ...testJob, heuristic: () => ({ headline: 'Long reads', body: 'A summary.' }) };
    const result = await holder.runner!.run(terse, { orgId: ws.orgId, userId: null, input: { topic } });
    const runs = await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs`, { token: ws.tokens.viewer });
    const { items } = ((await runs.json()) as { data: { items: { id: string; payload: unknown }[] } }).data;
    expect(items.find((r) => r.id === result.runId)?.payload).toEqual({
      truncated: true,
      size: JSON.stringify({ topic }).length,
      fields: ['topic'],
    });
  });

  test('an offline writer that breaks its own schema fails the run with a 503 job_failed', async () => {
    const broken = { ...testJob, jobType: 'test.broken', heuristic: () => ({ headline: '', body: '' }) };
    const error = await holder
      .runner!.run(broken, { orgId: ws.orgId, userId: null, input: { topic: 'x' } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, code: 'job_failed' });
  });

  test('a bad orgId or idempotency key is refused naming the field', async () => {
    await expect(
      holder.runner!.run(testJob, { orgId: 'nope', userId: null, input: { topic: 'x' } }),
    ).rejects.toMatchObject({
      status: 400,
      details: [{ path: 'orgId', message: 'a uuid' }],
    });
    await expect(
      holder.runner!.run(testJob, {
        orgId: ws.orgId,
        userId: null,
        input: { topic: 'x' },
        idempotencyKey: 'k'.repeat(201),
      }),
    ).rejects.toMatchObject({ status: 400, details: [{ path: 'idempotencyKey' }] });
  });
});

describe('the AI settings', () => {
  const base = { DATABASE_URL: 'postgres://x@localhost/x' };
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadEnv({ ...base, ...env });
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
  };
  test('none set is the offline default; a provider needs its model and key or base URL', () => {
    expect(problems({})).toEqual([]);
    expect(problems({ AI_PROVIDER: 'openai' }).join('\n')).toMatch(
      /AI_MODEL.*required[\s\S]*AI_API_KEY.*required/,
    );
    expect(problems({ AI_PROVIDER: 'openai-compatible', AI_MODEL: 'llama3.1' }).join('\n')).toMatch(
      /AI_BASE_URL/,
    );
    expect(problems({ AI_MODEL: 'gpt-4o-mini' }).join('\n')).toMatch(/AI_PROVIDER/);
    expect(problems({ AI_PROVIDER: 'gemini' }).join('\n')).toMatch(/AI_PROVIDER/);
    expect(
      problems({
        AI_PROVIDER: 'openai-compatible',
        AI_MODEL: 'llama3.1',
        AI_BASE_URL: 'http://localhost:11434/v1',
      }),
    ).toEqual([]);
  });
});
