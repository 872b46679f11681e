// The runtime's one render pool, shared by the visuals slice (renders) and the brand slice (logo files are read,
// sanitised and rasterised in its threads, never on the request thread): provided by the visuals slice, started
// on first use, closed when the runtime stops.
import { availableParallelism } from 'node:os';
import type { RenderMetrics } from '../../infra/metrics/metrics.js';
import type { Renderer } from '../../infra/visuals/contract.js';
import { createRenderer } from '../../infra/visuals/renderer.js';
import { service } from '../shared/service.js';
import type { ImageGenerationEnv } from '../../infra/image-generation/settings.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { SliceContext } from '../shared/slice.js';

export interface RendererService {
  /** The renderer (its pool is started by this first call). */
  renderer(): Renderer;
  /** Ends the pool's threads, if it was started. */
  close(): Promise<void>;
}

/** The runtime's render pool, provided by the visuals slice (closed when the runtime stops). */
export const rendererService = service<RendererService>()('renderer');

/** The renderer with each render timed (`visual_render_duration_seconds`, by kind and outcome). */
function timedRenders(renderer: Renderer, metrics: RenderMetrics): Renderer {
  const timed =
    <A extends unknown[], R>(kind: string, render: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      let outcome: 'ok' | 'error' = 'error';
      try {
        const result = await render(...args);
        outcome = 'ok';
        return result;
      } finally {
        metrics.render(kind, outcome, (performance.now() - started) / 1000);
      }
    };
  return {
    image: timed('image', (request) => renderer.image(request)),
    carousel: timed('carousel', (request) => renderer.carousel(request)),
    screenshot: timed('screenshot', (request) => renderer.screenshot(request)),
    admit: (workspace) => renderer.admit(workspace),
    readLogo: (bytes) => renderer.readLogo(bytes),
    renderableLogo: (bytes) => renderer.renderableLogo(bytes),
    close: () => renderer.close(),
  };
}

/** Builds the render pool's handle (its threads start on the first render). */
export function buildRenderer(ctx: SliceContext<never, PlatformEnv & ImageGenerationEnv>): RendererService {
  let renderer: Renderer | null = null;
  const handle: RendererService = {
    renderer: () =>
      (renderer ??= timedRenders(
        createRenderer({
          threads: ctx.env.RENDER_THREADS ?? Math.max(1, availableParallelism() - 1),
          taskDeadlineMs: ctx.env.RENDER_TIMEOUT_SECONDS * 1000,
          queue: { perWorkspace: ctx.env.RENDER_QUEUE_PER_WORKSPACE, overall: ctx.env.RENDER_QUEUE_TOTAL },
          onThreadError: (error) => ctx.logger.warn({ err: error }, 'a render thread was lost between tasks'),
        }),
        ctx.metrics,
      )),
    async close() {
      const running = renderer;
      renderer = null;
      await running?.close();
    },
  };
  return handle;
}
