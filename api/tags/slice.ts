// The tags slice: a workspace's tags.
import { tagsProjection } from '../../projections/tags/tags-projection.js';
import type { Slice } from '../shared/slice.js';
import { tagOperations } from './operations.js';

export const tagsSlice: Slice = {
  name: 'tags',
  projections: [tagsProjection],
  operations: [tagOperations],
};
