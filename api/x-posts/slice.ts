// The X posts slice: deleting a post published on X.
import type { Slice } from '../shared/slice.js';
import { xPostOperations } from './operations.js';

export const xPostsSlice: Slice = {
  name: 'x-posts',
  operations: [xPostOperations],
};
