// The configured model provider, or null when none is (AI_PROVIDER unset: the embedded default, offline writers).
import { createAiSdkModel } from './ai-sdk-model.js';
import type { LanguageModelPort } from './port.js';
import type { AiEnv } from './settings.js';

export function languageModelFromEnv(env: AiEnv): LanguageModelPort | null {
  if (!env.AI_PROVIDER || !env.AI_MODEL) return null;
  const given =
    env.AI_INPUT_USD_PER_MILLION_TOKENS !== undefined || env.AI_OUTPUT_USD_PER_MILLION_TOKENS !== undefined;
  return createAiSdkModel({
    provider: env.AI_PROVIDER,
    model: env.AI_MODEL,
    baseUrl: env.AI_BASE_URL,
    apiKey: env.AI_API_KEY,
    timeoutMs: env.AI_TIMEOUT_SECONDS * 1000,
    ...(given
      ? {
          prices: {
            inputUsdPerMillion: env.AI_INPUT_USD_PER_MILLION_TOKENS ?? 0,
            outputUsdPerMillion: env.AI_OUTPUT_USD_PER_MILLION_TOKENS ?? 0,
          },
        }
      : {}),
  });
}
