// The scheduler slice: the workspace's time zone and scheduling profile (the `scheduling` stream and its read
// model), ranked slots, suggested times and schedule coverage, and the suggest_slots tool. The best-slot finder
// behind approve and schedule (projections/scheduler/best-slot-finder.ts) reads the same profile and history.
import { schedulingProfilesProjection } from '../../projections/scheduler/scheduling-profiles-projection.js';
import type { Slice } from '../shared/slice.js';
import { schedulerOperations } from './operations.js';

export const schedulerSlice: Slice = {
  name: 'scheduler',
  projections: [schedulingProfilesProjection],
  operations: [schedulerOperations],
};
