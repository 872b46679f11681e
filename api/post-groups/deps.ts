// What the post-group and post use cases need, built from the route services: the post-group aggregate's
// dependencies (commands and the slot finder), the read models and the idempotency store.
import type { PostGroupDeps } from '../../commands/post-groups/post-group-commands.js';
import type { PostGroupUseCaseDeps } from '../../commands/post-groups/post-group-use-cases.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { PublishingEnv } from '../publishing/settings.js';
import type { AnyService } from '../shared/service.js';
import type { RouteServices } from '../shared/services.js';
import type { SliceContext } from '../shared/slice-context.js';

export function postGroupDeps(services: RouteServices): PostGroupDeps {
  return { ...services.commands, slotFinder: services.slotFinder };
}

/** What the post-group and post use cases need from the route services. */
export function postGroupUseCaseDeps(services: RouteServices): PostGroupUseCaseDeps {
  return {
    postGroups: postGroupDeps(services),
    readModels: services.readModels,
    idempotency: services.idempotency,
  };
}

/** The post-group and post operations' dependencies: the use cases' and how long post-now waits. */
export type PostOperationDeps = PostGroupUseCaseDeps & { postNowWaitMs: number };

/** POST_NOW_WAIT_MS is the publishing slice's setting; the post-groups slice lists it. */
export function postOperationDeps(
  ctx: SliceContext<AnyService, PlatformEnv & PublishingEnv>,
): PostOperationDeps {
  return { ...postGroupUseCaseDeps(ctx.services), postNowWaitMs: ctx.env.POST_NOW_WAIT_MS };
}
