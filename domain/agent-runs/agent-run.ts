// The agent run aggregate (issue 27, spec "Agent run and step"): one durable run of an AI job, its attempts and
// its steps. `queued → running → succeeded | failed | cancelled`; a failed attempt worth retrying goes back to
// `queued` until `maxAttempts`; a run whose worker stopped (its lease ran out) is failed as `worker_lost`, and a
// run failed for a passing reason (the worker, the provider's time or capacity, credits) may be resumed by the
// same idempotency key while attempts remain. Pure: time, ids and the lease are handed in with the commands.
import { Conflict, NotFound } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { agentRunEventCodec, type AgentRunEvent, type RunFailureCode } from './event-codec.js';

export type { AgentRunEvent, RunFailureCode } from './event-codec.js';

export const agentRunCategory = 'agentRun';

export const runStatuses = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof runStatuses)[number];

/** Failures that say nothing about the job itself: a later attempt (or a retry with the same key) may succeed. */
export const passingFailures: readonly RunFailureCode[] = [
  'worker_lost',
  'ai_provider_timeout',
  'ai_provider_busy',
  'ai_provider_unavailable',
  'payment_required',
];

type StepInput = Extract<AgentRunEvent, { type: 'AgentRunStepStarted' }>['data'];
type StepOutcome = Extract<AgentRunEvent, { type: 'AgentRunStepFinished' }>['data'];
type Success = Extract<AgentRunEvent, { type: 'AgentRunSucceeded' }>['data'];

export type AgentRunCommand =
  | {
      type: 'QueueRun';
      runId: string;
      orgId: string;
      jobType: string;
      payload: Record<string, unknown>;
      maxAttempts: number;
      idempotencyKey: string | null;
      createdByUserId: string | null;
      now: string;
    }
  | { type: 'StartAttempt'; workerId: string; leaseExpiresAt: string; now: string }
  | ({ type: 'StartStep' } & Omit<StepInput, 'runId'>)
  | ({ type: 'FinishStep' } & Omit<StepOutcome, 'runId'>)
  /** The attempt failed; `retry` asks for another attempt, granted while attempts remain (else the run fails). */
  | {
      type: 'FailAttempt';
      attempt: number;
      errorCode: RunFailureCode;
      errorMessage: string;
      retry: boolean;
      now: string;
    }
  | ({ type: 'SucceedRun' } & Omit<Success, 'runId' | 'completedAt' | 'estimatedCostMilliUsd'> & {
        now: string;
      })
  /**
   * The process manager's check: a running run whose lease has run out by `now` is failed (`worker_lost`), and
   * so is a queued one waiting since `staleQueuedBefore` or earlier (its process stopped between attempts).
   */
  | { type: 'ExpireLease'; now: string; staleQueuedBefore?: string }
  | { type: 'CancelRun'; reason: string | null; now: string };

export interface AgentRunFacts {
  runId: string;
  orgId: string;
  jobType: string;
  idempotencyKey: string | null;
  maxAttempts: number;
  attemptCount: number;
  /** Steps started and not finished (closed as failed when the run ends without them). */
  openSteps: readonly string[];
  finishedSteps: readonly string[];
  estimatedCostMilliUsd: number;
}

export type AgentRunState =
  | { status: 'none' }
  | (AgentRunFacts & { status: 'queued'; queuedSince: string })
  | (AgentRunFacts & { status: 'running'; workerId: string; leaseExpiresAt: string })
  | (AgentRunFacts & { status: 'succeeded'; success: Success })
  | (AgentRunFacts & { status: 'failed'; errorCode: RunFailureCode; errorMessage: string })
  | (AgentRunFacts & { status: 'cancelled' });

const laterOf = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b);

function started(state: AgentRunState): Exclude<AgentRunState, { status: 'none' }> {
  if (state.status === 'none') throw new NotFound('Agent run not found');
  return state;
}

function running(state: AgentRunState): Extract<AgentRunState, { status: 'running' }> {
  const run = started(state);
  if (run.status !== 'running')
    throw new Conflict(`The agent run is ${run.status}, not running`, 'agent_run_not_running');
  return run;
}

/** A step for every one left open, failed with `why` (the run ends without them). */
function closeOpenSteps(run: AgentRunFacts, why: string, now: string): AgentRunEvent[] {
  return run.openSteps.map((stepId) => ({
    type: 'AgentRunStepFinished' as const,
    data: {
      runId: run.runId,
      stepId,
      status: 'failed' as const,
      output: null,
      reasoningSummary: null,
      promptTokens: 0,
      completionTokens: 0,
      reasoningTokens: 0,
      durationMs: 0,
      estimatedCostMilliUsd: 0,
      errorMessage: why,
      finishedAt: now,
    },
  }));
}

function failRun(run: AgentRunFacts, code: RunFailureCode, message: string, now: string): AgentRunEvent[] {
  return [
    ...closeOpenSteps(run, message, now),
    {
      type: 'AgentRunFailed',
      data: {
        runId: run.runId,
        attempt: run.attemptCount,
        errorCode: code,
        errorMessage: message,
        estimatedCostMilliUsd: run.estimatedCostMilliUsd,
        completedAt: now,
      },
    },
  ];
}

function decide(command: AgentRunCommand, state: AgentRunState): AgentRunEvent[] {
  switch (command.type) {
    case 'QueueRun': {
      if (state.status !== 'none') {
        // The same key again for the same job is the same run; for another job it is a mistake.
        if (state.jobType === command.jobType) return [];
        throw new Conflict(
          `The idempotency key was used for a ${state.jobType} run already`,
          'idempotency_key_reused',
        );
      }
      if (!Number.isInteger(command.maxAttempts) || command.maxAttempts < 1)
        throw new Conflict('maxAttempts must be a positive integer');
      const { type: _type, now, ...data } = command;
      return [{ type: 'AgentRunQueued', data: { ...data, queuedAt: now } }];
    }
    case 'StartAttempt': {
      const run = started(state);
      const attempt = run.attemptCount + 1;
      const start: AgentRunEvent = {
        type: 'AgentRunAttemptStarted',
        data: {
          runId: run.runId,
          attempt,
          workerId: command.workerId,
          leaseExpiresAt: command.leaseExpiresAt,
          startedAt: command.now,
        },
      };
      const noAttemptsLeft = () =>
        new Conflict(
          `The agent run has used its ${run.maxAttempts} attempts`,
          'agent_run_attempts_exhausted',
        );
      switch (run.status) {
        case 'queued':
          if (attempt > run.maxAttempts) throw noAttemptsLeft();
          return [start];
        case 'running': {
          if (Date.parse(command.now) < Date.parse(run.leaseExpiresAt))
            throw new Conflict('The agent run is in progress', 'agent_run_in_progress');
          // Its worker stopped: that attempt failed; take the run over when attempts remain.
          const lost = `The worker running attempt ${run.attemptCount} stopped (its lease ran out at ${run.leaseExpiresAt})`;
          if (attempt > run.maxAttempts) return failRun(run, 'worker_lost', lost, command.now);
          return [
            ...closeOpenSteps(run, lost, command.now),
            {
              type: 'AgentRunAttemptFailed',
              data: {
                runId: run.runId,
                attempt: run.attemptCount,
                errorCode: 'worker_lost',
                errorMessage: lost,
                failedAt: command.now,
              },
            },
            start,
          ];
        }
        case 'failed':
          if (!passingFailures.includes(run.errorCode))
            throw new Conflict(`The agent run failed: ${run.errorMessage}`, 'agent_run_failed');
          if (attempt > run.maxAttempts) throw noAttemptsLeft();
          return [start];
        case 'succeeded':
          return [];
        case 'cancelled':
          throw new Conflict('The agent run was cancelled', 'agent_run_cancelled');
        default:
          return assertNever(run);
      }
    }
    case 'StartStep': {
      const run = running(state);
      if (run.openSteps.includes(command.stepId) || run.finishedSteps.includes(command.stepId)) return [];
      const { type: _type, ...data } = command;
      return [
        {
          type: 'AgentRunStepStarted',
          data: {
            ...data,
            runId: run.runId,
            leaseExpiresAt: laterOf(run.leaseExpiresAt, data.leaseExpiresAt),
          },
        },
      ];
    }
    case 'FinishStep': {
      const run = started(state);
      if (run.finishedSteps.includes(command.stepId)) return [];
      if (!run.openSteps.includes(command.stepId)) throw new NotFound('Agent run step not found');
      const { type: _type, ...data } = command;
      return [{ type: 'AgentRunStepFinished', data: { ...data, runId: run.runId } }];
    }
    case 'FailAttempt': {
      const run = started(state);
      if (run.status !== 'running' || run.attemptCount !== command.attempt) return [];
      if (command.retry && run.attemptCount < run.maxAttempts)
        return [
          ...closeOpenSteps(run, command.errorMessage, command.now),
          {
            type: 'AgentRunAttemptFailed',
            data: {
              runId: run.runId,
              attempt: command.attempt,
              errorCode: command.errorCode,
              errorMessage: command.errorMessage,
              failedAt: command.now,
            },
          },
        ];
      return failRun(run, command.errorCode, command.errorMessage, command.now);
    }
    case 'SucceedRun': {
      const run = started(state);
      if (run.status === 'succeeded') return [];
      const current = running(run);
      if (current.attemptCount !== command.attempt)
        throw new Conflict('Another attempt holds the agent run', 'agent_run_in_progress');
      const { type: _type, now, ...data } = command;
      return [
        ...closeOpenSteps(current, 'The run ended before the step finished', now),
        {
          type: 'AgentRunSucceeded',
          data: {
            ...data,
            runId: run.runId,
            estimatedCostMilliUsd: current.estimatedCostMilliUsd,
            completedAt: now,
          },
        },
      ];
    }
    case 'ExpireLease': {
      if (
        state.status === 'queued' &&
        command.staleQueuedBefore !== undefined &&
        Date.parse(state.queuedSince) <= Date.parse(command.staleQueuedBefore)
      )
        return failRun(
          state,
          'worker_lost',
          `The run waited for its attempt ${state.attemptCount + 1} since ${state.queuedSince} and no worker took it; retry with the same idempotency key to resume`,
          command.now,
        );
      if (state.status !== 'running') return [];
      if (Date.parse(command.now) < Date.parse(state.leaseExpiresAt)) return [];
      return failRun(
        state,
        'worker_lost',
        `The worker running attempt ${state.attemptCount} stopped (its lease ran out at ${state.leaseExpiresAt}); retry with the same idempotency key to resume`,
        command.now,
      );
    }
    case 'CancelRun': {
      const run = started(state);
      if (run.status === 'cancelled') return [];
      if (run.status === 'succeeded' || run.status === 'failed')
        throw new Conflict(`The agent run has ${run.status} already`, 'agent_run_finished');
      return [
        ...closeOpenSteps(run, 'The run was cancelled', command.now),
        {
          type: 'AgentRunCancelled',
          data: { runId: run.runId, reason: command.reason, cancelledAt: command.now },
        },
      ];
    }
    default:
      return assertNever(command);
  }
}

function facts(state: Exclude<AgentRunState, { status: 'none' }>): AgentRunFacts {
  return {
    runId: state.runId,
    orgId: state.orgId,
    jobType: state.jobType,
    idempotencyKey: state.idempotencyKey,
    maxAttempts: state.maxAttempts,
    attemptCount: state.attemptCount,
    openSteps: state.openSteps,
    finishedSteps: state.finishedSteps,
    estimatedCostMilliUsd: state.estimatedCostMilliUsd,
  };
}

function evolve(state: AgentRunState, event: AgentRunEvent): AgentRunState {
  if (event.type === 'AgentRunQueued') {
    const d = event.data;
    return {
      status: 'queued',
      queuedSince: d.queuedAt,
      runId: d.runId,
      orgId: d.orgId,
      jobType: d.jobType,
      idempotencyKey: d.idempotencyKey,
      maxAttempts: d.maxAttempts,
      attemptCount: 0,
      openSteps: [],
      finishedSteps: [],
      estimatedCostMilliUsd: 0,
    };
  }
  if (state.status === 'none') return state;
  const base = facts(state);
  switch (event.type) {
    case 'AgentRunAttemptStarted':
      return {
        ...base,
        status: 'running',
        attemptCount: event.data.attempt,
        workerId: event.data.workerId,
        leaseExpiresAt: event.data.leaseExpiresAt,
      };
    case 'AgentRunStepStarted': {
      const withStep = { ...base, openSteps: [...base.openSteps, event.data.stepId] };
      return state.status === 'running'
        ? { ...state, ...withStep, leaseExpiresAt: laterOf(state.leaseExpiresAt, event.data.leaseExpiresAt) }
        : { ...state, ...withStep };
    }
    case 'AgentRunStepFinished':
      return {
        ...state,
        openSteps: base.openSteps.filter((id) => id !== event.data.stepId),
        finishedSteps: [...base.finishedSteps, event.data.stepId],
        estimatedCostMilliUsd: base.estimatedCostMilliUsd + event.data.estimatedCostMilliUsd,
      };
    case 'AgentRunAttemptFailed':
      return { ...base, status: 'queued', queuedSince: event.data.failedAt };
    case 'AgentRunSucceeded':
      return { ...base, status: 'succeeded', success: event.data };
    case 'AgentRunFailed':
      return {
        ...base,
        status: 'failed',
        errorCode: event.data.errorCode,
        errorMessage: event.data.errorMessage,
      };
    case 'AgentRunCancelled':
      return { ...base, status: 'cancelled' };
    default:
      return assertNever(event);
  }
}

export const agentRunDecider: Decider<AgentRunState, AgentRunCommand, AgentRunEvent> = {
  initialState: { status: 'none' },
  codec: agentRunEventCodec,
  decide,
  evolve,
};
