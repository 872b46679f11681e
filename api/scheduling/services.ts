// The best-slot finder (projections/scheduling/best-slot-finder.ts), provided by the scheduling slice: it reads the
// workspace's scheduling profile and posting history, and the post-group and X-post use cases place posts with it.
import type { SlotFinder } from '../../commands/post-groups/post-group-commands.js';
import { bestSlotFinder } from '../../projections/scheduling/best-slot-finder.js';
import { provide } from '../shared/provider.js';
import { service } from '../shared/service.js';

export const slotFinderService = service<SlotFinder>()('slot finder');

export const slotFinderProvider = provide(slotFinderService, {
  build: (ctx) => bestSlotFinder(ctx.readModels, { metrics: ctx.metrics }),
});
