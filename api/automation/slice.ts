// The X automation slice (issue 28): rules for the workspace's own X posts (auto-repost, auto-delete) on one
// stream per workspace (domain/automation), its operations, the read model of rules and actions, the nightly
// sweep (at night in each workspace's time zone, once per night), and notifications of what automation did.
import { xAutomationNotificationRules } from '../../domain/automation/notification-rules.js';
import { xAutomationProjection } from '../../projections/automation/x-automation-projection.js';
import { effectiveTimezoneOf } from '../../projections/scheduling/queries.js';
import { NightlySweep } from '../../processes/automation/nightly-sweep.js';
import { notificationRules } from '../notifications/rules.js';
import { publishingSettings } from '../publishing/settings.js';
import { slotFinderService } from '../scheduling/services.js';
import { contribute } from '../shared/service.js';
import { defineSlice } from '../shared/slice.js';
import { automationRunDeps } from './deps.js';
import { xAutomationOperations } from './operations.js';
import { automationSettings } from './settings.js';

/** The worker whose running instance is the NightlySweep. */
export const X_AUTOMATION_SWEEP_WORKER = 'x-automation-sweep';

export const automationSlice = defineSlice({
  name: 'automation',
  // A run's platform calls time out like publishing calls (PUBLISH_CALL_TIMEOUT_MS).
  settings: [automationSettings, publishingSettings],
  projections: [xAutomationProjection],
  // Deleting a post goes through the post groups' write path, which holds the slot finder.
  requires: [slotFinderService],
  contributes: [contribute(notificationRules, xAutomationNotificationRules)],
  operations: [xAutomationOperations],
  workers: [
    {
      name: X_AUTOMATION_SWEEP_WORKER,
      async start(ctx) {
        if (ctx.env.AUTOMATION_SWEEP_INTERVAL_MS === 0) return undefined;
        const sweep = new NightlySweep({
          readModels: ctx.readModels,
          run: automationRunDeps(ctx),
          timezoneOf: (orgId) => effectiveTimezoneOf(ctx.readModels, orgId),
          logger: ctx.logger,
          intervalMs: ctx.env.AUTOMATION_SWEEP_INTERVAL_MS,
        });
        sweep.start();
        return sweep;
      },
    },
  ],
});
