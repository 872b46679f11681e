// What the brand slice's routes, tools and other slices share, built once per runtime: the brand kit reader
// (the visuals slice renders with `brandKitOf(ctx).renderBrand(orgId)`).
import type { BrandKitReader } from '../../commands/brand/brand-kit-port.js';
import { createBrandKitReader } from '../../commands/brand/brand-kit-reader.js';
import type { MediaLibrary } from '../../commands/media/library.js';
import type { SliceContext } from '../shared/slice.js';

export interface BrandServices {
  reader: BrandKitReader;
}

/**
 * Keyed by the runtime's route services, which the routes' context and every worker's context share (a worker
 * gets a copy of the context, so keying by the context itself would build a second reader and logo cache).
 */
const built = new WeakMap<object, BrandServices>();

// Until the media slice's `mediaLibraryOf(ctx)` is wired in, the kit's logo cannot be read back.
const noMediaLibrary: Pick<MediaLibrary, 'read'> = { read: async () => null };

/** The brand services of this runtime (built on first call). */
export function brandServicesOf(ctx: SliceContext): BrandServices {
  const existing = built.get(ctx.services);
  if (existing) return existing;
  const services: BrandServices = {
    reader: createBrandKitReader({
      commands: ctx.commands,
      media: () => noMediaLibrary,
      logger: ctx.logger,
    }),
  };
  built.set(ctx.services, services);
  return services;
}

/** The workspace brand kit as other slices read it: `get(orgId)` and `renderBrand(orgId)`. */
export function brandKitOf(ctx: SliceContext): BrandKitReader {
  return brandServicesOf(ctx).reader;
}
