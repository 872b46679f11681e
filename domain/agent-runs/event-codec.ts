// The agent runs' events (issue 27), declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them. One stream per run, `agentRun-<runId>`.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const json = z.record(z.string(), z.unknown());

export const stepKinds = ['model_round', 'tool_call', 'subagent'] as const;
export const failureCodes = [
  'ai_provider_timeout',
  'ai_provider_busy',
  'ai_provider_unavailable',
  'ai_refused',
  'ai_output_invalid',
  'payment_required',
  'worker_lost',
  'job_failed',
] as const;
export type RunFailureCode = (typeof failureCodes)[number];

const schemas = {
  AgentRunQueued: z.object({
    runId: z.string(),
    orgId: z.string(),
    jobType: z.string(),
    payload: json,
    maxAttempts: z.number().int().min(1),
    idempotencyKey: z.string().nullable(),
    createdByUserId: z.string().nullable(),
    queuedAt: z.string(),
  }),
  /** An attempt began: the worker holds the run until `leaseExpiresAt` (a killed worker's run is failed after it). */
  AgentRunAttemptStarted: z.object({
    runId: z.string(),
    attempt: z.number().int().min(1),
    workerId: z.string(),
    leaseExpiresAt: z.string(),
    startedAt: z.string(),
  }),
  AgentRunStepStarted: z.object({
    runId: z.string(),
    stepId: z.string(),
    traceId: z.string(),
    parentStepId: z.string().nullable(),
    role: z.string(),
    kind: z.enum(stepKinds),
    label: z.string().nullable(),
    input: json.nullable(),
    /** Each step renews the worker's hold on the run (the heartbeat): it is not failed while steps keep coming. */
    leaseExpiresAt: z.string(),
    startedAt: z.string(),
  }),
  AgentRunStepFinished: z.object({
    runId: z.string(),
    stepId: z.string(),
    status: z.enum(['succeeded', 'failed']),
    output: z.string().nullable(),
    reasoningSummary: z.string().nullable(),
    promptTokens: z.number().int().min(0),
    completionTokens: z.number().int().min(0),
    reasoningTokens: z.number().int().min(0),
    durationMs: z.number().int().min(0),
    /** What the provider is estimated to charge for this step (0 offline); the run's estimate is their sum. */
    estimatedCostMilliUsd: z.number().min(0),
    errorMessage: z.string().nullable(),
    finishedAt: z.string(),
  }),
  /** An attempt failed in a way worth trying again: the run is queued for its next attempt. */
  AgentRunAttemptFailed: z.object({
    runId: z.string(),
    attempt: z.number().int().min(1),
    errorCode: z.enum(failureCodes),
    errorMessage: z.string(),
    failedAt: z.string(),
  }),
  AgentRunSucceeded: z.object({
    runId: z.string(),
    attempt: z.number().int().min(1),
    /** The job's output, validated against its schema: what a retry with the same key answers. */
    result: z.unknown(),
    resultSummary: json,
    source: z.enum(['ai', 'heuristic']),
    providerModel: z.string(),
    costCredits: z.number().min(0),
    estimatedCostMilliUsd: z.number().min(0),
    completedAt: z.string(),
  }),
  AgentRunFailed: z.object({
    runId: z.string(),
    attempt: z.number().int().min(0),
    errorCode: z.enum(failureCodes),
    errorMessage: z.string(),
    estimatedCostMilliUsd: z.number().min(0),
    completedAt: z.string(),
  }),
  AgentRunCancelled: z.object({
    runId: z.string(),
    reason: z.string().nullable(),
    cancelledAt: z.string(),
  }),
};
export type AgentRunEvent = EventsOf<typeof schemas>;

export const agentRunEventCodec = zodEventCodec('agent-runs', schemas);
