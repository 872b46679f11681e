// The performance slice (issue 28): the performance summary and top posts (spec part 1, "Analytics") from read
// models of its own, folded from post-group events and post metrics readings (projections/performance), with the
// audience from the analytics slice's 'audience' service; and the recent results the home summary shows.
import { performanceProjection } from '../../projections/performance/performance-projection.js';
import { audienceService } from '../analytics/services.js';
import { defineSlice } from '../shared/slice.js';
import { performanceOperations } from './operations.js';
import { performanceProvider } from './services.js';

export interface PerformanceSliceOptions {
  /** The clock the windows end at; tests fix it. */
  now?: () => Date;
}

export function createPerformanceSlice(options: PerformanceSliceOptions = {}) {
  return defineSlice({
    name: 'performance',
    projections: [performanceProjection],
    requires: [audienceService],
    provides: [performanceProvider(options.now)],
    operations: [performanceOperations(options.now)],
  });
}

export const performanceSlice = createPerformanceSlice();
