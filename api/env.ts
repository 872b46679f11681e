// The service's environment, composed in the composition root from the slices' settings: every fragment a slice
// of api/slices.ts lists (a slice adds its variables by declaring them on itself, api/shared/slice.ts), parsed
// once at start. A bad value stops the start with a message naming the variable (README "Configuration").
import { composeSettings, parseSettings, type Settings } from '../infra/config/env.js';
import type { Slice } from './shared/slice.js';
import { slices } from './slices.js';

/** The fragments the slices list, in slice order (the platform's first). */
type FragmentsOf<L extends readonly Slice[]> = L[number] extends infer E
  ? E extends Slice<infer S>
    ? S[number]
    : never
  : never;

/** Every fragment the slices list, in slice order; one listed by two slices once. */
export function settingsOfSlices<const L extends readonly Slice[]>(list: L): FragmentsOf<L>[] {
  return [...new Set(list.flatMap((slice) => slice.settings ?? []))] as Settings[] as FragmentsOf<L>[];
}

/** The environment schema: every slice's settings, and their checks. */
export const envSchema = composeSettings(settingsOfSlices(slices));

/** The whole parsed environment, typed from the slices' settings. */
export type Env = ReturnType<typeof loadEnv>;

/** Parses the environment; throws ConfigError naming each bad variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env) {
  const env = parseSettings(envSchema, source);
  return { ...env, BUS: env.BUS ?? (env.NATS_URL ? ('nats' as const) : ('in-process' as const)) };
}
