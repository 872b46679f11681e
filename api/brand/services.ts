// What the brand slice's operations and other slices share, built once per runtime: the brand kit use
// cases' dependencies and the reader other slices use (the visuals slice renders with
// `ctx.use(brandServices).reader.renderBrand(orgId)`).
import type { BrandKitReader } from '../../commands/brand/brand-kit-port.js';
import { createBrandKitReader } from '../../commands/brand/brand-kit-reader.js';
import type { BrandKitDeps } from '../../commands/brand/brand-kit-use-cases.js';
import type { LogoReader } from '../../infra/brand/logo-image.js';
import { mediaServices } from '../media/services.js';
import { service } from '../shared/service.js';
import { rendererService } from '../visuals/renderer-of.js';
import type { SliceContext } from '../shared/slice.js';

export interface BrandServices {
  reader: BrandKitReader;
  /** What the kit's use cases take (the slice's operations). */
  deps: BrandKitDeps;
}

/** The brand slice's services, provided once per runtime (the visuals slice renders with `reader`). */
export const brandServices = service<BrandServices>()('brand');

/** Builds the brand services of a runtime (the brand slice's provider; needs the media library and renderer). */
export function buildBrandServices(
  ctx: SliceContext<typeof mediaServices | typeof rendererService>,
): BrandServices {
  const media = ctx.use(mediaServices).library;
  // Logo files are decoded, sanitised and rasterised in the render pool's threads, under its deadline.
  const rendering = ctx.use(rendererService);
  const logos: LogoReader = {
    read: (bytes) => rendering.renderer().readLogo(bytes),
    renderable: (bytes) => rendering.renderer().renderableLogo(bytes),
  };
  return {
    reader: createBrandKitReader({ commands: ctx.commands, media: () => media, logos, logger: ctx.logger }),
    deps: {
      commands: ctx.commands,
      idempotency: ctx.idempotency,
      media,
      logos,
      storage: ctx.storage,
      outbound: ctx.options.outbound ?? {},
      ...(ctx.options.fetchTimeoutMs ? { fetchTimeoutMs: ctx.options.fetchTimeoutMs } : {}),
      logger: ctx.logger,
    },
  };
}
