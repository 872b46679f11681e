// The post groups slice: post groups and their posts (operations.ts for groups, post-operations.ts for the posts),
// approvals, schedules and the slot finder's claims (projections/scheduling).
import { firstContentProbe } from '../../projections/post-groups/onboarding-probe.js';
import { postGroupNotificationRules } from '../../domain/post-groups/notification-rules.js';
import { notificationRules } from '../notifications/rules.js';
import { onboardingProbes } from '../onboarding/probes.js';
import { contribute } from '../shared/service.js';
import { postGroupsProjection } from '../../projections/post-groups/post-groups-projection.js';
import { slotClaimMigrations } from '../../projections/scheduling/migrations.js';
import { publishingSettings } from '../publishing/settings.js';
import { migrationsOf, defineSlice } from '../shared/slice.js';
import { postGroupOperations } from './operations.js';
import { postOperations } from './post-operations.js';
import { slotFinderService } from '../scheduling/services.js';

export const postGroupsSlice = defineSlice({
  name: 'post-groups',
  // How long post-now waits (POST_NOW_WAIT_MS) is the publishing slice's setting.
  settings: [publishingSettings],
  contributes: [
    contribute(onboardingProbes, firstContentProbe),
    contribute(notificationRules, postGroupNotificationRules),
  ],
  requires: [slotFinderService],
  migrations: migrationsOf(slotClaimMigrations),
  projections: [postGroupsProjection],
  operations: [postGroupOperations, postOperations],
});
