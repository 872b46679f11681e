// The scheduler slice: the workspace's time zone and scheduling profile (the `scheduling` stream and its read
// model), ranked slots, suggested times and schedule coverage, and the suggest_slots tool. The best-slot finder
// behind approve and schedule (projections/scheduler/best-slot-finder.ts) reads the same profile and history.
import type { SchedulerDeps } from '../../commands/scheduler/scheduler-use-cases.js';
import { historySourceOf } from '../../projections/scheduler/best-slot-finder.js';
import { schedulingProfilesProjection } from '../../projections/scheduler/scheduling-profiles-projection.js';
import type { RouteServices } from '../shared/services.js';
import type { Slice } from '../shared/slice.js';
import { schedulerRoutes } from './routes.js';
import { schedulerTools } from './tools.js';

function schedulerDeps(services: RouteServices): SchedulerDeps & { now?: () => Date } {
  return { ...services, history: historySourceOf(services.readModels) };
}

export const schedulerSlice: Slice = {
  name: 'scheduler',
  projections: [schedulingProfilesProjection],
  routes: ({ services }) => [schedulerRoutes(schedulerDeps(services))],
  tools: ({ services }) => schedulerTools(schedulerDeps(services)),
};
