// The X automation slice's environment variables (api/automation/slice.ts).
import { z } from 'zod';
import { defineSettings, type SettingsOf } from '../../infra/config/env.js';

export const automationSettings = defineSettings({
  /**
   * How often each instance looks for workspaces whose night has come (their time zone) and whose rules have not
   * run that night; 0 turns the nightly sweep off on this instance.
   */
  AUTOMATION_SWEEP_INTERVAL_MS: z.coerce
    .number()
    .int()
    .refine((ms) => ms === 0 || (ms >= 1_000 && ms <= 3_600_000), 'must be 0 (off) or from 1000 to 3600000')
    .default(300_000),
});

export type AutomationEnv = SettingsOf<typeof automationSettings>;
