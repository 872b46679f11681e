// What model providers charge per million tokens (USD), for a run's estimatedCostMilliUsd: the settings'
// prices when given, else the list prices of a few well-known models (checked 2026; an estimate, never billed).
export interface ModelPrices {
  inputUsdPerMillion: number;
  outputUsdPerMillion: number;
}

const known: [RegExp, ModelPrices][] = [
  [/^gpt-4o-mini/, { inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6 }],
  [/^gpt-4o/, { inputUsdPerMillion: 2.5, outputUsdPerMillion: 10 }],
  [/^gpt-4\.1-mini/, { inputUsdPerMillion: 0.4, outputUsdPerMillion: 1.6 }],
  [/^gpt-4\.1-nano/, { inputUsdPerMillion: 0.1, outputUsdPerMillion: 0.4 }],
  [/^gpt-4\.1/, { inputUsdPerMillion: 2, outputUsdPerMillion: 8 }],
  [/^claude-3-5-haiku|^claude-haiku-4/, { inputUsdPerMillion: 0.8, outputUsdPerMillion: 4 }],
  [
    /^claude-3-7-sonnet|^claude-sonnet-4|^claude-3-5-sonnet/,
    { inputUsdPerMillion: 3, outputUsdPerMillion: 15 },
  ],
];

/** The list prices of `model`, or null when it is not one we know (a local model costs nothing we can tell). */
export function modelPrices(model: string): ModelPrices | null {
  return known.find(([pattern]) => pattern.test(model))?.[1] ?? null;
}
