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
import { defineSlice, migrationsOf } from '../shared/slice.js';
import { engagementMigrations } from '../../processes/engagement/migrations.js';
import { InboxAutoRefresher } from '../../processes/engagement/inbox-auto-refresh.js';
import { engagementAutoRefreshProjection } from '../../projections/engagement/auto-refresh-projection.js';
import { billingAccessService } from '../billing/access-middleware.js';
import { inboxDeps, inboxOperations } from './inbox-operations.js';
import { engagementOperations } from './operations.js';
import { engagementEnvSettings } from './settings.js';

/** The worker whose running instance is the InboxAutoRefresher. */
export const INBOX_AUTO_REFRESH_WORKER = 'inbox-auto-refresh';

export const engagementSlice = defineSlice({
  name: 'engagement',
  settings: [engagementEnvSettings],
  migrations: migrationsOf(engagementMigrations),
  projections: [dmConversationsProjection, inboxItemsProjection, engagementAutoRefreshProjection],
  requires: [aiJobsService, brandContextService, billingServices, billingAccessService],
  operations: [engagementOperations, inboxOperations],
  contributes: [contribute(notificationRules, inboxNotificationRules)],
  workers: [
    {
      name: INBOX_AUTO_REFRESH_WORKER,
      async start(ctx) {
        if (ctx.env.INBOX_AUTO_REFRESH_INTERVAL_MS === 0) return undefined;
        const access = ctx.use(billingAccessService);
        const refresher = new InboxAutoRefresher({
          deps: inboxDeps(ctx),
          db: ctx.readModels,
          mayPay: (orgId) =>
            access.check(orgId, 'paid').then(
              () => true,
              () => false,
            ),
          logger: ctx.logger,
          owner: ctx.owner,
          intervalMs: ctx.env.INBOX_AUTO_REFRESH_INTERVAL_MS,
          refreshEveryMs: ctx.env.INBOX_AUTO_REFRESH_EVERY_MINUTES * 60_000,
        });
        refresher.start();
        return refresher;
      },
    },
  ],
});
