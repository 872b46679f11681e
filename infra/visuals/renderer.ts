// The renderer port's implementations: `createRenderer` renders in a worker pool sized to the cores (the
// service uses it: a carousel never stalls the request thread); `inThreadRenderer` renders on the calling
// thread (the pool's workers use it, and tests that compare pixels).

import type { Renderer } from './contract.js';
import { RenderPool, type RenderPoolOptions } from './pool.js';
import { renderCarousel, renderImage, renderScreenshot } from './render.js';

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
      const result = await pool.run({ kind: 'carousel', request });
      if (result.kind !== 'carousel') throw new Error('render pool answered the wrong kind');
      return { slides: result.slides, pdf: result.pdf };
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
