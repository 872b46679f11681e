// The social accounts slice: connected platform accounts and their tokens, OAuth (with the Bluesky OAuth
// stores), the sandbox platforms' pages and state, and the token refresher.
import { socialAccountsProbe } from '../../projections/social-accounts/onboarding-probe.js';
import { socialAccountNotificationRules } from '../../domain/social-accounts/notification-rules.js';
import { notificationRules } from '../notifications/rules.js';
import { onboardingProbes } from '../onboarding/probes.js';
import { contribute } from '../shared/service.js';
import { socialAccountSettings } from '../../infra/connectors/settings.js';
import { blueskyOAuthMigrations } from '../../infra/connectors/bluesky/oauth-stores.js';
import { sandboxPlatforms } from '../../infra/connectors/registry.js';
import { sandboxMigrations } from '../../infra/connectors/sandbox/migrations.js';
import { oauthStateMigrations } from '../../infra/social-accounts/oauth-state-store.js';
import { socialAccountTokenMigrations } from '../../infra/social-accounts/token-store.js';
import { socialAccountsProjection } from '../../projections/social-accounts/social-accounts-projection.js';
import { TokenRefresher } from '../../processes/social-accounts/token-refresher.js';
import type { RouteInstaller } from '../platform/app-env.js';
import { createSandboxRoutes } from '../sandbox/routes.js';
import { migrationsOf, defineSlice } from '../shared/slice.js';
import { oauthRoutes } from './oauth-routes.js';
import { socialAccountOperations } from './operations.js';

export const socialAccountsSlice = defineSlice({
  name: 'social-accounts',
  contributes: [
    contribute(onboardingProbes, socialAccountsProbe),
    contribute(notificationRules, socialAccountNotificationRules),
  ],
  migrations: migrationsOf(
    sandboxMigrations,
    socialAccountTokenMigrations,
    oauthStateMigrations,
    blueskyOAuthMigrations,
  ),
  projections: [socialAccountsProjection],
  settings: [socialAccountSettings],
  operations: [socialAccountOperations],
  // What an operation cannot be: oauth/start's cookie, the public OAuth redirects, callbacks and pages.
  routes: ({ services, database, env, publicBaseUrl }) => {
    const sandbox: RouteInstaller = (app) =>
      void app.route(
        '/',
        createSandboxRoutes({ db: database.db, publicBaseUrl, sandboxPlatforms: sandboxPlatforms(env) }),
      );
    return [oauthRoutes(services), sandbox];
  },
  workers: [
    {
      name: 'token-refresher',
      async start({ readModels, tokenCipher, commands, connectors, logger }) {
        const refresher = new TokenRefresher({ db: readModels, tokenCipher, commands, connectors, logger });
        await refresher.start();
        return refresher;
      },
    },
  ],
});
