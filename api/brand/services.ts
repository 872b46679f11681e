// What the brand slice's operations and other slices share, built once per runtime: the brand kit use
// cases' dependencies and the reader other slices use (the visuals slice renders with
// `brandKitOf(ctx).renderBrand(orgId)`).
import type { BrandKitReader } from '../../commands/brand/brand-kit-port.js';
import { createBrandKitReader } from '../../commands/brand/brand-kit-reader.js';
import type { BrandKitDeps } from '../../commands/brand/brand-kit-use-cases.js';
import type { LogoReader } from '../../infra/brand/logo-image.js';
import { mediaLibraryOf } from '../media/services.js';
import { rendererOf } from '../visuals/renderer-of.js';
import type { SliceContext } from '../shared/slice.js';

export interface BrandServices {
  reader: BrandKitReader;
  /** What the kit's use cases take (the slice's operations). */
  deps: BrandKitDeps;
}

/**
 * Keyed by the runtime's route services, which the routes' context and every worker's context share (a worker
 * gets a copy of the context, so keying by the context itself would build a second reader and logo cache).
 */
const built = new WeakMap<object, BrandServices>();

/** The brand services of this runtime (built on first call). */
export function brandServicesOf(ctx: SliceContext): BrandServices {
  const existing = built.get(ctx.services);
  if (existing) return existing;
  const media = mediaLibraryOf(ctx);
  // Logo files are decoded, sanitised and rasterised in the render pool's threads, under its deadline.
  const rendering = rendererOf(ctx);
  const logos: LogoReader = {
    read: (bytes) => rendering.renderer().readLogo(bytes),
    renderable: (bytes) => rendering.renderer().renderableLogo(bytes),
  };
  const services: BrandServices = {
    reader: createBrandKitReader({ commands: ctx.commands, media: () => media, logos, logger: ctx.logger }),
    deps: {
      commands: ctx.commands,
      idempotency: ctx.idempotency,
      media,
      logos,
      storage: ctx.storage,
      outbound: ctx.options.outbound ?? {},
      logger: ctx.logger,
    },
  };
  built.set(ctx.services, services);
  return services;
}

/** The workspace brand kit as other slices read it: `get(orgId)` and `renderBrand(orgId)`. */
export function brandKitOf(ctx: SliceContext): BrandKitReader {
  return brandServicesOf(ctx).reader;
}
