// The home slice (issue 28): GET ORG/home, the summary the app's home screen and assistants start from, read from
// the post read models, the performance slice's recent results and the billing slice's credit ledger.
import { billingServices } from '../billing/services.js';
import { performanceService } from '../performance/services.js';
import { defineSlice } from '../shared/slice.js';
import { homeOperations } from './operations.js';

export interface HomeSliceOptions {
  /** The clock of "scheduled next"; tests fix it. */
  now?: () => Date;
}

export function createHomeSlice(options: HomeSliceOptions = {}) {
  return defineSlice({
    name: 'home',
    requires: [performanceService, billingServices],
    operations: [homeOperations(options.now)],
  });
}

export const homeSlice = createHomeSlice();
