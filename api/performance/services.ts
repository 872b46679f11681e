// What the performance slice offers other slices: a workspace's recent results (activity over the last days and
// its best post), which the home summary shows. Built once per runtime.
import {
  recentResultsOf,
  ZoneGuesses,
  type PerformanceReads,
} from '../../commands/performance/performance-use-cases.js';
import { provide } from '../shared/provider.js';
import { service } from '../shared/service.js';

export type { PerformanceReads };

export const performanceService = service<PerformanceReads>()('performance');

export function performanceProvider(now?: () => Date) {
  return provide(performanceService, {
    build: (ctx): PerformanceReads => {
      const deps = {
        readModels: ctx.readModels,
        now: now ?? ctx.services.now ?? (() => new Date()),
        zones: new ZoneGuesses(),
      };
      return { recentResults: (orgId, days) => recentResultsOf(deps, orgId, days) };
    },
  });
}
