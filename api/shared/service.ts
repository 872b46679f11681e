// A service one slice provides and others require (api/shared/provider.ts), named once: the name for start-up
// errors, the type for `ctx.use(service)`. And an extension point: a list every slice may add to (its onboarding
// probe, say), read whole by the slice that owns the point (`ctx.contributions(point)`).
export interface Service<T, Name extends string = string> {
  /** Its name as a literal type, so two services of one type are still told apart (`ctx.use` checks it). */
  readonly name: Name;
  /** Never set: carries the service's type. */
  readonly type?: () => T;
}

/** Any service (what a list of services holds). */
export type AnyService = Service<unknown>;

/** The type a service gives (`ctx.use(service)`). */
export type ServiceType<S> = S extends Service<infer T> ? T : never;

/** Declares a service: `export const mediaLibrary = service<MediaLibrary>()('media library');`. */
export function service<T>() {
  return <const Name extends string>(name: Name): Service<T, Name> => ({ name });
}

/** A list slices add to (`Slice.contributes`), e.g. the onboarding slice's probes. */
export interface ExtensionPoint<T> {
  readonly name: string;
  /** Never set: carries the entries' type. */
  readonly type?: () => T;
}

export function extensionPoint<T>(name: string): ExtensionPoint<T> {
  return { name };
}

/** What one slice adds to one point. */
export interface Contribution {
  readonly point: ExtensionPoint<unknown>;
  readonly entries: readonly unknown[];
}

/** A slice's entries for a point: `contributes: [contribute(onboardingProbes, billingProbe)]`. */
export function contribute<T>(point: ExtensionPoint<T>, ...entries: readonly T[]): Contribution {
  return { point, entries };
}
