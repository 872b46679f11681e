// The onboarding slice: a workspace's first-run status, derived from its real state (issue 13).
import type { Slice } from '../shared/slice.js';

export const onboardingSlice: Slice = {
  name: 'onboarding',
};
