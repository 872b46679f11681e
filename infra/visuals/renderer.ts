// The renderer port's implementations: `createRenderer` renders in a worker pool sized to the cores (the
// service uses it: a carousel never stalls the request thread); `inThreadRenderer` renders on the calling
// thread (the pool's workers use it, and tests that compare pixels).

import type { Renderer } from './contract.js';
import { RenderPool, type RenderPoolOptions } from './pool.js';
import { carouselPdf, renderCarousel, renderImage, renderScreenshot } from './render.js';

export type RendererOptions = RenderPoolOptions;

export function createRenderer(options: RendererOptions = {}): Renderer {
  const pool = new RenderPool(options);
  return {
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
        ? await carouselPdf(
            chunks.flatMap((c) => c.pages ?? []),
            first.width,
            first.height,
            request.title,
          )
        : null;
      return { slides, pdf };
    },
    close: () => pool.close(),
  };
}

export function inThreadRenderer(): Renderer {
  return {
    image: renderImage,
    screenshot: renderScreenshot,
    carousel: renderCarousel,
    close: async () => {},
  };
}
