// What the media slice's operations and the slices that store or read media share, built once per runtime:
// the library (commands/media/library.ts port) and the use cases' dependencies.
import type { MediaLibrary } from '../../commands/media/library.js';
import { createMediaLibrary, type MediaLibraryDeps } from '../../commands/media/media-library.js';
import type { MediaUseCaseDeps } from '../../commands/media/media-use-cases.js';
import { service } from '../shared/service.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { SliceContext } from '../shared/slice.js';
import type { StorageEnv } from '../storage/settings.js';

export interface MediaServices {
  library: MediaLibrary;
  /** What the upload, complete, import and list use cases take. */
  deps: MediaUseCaseDeps;
}

/** The media slice's services, provided once per runtime (the brand kit and visuals store and read assets). */
export const mediaServices = service<MediaServices>()('media');

/** Builds the media services of a runtime (the media slice's provider). */
export function buildMediaServices(ctx: SliceContext<never, PlatformEnv & StorageEnv>): MediaServices {
  const base: MediaLibraryDeps = {
    commands: ctx.commands,
    readModels: ctx.readModels,
    storage: ctx.storage,
    publicBaseUrl: ctx.publicBaseUrl,
    now: ctx.services.now ?? (() => new Date()),
    storageQuotaBytes: ctx.env.WORKSPACE_STORAGE_QUOTA_BYTES,
  };
  return {
    library: createMediaLibrary(base),
    deps: {
      ...base,
      idempotency: ctx.idempotency,
      outbound: ctx.options.outbound ?? {},
      ...(ctx.options.fetchTimeoutMs ? { importTimeoutMs: ctx.options.fetchTimeoutMs } : {}),
      logger: ctx.logger,
    },
  };
}
