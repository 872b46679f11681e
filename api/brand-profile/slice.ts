// The brand-profile slice (issue 27): the workspace's brand profile (`brandProfile-<orgId>` streams, read from the
// stream), the preference signals learned from review (a read model of post-group events), the get, update and
// from-website operations, and the 'brand context' service prompts are grounded in.
import {
  brandProfileProbe,
  brandProfileStatusProjection,
} from '../../projections/brand-profile/brand-profile-status-projection.js';
import { preferenceSignalsProjection } from '../../projections/brand-profile/preference-signals-projection.js';
import { onboardingProbes } from '../onboarding/probes.js';
import { contribute } from '../shared/service.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { brandServices } from '../brand/services.js';
import { provide } from '../shared/provider.js';
import { defineSlice } from '../shared/slice.js';
import { brandProfileOperations } from './operations.js';
import { brandProfileServices, buildBrandContext, buildBrandProfileServices } from './services.js';

export const brandProfileSlice = defineSlice({
  name: 'brand-profile',
  requires: [brandServices, aiJobsService],
  projections: [brandProfileStatusProjection, preferenceSignalsProjection],
  // Onboarding's brand step: a profile detected, and confirmed.
  contributes: [contribute(onboardingProbes, brandProfileProbe)],
  provides: [
    provide(brandProfileServices, {
      requires: [brandServices, aiJobsService],
      build: buildBrandProfileServices,
    }),
    provide(brandContextService, { requires: [brandServices], build: buildBrandContext }),
  ],
  operations: [brandProfileOperations],
});
