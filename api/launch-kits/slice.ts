// The launch kits slice (issue 29): a kit per launch on `launchKit-<kitId>` (its copy written by the
// launch_kits.create job through the `ai jobs` service, its posts drafted into review through the post-groups'
// use cases, its day-by-day plan in the workspace's zone), its read model and its four operations.
import { launchKitsProjection } from '../../projections/launch-kits/launch-kits-projection.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { billingServices } from '../billing/services.js';
import { slotFinderService } from '../scheduling/services.js';
import { defineSlice } from '../shared/slice.js';
import { launchKitOperations } from './operations.js';

export const launchKitsSlice = defineSlice({
  name: 'launch-kits',
  projections: [launchKitsProjection],
  requires: [aiJobsService, brandContextService, billingServices, slotFinderService],
  operations: [launchKitOperations],
});
