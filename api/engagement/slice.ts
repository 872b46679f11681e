// The engagement slice (issue 30, part 1): the workspace's engagement settings (`engagementSettings-<orgId>`) and
// tracked X direct-message conversations (`dmConversation-<id>`, listed from the dm_conversations read model),
// drafting the next message through the `ai jobs` service with the `brand context`; and the reply inbox
// (`inboxItem-<id>`, listed from the inbox_items read model): refresh through the connectors, drafts, send.
import { dmConversationsProjection } from '../../projections/engagement/dm-conversations-projection.js';
import { inboxItemsProjection } from '../../projections/engagement/inbox-projection.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { inboxNotificationRules } from '../../domain/engagement/notification-rules.js';
import { billingServices } from '../billing/services.js';
import { notificationRules } from '../notifications/rules.js';
import { contribute } from '../shared/service.js';
import { defineSlice } from '../shared/slice.js';
import { inboxOperations } from './inbox-operations.js';
import { engagementOperations } from './operations.js';

export const engagementSlice = defineSlice({
  name: 'engagement',
  projections: [dmConversationsProjection, inboxItemsProjection],
  requires: [aiJobsService, brandContextService, billingServices],
  operations: [engagementOperations, inboxOperations],
  contributes: [contribute(notificationRules, inboxNotificationRules)],
});
