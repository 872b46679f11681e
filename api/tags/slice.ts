// The tags slice: a workspace's tags.
import { tagsProjection } from '../../projections/tags/tags-projection.js';
import { defineSlice } from '../shared/slice.js';
import { tagOperations } from './operations.js';

export const tagsSlice = defineSlice({
  name: 'tags',
  projections: [tagsProjection],
  operations: [tagOperations],
});
