// What the strategy slice offers other slices: a generated draft strategy as part of their own use case
// (onboarding from a website saves "a draft content plan" without activating it). Built once per runtime.
import { proposeStrategyDraft, type StrategyDrafts } from '../../commands/strategy/strategy-use-cases.js';

export type { StrategyDrafts };
import { aiJobsService, brandContextService } from '../ai/services.js';
import { provide } from '../shared/provider.js';
import { service } from '../shared/service.js';

export const strategyDraftsService = service<StrategyDrafts>()('strategy drafts');

export const strategyDraftsProvider = provide(strategyDraftsService, {
  requires: [aiJobsService, brandContextService],
  build: (ctx): StrategyDrafts => {
    const deps = {
      commands: ctx.commands,
      readModels: ctx.readModels,
      aiJobs: ctx.use(aiJobsService),
      brandContext: ctx.use(brandContextService),
    };
    return {
      propose: (orgId, options, metadata) => proposeStrategyDraft(deps, { orgId, ...options }, metadata),
    };
  },
});
