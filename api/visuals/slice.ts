// The branded-visuals slice (issue 15): renders images, carousels and app screenshots in the workspace's brand
// and stores them in the media library. It keeps no events or read models of its own: what it makes is media.
// It provides the render pool (the brand slice reads logos in its threads), closed when the runtime stops.
import { imageGenerationSettings } from '../../infra/image-generation/settings.js';
import { defineSlice } from '../shared/slice.js';
import { visualOperations } from './operations.js';
import { provide } from '../shared/provider.js';
import { buildRenderer, rendererService } from './renderer-of.js';
import { buildVisualsServices, visualsRequire, visualsServices } from './services.js';

export const visualsSlice = defineSlice({
  name: 'visuals',
  requires: visualsRequire,
  provides: [
    // The render pool: started by the first render (or logo read), its threads ended when the runtime stops.
    provide(rendererService, { build: buildRenderer, stop: (rendering) => rendering.close() }),
    provide(visualsServices, { requires: visualsRequire, build: buildVisualsServices }),
  ],
  operations: [visualOperations],
  settings: [imageGenerationSettings],
});
