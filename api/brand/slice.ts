// The brand slice (issue 15, part 1): the workspace's brand kit (`brandKit-<orgId>` streams, read from the
// stream: one small stream per workspace needs no read model), reading a website for kit candidates, and the
// get_brand_kit, find_brand_kit_on_website and update_brand_kit operations (routes and tools). The brand
// profile comes later.
import { defineSlice } from '../shared/slice.js';
import { mediaServices } from '../media/services.js';
import { provide } from '../shared/provider.js';
import { rendererService } from '../visuals/renderer-of.js';
import { brandOperations } from './operations.js';
import { brandServices, buildBrandServices } from './services.js';

export const brandSlice = defineSlice({
  name: 'brand',
  // Logos are read in the render pool's threads; the kit's logo is an asset of the media library.
  requires: [mediaServices, rendererService],
  provides: [
    provide(brandServices, { requires: [mediaServices, rendererService], build: buildBrandServices }),
  ],
  operations: [brandOperations],
});
