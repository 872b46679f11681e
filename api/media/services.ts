// What the media slice's operations and the slices that store or read media share, built once per runtime:
// the library (commands/media/library.ts port) and the use cases' dependencies.
import type { MediaLibrary } from '../../commands/media/library.js';
import { createMediaLibrary, type MediaLibraryDeps } from '../../commands/media/media-library.js';
import type { MediaUseCaseDeps } from '../../commands/media/media-use-cases.js';
import type { SliceContext } from '../shared/slice.js';

export interface MediaServices {
  library: MediaLibrary;
  /** What the upload, complete, import and list use cases take. */
  deps: MediaUseCaseDeps;
}

/**
 * Keyed by the runtime's route services, which the routes' context and every worker's context share (a worker
 * gets a copy of the context, so the context itself would build a second library).
 */
const built = new WeakMap<object, MediaServices>();

/** The media services of this runtime (built on first call). */
export function mediaServicesOf(ctx: SliceContext): MediaServices {
  const existing = built.get(ctx.services);
  if (existing) return existing;
  const base: MediaLibraryDeps = {
    commands: ctx.commands,
    readModels: ctx.readModels,
    storage: ctx.storage,
    publicBaseUrl: ctx.publicBaseUrl,
    now: ctx.services.now ?? (() => new Date()),
    storageQuotaBytes: ctx.env.WORKSPACE_STORAGE_QUOTA_BYTES,
  };
  const services: MediaServices = {
    library: createMediaLibrary(base),
    deps: {
      ...base,
      idempotency: ctx.idempotency,
      outbound: ctx.options.outbound ?? {},
      logger: ctx.logger,
    },
  };
  built.set(ctx.services, services);
  return services;
}

/** The media library of this runtime: the brand kit and the visuals slice store and read assets through it. */
export function mediaLibraryOf(ctx: SliceContext): MediaLibrary {
  return mediaServicesOf(ctx).library;
}
