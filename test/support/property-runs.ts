// How many cases a property test runs, sized by the PROPERTY_RUNS environment variable (docs/operations.md,
// "Testing"). Each property states its thorough count, the one it was written with; an ordinary run (a developer's
// `npm test`, CI) runs a modest share of it, a nightly-style run the whole count or a multiple of it.
//
//   PROPERTY_RUNS unset or `modest`  the property's modest count: by default a fifth of the thorough count, never
//                                    fewer than 20 (nor more than the count); a property whose coverage checks
//                                    need more states its own
//   PROPERTY_RUNS=thorough           the thorough count
//   PROPERTY_RUNS=<n>                n times the thorough count (n a positive number, e.g. 4 for a long soak)
//
// A failing case prints fast-check's seed and path; `fc.assert(…, { seed, path })` replays it at any size.

/** The modest share of a property's thorough count, and the floor below which a property says too little. */
export const modestShare = 0.2;
export const modestFloor = 20;

export type PropertyRunsSetting = { kind: 'modest' } | { kind: 'scaled'; factor: number };

/** Reads PROPERTY_RUNS; anything else than `modest`, `thorough` or a positive number is an error naming it. */
export function propertyRunsSetting(value: string | undefined): PropertyRunsSetting {
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '' || text === 'modest') return { kind: 'modest' };
  if (text === 'thorough') return { kind: 'scaled', factor: 1 };
  const factor = Number(text);
  if (Number.isFinite(factor) && factor > 0) return { kind: 'scaled', factor };
  throw new Error(
    `PROPERTY_RUNS must be "modest", "thorough" or a positive number (a multiple of the thorough count); got ${JSON.stringify(value)}`,
  );
}

/** The number of runs for a property whose thorough count is `thorough` (and modest one `modest`), under `setting`. */
export function runsFor(thorough: number, setting: PropertyRunsSetting, modest?: number): number {
  for (const [name, n] of [
    ['thorough', thorough],
    ['modest', modest ?? 1],
  ] as const)
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`a property's ${name} count is a positive integer; got ${n}`);
  if (setting.kind === 'scaled') return Math.max(1, Math.round(thorough * setting.factor));
  return Math.min(thorough, modest ?? Math.max(modestFloor, Math.ceil(thorough * modestShare)));
}

const setting = propertyRunsSetting(process.env.PROPERTY_RUNS);

/**
 * `numRuns` for a property written to run `thorough` cases: `fc.assert(property, { numRuns: propertyRuns(1500) })`;
 * `modest` overrides the default modest count (a property that checks its runs reached enough interesting places).
 */
export function propertyRuns(thorough: number, modest?: number): number {
  return runsFor(thorough, setting, modest);
}
