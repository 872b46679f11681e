// Billing's environment variables, read by infra/billing (the payment provider factory) and declared by the
// billing slice (api/billing/slice.ts).
import { z } from 'zod';
import { defineSettings, optionalString, optionalUrl, type SettingsOf } from '../config/env.js';

/**
 * Billing (the billing slice, api/billing/slice.ts): where plans, packs and credit costs are configured, and
 * which payment provider takes payments.
 */
export const billingSettings = defineSettings(
  {
    /** The plans, credit packs, credit costs, trial and grace lengths (JSON); default: config/billing.json. */
    BILLING_CONFIG_FILE: optionalString,
    /** `sandbox` (the embedded default: payments simulated locally) or `paddle` (Paddle Billing). */
    BILLING_PROVIDER: z.enum(['sandbox', 'paddle']).default('sandbox'),
    /** Paddle Billing API key (`pdl_…`); required when BILLING_PROVIDER is paddle. */
    PADDLE_API_KEY: optionalString,
    /** The secret of the Paddle notification destination, for webhook signatures; required with paddle. */
    PADDLE_WEBHOOK_SECRET: optionalString,
    /** `sandbox` or `production` (Paddle's own environments). */
    PADDLE_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
    /** Overrides Paddle's API base URL (tests serve Paddle's documented responses locally). */
    PADDLE_API_URL: optionalUrl,
  },
  (env, ctx) => {
    if (env.BILLING_PROVIDER === 'paddle') {
      for (const name of ['PADDLE_API_KEY', 'PADDLE_WEBHOOK_SECRET'] as const)
        if (!env[name])
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: 'is required when BILLING_PROVIDER is paddle',
          });
    }
  },
);

export type BillingEnv = SettingsOf<typeof billingSettings>;
