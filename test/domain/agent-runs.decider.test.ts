// The agent run decider, transition by transition: queued → running → succeeded | failed | cancelled, failed
// attempts back to queued until maxAttempts, steps and their lease (the heartbeat), a lost worker's run failed
// or taken over, resuming a run failed for a passing reason, and every repeated command deciding nothing.
import { describe, expect, test } from 'vitest';
import {
  agentRunDecider,
  type AgentRunCommand,
  type AgentRunEvent,
  type RunFailureCode,
} from '../../domain/agent-runs/agent-run.js';
import { Conflict, NotFound } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const runId = '00000000-0000-4000-8000-0000000000a1';
const orgId = '00000000-0000-4000-8000-000000000001';
const stepId = '00000000-0000-4000-8000-0000000000b1';
const traceId = '00000000-0000-4000-8000-0000000000c1';
const t0 = '2026-11-29T10:00:00.000Z';
const t1 = '2026-11-29T10:00:10.000Z';
const leaseEnd = '2026-11-29T10:01:00.000Z';
const afterLease = '2026-11-29T10:02:00.000Z';
const spec = deciderSpec(agentRunDecider);

const queued: AgentRunEvent = {
  type: 'AgentRunQueued',
  data: {
    runId,
    orgId,
    jobType: 'test.write',
    payload: { topic: 'x' },
    maxAttempts: 2,
    idempotencyKey: 'k1',
    createdByUserId: null,
    queuedAt: t0,
  },
};
const attemptStarted = (attempt: number, leaseExpiresAt = leaseEnd, startedAt = t0): AgentRunEvent => ({
  type: 'AgentRunAttemptStarted',
  data: { runId, attempt, workerId: 'w1', leaseExpiresAt, startedAt },
});
const stepStarted = (id = stepId, leaseExpiresAt = leaseEnd): AgentRunEvent => ({
  type: 'AgentRunStepStarted',
  data: {
    runId,
    stepId: id,
    traceId,
    parentStepId: null,
    role: 'writer',
    kind: 'model_round',
    label: 'post',
    input: { prompt: 'p' },
    leaseExpiresAt,
    startedAt: t0,
  },
});
const stepFinished = (status: 'succeeded' | 'failed' = 'succeeded', cost = 1.5): AgentRunEvent => ({
  type: 'AgentRunStepFinished',
  data: {
    runId,
    stepId,
    status,
    output: '{}',
    reasoningSummary: null,
    promptTokens: 10,
    completionTokens: 5,
    reasoningTokens: 0,
    durationMs: 20,
    estimatedCostMilliUsd: cost,
    errorMessage: null,
    finishedAt: t1,
  },
});
const closedAsFailed = (why: string, at: string): AgentRunEvent => ({
  type: 'AgentRunStepFinished',
  data: {
    runId,
    stepId,
    status: 'failed',
    output: null,
    reasoningSummary: null,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    durationMs: 0,
    estimatedCostMilliUsd: 0,
    errorMessage: why,
    finishedAt: at,
  },
});

const queue: AgentRunCommand = {
  type: 'QueueRun',
  runId,
  orgId,
  jobType: 'test.write',
  payload: { topic: 'x' },
  maxAttempts: 2,
  idempotencyKey: 'k1',
  createdByUserId: null,
  now: t0,
};
const start = (now = t0, leaseExpiresAt = leaseEnd): AgentRunCommand => ({
  type: 'StartAttempt',
  workerId: 'w1',
  leaseExpiresAt,
  now,
});
const succeed = (attempt = 1): AgentRunCommand => ({
  type: 'SucceedRun',
  attempt,
  result: { headline: 'h', body: 'b' },
  resultSummary: { output: 'post' },
  source: 'ai',
  providerModel: 'openai:gpt-4o-mini',
  costCredits: 1,
  now: t1,
});
const failAttempt = (
  retry: boolean,
  attempt = 1,
  errorCode: RunFailureCode = 'ai_provider_timeout',
  errorMessage = 'too slow',
): AgentRunCommand => ({
  type: 'FailAttempt',
  attempt,
  errorCode,
  errorMessage,
  retry,
  now: t1,
});

describe('queueing', () => {
  test('a new run is queued', () => {
    spec.given([]).when(queue).then([queued]);
  });
  test('the same key for the same job again decides nothing', () => {
    spec.given([queued]).when(queue).then([]);
  });
  test('the same key for another job is refused', () => {
    spec
      .given([queued])
      .when({ ...queue, jobType: 'other.job' })
      .thenThrows(Conflict, /used for a test.write run/);
  });
  test('a run needs at least one attempt', () => {
    spec
      .given([])
      .when({ ...queue, maxAttempts: 0 })
      .thenThrows(Conflict);
  });
});

describe('attempts', () => {
  test('queued → running', () => {
    spec
      .given([queued])
      .when(start())
      .then([attemptStarted(1)]);
  });
  test('a run that does not exist cannot start', () => {
    spec.given([]).when(start()).thenThrows(NotFound);
  });
  test('running with a live lease: another worker is refused', () => {
    spec
      .given([queued, attemptStarted(1)])
      .when(start(t1))
      .thenThrows(Conflict, /in progress/);
  });
  test('running with a lease run out: the lost attempt fails (its open step closed) and the next starts', () => {
    const lost = `The worker running attempt 1 stopped (its lease ran out at ${leaseEnd})`;
    spec
      .given([queued, attemptStarted(1), stepStarted()])
      .when(start(afterLease, '2026-11-29T10:03:00.000Z'))
      .then([
        closedAsFailed(lost, afterLease),
        {
          type: 'AgentRunAttemptFailed',
          data: { runId, attempt: 1, errorCode: 'worker_lost', errorMessage: lost, failedAt: afterLease },
        },
        attemptStarted(2, '2026-11-29T10:03:00.000Z', afterLease),
      ]);
  });
  test('a failed attempt with retry goes back to queued while attempts remain', () => {
    spec
      .given([queued, attemptStarted(1)])
      .when(failAttempt(true))
      .then([
        {
          type: 'AgentRunAttemptFailed',
          data: {
            runId,
            attempt: 1,
            errorCode: 'ai_provider_timeout',
            errorMessage: 'too slow',
            failedAt: t1,
          },
        },
      ]);
  });
  test('the last attempt failing fails the run, whatever retry asks', () => {
    spec
      .given([
        queued,
        attemptStarted(1),
        {
          type: 'AgentRunAttemptFailed',
          data: { runId, attempt: 1, errorCode: 'ai_provider_timeout', errorMessage: 'x', failedAt: t1 },
        },
        attemptStarted(2),
      ])
      .when(failAttempt(true, 2))
      .then([
        {
          type: 'AgentRunFailed',
          data: {
            runId,
            attempt: 2,
            errorCode: 'ai_provider_timeout',
            errorMessage: 'too slow',
            estimatedCostMilliUsd: 0,
            completedAt: t1,
          },
        },
      ]);
  });
  test('a failure not worth retrying fails the run at once, with the cost of its steps', () => {
    spec
      .given([queued, attemptStarted(1), stepStarted(), stepFinished('failed', 2.5)])
      .when(failAttempt(false, 1, 'ai_output_invalid', 'bad'))
      .thenState((state) => {
        expect(state.status).toBe('failed');
        if (state.status === 'failed') {
          expect(state.errorCode).toBe('ai_output_invalid');
          expect(state.estimatedCostMilliUsd).toBe(2.5);
        }
      });
  });
  test('a failure of an attempt that is not the current one decides nothing', () => {
    spec
      .given([queued, attemptStarted(1)])
      .when(failAttempt(true, 3))
      .then([]);
  });
  test('no attempts left: a queued run cannot start', () => {
    const failed1: AgentRunEvent = {
      type: 'AgentRunAttemptFailed',
      data: { runId, attempt: 1, errorCode: 'ai_provider_timeout', errorMessage: 'x', failedAt: t1 },
    };
    spec
      .given([{ ...queued, data: { ...queued.data, maxAttempts: 1 } }, attemptStarted(1), failed1])
      .when(start(t1))
      .thenThrows(Conflict, /attempts/);
  });
});

describe('steps', () => {
  test('a step starts on a running run and renews its lease', () => {
    const later = '2026-11-29T10:05:00.000Z';
    spec
      .given([queued, attemptStarted(1)])
      .when({
        type: 'StartStep',
        stepId,
        traceId,
        parentStepId: null,
        role: 'writer',
        kind: 'model_round',
        label: 'post',
        input: { prompt: 'p' },
        leaseExpiresAt: later,
        startedAt: t0,
      })
      .thenState((state) => {
        expect(state.status === 'running' && state.leaseExpiresAt).toBe(later);
        expect(state.status === 'running' && state.openSteps).toEqual([stepId]);
      });
  });
  test('a step cannot start on a run that is not running', () => {
    spec
      .given([queued])
      .when({
        type: 'StartStep',
        stepId,
        traceId,
        parentStepId: null,
        role: 'writer',
        kind: 'model_round',
        label: null,
        input: null,
        leaseExpiresAt: leaseEnd,
        startedAt: t0,
      })
      .thenThrows(Conflict, /not running/);
  });
  test('finishing a step records its tokens; finishing it again decides nothing', () => {
    const finish = { ...(stepFinished().data as object), type: 'FinishStep' } as AgentRunCommand;
    spec
      .given([queued, attemptStarted(1), stepStarted()])
      .when(finish)
      .then([stepFinished()]);
    spec
      .given([queued, attemptStarted(1), stepStarted(), stepFinished()])
      .when(finish)
      .then([]);
  });
  test('finishing an unknown step is refused', () => {
    const finish = {
      ...(stepFinished().data as object),
      type: 'FinishStep',
      stepId: traceId,
    } as AgentRunCommand;
    spec
      .given([queued, attemptStarted(1)])
      .when(finish)
      .thenThrows(NotFound);
  });
});

describe('ending', () => {
  test('running → succeeded with the cost of its steps', () => {
    spec
      .given([queued, attemptStarted(1), stepStarted(), stepFinished('succeeded', 1.5)])
      .when(succeed())
      .then([
        {
          type: 'AgentRunSucceeded',
          data: {
            runId,
            attempt: 1,
            result: { headline: 'h', body: 'b' },
            resultSummary: { output: 'post' },
            source: 'ai',
            providerModel: 'openai:gpt-4o-mini',
            costCredits: 1,
            estimatedCostMilliUsd: 1.5,
            completedAt: t1,
          },
        },
      ]);
  });
  test('succeeding again decides nothing; starting a succeeded run decides nothing', () => {
    const done = agentRunDecider.decide(
      succeed(),
      [queued, attemptStarted(1)].reduce(agentRunDecider.evolve, agentRunDecider.initialState),
    );
    spec
      .given([queued, attemptStarted(1), ...done])
      .when(succeed())
      .then([]);
    spec
      .given([queued, attemptStarted(1), ...done])
      .when(start(t1))
      .then([]);
  });
  test('a stale attempt cannot succeed', () => {
    spec
      .given([queued, attemptStarted(1)])
      .when(succeed(2))
      .thenThrows(Conflict);
  });
  test('queued or running → cancelled, closing open steps; cancelling again decides nothing', () => {
    spec
      .given([queued, attemptStarted(1), stepStarted()])
      .when({ type: 'CancelRun', reason: 'no longer needed', now: t1 })
      .then([
        closedAsFailed('The run was cancelled', t1),
        { type: 'AgentRunCancelled', data: { runId, reason: 'no longer needed', cancelledAt: t1 } },
      ]);
    const cancelled: AgentRunEvent = {
      type: 'AgentRunCancelled',
      data: { runId, reason: null, cancelledAt: t1 },
    };
    spec.given([queued, cancelled]).when({ type: 'CancelRun', reason: null, now: t1 }).then([]);
    spec
      .given([queued, cancelled])
      .when(start(t1))
      .thenThrows(Conflict, /cancelled/);
  });
  test('a finished run cannot be cancelled', () => {
    const done = agentRunDecider.decide(
      succeed(),
      [queued, attemptStarted(1)].reduce(agentRunDecider.evolve, agentRunDecider.initialState),
    );
    spec
      .given([queued, attemptStarted(1), ...done])
      .when({ type: 'CancelRun', reason: null, now: t1 })
      .thenThrows(Conflict);
  });
});

describe('a lost worker', () => {
  test('before the lease runs out nothing happens', () => {
    spec
      .given([queued, attemptStarted(1)])
      .when({ type: 'ExpireLease', now: t1 })
      .then([]);
  });
  test('a step renews the lease: expiry waits for it', () => {
    spec
      .given([queued, attemptStarted(1), stepStarted(stepId, '2026-11-29T10:10:00.000Z')])
      .when({ type: 'ExpireLease', now: afterLease })
      .then([]);
  });
  test('after the lease, the run fails as worker_lost with its open steps closed', () => {
    spec
      .given([queued, attemptStarted(1), stepStarted()])
      .when({ type: 'ExpireLease', now: afterLease })
      .thenState((state) => {
        expect(state.status).toBe('failed');
        if (state.status === 'failed') {
          expect(state.errorCode).toBe('worker_lost');
          expect(state.openSteps).toEqual([]);
        }
      });
  });
  test('a run lost or failed for a passing reason resumes with its next attempt; a final failure does not', () => {
    const [closed, lost] = agentRunDecider.decide(
      { type: 'ExpireLease', now: afterLease },
      [queued, attemptStarted(1), stepStarted()].reduce(agentRunDecider.evolve, agentRunDecider.initialState),
    );
    spec
      .given([queued, attemptStarted(1), stepStarted(), closed!, lost!])
      .when(start(afterLease))
      .then([attemptStarted(2, leaseEnd, afterLease)]);
    const invalid: AgentRunEvent = {
      type: 'AgentRunFailed',
      data: {
        runId,
        attempt: 1,
        errorCode: 'ai_output_invalid',
        errorMessage: 'bad',
        estimatedCostMilliUsd: 0,
        completedAt: t1,
      },
    };
    spec
      .given([queued, attemptStarted(1), invalid])
      .when(start(t1))
      .thenThrows(Conflict, /failed: bad/);
  });
  test('queued: expiry decides nothing unless the run has waited since the stale bound', () => {
    spec.given([queued]).when({ type: 'ExpireLease', now: afterLease }).then([]);
    spec
      .given([queued])
      .when({ type: 'ExpireLease', now: afterLease, staleQueuedBefore: '2026-11-29T09:59:00.000Z' })
      .then([]);
  });
  test('a run left queued between attempts (its process stopped) fails as worker_lost', () => {
    spec
      .given([queued])
      .when({ type: 'ExpireLease', now: afterLease, staleQueuedBefore: t1 })
      .then([
        {
          type: 'AgentRunFailed',
          data: {
            runId,
            attempt: 0,
            errorCode: 'worker_lost',
            errorMessage: `The run waited for its attempt 1 since ${t0} and no worker took it; retry with the same idempotency key to resume`,
            estimatedCostMilliUsd: 0,
            completedAt: afterLease,
          },
        },
      ]);
  });
  test('a finished run: expiry decides nothing', () => {
    const cancelled: AgentRunEvent = {
      type: 'AgentRunCancelled',
      data: { runId, reason: null, cancelledAt: t1 },
    };
    spec
      .given([queued, cancelled])
      .when({ type: 'ExpireLease', now: afterLease, staleQueuedBefore: afterLease })
      .then([]);
  });
});
