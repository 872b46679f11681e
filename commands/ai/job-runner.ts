// The AI job runner (domain/ai/job.ts's AiJobRunner): every job runs as a durable agent run (domain/agent-runs)
// with each model round or offline write recorded as a step. With a model: credits reserved before the first
// round and charged once after a valid output (released when the attempt fails, so a failure charges nothing),
// malformed output asked again up to AI_OUTPUT_RETRIES, a 429 waited out when its Retry-After is short, a
// timeout or an unreachable provider tried again as a new attempt up to maxAttempts. Without one: the job's
// offline writer, labelled `offline` / `heuristic`, free. The same idempotency key answers the first run's result.
import { randomUUID } from 'node:crypto';
import { passingFailures, type AgentRunState } from '../../domain/agent-runs/agent-run.js';
import type { RunFailureCode } from '../../domain/agent-runs/event-codec.js';
import { aiJobError } from '../../domain/ai/errors.js';
import {
  offlineModel,
  type AiJob,
  type AiJobRequest,
  type AiJobResult,
  type AiJobRunner,
  type AiSource,
} from '../../domain/ai/job.js';
import type { AppError } from '../../domain/shared/errors.js';
import { Conflict, InvalidFields, PaymentRequired } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { ModelError, noUsage, type LanguageModelPort, type TokenUsage } from '../../infra/ai/port.js';
import type { ActualUse, PaidCall, SpendContext, SpendInput } from '../billing/credits.js';
import type { CommandDeps, CommandMetadata } from '../shared/command-handler.js';
import { decideRun } from '../agent-runs/agent-run-commands.js';

/** The one thing the runner needs of the credit ledger (CreditsService.withCredits). */
export interface PaidCalls {
  withCredits<T>(
    input: SpendInput,
    call: () => Promise<T>,
    options?: { context?: SpendContext; actual?: (result: T) => ActualUse },
  ): Promise<PaidCall<T>>;
}

export interface JobRunnerOptions {
  commands: CommandDeps;
  credits: PaidCalls;
  /** The configured model, or null: every job is written offline. */
  model: LanguageModelPort | null;
  now?: () => Date;
  /** This process's name in the runs it holds. */
  workerId?: string;
  maxAttempts?: number;
  /** Further rounds asked after a malformed structured output. */
  outputRetries?: number;
  /** The longest Retry-After waited for; longer is a failed attempt. */
  maxRetryAfterMs?: number;
  /** Rate-limited rounds waited out per attempt. */
  rateLimitRetries?: number;
  /** How long each step holds the run for this worker (see AI_RUN_LEASE_SECONDS). */
  leaseMs?: number;
  /** Pause between attempts. */
  attemptBackoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** The credit ledger key of a run's charge: one per run, so a retried attempt or a replay never pays twice. */
export const runCreditKey = (runId: string) => `agent-run:${runId}`;

/** Prompts and answers kept in a step (the whole prompt is sent; the record keeps this much of each part). */
const maxRecordedChars = 20_000;
const maxKeyLength = 200;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const clip = (text: string) =>
  text.length <= maxRecordedChars ? text : `${text.slice(0, maxRecordedChars)}… (${text.length} characters)`;

const sumUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});

/** The most of a payload a run keeps (its events are read whole); a larger one is kept as its field names. */
const maxPayloadChars = 16_000;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype;

/** The run's payload as GET agent-runs shows it: the given one or the input, bounded. */
export function payloadOf(request: AiJobRequest<unknown>): Record<string, unknown> {
  const payload = request.payload ?? (isPlainObject(request.input) ? request.input : {});
  const size = JSON.stringify(payload).length;
  if (size <= maxPayloadChars) return payload;
  return { truncated: true, size, fields: Object.keys(payload).slice(0, 100) };
}

/** Why an attempt failed, as the run records it. */
class AttemptFailure extends Error {
  constructor(
    readonly code: RunFailureCode,
    message: string,
    /** The error the caller gets when the run ends with this failure (a 402 as the ledger gave it). */
    readonly answer: AppError = aiJobError(code, message),
  ) {
    super(message);
  }
}

function failureOf(error: unknown, job: AiJob<unknown, unknown>): AttemptFailure {
  if (error instanceof AttemptFailure) return error;
  if (error instanceof PaymentRequired) return new AttemptFailure('payment_required', error.message, error);
  if (error instanceof ModelError) {
    switch (error.reason) {
      case 'timeout':
        return new AttemptFailure('ai_provider_timeout', error.message);
      case 'rate_limited':
        return new AttemptFailure('ai_provider_busy', error.message);
      case 'refused':
        return new AttemptFailure('ai_refused', error.message);
      case 'unavailable':
        return new AttemptFailure('ai_provider_unavailable', error.message);
      case 'malformed':
        return new AttemptFailure(
          'ai_output_invalid',
          `The model's answer was not a valid ${job.outputName}: ${error.message}`,
        );
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return new AttemptFailure('job_failed', `The ${job.jobType} job failed: ${message.slice(0, 500)}`);
}

interface Written<Output> {
  output: Output;
  source: AiSource;
  providerModel: string;
  creditsUsed: number;
}

export class AgentJobRunner implements AiJobRunner {
  private readonly now: () => Date;
  private readonly workerId: string;
  private readonly maxAttempts: number;
  private readonly outputRetries: number;
  private readonly maxRetryAfterMs: number;
  private readonly rateLimitRetries: number;
  private readonly leaseMs: number;
  private readonly attemptBackoffMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: JobRunnerOptions) {
    this.now = options.now ?? (() => new Date());
    this.workerId = options.workerId ?? `worker-${randomUUID()}`;
    this.maxAttempts = options.maxAttempts ?? 2;
    this.outputRetries = options.outputRetries ?? 2;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 20_000;
    this.rateLimitRetries = options.rateLimitRetries ?? 2;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.attemptBackoffMs = options.attemptBackoffMs ?? 500;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Whether a model is configured (false: every job is written offline). */
  get online(): boolean {
    return this.options.model !== null;
  }

  async run<Input, Output>(
    job: AiJob<Input, Output>,
    request: AiJobRequest<Input>,
  ): Promise<AiJobResult<Output>> {
    const { orgId } = request;
    if (!uuidPattern.test(orgId))
      throw new InvalidFields('Invalid orgId', [{ path: 'orgId', message: 'a uuid' }]);
    const key = request.idempotencyKey ?? null;
    if (key !== null && (key.length === 0 || key.length > maxKeyLength))
      throw new InvalidFields('Invalid idempotency key', [
        { path: 'idempotencyKey', message: `1 to ${maxKeyLength} characters` },
      ]);
    const runId = key === null ? randomUUID() : deterministicUuid('agent-run', orgId.toLowerCase(), key);
    const metadata = (): CommandMetadata => ({
      orgId,
      actor: request.userId ?? 'system',
      ...(request.userId ? { userId: request.userId } : {}),
      correlationId: runId,
      now: this.now().toISOString(),
    });
    const deps = this.options.commands;

    let state: AgentRunState = (
      await decideRun(
        deps,
        runId,
        {
          type: 'QueueRun',
          runId,
          orgId,
          jobType: job.jobType,
          payload: payloadOf(request),
          maxAttempts: this.maxAttempts,
          idempotencyKey: key,
          createdByUserId: request.userId,
          now: metadata().now,
        },
        metadata(),
        { awaitReadModels: true },
      )
    ).state;

    for (;;) {
      if (state.status === 'succeeded') return this.answerOf(job, runId, state.success);
      if (state.status === 'cancelled')
        throw new Conflict('The agent run was cancelled', 'agent_run_cancelled');
      if (
        state.status === 'failed' &&
        (!passingFailures.includes(state.errorCode) || state.attemptCount >= state.maxAttempts)
      )
        throw aiJobError(state.errorCode, state.errorMessage);

      const started = await decideRun(
        deps,
        runId,
        {
          type: 'StartAttempt',
          workerId: this.workerId,
          leaseExpiresAt: new Date(this.now().getTime() + this.leaseMs).toISOString(),
          now: metadata().now,
        },
        metadata(),
      );
      state = started.state;
      if (state.status !== 'running') continue; // ended meanwhile (another worker's success): answer it
      const attempt = state.attemptCount;
      try {
        const written = await this.attempt(job, request, runId, attempt, metadata);
        const done = await decideRun(
          deps,
          runId,
          {
            type: 'SucceedRun',
            attempt,
            result: written.output,
            resultSummary: {
              output: job.outputName,
              source: written.source,
              providerModel: written.providerModel,
            },
            source: written.source,
            providerModel: written.providerModel,
            costCredits: written.creditsUsed,
            now: metadata().now,
          },
          metadata(),
          { awaitReadModels: true },
        );
        state = done.state;
        if (state.status === 'succeeded') return this.answerOf(job, runId, state.success);
      } catch (error) {
        const failure = failureOf(error, job);
        const retry =
          failure.code === 'ai_provider_timeout' ||
          failure.code === 'ai_provider_unavailable' ||
          failure.code === 'ai_provider_busy';
        const failed = await decideRun(
          deps,
          runId,
          {
            type: 'FailAttempt',
            attempt,
            errorCode: failure.code,
            errorMessage: failure.message,
            retry,
            now: metadata().now,
          },
          metadata(),
          { awaitReadModels: true },
        );
        state = failed.state;
        if (state.status === 'failed') throw failure.answer;
        if (state.status === 'queued') await this.sleep(this.attemptBackoffMs * attempt);
      }
    }
  }

  private answerOf<Output>(
    job: AiJob<unknown, Output>,
    runId: string,
    success: Extract<AgentRunState, { status: 'succeeded' }>['success'],
  ): AiJobResult<Output> {
    const parsed = job.output.safeParse(success.result);
    if (!parsed.success)
      throw aiJobError(
        'job_failed',
        `The stored result of agent run ${runId} is no longer a valid ${job.outputName}`,
      );
    return {
      output: parsed.data,
      source: success.source,
      providerModel: success.providerModel,
      runId,
      creditsUsed: success.costCredits,
    };
  }

  /** One attempt: the offline writer, or the model's rounds paid for through the credit ledger. */
  private async attempt<Input, Output>(
    job: AiJob<Input, Output>,
    request: AiJobRequest<Input>,
    runId: string,
    attempt: number,
    metadata: () => CommandMetadata,
  ): Promise<Written<Output>> {
    const model = this.options.model;
    if (!model) return this.offline(job, request, runId, attempt, metadata);
    const providerModel = `${model.provider}:${model.model}`;
    const paid = await this.options.credits.withCredits(
      {
        orgId: request.orgId,
        key: runCreditKey(runId),
        actionKey: job.creditAction,
        metricKey: job.creditAction,
        feature: job.jobType,
        provider: model.provider,
        model: model.model,
        metadata: { runId, jobType: job.jobType },
      },
      () => this.rounds(model, job, request, runId, attempt, metadata),
      {
        context: {
          actor: request.userId ?? 'system',
          ...(request.userId ? { userId: request.userId } : {}),
          correlationId: runId,
        },
        actual: (result) => ({
          model: model.model,
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
          totalTokens: result.usage.totalTokens,
          metadata: { runId, jobType: job.jobType, rounds: result.rounds },
        }),
      },
    );
    return {
      output: paid.result.output,
      source: 'ai',
      providerModel,
      creditsUsed: paid.charge.creditsUsed,
    };
  }

  private async offline<Input, Output>(
    job: AiJob<Input, Output>,
    request: AiJobRequest<Input>,
    runId: string,
    attempt: number,
    metadata: () => CommandMetadata,
  ): Promise<Written<Output>> {
    const step = await this.startStep(runId, attempt, 1, metadata, {
      role: 'offline_writer',
      kind: 'tool_call',
      label: `${job.outputName} (offline writer)`,
      input: { jobType: job.jobType, output: job.outputName },
    });
    let output: Output;
    try {
      output = job.output.parse(job.heuristic(request.input));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.finishStep(runId, step, metadata, {
        status: 'failed',
        errorMessage: message.slice(0, 1000),
      });
      throw new AttemptFailure(
        'job_failed',
        `The offline writer of ${job.jobType} failed: ${message.slice(0, 500)}`,
      );
    }
    await this.finishStep(runId, step, metadata, {
      status: 'succeeded',
      output: clip(JSON.stringify(output)),
    });
    return { output, source: 'heuristic', providerModel: offlineModel, creditsUsed: 0 };
  }

  /** The model rounds of one attempt: a malformed answer is asked again, a short 429 waited out. */
  private async rounds<Input, Output>(
    model: LanguageModelPort,
    job: AiJob<Input, Output>,
    request: AiJobRequest<Input>,
    runId: string,
    attempt: number,
    metadata: () => CommandMetadata,
  ): Promise<{ output: Output; usage: TokenUsage; rounds: number }> {
    const prompt = job.prompt(request.input);
    let usage = noUsage;
    let malformed = 0;
    let rateLimited = 0;
    for (let round = 1; ; round++) {
      const step = await this.startStep(runId, attempt, round, metadata, {
        role: 'writer',
        kind: 'model_round',
        label: `${job.outputName} (${model.provider}:${model.model}, round ${round})`,
        input: { system: clip(prompt.system), prompt: clip(prompt.prompt), output: job.outputName },
      });
      try {
        const answer = await model.generate({
          system: prompt.system,
          prompt: prompt.prompt,
          schema: job.output,
          schemaName: job.outputName,
        });
        usage = sumUsage(usage, answer.usage);
        await this.finishStep(runId, step, metadata, {
          status: 'succeeded',
          output: clip(answer.text),
          reasoningSummary: answer.reasoning ? clip(answer.reasoning) : null,
          usage: answer.usage,
          estimatedCostMilliUsd: model.costMilliUsd(answer.usage),
        });
        return { output: answer.output, usage, rounds: round };
      } catch (error) {
        const failure =
          error instanceof ModelError
            ? error
            : new ModelError('unavailable', error instanceof Error ? error.message : String(error));
        const spent = failure.details.usage ?? noUsage;
        usage = sumUsage(usage, spent);
        await this.finishStep(runId, step, metadata, {
          status: 'failed',
          output: failure.details.text ? clip(failure.details.text) : null,
          usage: spent,
          estimatedCostMilliUsd: model.costMilliUsd(spent),
          errorMessage: failure.message,
        });
        if (failure.reason === 'malformed' && malformed < this.outputRetries) {
          malformed++;
          continue;
        }
        if (failure.reason === 'malformed')
          throw new AttemptFailure(
            'ai_output_invalid',
            `The model's answer was not a valid ${job.outputName} after ${round} rounds: ${failure.message}`,
          );
        if (failure.reason === 'rate_limited' && rateLimited < this.rateLimitRetries) {
          const wait = failure.details.retryAfterMs ?? 1000 * 2 ** rateLimited;
          if (wait <= this.maxRetryAfterMs) {
            rateLimited++;
            await this.sleep(wait);
            continue;
          }
          throw new AttemptFailure(
            'ai_provider_busy',
            `The model provider is rate-limiting this service and asks to wait ${Math.ceil(wait / 1000)} s`,
          );
        }
        throw error;
      }
    }
  }

  private async startStep(
    runId: string,
    attempt: number,
    round: number,
    metadata: () => CommandMetadata,
    step: { role: string; kind: 'model_round' | 'tool_call'; label: string; input: Record<string, unknown> },
  ): Promise<{ stepId: string; startedAt: number }> {
    const stepId = deterministicUuid(runId, 'step', String(attempt), String(round));
    const now = this.now();
    await decideRun(
      this.options.commands,
      runId,
      {
        type: 'StartStep',
        stepId,
        traceId: deterministicUuid(runId, 'trace', String(attempt)),
        parentStepId: null,
        ...step,
        leaseExpiresAt: new Date(now.getTime() + this.leaseMs).toISOString(),
        startedAt: now.toISOString(),
      },
      metadata(),
    );
    return { stepId, startedAt: performance.now() };
  }

  private async finishStep(
    runId: string,
    step: { stepId: string; startedAt: number },
    metadata: () => CommandMetadata,
    outcome: {
      status: 'succeeded' | 'failed';
      output?: string | null;
      reasoningSummary?: string | null;
      usage?: TokenUsage;
      estimatedCostMilliUsd?: number;
      errorMessage?: string | null;
    },
  ): Promise<void> {
    const usage = outcome.usage ?? noUsage;
    await decideRun(
      this.options.commands,
      runId,
      {
        type: 'FinishStep',
        stepId: step.stepId,
        status: outcome.status,
        output: outcome.output ?? null,
        reasoningSummary: outcome.reasoningSummary ?? null,
        promptTokens: usage.inputTokens,
        completionTokens: usage.outputTokens,
        reasoningTokens: usage.reasoningTokens,
        durationMs: Math.max(0, Math.round(performance.now() - step.startedAt)),
        estimatedCostMilliUsd: outcome.estimatedCostMilliUsd ?? 0,
        errorMessage: outcome.errorMessage ?? null,
        finishedAt: this.now().toISOString(),
      },
      metadata(),
    );
  }
}
