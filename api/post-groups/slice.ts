// The post groups slice: post groups and their posts (operations.ts for groups, post-operations.ts for the posts),
// approvals, schedules and the slot finder's claims (projections/scheduling).
import { firstContentProbe } from '../../projections/post-groups/onboarding-probe.js';
import { onboardingProbes } from '../onboarding/probes.js';
import { contribute } from '../shared/service.js';
import { postGroupsProjection } from '../../projections/post-groups/post-groups-projection.js';
import { slotClaimMigrations } from '../../projections/scheduling/migrations.js';
import { migrationsOf, type Slice } from '../shared/slice.js';
import { postGroupOperations } from './operations.js';
import { postOperations } from './post-operations.js';

export const postGroupsSlice: Slice = {
  name: 'post-groups',
  contributes: [contribute(onboardingProbes, firstContentProbe)],
  migrations: migrationsOf(slotClaimMigrations),
  projections: [postGroupsProjection],
  operations: [postGroupOperations, postOperations],
};
