// The model port (issue 27): one round with a language model that answers a structured output (a zod schema),
// with its token usage. The adapter (ai-sdk-model.ts) speaks to OpenAI, Anthropic and OpenAI-compatible servers
// through the AI SDK; failures come out classified (ModelError), so the runner decides what to retry.
import type { z } from 'zod';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Output tokens spent reasoning (counted in outputTokens too), where the provider reports them. */
  reasoningTokens: number;
  totalTokens: number;
}

export const noUsage: TokenUsage = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 };

export interface ModelRequest<Output> {
  system: string;
  prompt: string;
  schema: z.ZodType<Output>;
  /** A short name of the output (`strategy`), sent with the schema where the provider takes one. */
  schemaName: string;
  signal?: AbortSignal;
}

export interface ModelAnswer<Output> {
  output: Output;
  /** The answer as the model wrote it (JSON text), for the step's record. */
  text: string;
  reasoning: string | null;
  usage: TokenUsage;
}

/**
 * Why a round failed: `timeout` (no answer in time), `rate_limited` (429; `retryAfterMs` when the provider said
 * when to come back), `refused` (the model declined: a refusal or its content filter), `unavailable` (our
 * credentials were refused, the model is unknown, or the provider is unreachable or failing), `malformed` (the
 * answer is not the structured output asked for).
 */
export type ModelFailure = 'timeout' | 'rate_limited' | 'refused' | 'unavailable' | 'malformed';

export class ModelError extends Error {
  constructor(
    readonly reason: ModelFailure,
    message: string,
    readonly details: { retryAfterMs?: number | null; usage?: TokenUsage; text?: string | null } = {},
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

export interface LanguageModelPort {
  /** The provider's name as recorded (`openai`, `anthropic`, `openai-compatible`). */
  readonly provider: string;
  readonly model: string;
  /** Estimated provider cost of a round's usage, in thousandths of a US dollar (0 when unknown). */
  costMilliUsd(usage: TokenUsage): number;
  generate<Output>(request: ModelRequest<Output>): Promise<ModelAnswer<Output>>;
}
