// The branded-visuals slice (issue 15): renders images, carousels and app screenshots in the workspace's brand
// and stores them in the media library. It keeps no events or read models of its own: what it makes is media.
// Its worker closes the renderer's thread pool when the runtime stops.
import { imageGenerationSettings } from '../../infra/config/env.js';
import type { Slice } from '../shared/slice.js';
import { visualOperations } from './operations.js';
import { visualsOf } from './services.js';

export const visualsSlice: Slice = {
  name: 'visuals',
  operations: [visualOperations],
  workers: [
    {
      name: 'visuals-renderer',
      // Nothing runs in the background; the renderer is started by the first render and stopped with the runtime.
      start: async (ctx) => {
        const visuals = visualsOf(ctx);
        return { stop: () => visuals.close() };
      },
    },
  ],
  settings: imageGenerationSettings,
};
