// The media slice: the workspace's media library (uploads, imports, and what other slices store in it).
import { mediaProjection } from '../../projections/media/media-projection.js';
import type { Slice } from '../shared/slice.js';
import { mediaOperations } from './operations.js';

export const mediaSlice: Slice = {
  name: 'media',
  projections: [mediaProjection],
  operations: [mediaOperations],
};
