// The auth slice's environment variables (api/auth/slice.ts): tokens and identity providers.
import { z } from 'zod';
import { defineSettings, optionalString, optionalUrl, type SettingsOf } from '../../infra/config/env.js';

/** Tokens and identity providers (the auth slice, api/auth/slice.ts). */
export const authSettings = defineSettings(
  {
    AUTH_MODE: z.enum(['local', 'jwks']).default('local'),
    AUTH_SIGNING_KEY: optionalString,
    AUTH_ISSUER: z.string().min(1).optional(),
    AUTH_AUDIENCE: z.string().min(1).optional(),
    AUTH_JWKS_URL: optionalUrl,
    ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
    /** A session (a sign-in and every token exchanged from it) ends this long after it began: 24 hours. */
    SESSION_MAX_AGE_SECONDS: z.coerce.number().int().min(300).max(2_592_000).default(86_400),
  },
  (env, ctx) => {
    if (env.AUTH_MODE === 'jwks') {
      for (const key of ['AUTH_JWKS_URL', 'AUTH_ISSUER', 'AUTH_AUDIENCE'] as const) {
        if (!env[key])
          ctx.addIssue({ code: 'custom', path: [key], message: 'is required when AUTH_MODE=jwks' });
      }
    }
  },
);

export type AuthEnv = SettingsOf<typeof authSettings>;
