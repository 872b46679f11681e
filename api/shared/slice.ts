// What a slice brings to the service, declared once in its own module (api/<slice>/slice.ts) with `defineSlice`:
// migrations, projections, process managers, routes, background workers, settings, and what it provides to,
// requires of and contributes to other slices. The runtime (api/runtime.ts) loops over the list in api/slices.ts
// instead of naming each piece, and the environment schema is composed from the slices' settings (api/env.ts);
// docs/adding-a-slice.md says how to add one.
import type { Migration } from 'kysely';
import type { Settings, SettingsValues } from '../../infra/config/env.js';
import type { Projection } from '../../projections/engine/projection.js';
import type { ProcessManager } from '../../processes/runner/process-manager.js';
import type { RouteInstaller } from '../platform/app-env.js';
import type { OperationGroup } from './operation.js';
import { orderProviders, type Provider } from './provider.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { AnyService, Contribution, ExtensionPoint } from './service.js';
import type { BackgroundContext, RuntimeSettings, SliceContext } from './slice-context.js';

export type { BackgroundContext, RuntimeSettings, SliceContext } from './slice-context.js';

/** What a runtime is built with (api/runtime.ts); `E` is the whole environment (api/env.ts `Env`). */
export interface RuntimeOptions<E extends PlatformEnv = PlatformEnv> extends RuntimeSettings<E> {
  /** Replaces the slices of api/slices.ts (tests add one to show a slice is one registration). */
  slices?: readonly Slice[];
}

/** One migration: `<4-digit number>_<name>`, run in number order with every slice's migrations. */
export type SliceMigration = readonly [name: string, migration: Migration];

export interface RunningWorker {
  stop(): Promise<void>;
}

/** Background work of a slice; started by `startBackground` in slice order and stopped in reverse. */
export interface BackgroundWorker<Uses extends AnyService = AnyService, E extends PlatformEnv = PlatformEnv> {
  name: string;
  /** Starts the worker; undefined when it does not run in this configuration (e.g. it needs the bus). */
  start(ctx: BackgroundContext<Uses, E>): Promise<RunningWorker | undefined>;
}

/** The environment a slice's context has: the platform's variables and those of the settings it lists. */
export type SliceEnv<S extends readonly Settings[]> = PlatformEnv & SettingsValues<S[number]>;

/**
 * A slice, as the runtime sees it. `S` is the settings it lists, kept in its type so the composition root can
 * type the whole environment (api/env.ts). Declare one with `defineSlice`, which types its context.
 */
export interface Slice<S extends readonly Settings[] = readonly Settings[]> {
  /** e.g. 'post-groups'; named in start-up errors. */
  name: string;
  /** In number order; numbers are unique across slices (checked at start, see `composeSlices`). */
  migrations?: readonly SliceMigration[];
  /**
   * Read models; also what read-your-writes waits for. Or a function of the slices' contributions, for a read
   * model made from what other slices add to its extension point (the notifications read model from their rules).
   */
  projections?: readonly Projection[] | ((contributions: Contributions) => readonly Projection[]);
  processManagers?: readonly ProcessManager[];
  /** Services this slice builds for itself and others (api/shared/provider.ts), once per runtime. */
  provides?: readonly Provider[];
  /** Services of other slices this slice uses (`ctx.use`); a missing provider stops the start. */
  requires?: readonly AnyService[];
  /** Entries this slice adds to other slices' extension points (e.g. its onboarding probe). */
  contributes?: readonly Contribution[];
  /**
   * The slice's operations (api/shared/operation.ts): each one declaration from which its route and, where it
   * has one, its tool are made. Their routes go into the app before the slice's other `routes`.
   */
  operations?: readonly OperationGroup[];
  /** Route installers, in the order they go into the app (the OpenAPI document lists paths in that order). */
  routes?(ctx: SliceContext): readonly RouteInstaller[];
  workers?: readonly BackgroundWorker[];
  /**
   * The environment variables the slice reads besides the platform's (api/platform/settings.ts): fragments
   * (`defineSettings`) declared next to the code that owns them, its own or another slice's. The environment
   * schema is every slice's fragments (api/env.ts); a fragment listed by two slices counts once.
   */
  settings?: S;
}

/**
 * A slice whose context is typed by what it declares: `ctx.use` in its routes and workers takes only a service
 * it requires or provides (another is a type error, and still throws at run time), and `ctx.env` has the
 * platform's variables and those of the settings it lists.
 */
export interface SliceDefinition<
  S extends readonly Settings[],
  Requires extends readonly AnyService[],
  Provides extends readonly Provider<unknown, never, AnyService>[],
> extends Omit<Slice<S>, 'requires' | 'provides' | 'routes' | 'workers'> {
  requires?: Requires;
  provides?: Provides;
  routes?(ctx: SliceContext<Uses<Requires, Provides>, SliceEnv<S>>): readonly RouteInstaller[];
  workers?: readonly BackgroundWorker<Uses<Requires, Provides>, SliceEnv<S>>[];
}

/** The services a slice may `use`: those it requires and those it provides. */
export type Uses<
  Requires extends readonly AnyService[],
  Provides extends readonly Provider<unknown, never, AnyService>[],
> = Requires[number] | Provides[number]['service'];

/** Declares a slice (api/<slice>/slice.ts); see `SliceDefinition`. */
export function defineSlice<
  const S extends readonly Settings[] = readonly [],
  const Requires extends readonly AnyService[] = readonly [],
  const Provides extends readonly Provider<unknown, never, AnyService>[] = readonly [],
>(definition: SliceDefinition<S, Requires, Provides>): Slice<S> {
  // The runtime hands every slice one context whose `env` is the whole environment and whose `use` it checks
  // against `requires` and `provides` at run time (api/runtime.ts): the narrower types above are the slice's view.
  return definition;
}

/** Every slice's entries for an extension point, in slice order. */
export type Contributions = <T>(point: ExtensionPoint<T>) => readonly T[];

/** The slices' contributions (`Slice.contributes`): static, so read models can be made from them at start. */
export function contributionsOf(slices: readonly Slice[]): Contributions {
  return <T>(point: ExtensionPoint<T>): readonly T[] =>
    slices.flatMap((slice) =>
      (slice.contributes ?? []).flatMap((c) => (c.point === point ? (c.entries as readonly T[]) : [])),
    );
}

/** A slice's projections, made from the slices' contributions where it declares them as a function. */
export function projectionsOf(slice: Slice, contributions: Contributions): readonly Projection[] {
  const { projections } = slice;
  return typeof projections === 'function' ? projections(contributions) : (projections ?? []);
}

/** The `{ name: migration }` objects adapters export, as one list in name (= number) order. */
export function migrationsOf(...records: Record<string, Migration>[]): SliceMigration[] {
  return records.flatMap((record) => Object.entries(record)).sort(([a], [b]) => (a < b ? -1 : 1));
}

/**
 * Migration numbers used twice before numbers were checked, allowed as exactly these pairs. Existing databases
 * have run both under these names (kysely records names in `schema_migrations`, and refuses to start when an
 * executed migration is missing), so neither is renamed. No other number may repeat.
 */
export const historicMigrationNumberReuse: readonly (readonly [string, string])[] = [
  ['0007_sandbox', '0007_social_account_tokens'],
];

export class SliceConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SliceConflict';
  }
}

const migrationName = /^(\d{4})_[a-z0-9_]+$/;

/**
 * Every slice's migrations as one object in name (= number) order. Stops with a SliceConflict naming both
 * slices and keys when a key or a number is declared twice (except `historicMigrationNumberReuse`), when a
 * name is not `<4-digit number>_<name>`, or when a slice lists its migrations out of order.
 */
export function collectMigrations(
  slices: readonly Slice[],
  allowedReuse: readonly (readonly [string, string])[] = historicMigrationNumberReuse,
): Record<string, Migration> {
  const byName = new Map<string, { slice: string; migration: Migration }>();
  const byNumber = new Map<string, Array<{ slice: string; name: string }>>();
  const allowed = (a: string, b: string) =>
    allowedReuse.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
  let highest = 0;
  const all = slices.flatMap((slice) => (slice.migrations ?? []).map(([name]) => ({ slice, name })));
  for (const { name } of all) {
    const number = migrationName.exec(name)?.[1];
    if (number) highest = Math.max(highest, Number(number));
  }
  const nextFree = String(highest + 1).padStart(4, '0');
  for (const slice of slices) {
    let previous: string | undefined;
    for (const [name, migration] of slice.migrations ?? []) {
      const number = migrationName.exec(name)?.[1];
      if (!number)
        throw new SliceConflict(
          `Slice "${slice.name}": migration "${name}" must be named <4-digit number>_<lower_case_name>, e.g. "${nextFree}_${slice.name.replace(/\W/g, '_')}"`,
        );
      if (previous !== undefined && name <= previous)
        throw new SliceConflict(
          `Slice "${slice.name}" lists migration "${name}" after "${previous}": list a slice's migrations in number order`,
        );
      previous = name;
      const same = byName.get(name);
      if (same)
        throw new SliceConflict(
          `Migration "${name}" is declared twice: by slice "${same.slice}" and by slice "${slice.name}"`,
        );
      for (const other of byNumber.get(number) ?? []) {
        if (!allowed(other.name, name))
          throw new SliceConflict(
            `Migration number ${number} is used twice: "${other.name}" (slice "${other.slice}") and "${name}" (slice "${slice.name}"); give the newer one the next free number, ${nextFree}`,
          );
      }
      byName.set(name, { slice: slice.name, migration });
      byNumber.set(number, [...(byNumber.get(number) ?? []), { slice: slice.name, name }]);
    }
  }
  return Object.fromEntries(
    [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, m]) => [n, m.migration]),
  );
}

export interface ComposedSlices {
  migrations: Record<string, Migration>;
  /** Every slice's providers, each after those of what it requires. */
  providers: ReturnType<typeof orderProviders>;
  projections: readonly Projection[];
  processManagers: readonly ProcessManager[];
}

function unique(kind: string, entries: ReadonlyArray<{ slice: string; name: string }>): void {
  const seen = new Map<string, string>();
  for (const { slice, name } of entries) {
    const other = seen.get(name);
    if (other !== undefined)
      throw new SliceConflict(
        kind === 'Slice'
          ? `Slice "${name}" is declared twice`
          : `${kind} "${name}" is declared twice: by slice "${other}" and by slice "${slice}"`,
      );
    seen.set(name, slice);
  }
}

/** Checks the slices fit together and gathers what the runtime runs; a SliceConflict stops the start. */
export function composeSlices(slices: readonly Slice[]): ComposedSlices {
  unique(
    'Slice',
    slices.map((s) => ({ slice: s.name, name: s.name })),
  );
  const contributions = contributionsOf(slices);
  const projections = slices.flatMap((s) =>
    projectionsOf(s, contributions).map((p) => ({ slice: s.name, name: p.name, p })),
  );
  unique('Projection', projections);
  const processes = slices.flatMap((s) =>
    (s.processManagers ?? []).map((p) => ({ slice: s.name, name: p.name, p })),
  );
  unique('Process manager', processes);
  return {
    migrations: collectMigrations(slices),
    providers: orderProviders(slices),
    projections: projections.map((e) => e.p),
    processManagers: processes.map((e) => e.p),
  };
}
