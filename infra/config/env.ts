// Service configuration, the machinery: a settings fragment (the environment variables one part of the service
// reads, declared next to the code that reads them), composing fragments into one schema, and parsing the
// environment against it. The fragments live with their owners (api/<slice>/settings.ts, or the adapter's infra
// folder when an adapter reads them); the composition root (api/env.ts) composes every slice's into the schema
// it parses once at start. A bad value stops the start with a message naming the variable (README "Configuration").
import { z } from 'zod';

export const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const port = z.coerce.number().int().min(0).max(65535);
export const url = z.string().url();
export const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(url.optional());
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));
/** Comma-separated http(s) origins (scheme, host and port; no path), normalised as `URL.origin` writes them. */
export const originList = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const origins: string[] = [];
    for (const item of (value ?? '').split(',').map((s) => s.trim())) {
      if (item === '') continue;
      const url = URL.canParse(item) ? new URL(item) : null;
      const bare = url && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
      if (!url || !bare || !/^https?:$/.test(url.protocol)) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be comma-separated http(s) origins without a path, e.g. https://app.example.org',
        });
        return z.NEVER;
      }
      origins.push(url.origin);
    }
    return origins;
  });

/**
 * A slice's own environment variables: a zod object fragment, and checks across them that run once every
 * variable of the environment has parsed. `composeSettings` merges fragments into one object.
 */
export interface Settings<Shape extends z.ZodRawShape = z.ZodRawShape> {
  shape: Shape;
  check?(env: z.output<z.ZodObject<Shape>>, ctx: z.RefinementCtx): void;
}

export function defineSettings<Shape extends z.ZodRawShape>(
  shape: Shape,
  check?: (env: z.output<z.ZodObject<Shape>>, ctx: z.RefinementCtx) => void,
): Settings<Shape> {
  return check ? { shape, check } : { shape };
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** The fragments' shapes as one object type. */
type MergedShape<U> = { [K in keyof Intersection<U>]: Intersection<U>[K] };

/** The parsed values of one fragment. */
export type SettingsOf<F extends Settings> =
  F extends Settings<infer Shape> ? z.output<z.ZodObject<Shape>> : never;

/** The parsed values of fragments (a union of fragment types) as one object type; `{}` for none. */
export type SettingsValues<F extends Settings> = [F] extends [never] ? unknown : Intersection<SettingsOf<F>>;

/**
 * One object of every fragment's variables and all their checks. A fragment listed more than once (two slices
 * reading the same one) counts once; a variable declared by two fragments stops the start.
 */
export function composeSettings<const F extends readonly Settings[]>(listed: F) {
  const fragments = [...new Set(listed)];
  const shape: Record<string, z.core.$ZodType> = {};
  for (const fragment of fragments) {
    for (const [name, schema] of Object.entries(fragment.shape)) {
      if (name in shape) throw new Error(`${name} is declared by two settings fragments`);
      shape[name] = schema;
    }
  }
  return z.object(shape as MergedShape<F[number]['shape']>).superRefine((env, ctx) => {
    for (const fragment of fragments) fragment.check?.(env, ctx);
  });
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment against a composed schema (`composeSettings`); throws ConfigError naming each bad
 * variable (the value is shown unless the name says it is a key, secret or password).
 */
export function parseSettings<T>(
  schema: z.ZodType<T>,
  source: Record<string, string | undefined> = process.env,
): T {
  const result = schema.safeParse(source);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.map(String).join('.') || '(environment)';
        const value = source[name];
        const shown = value === undefined || /KEY|SECRET|PASSWORD/.test(name) ? '' : ` (got "${value}")`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  return result.data;
}
