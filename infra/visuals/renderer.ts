// The renderer port's implementations: `createRenderer` renders in a worker pool sized to the cores (the
// service uses it: a carousel never stalls the request thread); `inThreadRenderer` renders on the calling
// thread (the pool's workers use it, and tests that compare pixels). Both admit renders through a bounded queue.

// render.ts and logo-image.ts (satori, resvg, pdf-lib, jsdom) are loaded when first used: the service renders in
// the pool's threads and only puts a carousel's PDF together here, so a start loads none of them.
import { NotALogo } from '../brand/not-a-logo.js';
import type { Renderer } from './contract.js';
import { RenderPool, type RenderPoolOptions, type RenderTaskResult } from './pool.js';
import { RenderDeadlineExceeded, RenderQueue, type RenderQueueLimits } from './queue.js';

const render = () => import('./render.js');
const logoImage = () => import('../brand/logo-image.js');

export type RendererOptions = RenderPoolOptions & {
  /** Renders admitted at once per workspace and overall (default defaultRenderQueueLimits). */
  queue?: RenderQueueLimits;
};

/** A logo task's answer: NotALogo for a refusal, or for a file that ran past the deadline. */
function logoResult<K extends 'logo' | 'renderable-logo'>(
  kind: K,
  answer: Promise<RenderTaskResult>,
): Promise<Extract<RenderTaskResult, { kind: K }>> {
  return answer.then(
    (result) => {
      if (result.kind === 'not-a-logo') throw new NotALogo(result.message);
      if (result.kind !== kind) throw new Error('render pool answered the wrong kind');
      return result as Extract<RenderTaskResult, { kind: K }>;
    },
    (error: unknown) => {
      if (error instanceof RenderDeadlineExceeded)
        throw new NotALogo(
          `the file took longer than ${Math.round(error.deadlineMs / 1000)} s to read and was given up`,
        );
      throw error;
    },
  );
}

export function createRenderer(options: RendererOptions = {}): Renderer {
  const pool = new RenderPool(options);
  const queue = new RenderQueue(options.queue);
  return {
    admit: (workspace) => queue.admit(workspace),
    async image(request) {
      const result = await pool.run({ kind: 'image', request });
      if (result.kind !== 'image') throw new Error('render pool answered the wrong kind');
      return result.image;
    },
    async screenshot(request) {
      const result = await pool.run({ kind: 'screenshot', request });
      if (result.kind !== 'screenshot') throw new Error('render pool answered the wrong kind');
      return result.image;
    },
    async carousel(request) {
      // The slides are shared out over the threads (a 10-slide carousel renders on every core at once);
      // the PDF is put together from their page images, which only wraps bytes already compressed.
      const parts = Math.max(1, Math.min(pool.threads, Math.ceil(request.slides.length / 2)));
      const per = Math.ceil(request.slides.length / parts);
      const chunks = await Promise.all(
        Array.from({ length: parts }, async (_, k) => {
          const from = k * per;
          const to = Math.min(request.slides.length, from + per);
          const result = await pool.run({ kind: 'slides', request, from, to });
          if (result.kind !== 'slides') throw new Error('render pool answered the wrong kind');
          return result;
        }),
      );
      const slides = chunks.flatMap((c) => c.slides);
      const first = chunks[0]!;
      const pdf = request.pdf
        ? await (
            await render()
          ).carouselPdf(
            chunks.flatMap((c) => c.pages ?? []),
            first.width,
            first.height,
            request.title,
          )
        : null;
      return { slides, pdf };
    },
    readLogo: async (bytes) => (await logoResult('logo', pool.run({ kind: 'logo', bytes }))).file,
    renderableLogo: async (bytes) =>
      (await logoResult('renderable-logo', pool.run({ kind: 'renderable-logo', bytes }))).logo,
    close: () => pool.close(),
  };
}

export function inThreadRenderer(options: { queue?: RenderQueueLimits } = {}): Renderer {
  const queue = new RenderQueue(options.queue);
  return {
    admit: (workspace) => queue.admit(workspace),
    image: async (request) => (await render()).renderImage(request),
    screenshot: async (request) => (await render()).renderScreenshot(request),
    carousel: async (request) => (await render()).renderCarousel(request),
    readLogo: async (bytes) => (await logoImage()).readLogoFile(bytes),
    renderableLogo: async (bytes) => (await logoImage()).renderableLogo(bytes),
    close: async () => {},
  };
}
