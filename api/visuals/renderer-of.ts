// The runtime's one render pool, shared by the visuals slice (renders) and the brand slice (logo files are read,
// sanitised and rasterised in its threads, never on the request thread): started on first use, closed with the
// runtime by the visuals slice's worker.
import { availableParallelism } from 'node:os';
import type { Renderer } from '../../infra/visuals/contract.js';
import { createRenderer } from '../../infra/visuals/renderer.js';
import type { SliceContext } from '../shared/slice.js';

export interface RendererService {
  /** The renderer (its pool is started by this first call). */
  renderer(): Renderer;
  /** Ends the pool's threads, if it was started. */
  close(): Promise<void>;
}

/** Keyed by the runtime's route services, which the routes' context and every worker's context share. */
const built = new WeakMap<object, RendererService>();

export function rendererOf(ctx: SliceContext): RendererService {
  const existing = built.get(ctx.services);
  if (existing) return existing;
  let renderer: Renderer | null = null;
  const service: RendererService = {
    renderer: () =>
      (renderer ??= createRenderer({
        threads: ctx.env.RENDER_THREADS ?? Math.max(1, availableParallelism() - 1),
        taskDeadlineMs: ctx.env.RENDER_TIMEOUT_SECONDS * 1000,
        queue: { perWorkspace: ctx.env.RENDER_QUEUE_PER_WORKSPACE, overall: ctx.env.RENDER_QUEUE_TOTAL },
        onThreadError: (error) => ctx.logger.warn({ err: error }, 'a render thread was lost between tasks'),
      })),
    async close() {
      const running = renderer;
      renderer = null;
      await running?.close();
    },
  };
  built.set(ctx.services, service);
  return service;
}
