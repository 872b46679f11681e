// A property over random command histories of one agent run (any order, any time, stale attempts, repeats):
// whatever is accepted, the run never uses more than maxAttempts attempts, a step is finished at most once and
// only after it started, a run that is not running has no open step, an ended run ends once (succeeded and
// cancelled never change again), and replaying the accepted events gives the same state (decide and evolve agree).
import fc from 'fast-check';
import { expect, test } from 'vitest';
import {
  agentRunDecider,
  type AgentRunCommand,
  type AgentRunEvent,
  type AgentRunState,
} from '../../domain/agent-runs/agent-run.js';
import { failureCodes } from '../../domain/agent-runs/event-codec.js';
import { fold } from '../../domain/shared/decider.js';
import { AppError } from '../../domain/shared/errors.js';
import { propertyRuns } from '../support/property-runs.js';

const runId = '00000000-0000-4000-8000-0000000000a1';
const base = Date.parse('2026-11-29T10:00:00.000Z');
const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
const stepIds = ['s1', 's2', 's3'];

const command: fc.Arbitrary<(minute: number) => AgentRunCommand> = fc.oneof(
  fc.constant((m: number) => ({
    type: 'QueueRun' as const,
    runId,
    orgId: 'org',
    jobType: 'test.write',
    payload: {},
    maxAttempts: 3,
    idempotencyKey: 'k',
    createdByUserId: null,
    now: at(m),
  })),
  fc.integer({ min: 1, max: 5 }).map((lease) => (m: number) => ({
    type: 'StartAttempt' as const,
    workerId: 'w',
    leaseExpiresAt: at(m + lease),
    now: at(m),
  })),
  fc
    .tuple(fc.constantFrom(...stepIds), fc.integer({ min: 1, max: 5 }))
    .map(([stepId, lease]) => (m: number) => ({
      type: 'StartStep' as const,
      stepId,
      traceId: 't',
      parentStepId: null,
      role: 'writer',
      kind: 'model_round' as const,
      label: null,
      input: null,
      leaseExpiresAt: at(m + lease),
      startedAt: at(m),
    })),
  fc.tuple(fc.constantFrom(...stepIds), fc.boolean()).map(([stepId, ok]) => (m: number) => ({
    type: 'FinishStep' as const,
    stepId,
    status: ok ? ('succeeded' as const) : ('failed' as const),
    output: null,
    reasoningSummary: null,
    promptTokens: 1,
    completionTokens: 1,
    reasoningTokens: 0,
    durationMs: 1,
    estimatedCostMilliUsd: 0.5,
    errorMessage: null,
    finishedAt: at(m),
  })),
  fc
    .tuple(fc.integer({ min: 1, max: 4 }), fc.constantFrom(...failureCodes), fc.boolean())
    .map(([attempt, errorCode, retry]) => (m: number) => ({
      type: 'FailAttempt' as const,
      attempt,
      errorCode,
      errorMessage: 'x',
      retry,
      now: at(m),
    })),
  fc.integer({ min: 1, max: 4 }).map((attempt) => (m: number) => ({
    type: 'SucceedRun' as const,
    attempt,
    result: {},
    resultSummary: {},
    source: 'ai' as const,
    providerModel: 'p:m',
    costCredits: 1,
    now: at(m),
  })),
  fc.integer({ min: 0, max: 3 }).map((stale) => (m: number) => ({
    type: 'ExpireLease' as const,
    now: at(m),
    staleQueuedBefore: at(m - stale),
  })),
  fc.constant((m: number) => ({ type: 'CancelRun' as const, reason: null, now: at(m) })),
);

test('agent run histories keep their invariants', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(command, fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 40 }),
      (history) => {
        let state: AgentRunState = agentRunDecider.initialState;
        const accepted: AgentRunEvent[] = [];
        let minute = 0;
        const ended: string[] = [];
        for (const [make, step] of history) {
          minute += step;
          let events: AgentRunEvent[];
          try {
            events = agentRunDecider.decide(make(minute), state);
          } catch (error) {
            expect(error).toBeInstanceOf(AppError); // refusals are typed, never crashes
            continue;
          }
          for (const event of events) {
            if (event.type === 'AgentRunStepFinished') {
              expect(state.status !== 'none' && state.openSteps).toContain(event.data.stepId);
            }
            if (event.type === 'AgentRunSucceeded' || event.type === 'AgentRunCancelled') {
              expect(ended).not.toContain('succeeded');
              expect(ended).not.toContain('cancelled');
            }
            if (event.type === 'AgentRunSucceeded') ended.push('succeeded');
            if (event.type === 'AgentRunCancelled') ended.push('cancelled');
            state = agentRunDecider.evolve(state, event);
            accepted.push(event);
          }
          if (state.status !== 'none') {
            expect(state.attemptCount).toBeLessThanOrEqual(state.maxAttempts);
            if (state.status !== 'running') expect(state.openSteps).toEqual([]);
            expect(new Set(state.finishedSteps).size).toBe(state.finishedSteps.length);
          }
        }
        expect(fold(agentRunDecider, accepted)).toEqual(state);
      },
    ),
    { numRuns: propertyRuns(500) },
  );
});
