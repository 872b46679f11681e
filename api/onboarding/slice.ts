// The onboarding slice: a workspace's first-run status, derived from its real state (issue 13). No read model
// of its own: the facts come from other slices' read models (projections/onboarding/probes.ts), the chosen step
// from the workspace's onboarding stream.
import { defineSlice } from '../shared/slice.js';
import { onboardingOperations } from './operations.js';

export const onboardingSlice = defineSlice({
  name: 'onboarding',
  operations: [onboardingOperations],
});
