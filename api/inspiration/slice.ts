// The inspiration slice (issue 31, part 2): saved posts of X and LinkedIn (event-sourced, `inspiration-<itemId>`),
// their analysis and drafts through the `ai jobs` service, their read model read against the strategy (the
// projection also folds the strategy's events), and the opportunities (Tool: list_inspiration_opportunities).
import { inspirationProjection } from '../../projections/inspiration/inspiration-projection.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { billingServices } from '../billing/services.js';
import { slotFinderService } from '../scheduling/services.js';
import { defineSlice } from '../shared/slice.js';
import { inspirationOperations } from './operations.js';

export const inspirationSlice = defineSlice({
  name: 'inspiration',
  projections: [inspirationProjection],
  // Drafts go to review through the post-group use cases (the slot finder is theirs); X reads and models charge.
  requires: [aiJobsService, brandContextService, slotFinderService, billingServices],
  operations: [inspirationOperations],
});
