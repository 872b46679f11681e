// The analytics slice's environment variables for reading post metrics: the refresh's fair use
// (commands/analytics/refresh-analytics.ts).
import { z } from 'zod';
import { defineSettings, type SettingsOf } from '../../infra/config/env.js';

export const metricsSettings = defineSettings({
  /** `POST ORG/marketing/analytics/refresh` calls a workspace may make per clock hour; more answer 429. */
  ANALYTICS_REFRESH_CALLS_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(12),
  /**
   * Posts the refreshes of one workspace may read per clock hour, all calls together; posts beyond it are
   * skipped (`skippedFairUse`) and read on the metrics cadence as usual.
   */
  ANALYTICS_REFRESH_POSTS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
});

export type MetricsEnv = SettingsOf<typeof metricsSettings>;
