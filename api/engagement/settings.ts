// The engagement slice's environment variables (api/engagement/slice.ts).
import { z } from 'zod';
import { defineSettings, type SettingsOf } from '../../infra/config/env.js';

export const engagementEnvSettings = defineSettings({
  /**
   * How often each instance looks for workspaces whose reply inbox refreshes itself (engagement settings
   * `autoRefresh`) and is due; 0 turns the auto refresh off on this instance.
   */
  INBOX_AUTO_REFRESH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .refine((ms) => ms === 0 || (ms >= 1_000 && ms <= 3_600_000), 'must be 0 (off) or from 1000 to 3600000')
    .default(60_000),
  /**
   * How long a reply send's claim holds before another send may take it over (its sender is taken for crashed,
   * and the platform is asked whether the reply is there before sending again). Longer than a send can take.
   */
  INBOX_SEND_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000),
  /** How often a workspace with auto refresh on is refreshed (minutes). */
  INBOX_AUTO_REFRESH_EVERY_MINUTES: z.coerce.number().int().min(5).max(1440).default(30),
});

export type EngagementEnv = SettingsOf<typeof engagementEnvSettings>;
