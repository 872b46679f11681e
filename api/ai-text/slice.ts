// The ai-text slice (issue 29): AI text (generate, summarize) and the two post tools that write with AI,
// rewrite_post and create_x_thread. It owns no events or read models: its jobs run through the 'ai jobs' service,
// grounded in the 'brand context', and its posts are written by the post-group use cases.
import { aiJobsService, brandContextService } from '../ai/services.js';
import { billingServices } from '../billing/services.js';
import { slotFinderService } from '../scheduling/services.js';
import { defineSlice } from '../shared/slice.js';
import { aiTextOperations } from './operations.js';

export const aiTextSlice = defineSlice({
  name: 'ai-text',
  requires: [aiJobsService, brandContextService, billingServices, slotFinderService],
  operations: [aiTextOperations],
});
