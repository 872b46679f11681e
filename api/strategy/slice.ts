// The strategy slice (issue 27): the workspace's content strategy, versioned draft → active → superseded on
// `strategy-<orgId>`, its operations, the read model other slices ask (schedule coverage's targets, onboarding's
// strategy step), and generation through the `ai jobs` service with the `brand context`.
import { activeChannelTargets, strategyProbe } from '../../projections/strategy/queries.js';
import { strategiesProjection } from '../../projections/strategy/strategy-projection.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { onboardingProbes } from '../onboarding/probes.js';
import { coverageTargets } from '../scheduling/coverage-targets.js';
import { contribute } from '../shared/service.js';
import { defineSlice } from '../shared/slice.js';
import { strategyOperations } from './operations.js';
import { strategyDraftsProvider } from './services.js';

export const strategySlice = defineSlice({
  name: 'strategy',
  projections: [strategiesProjection],
  requires: [aiJobsService, brandContextService],
  // The drafts other slices save (onboarding from a website).
  provides: [strategyDraftsProvider],
  contributes: [
    contribute(onboardingProbes, strategyProbe),
    contribute(coverageTargets, activeChannelTargets),
  ],
  operations: [strategyOperations],
});
