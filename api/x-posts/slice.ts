// The X posts slice: deleting a post published on X, and reading posts and conversations on X (paid).
import { billingServices } from '../billing/services.js';
import { defineSlice } from '../shared/slice.js';
import { slotFinderService } from '../scheduling/services.js';
import { xPostOperations } from './operations.js';

export const xPostsSlice = defineSlice({
  name: 'x-posts',
  requires: [slotFinderService, billingServices],
  operations: [xPostOperations],
});
