// The sign-in slice's environment variables (api/sign-in/slice.ts): mail and the external identity provider.
import { z } from 'zod';
import { defineSettings, optionalString, optionalUrl, type SettingsOf } from '../../infra/config/env.js';

/**
 * Signing in at the service in a browser (the sign-in slice, api/sign-in/slice.ts): how sign-in links are mailed,
 * and the external identity provider the sign-in page may offer.
 */
export const signInSettings = defineSettings(
  {
    /** `smtp://user:pass@host:587` or `smtps://…:465`; unset: mail goes to the local mailbox (`cli mail last`). */
    SMTP_URL: optionalString.pipe(
      z
        .string()
        .regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL')
        .optional(),
    ),
    /** The From address of the service's mail, e.g. `Social Publishing <no-reply@example.org>`. */
    MAIL_FROM: optionalString,
    /** An OpenID Connect issuer the sign-in page offers ("Sign in with …"); needs OIDC_CLIENT_ID. */
    OIDC_ISSUER: optionalUrl,
    OIDC_CLIENT_ID: optionalString,
    OIDC_CLIENT_SECRET: optionalString,
    /** The provider's name on the sign-in button; default: the issuer's host name. */
    OIDC_PROVIDER_NAME: optionalString,
  },
  (env, ctx) => {
    if (env.SMTP_URL && !env.MAIL_FROM)
      ctx.addIssue({ code: 'custom', path: ['MAIL_FROM'], message: 'is required when SMTP_URL is set' });
    if (env.OIDC_ISSUER && !env.OIDC_CLIENT_ID)
      ctx.addIssue({
        code: 'custom',
        path: ['OIDC_CLIENT_ID'],
        message: 'is required when OIDC_ISSUER is set',
      });
  },
);

export type SignInEnv = SettingsOf<typeof signInSettings>;
