// What the visuals slice's operations use, provided once per runtime: the renderer (one worker pool, started on
// first render and closed when the runtime stops), the image-generation provider, the media library renders are
// stored in, the brand kit they are drawn in, and the credits an AI background costs.
import type { VisualsDeps } from '../../commands/visuals/visuals-use-cases.js';
import { imageGenerationFromEnv } from '../../infra/image-generation/from-env.js';
import { billingServices } from '../billing/services.js';
import { brandServices } from '../brand/services.js';
import { mediaServices } from '../media/services.js';
import { service } from '../shared/service.js';
import { rendererService } from './renderer-of.js';
import type { ImageGenerationEnv } from '../../infra/image-generation/settings.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { SliceContext } from '../shared/slice.js';

export interface VisualsServices {
  deps: VisualsDeps;
}

/** The visuals slice's services, provided once per runtime. */
export const visualsServices = service<VisualsServices>()('visuals');

/** What the visuals provider needs of other slices. */
export const visualsRequire = [billingServices, brandServices, mediaServices, rendererService] as const;

/** Builds the visuals slice's services (its provider). */
export function buildVisualsServices(
  ctx: SliceContext<(typeof visualsRequire)[number], PlatformEnv & ImageGenerationEnv>,
): VisualsServices {
  const billing = ctx.use(billingServices);
  const cost = billing.catalog.actionCost('ai_background');
  let imageGeneration = imageGenerationFromEnv(ctx.env);
  if (imageGeneration && !cost) {
    ctx.logger.warn(
      'IMAGE_GENERATION_URL is set but the billing configuration has no ai_background credit cost; AI backgrounds are off',
    );
    imageGeneration = null;
  }
  const rendering = ctx.use(rendererService);
  const deps: VisualsDeps = {
    idempotency: ctx.idempotency,
    renderer: () => rendering.renderer(),
    library: ctx.use(mediaServices).library,
    brandKit: ctx.use(brandServices).reader,
    imageGeneration,
    credits: {
      withCredits: (input, call, options) => billing.credits.withCredits(input, call, options),
      aiBackgroundCost: cost?.credits ?? 0,
    },
    outbound: ctx.options.outbound,
    logger: ctx.logger,
  };
  return { deps };
}
