// Slices as complete modules: what a slice provides (a service built once per runtime from what it requires) and
// what it requires of other slices, declared on the slice (`Slice.provides`, `Slice.requires`). The runtime builds
// every provider once, in dependency order, before any route or worker, and stops them in reverse; a service
// required but provided by no slice, provided twice, or providers requiring each other stop the start, naming
// the slices. A slice reaches a service with `ctx.use(service)`, only one it requires or provides.
import type { PlatformEnv } from '../platform/settings.js';
import type { AnyService, Service } from './service.js';
import type { SliceContext } from './slice-context.js';

/**
 * How a slice builds one service. `E` is the environment its build reads (the runtime hands it the whole
 * environment; the slice providing it lists those settings).
 */
export interface Provider<
  T = unknown,
  E extends PlatformEnv = PlatformEnv,
  Provided extends Service<T> = Service<T>,
> {
  readonly service: Provided;
  /** The services its build uses (`ctx.use`). */
  readonly requires: readonly AnyService[];
  build(ctx: SliceContext<AnyService, E>): T | Promise<T>;
  /** Called when the runtime stops, in reverse build order. */
  stop?(value: T): Promise<void>;
}

/**
 * Declares how a slice builds a service: its build's context takes only the services listed in `requires`
 * (a type error otherwise; the runtime checks it too).
 */
export function provide<
  T,
  Name extends string,
  const Requires extends readonly AnyService[] = readonly [],
  E extends PlatformEnv = PlatformEnv,
>(
  service: Service<T, Name>,
  definition: {
    requires?: Requires;
    build: (ctx: SliceContext<Requires[number], E>) => T | Promise<T>;
    stop?: (value: T) => Promise<void>;
  },
): Provider<T, E, Service<T, Name>> {
  const { build, stop } = definition;
  return {
    service,
    requires: definition.requires ?? [],
    // The runtime's context checks `use` at run time against `requires` too (api/runtime.ts `contextFor`).
    build,
    ...(stop ? { stop } : {}),
  };
}

export class ProviderConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderConflict';
  }
}

export interface ProvidingSlice {
  name: string;
  provides?: readonly Provider[];
  requires?: readonly AnyService[];
}

/**
 * The slices' providers in an order where each comes after every provider of what it requires. Throws a
 * ProviderConflict naming the slices when a service is provided twice, required but not provided, or when
 * providers require each other.
 */
export function orderProviders(
  slices: readonly ProvidingSlice[],
): Array<{ slice: string; provider: Provider }> {
  const byService = new Map<AnyService, { slice: string; provider: Provider }>();
  for (const slice of slices)
    for (const provider of slice.provides ?? []) {
      const other = byService.get(provider.service);
      if (other)
        throw new ProviderConflict(
          `The "${provider.service.name}" service is provided twice: by slice "${other.slice}" and by slice "${slice.name}"`,
        );
      byService.set(provider.service, { slice: slice.name, provider });
    }
  const missing = (who: string, needs: readonly AnyService[]) => {
    const absent = needs.find((s) => !byService.has(s));
    if (absent)
      throw new ProviderConflict(`${who} requires the "${absent.name}" service, which no slice provides`);
  };
  for (const slice of slices) {
    missing(`Slice "${slice.name}"`, slice.requires ?? []);
    for (const provider of slice.provides ?? [])
      missing(`Slice "${slice.name}" (its "${provider.service.name}" provider)`, provider.requires);
  }
  const ordered: Array<{ slice: string; provider: Provider }> = [];
  const state = new Map<AnyService, 'visiting' | 'done'>();
  const visit = (service: AnyService, path: readonly AnyService[]) => {
    if (state.get(service) === 'done') return;
    const entry = byService.get(service)!;
    if (state.get(service) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(service)), service].map(
        (s) => `"${s.name}" (slice "${byService.get(s)!.slice}")`,
      );
      throw new ProviderConflict(`Services require each other: ${cycle.join(' -> ')}`);
    }
    state.set(service, 'visiting');
    for (const needed of entry.provider.requires) visit(needed, [...path, service]);
    state.set(service, 'done');
    ordered.push(entry);
  };
  for (const service of byService.keys()) visit(service, []);
  return ordered;
}
