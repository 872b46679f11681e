// The thoughts slice (issue 29): saved thoughts (event-sourced, `thought-<thoughtId>`), their read model (the list
// and the active thoughts every post writer is grounded in, projections/thoughts/queries.ts `activeThoughtBriefs`)
// and drafting posts from a thought through the `ai jobs` service into review, with an optional branded visual.
import { thoughtsProjection } from '../../projections/thoughts/thoughts-projection.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { billingServices } from '../billing/services.js';
import { slotFinderService } from '../scheduling/services.js';
import { defineSlice } from '../shared/slice.js';
import { visualsServices } from '../visuals/services.js';
import { thoughtOperations } from './operations.js';

export const thoughtsSlice = defineSlice({
  name: 'thoughts',
  projections: [thoughtsProjection],
  // Drafting creates post groups (the slot finder is the post-group use cases'), renders visuals and reads credits.
  requires: [aiJobsService, brandContextService, slotFinderService, visualsServices, billingServices],
  operations: [thoughtOperations],
});
