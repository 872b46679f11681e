// What the strategy slice offers other slices: a generated draft strategy as part of their own use case
// (onboarding from a website saves "a draft content plan" without activating it). Built once per runtime.
import type { CommandMetadata } from '../../commands/shared/command-handler.js';
import { proposeStrategyDraft } from '../../commands/strategy/strategy-use-cases.js';
import type { StrategyView } from '../../domain/strategy/views.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { provide } from '../shared/provider.js';
import { service } from '../shared/service.js';

export interface StrategyDrafts {
  /**
   * Generates a draft (goal and the workspace's brand context, a model or the offline writer) and saves it without
   * activating it. The caller has authorised its own caller; `metadata` is its write's. The same
   * `idempotencyKey` decides the same draft again (nothing new).
   */
  propose(
    orgId: string,
    options: { goal: string | null; idempotencyKey?: string | null },
    metadata: CommandMetadata,
  ): Promise<StrategyView>;
}

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
