// The scheduling slice: the workspace's time zone and scheduling profile (the `scheduling` stream and its read
// model), ranked slots, suggested times and schedule coverage, and the suggest_slots tool. The best-slot finder
// behind approve and schedule (projections/scheduling/best-slot-finder.ts) reads the same profile and history.
import { schedulingProfilesProjection } from '../../projections/scheduling/scheduling-profiles-projection.js';
import { defineSlice } from '../shared/slice.js';
import { schedulingOperations } from './operations.js';
import { slotFinderProvider } from './services.js';

export const schedulingSlice = defineSlice({
  name: 'scheduling',
  projections: [schedulingProfilesProjection],
  provides: [slotFinderProvider],
  operations: [schedulingOperations],
});
