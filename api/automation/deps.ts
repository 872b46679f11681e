// What the X automation's use cases and its nightly sweep need, built from the slice's context: the write path,
// the read models, the posts a run evaluates (published X posts with their latest metrics), and what a run does on
// X (the X connector's repost, the x-posts deletion, which needs the post groups' write path and slot finder).
import type { AutomationRunDeps } from '../../commands/automation/run-x-automation.js';
import { xAutomationEffects } from '../../commands/automation/x-automation-effects.js';
import type { XAutomationDeps } from '../../commands/automation/x-automation-use-cases.js';
import { xPostCandidates } from '../../projections/automation/queries.js';
import { postGroupDeps } from '../post-groups/deps.js';
import type { PublishingEnv } from '../publishing/settings.js';
import type { slotFinderService } from '../scheduling/services.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { SliceContext } from '../shared/slice-context.js';

export type AutomationContext = SliceContext<typeof slotFinderService, PlatformEnv & PublishingEnv>;

/** What a run needs: the write path, the posts it evaluates, the effects on X and the clock. */
export function automationRunDeps(ctx: AutomationContext, now?: () => Date): AutomationRunDeps {
  const { services } = ctx;
  return {
    commands: services.commands,
    candidates: (orgId, since) => xPostCandidates(services.readModels, orgId, since),
    effects: xAutomationEffects({
      postGroups: postGroupDeps(ctx),
      readModels: services.readModels,
      accounts: services.accounts,
      connectors: services.connectors,
      callTimeoutMs: ctx.env.PUBLISH_CALL_TIMEOUT_MS,
    }),
    now: now ?? services.now ?? (() => new Date()),
  };
}

export function xAutomationDeps(ctx: AutomationContext, now?: () => Date): XAutomationDeps {
  const { commands, ...runs } = automationRunDeps(ctx, now);
  return {
    commands,
    idempotency: ctx.services.idempotency,
    readModels: ctx.services.readModels,
    accounts: ctx.services.accounts,
    runs,
  };
}
