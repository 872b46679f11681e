// The contract between a slice that wants AI-written output and the AI runtime (issue 27). A slice declares an
// `AiJob`: what it produces (a zod schema), how to ask a model for it (a prompt built only from what may be
// disclosed) and how to produce it without a model (the offline writer: templates and the workspace's own data).
// The runtime (commands/ai) runs every job as a durable agent run with recorded steps, reserves credits before a
// model call and settles after it, retries malformed structured output, and falls back to nothing silently: with no
// provider configured the heuristic writes the output and says so (`source: 'heuristic'`, model `offline`).
import type { z } from 'zod';

/** What a model is asked: a system message and one user message. Only public knowledge may appear in either. */
export interface AiPrompt {
  system: string;
  prompt: string;
}

/** Where an output came from, as the spec's `source` fields say it. */
export type AiSource = 'ai' | 'heuristic';

/** The model name recorded when the offline writer produced an output. */
export const offlineModel = 'offline';

export interface AiJob<Input, Output> {
  /** The agent run's jobType, `<slice>.<verb>` (e.g. `strategy.generate`); documented in docs/decisions.md. */
  readonly jobType: string;
  /** The creditActionCosts key a model call is priced by; the heuristic writer is free. */
  readonly creditAction: string;
  /** The output's shape: the model's structured output is validated against it (retried when malformed). */
  readonly output: z.ZodType<Output>;
  /** A short name of the output for the provider's structured-output request (`strategy`, `brand_profile`). */
  readonly outputName: string;
  /** The prompt for a model. Must draw on public knowledge only (see domain/brand-profile disclosure). */
  prompt(input: Input): AiPrompt;
  /** The offline writer: useful, grounded output from templates and the input alone. Deterministic. */
  heuristic(input: Input): Output;
}

/** What running a job gives back to the slice. */
export interface AiJobResult<Output> {
  output: Output;
  source: AiSource;
  /** `provider:model` for a model call, `offline` for the heuristic writer. */
  providerModel: string;
  runId: string;
  /** Credits charged for this run (0 for the heuristic writer). */
  creditsUsed: number;
}

/** Who asked, for the run's record, its credits and its idempotency. */
export interface AiJobRequest<Input> {
  orgId: string;
  input: Input;
  /** The signed-in user, or null for the service's own work. */
  userId: string | null;
  /** The same key again answers the first run's result (a run is idempotent by key within its workspace). */
  idempotencyKey?: string | null;
  /** The run's payload as shown by GET agent-runs (defaults to the input when it is a plain object). */
  payload?: Record<string, unknown>;
}

/** The runtime's face to the slices (provided by the ai slice as the `aiJobs` service). */
export interface AiJobRunner {
  run<Input, Output>(job: AiJob<Input, Output>, request: AiJobRequest<Input>): Promise<AiJobResult<Output>>;
}
