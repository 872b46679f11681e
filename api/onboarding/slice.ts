// The onboarding slice: a workspace's first-run status, derived from its real state (issue 13). No read model
// of its own: the facts come from other slices' read models (projections/onboarding/probes.ts), the chosen step
// from the workspace's onboarding stream. From a website (issue 27), it uses the brand profile's inference and the
// strategy's drafts.
import { defineSlice } from '../shared/slice.js';
import { onboardingFromWebsiteOperations, onboardingOperations } from './operations.js';
import { brandProfileServices } from '../brand-profile/services.js';
import { strategyDraftsService } from '../strategy/services.js';

export const onboardingSlice = defineSlice({
  name: 'onboarding',
  requires: [brandProfileServices, strategyDraftsService],
  operations: [onboardingOperations, onboardingFromWebsiteOperations],
});
