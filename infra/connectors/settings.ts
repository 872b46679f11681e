// The platform connectors' environment variables, read by the connector registry and the live connectors of this
// folder and declared by the social accounts slice (api/social-accounts/slice.ts).
import { z } from 'zod';
import { defineSettings, optionalString, type SettingsOf } from '../config/env.js';

/**
 * Platform connectors, their credentials and the sandbox (the social accounts slice,
 * api/social-accounts/slice.ts).
 */
export const socialAccountSettings = defineSettings({
  /** `sandbox` (default): every platform is simulated locally; `live`: the real platform APIs below. */
  PLATFORM_MODE: z.enum(['sandbox', 'live']).default('sandbox'),
  /** Platforms that stay in the sandbox when PLATFORM_MODE=live (comma-separated platform values). */
  SANDBOX_PLATFORMS: optionalString,
  X_CLIENT_ID: optionalString,
  X_CLIENT_SECRET: optionalString,
  LINKEDIN_CLIENT_ID: optionalString,
  LINKEDIN_CLIENT_SECRET: optionalString,
  /** LinkedIn's `LinkedIn-Version` header (YYYYMM); LinkedIn retires versions after a year. */
  LINKEDIN_API_VERSION: z
    .string()
    .regex(/^\d{6}$/, 'must be YYYYMM, e.g. 202611')
    .default('202611'),
  FACEBOOK_APP_ID: optionalString,
  FACEBOOK_APP_SECRET: optionalString,
  INSTAGRAM_APP_ID: optionalString,
  INSTAGRAM_APP_SECRET: optionalString,
  THREADS_APP_ID: optionalString,
  THREADS_APP_SECRET: optionalString,
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  TIKTOK_CLIENT_KEY: optionalString,
  TIKTOK_CLIENT_SECRET: optionalString,
  REDDIT_CLIENT_ID: optionalString,
  REDDIT_CLIENT_SECRET: optionalString,
  REDDIT_USER_AGENT: optionalString,
  /** Sandbox faults for a share of calls, e.g. `fail=0.2,timeout=0.05,pending=0.3` (also set at run time by the CLI). */
  SANDBOX_FAULTS: optionalString,
  /** How long a sandbox publish answered "pending" stays pending. */
  SANDBOX_PENDING_MS: z.coerce.number().int().min(0).max(3_600_000).default(1500),
});

export type SocialAccountEnv = SettingsOf<typeof socialAccountSettings>;
