// The media slice: the workspace's media library (uploads, imports, and what other slices store in it).
import { mediaProjection } from '../../projections/media/media-projection.js';
import type { Slice } from '../shared/slice.js';
import { provide } from '../shared/provider.js';
import { mediaOperations } from './operations.js';
import { buildMediaServices, mediaServices } from './services.js';

export const mediaSlice: Slice = {
  name: 'media',
  projections: [mediaProjection],
  provides: [provide(mediaServices, { build: buildMediaServices })],
  operations: [mediaOperations],
};
