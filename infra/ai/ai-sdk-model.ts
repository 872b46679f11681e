// The model port on the AI SDK (`ai` with @ai-sdk/openai, @ai-sdk/anthropic and @ai-sdk/openai-compatible):
// one `generateText` round asking for a structured output (`Output.object` from the job's zod schema), with the
// SDK's own retries off (the runner retries, so that each round is a recorded step) and its errors classified.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  APICallError,
  generateText,
  NoObjectGeneratedError,
  NoOutputGeneratedError,
  Output,
  type LanguageModel,
  type LanguageModelUsage,
} from 'ai';
import type { AiProviderName } from './settings.js';
import {
  ModelError,
  noUsage,
  type LanguageModelPort,
  type ModelAnswer,
  type ModelRequest,
  type TokenUsage,
} from './port.js';
import { modelPrices, type ModelPrices } from './pricing.js';

export interface AiSdkModelOptions {
  provider: AiProviderName;
  model: string;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  timeoutMs: number;
  /** Prices per million tokens; default: the known model's (pricing.ts), else none (cost 0). */
  prices?: ModelPrices | null;
  /** For tests: the fetch the provider uses. */
  fetch?: typeof fetch;
}

function languageModelOf(options: AiSdkModelOptions): LanguageModel {
  const common = {
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  switch (options.provider) {
    case 'openai':
      // Chat Completions: the wire format every OpenAI-compatible server shares, JSON-schema outputs included.
      return createOpenAI(common).chat(options.model);
    case 'anthropic':
      return createAnthropic(common)(options.model);
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: options.baseUrl ?? '',
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        supportsStructuredOutputs: true,
        includeUsage: true,
      })(options.model);
  }
}

function usageOf(usage: LanguageModelUsage | undefined): TokenUsage {
  if (!usage) return noUsage;
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  return {
    inputTokens,
    outputTokens,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? 0,
    totalTokens: usage.totalTokens ?? inputTokens + outputTokens,
  };
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in milliseconds; null when absent or unreadable. */
export function retryAfterMsOf(headers: Record<string, string> | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(lower['retry-after-ms']);
  if (lower['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = lower['retry-after'];
  if (value === undefined) return null;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const isTimeout = (error: unknown): boolean =>
  error instanceof Error &&
  (error.name === 'TimeoutError' ||
    (error.name === 'AbortError' && /timeout/i.test(error.message)) ||
    isTimeout((error as { cause?: unknown }).cause));

/** The SDK's error as one of the port's failures (never the request body or key in the message). */
export function classify(error: unknown, timeoutMs: number): ModelError {
  if (error instanceof ModelError) return error;
  if (isTimeout(error))
    return new ModelError('timeout', `The model did not answer within ${Math.round(timeoutMs / 1000)} s`);
  if (NoObjectGeneratedError.isInstance(error)) {
    const usage = usageOf(error.usage);
    if (error.finishReason === 'content-filter')
      return new ModelError(
        'refused',
        `The model declined: ${(error.text ?? '').slice(0, 300) || 'content filter'}`,
        {
          usage,
          text: error.text ?? null,
        },
      );
    const cause = error.cause instanceof Error ? `: ${error.cause.message.slice(0, 300)}` : '';
    return new ModelError('malformed', `The model's answer is not the structured output asked for${cause}`, {
      usage,
      text: error.text ?? null,
    });
  }
  if (NoOutputGeneratedError.isInstance(error))
    return new ModelError('malformed', 'The model gave no structured output');
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === 429)
      return new ModelError('rate_limited', 'The model provider is rate-limiting this service (429)', {
        retryAfterMs: retryAfterMsOf(error.responseHeaders),
      });
    if (status === 401 || status === 403)
      return new ModelError(
        'unavailable',
        `The model provider refused the service's credentials (${status})`,
      );
    if (status === 404)
      return new ModelError('unavailable', 'The model provider does not know the configured model (404)');
    if (status !== undefined && status >= 400 && status < 500)
      return new ModelError('unavailable', `The model provider refused the request (${status})`);
    if (status !== undefined) return new ModelError('unavailable', `The model provider failed (${status})`);
    return new ModelError('unavailable', 'The model provider is not reachable');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError('unavailable', `The model call failed: ${message.slice(0, 300)}`);
}

export function createAiSdkModel(options: AiSdkModelOptions): LanguageModelPort {
  const languageModel = languageModelOf(options);
  const prices = options.prices === undefined ? modelPrices(options.model) : options.prices;
  return {
    provider: options.provider,
    model: options.model,
    costMilliUsd(usage) {
      if (!prices) return 0;
      const usd =
        (usage.inputTokens * prices.inputUsdPerMillion + usage.outputTokens * prices.outputUsdPerMillion) /
        1_000_000;
      return Math.round(usd * 1000 * 1000) / 1000;
    },
    async generate<Output>(request: ModelRequest<Output>): Promise<ModelAnswer<Output>> {
      try {
        const result = await generateText({
          model: languageModel,
          system: request.system,
          prompt: request.prompt,
          output: Output.object({ schema: request.schema, name: request.schemaName }),
          // Each round is a step the runner records; it decides what to try again (Retry-After included).
          maxRetries: 0,
          timeout: options.timeoutMs,
          ...(request.signal ? { abortSignal: request.signal } : {}),
        });
        const usage = usageOf(result.usage);
        if (result.finishReason === 'content-filter')
          throw new ModelError('refused', `The model declined: ${result.text.slice(0, 300)}`, { usage });
        return {
          output: result.output,
          text: result.text,
          reasoning: result.reasoningText ?? null,
          usage,
        };
      } catch (error) {
        throw classify(error, options.timeoutMs);
      }
    },
  };
}
