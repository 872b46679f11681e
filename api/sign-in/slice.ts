// Signing in at the service in a browser (e-mail link, or the external identity provider), for the consent page.
import type { Kysely } from 'kysely';
import { signInSettings } from '../../infra/config/env.js';
import { createMailer, localMailboxMigrations, type Mailer } from '../../infra/mail/index.js';
import { migrationsOf, type Slice, type SliceContext } from '../shared/slice.js';
import { SignInLinks, signInLinkMigrations } from './links.js';
import { createOidcRoutes, oidcStartPath, providerName, type OidcSettings } from './oidc.js';
import { createSignInRoutes } from './routes.js';
import { browserSessionMigrations, browserSessionsOf } from './sessions.js';

export { browserSessionsOf } from './sessions.js';

const mailers = new WeakMap<SliceContext, Mailer>();

/** The mailer of this runtime: SMTP when SMTP_URL is set, else the local mailbox. */
export function mailerOf(ctx: SliceContext): Mailer {
  let mailer = mailers.get(ctx);
  if (!mailer) {
    mailer = createMailer(ctx.env, ctx.database.db as Kysely<unknown>);
    mailers.set(ctx, mailer);
  }
  return mailer;
}

export const signInSlice: Slice = {
  name: 'sign-in',
  migrations: migrationsOf(browserSessionMigrations, localMailboxMigrations, signInLinkMigrations),
  settings: signInSettings,
  routes: (ctx) => {
    const { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_PROVIDER_NAME } = ctx.env;
    const oidc: OidcSettings | null =
      OIDC_ISSUER && OIDC_CLIENT_ID
        ? {
            issuer: OIDC_ISSUER,
            clientId: OIDC_CLIENT_ID,
            clientSecret: OIDC_CLIENT_SECRET,
            name: OIDC_PROVIDER_NAME,
          }
        : null;
    const sessions = browserSessionsOf(ctx);
    return [
      createSignInRoutes({
        sessions,
        links: new SignInLinks(ctx.database.db as Kysely<unknown>),
        mailer: mailerOf(ctx),
        commands: ctx.commands,
        publicBaseUrl: ctx.publicBaseUrl,
        logger: ctx.logger,
        ...(oidc
          ? {
              provider: { name: providerName(oidc), startPath: oidcStartPath },
              extra: createOidcRoutes({
                settings: oidc,
                sessions,
                cipher: ctx.tokenCipher,
                commands: ctx.commands,
                publicBaseUrl: ctx.publicBaseUrl,
                logger: ctx.logger,
              }),
            }
          : {}),
      }),
    ];
  },
  workers: [
    {
      name: 'sign-in-purge',
      async start(ctx) {
        const links = new SignInLinks(ctx.database.db as Kysely<unknown>);
        const sweep = setInterval(() => {
          links.purge().catch((error: unknown) => ctx.logger.warn({ err: error }, 'sign-in purge failed'));
        }, 3_600_000);
        sweep.unref();
        return { stop: async () => clearInterval(sweep) };
      },
    },
  ],
};
