// A service one slice provides and others require (api/shared/provider.ts), named once: the name for start-up
// errors, the type for `ctx.use(service)`.
export interface Service<T> {
  readonly name: string;
  /** Never set: carries the service's type. */
  readonly type?: () => T;
}

/** Declares a service: `export const mediaLibrary = service<MediaLibrary>('media library');`. */
export function service<T>(name: string): Service<T> {
  return { name };
}
