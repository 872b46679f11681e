// What the post-group and post use cases need, built from the route services: the post-group aggregate's
// dependencies (commands and the slot finder), the read models and the idempotency store.
import type { PostGroupDeps } from '../../commands/post-groups/post-group-commands.js';
import type { PostGroupUseCaseDeps } from '../../commands/post-groups/post-group-use-cases.js';
import type { RouteServices } from '../shared/services.js';

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

export function postOperationDeps(services: RouteServices): PostOperationDeps {
  return { ...postGroupUseCaseDeps(services), postNowWaitMs: services.env.POST_NOW_WAIT_MS };
}
