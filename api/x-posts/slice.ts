// The X posts slice: deleting a post published on X.
import { defineSlice } from '../shared/slice.js';
import { slotFinderService } from '../scheduling/services.js';
import { xPostOperations } from './operations.js';

export const xPostsSlice = defineSlice({
  name: 'x-posts',
  requires: [slotFinderService],
  operations: [xPostOperations],
});
