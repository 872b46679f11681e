// What the post-group and post use cases need, built from a slice's context: the post-group aggregate's
// dependencies (commands and the slot finder the scheduling slice provides), the read models and the idempotency
// store. The post-groups and x-posts slices require the slot finder.
import type { PostGroupDeps } from '../../commands/post-groups/post-group-commands.js';
import type { PostGroupUseCaseDeps } from '../../commands/post-groups/post-group-use-cases.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { PublishingEnv } from '../publishing/settings.js';
import type { AnyService } from '../shared/service.js';
import { slotFinderService } from '../scheduling/services.js';
import type { SliceContext } from '../shared/slice-context.js';

/** A context whose slice requires the slot finder. */
type WithSlotFinder = Pick<SliceContext<typeof slotFinderService>, 'services' | 'use'>;

export function postGroupDeps(ctx: WithSlotFinder): PostGroupDeps {
  return { ...ctx.services.commands, slotFinder: ctx.use(slotFinderService) };
}

/** What the post-group and post use cases need from the context. */
export function postGroupUseCaseDeps(ctx: WithSlotFinder): PostGroupUseCaseDeps {
  return {
    postGroups: postGroupDeps(ctx),
    readModels: ctx.services.readModels,
    idempotency: ctx.services.idempotency,
  };
}

/** The post-group and post operations' dependencies: the use cases' and how long post-now waits. */
export type PostOperationDeps = PostGroupUseCaseDeps & { postNowWaitMs: number };

/** POST_NOW_WAIT_MS is the publishing slice's setting; the post-groups slice lists it. */
export function postOperationDeps(
  ctx: SliceContext<AnyService, PlatformEnv & PublishingEnv>,
): PostOperationDeps {
  return { ...postGroupUseCaseDeps(ctx), postNowWaitMs: ctx.env.POST_NOW_WAIT_MS };
}
