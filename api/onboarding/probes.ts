// The onboarding slice's extension point: each slice that knows an onboarding fact contributes its probe
// (projections/<slice>/onboarding-probe.ts) in its slice module; the onboarding operations read them all.
import type { OnboardingProbe } from '../../projections/onboarding/probes.js';
import { extensionPoint } from '../shared/service.js';

export const onboardingProbes = extensionPoint<OnboardingProbe>('onboarding probes');
