// The engagement slice (issue 30, part 1): the workspace's engagement settings (`engagementSettings-<orgId>`) and
// tracked X direct-message conversations (`dmConversation-<id>`, listed from the dm_conversations read model),
// drafting the next message through the `ai jobs` service with the `brand context`. The reply inbox comes later.
import { dmConversationsProjection } from '../../projections/engagement/dm-conversations-projection.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { defineSlice } from '../shared/slice.js';
import { engagementOperations } from './operations.js';

export const engagementSlice = defineSlice({
  name: 'engagement',
  projections: [dmConversationsProjection],
  requires: [aiJobsService, brandContextService],
  operations: [engagementOperations],
});
