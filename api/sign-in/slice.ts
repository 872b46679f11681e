// Signing in at the service in a browser (e-mail link, or the external identity provider), for the consent page.
import type { Kysely } from 'kysely';
import { signInSettings } from './settings.js';
import { createMailer, localMailboxMigrations, type Mailer } from '../../infra/mail/index.js';
import { provide } from '../shared/provider.js';
import { service } from '../shared/service.js';
import { migrationsOf, defineSlice } from '../shared/slice.js';
import { SignInLinks, signInLinkMigrations } from './links.js';
import { createOidcRoutes, oidcStartPath, providerName, type OidcSettings } from './oidc.js';
import { createSignInRoutes } from './routes.js';
import { browserSessionMigrations, browserSessions, buildBrowserSessions } from './sessions.js';

export { browserSessions } from './sessions.js';

/**
 * The mailer of this runtime, provided by the sign-in slice (SMTP when SMTP_URL is set, else the local mailbox):
 * sign-in links, invitations and notification e-mail go through the one instance.
 */
export const mailerService = service<Mailer>()('mailer');

export const signInSlice = defineSlice({
  name: 'sign-in',
  provides: [
    provide(mailerService, { build: (ctx) => createMailer(ctx.env, ctx.database.db as Kysely<unknown>) }),
    provide(browserSessions, { build: buildBrowserSessions }),
  ],
  migrations: migrationsOf(browserSessionMigrations, localMailboxMigrations, signInLinkMigrations),
  settings: [signInSettings],
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
    const sessions = ctx.use(browserSessions);
    return [
      createSignInRoutes({
        sessions,
        links: new SignInLinks(ctx.database.db as Kysely<unknown>),
        mailer: ctx.use(mailerService),
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
});
