// What the visuals slice's operations and worker share, built once per runtime: the renderer (one worker
// pool, started on first render and closed when the runtime stops), the image-generation provider, the media
// library renders are stored in, the brand kit they are drawn in, and the credits an AI background costs.
import type { VisualsDeps } from '../../commands/visuals/visuals-use-cases.js';
import { imageGenerationFromEnv } from '../../infra/image-generation/from-env.js';
import { billingServicesOf } from '../billing/services.js';
import { brandKitOf } from '../brand/services.js';
import { mediaLibraryOf } from '../media/services.js';
import { rendererOf } from './renderer-of.js';
import type { SliceContext } from '../shared/slice.js';

export interface VisualsServices {
  deps: VisualsDeps;
  /** Ends the renderer's threads, if it was started (the slice's worker calls it when the runtime stops). */
  close(): Promise<void>;
}

/** Keyed by the runtime's route services, which the routes' context and every worker's context share. */
const built = new WeakMap<object, VisualsServices>();

export function visualsOf(ctx: SliceContext): VisualsServices {
  const existing = built.get(ctx.services);
  if (existing) return existing;
  const billing = billingServicesOf(ctx);
  const cost = billing.catalog.actionCost('ai_background');
  let imageGeneration = imageGenerationFromEnv(ctx.env);
  if (imageGeneration && !cost) {
    ctx.logger.warn(
      'IMAGE_GENERATION_URL is set but the billing configuration has no ai_background credit cost; AI backgrounds are off',
    );
    imageGeneration = null;
  }
  const rendering = rendererOf(ctx);
  const deps: VisualsDeps = {
    idempotency: ctx.idempotency,
    renderer: () => rendering.renderer(),
    library: mediaLibraryOf(ctx),
    brandKit: brandKitOf(ctx),
    imageGeneration,
    credits: {
      withCredits: (input, call, options) => billing.credits.withCredits(input, call, options),
      aiBackgroundCost: cost?.credits ?? 0,
    },
    outbound: ctx.options.outbound,
    logger: ctx.logger,
  };
  const services: VisualsServices = {
    deps,
    close: () => rendering.close(),
  };
  built.set(ctx.services, services);
  return services;
}
