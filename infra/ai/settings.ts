// The AI model provider's environment variables (issue 27), read by infra/ai and declared by the ai slice
// (api/ai/slice.ts). None set is the embedded default: no provider, and every AI job is written offline.
import { z } from 'zod';
import { defineSettings, optionalString, optionalUrl, type SettingsOf } from '../config/env.js';

export const aiProviders = ['openai', 'anthropic', 'openai-compatible'] as const;
export type AiProviderName = (typeof aiProviders)[number];

const optionalPrice = optionalString
  .pipe(
    z
      .string()
      .optional()
      .transform((v) => (v === undefined ? undefined : Number(v))),
  )
  .pipe(z.number().min(0).max(1_000).optional());

export const aiSettings = defineSettings(
  {
    /**
     * `openai`, `anthropic` or `openai-compatible` (Ollama, vLLM, LM Studio, hosted gateways). Unset: no model
     * provider; AI jobs are written by their offline writers (`providerModel: "offline"`, no credits).
     */
    AI_PROVIDER: optionalString.pipe(z.enum(aiProviders).optional()),
    /** The model id, e.g. `gpt-4o-mini`, `claude-3-5-haiku-latest`, `llama3.1`; required with AI_PROVIDER. */
    AI_MODEL: optionalString,
    /** The API's base URL; required for openai-compatible, optional for openai and anthropic (their own API). */
    AI_BASE_URL: optionalUrl,
    /** The API key (a Bearer token, or Anthropic's x-api-key); required for openai and anthropic. */
    AI_API_KEY: optionalString,
    /** How long one model call may take before it is abandoned as a timeout (seconds). */
    AI_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(60),
    /** The longest `Retry-After` a rate-limited call waits before trying again; longer ones fail the attempt (seconds). */
    AI_MAX_RETRY_AFTER_SECONDS: z.coerce.number().min(0).max(300).default(20),
    /** Further model rounds asked when the structured output is malformed, before the run fails. */
    AI_OUTPUT_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
    /** Attempts of an agent run (a timeout or an unreachable provider starts another one, up to this many). */
    AI_RUN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(2),
    /**
     * How long a worker holds a run without a new step before the run counts as lost (seconds). Default: the
     * timeout plus the longest Retry-After plus 30 s, so a live worker never loses its run.
     */
    AI_RUN_LEASE_SECONDS: z.coerce.number().min(1).max(3600).optional(),
    /** What the provider charges per million input tokens (USD), for estimatedCostMilliUsd; default: known models. */
    AI_INPUT_USD_PER_MILLION_TOKENS: optionalPrice,
    /** What the provider charges per million output tokens (USD). */
    AI_OUTPUT_USD_PER_MILLION_TOKENS: optionalPrice,
  },
  (env, ctx) => {
    const need = (name: keyof typeof env, why: string) => {
      if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: `is required ${why}` });
    };
    if (!env.AI_PROVIDER) {
      for (const name of ['AI_MODEL', 'AI_BASE_URL', 'AI_API_KEY'] as const)
        if (env[name])
          ctx.addIssue({
            code: 'custom',
            path: ['AI_PROVIDER'],
            message: `is required when ${name} is set (openai, anthropic or openai-compatible)`,
          });
      return;
    }
    need('AI_MODEL', 'when AI_PROVIDER is set');
    if (env.AI_PROVIDER === 'openai-compatible') need('AI_BASE_URL', 'when AI_PROVIDER is openai-compatible');
    else need('AI_API_KEY', `when AI_PROVIDER is ${env.AI_PROVIDER}`);
  },
);

export type AiEnv = SettingsOf<typeof aiSettings>;
